"""The Python SDK from a bot author's side: real processes, a real referee, no mocks."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from bots.helpers import alive_processes_in_group

from arena.bots import load_bot
from arena.bots.samples import sample_bots_dir
from arena.engine import Game, random_legal_action, replay, view
from arena.referee.match import Match, MatchPlan, Referee
from arena.referee.result import GameResult
from arena.referee.table import Table, TableSettings
from arena.wire.jsonlines import answer_fields, match_over_line, request_line
from arena.wire.seat import Request
from arena.wire.values import action_of

REPO = Path(__file__).resolve().parents[2]
FAST = TableSettings(decision_ms=200, overage_ms=300, join_timeout_s=3)
PLAIN_BOT = "from arena.sdk import Bot, run\nrun(Bot())\n"


def bot_env(**arena: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env.update(arena)
    return env


def check_one_line_failure(code: int | None, stderr: str) -> str:
    assert code not in (0, None)
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.mark.timeout(60)
def test_run_without_environment_exits_with_one_line() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PLAIN_BOT],
        env=bot_env(),
        capture_output=True,
        text=True,
        timeout=30,
    )
    line = check_one_line_failure(done.returncode, done.stderr)
    assert line == "[python-bot] ARENA_ADDRESS and ARENA_TOKEN must be set (the arena sets them)"
    assert done.stdout == ""


async def run_bot_against(address_of: str | None, token: str) -> tuple[int | None, str]:
    """Run the plain SDK bot as a process against a live referee (or ``address_of``)."""
    async with Referee() as referee:
        env = bot_env(ARENA_ADDRESS=address_of or referee.address, ARENA_TOKEN=token)
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            PLAIN_BOT,
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        _, stderr = await asyncio.wait_for(process.communicate(), 30)
        return process.returncode, stderr.decode()


@pytest.mark.timeout(60)
def test_wrong_token_prints_refused_and_exits_2() -> None:
    code, stderr = asyncio.run(run_bot_against(None, "not-a-seat-token"))
    line = check_one_line_failure(code, stderr)
    assert code == 2
    assert line == (
        "[python-bot] the referee refused this bot: UNAUTHENTICATED: unknown seat token"
    )


@pytest.mark.timeout(60)
def test_unreachable_referee_prints_one_line_and_exits_2(tmp_path: Path) -> None:
    address = f"unix:{tmp_path}/nobody-listens.sock"
    code, stderr = asyncio.run(run_bot_against(address, "any-token"))
    line = check_one_line_failure(code, stderr)
    assert code == 2
    refused = "[python-bot] the referee refused this bot"
    assert line == f"{refused}: cannot reach the referee at {address}"


MINIMAL_BOT = '''\
"""A complete bot: bids on a long suit, and otherwise the SDK's legal defaults."""

from arena.sdk import Bot, Decision, run


class Minimal(Bot):
    name = "minimal"

    def bid(self, decision: Decision):
        suits = [card.suit for card in decision.hand if card.suit is not None]
        longest = max((suits.count(s) for s in suits), default=0)
        legal = decision.legal
        return legal[1] if longest >= 3 and len(legal) > 1 else legal[0]


if __name__ == "__main__":
    run(Minimal())
'''


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_twenty_line_bot_plays_a_full_game(tmp_path: Path) -> None:
    """The README's claim: a complete bot fits in 20 lines, and plays legally."""
    bot_dir = tmp_path / "minimal"
    bot_dir.mkdir()
    (bot_dir / "bot.py").write_text(MINIMAL_BOT)
    (bot_dir / "bot.toml").write_text('name = "minimal"\ncommand = ["python3", "bot.py"]\n')
    assert len(MINIMAL_BOT.splitlines()) <= 20
    minimal = load_bot(bot_dir)
    entrants = (minimal, load_bot(sample_bots_dir() / "greedy"), minimal)
    plan = MatchPlan(
        "sdk-minimal", entrants, seeds=[11], log_dir=tmp_path / "logs", settings=FAST, sandbox=False
    )
    reports: list[GameResult] = []

    async def main() -> tuple[Match, Table]:
        async with Referee() as referee:
            match = Match(referee, plan)
            return match, await match.play(on_game=reports.append)

    match, table = asyncio.run(main())
    assert table.faults == []
    (report,) = reports
    assert report.faults == ()
    game = replay(report.record)
    assert game.outcome is not None and game.outcome.winner == report.winner
    for seat in (0, 2, 3, 5):  # the minimal bot's seats
        assert match.links[seat].bot_name == "minimal"
        assert report.seats[seat].decisions > 0
        assert report.seats[seat].faults == 0
    played = [d for d in report.record["deals"] if not d["thrown_in"]]
    assert any(d["bidder"] % 3 != 1 for d in played), "the minimal bot never won a bid"
    for process in match.processes:
        assert process is not None and alive_processes_in_group(process.pid) == []
    for seat in (0, 2):
        log = (tmp_path / "logs" / f"seat{seat}.log").read_text()
        assert "Traceback" not in log and "fault" not in log


GRPC_SEES = """
import importlib.abc, os, sys

class Watch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "grpc":
            print(os.environ.get("GRPC_EXPERIMENTS", "unset"))
            sys.meta_path.remove(self)
        return None

sys.meta_path.insert(0, Watch())
{code}
"""


@pytest.mark.parametrize(
    "code",
    # A gRPC bot's SDK imports grpc when it dials (run -> play_stream), the referee at once.
    ["import arena.sdk.bot as sdk; sdk._grpc()", "import arena.referee.server"],
)
def test_grpc_is_imported_after_its_environment_is_set(code: str) -> None:
    """A bot process must run grpc's polling transport, as the referee does: grpc reads its
    experiments once, on import. A bot that imported grpc first answered 4x slower."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRPC_")}
    done = subprocess.run(
        [sys.executable, "-c", GRPC_SEES.replace("{code}", code)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == "-event_engine_client,-event_engine_listener"


STDIO_BOT = """
import sys
from arena.sdk import Bot, run
run(Bot())
heavy = ("grpc", "google.protobuf", "asyncio", "uvloop", "arena.v1")
print(" ".join(sorted(m for m in sys.modules if m.split(".")[0] in heavy or m in heavy)),
      file=sys.stderr)
"""


def test_a_stdio_bot_plays_with_no_grpc_protobuf_or_event_loop_imported() -> None:
    """The SDK over stdio answers every request of a game, legally, having imported none
    of gRPC, protobuf, the generated messages or an event loop: JSON lines only."""
    game = Game(seed=4)
    rng = random.Random(4)
    lines, legal = [], {}
    while not game.is_over:
        seat, kind = game.to_act, game.decision_kind
        assert kind is not None
        request_id = len(lines) + 1
        request = Request(request_id, kind, view(game, seat), game.legal(), 0, 1000, 10_000)
        lines.append(request_line(request))
        legal[request_id] = game.legal()
        game.apply(random_legal_action(game.legal(), rng))
    lines.append(match_over_line("finished"))
    done = subprocess.run(
        [sys.executable, "-c", STDIO_BOT],
        input=b"".join(lines),
        capture_output=True,
        env=bot_env(ARENA_PROTOCOL="stdio"),
        timeout=60,
        check=True,
    )
    join, *answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert join["join"]["botName"] == "python-bot"
    assert len(answers) == len(legal)
    for answer in answers:
        fields = answer_fields(answer)
        assert fields is not None
        request_id, field, value = fields
        request_legal = legal[request_id]
        assert request_legal.kind is not None
        assert action_of(request_legal.kind, field, value) in request_legal
    assert done.stderr.decode().strip() == ""
