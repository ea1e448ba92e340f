"""Standard input/output seats (``protocol = "stdio"``) with real processes: every hostile
case of docs/PROTOCOL.md ("Standard input and output") is the documented fault of that
seat alone, and the other five seats record none.

The stdio test bot (``bots/stdio``, json and sys only) plays team 0 (seats 0 and 3), seat 0
misbehaving as ``TEST_BOT_FAULT_0`` says; the recorder bots play teams 1 and 2 over gRPC.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path
from typing import Protocol

import pytest

from arena.bots import BotSpecError, load_bot
from arena.bots.sandbox import sandbox_problem
from arena.referee.match import Match, MatchPlan, Referee
from arena.referee.policy import FaultKind
from arena.referee.trial import try_bot

from .harness import FAST, TEST_BOTS, MatchRun, check_games, recorder, run_match, sample

SEAT = 0  # the misbehaving seat
# A join deadline a loaded machine keeps: these tests are about what comes after the join.
SETTINGS = replace(FAST, join_timeout_s=10)


class StdioMatch(Protocol):
    def __call__(self, mode: str = "", seeds: tuple[int, ...] = (1,)) -> MatchRun: ...


@pytest.fixture
def stdio_match(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> StdioMatch:
    """Plays the stdio bot (seat 0 misbehaving as ``mode`` says) against two recorders,
    one game a seed, and checks the games were played."""

    def play(mode: str = "", seeds: tuple[int, ...] = (1,)) -> MatchRun:
        if mode:
            monkeypatch.setenv(f"TEST_BOT_FAULT_{SEAT}", mode)
        stdio = load_bot(TEST_BOTS / "stdio")
        assert stdio.stdio
        entrants = [stdio, recorder(), recorder()]
        run = run_match(entrants, tmp_path / "logs", seeds=seeds, settings=SETTINGS, seed=seeds[0])
        check_games(run, games=len(seeds))
        return run

    return play


def only_seat_faulted(run: MatchRun, *kinds: FaultKind) -> None:
    """Every fault is the misbehaving seat's, and of ``kinds``; it made at least one."""
    assert all(f.seat == SEAT for f in run.faults), run.faults
    assert run.faults, "the misbehaving seat made no fault"
    assert {f.kind for f in run.faults} <= set(kinds), run.faults


def check_environment(log: Path) -> None:
    """The stdio bot's log (its stderr) says it got ARENA_PROTOCOL=stdio and no address
    nor token (the bot writes the names of its ARENA_ variables first)."""
    (line,) = [line for line in log.read_text().splitlines() if line.startswith("env: ")]
    names = set(line.removeprefix("env: ").split())
    assert "ARENA_PROTOCOL=stdio" in names and {"ARENA_SEAT", "ARENA_SEED"} <= names
    assert not names & {"ARENA_ADDRESS", "ARENA_TOKEN"}


def received(run: MatchRun, seat: int) -> list[dict[str, object]]:
    lines = (run.seat_dir(seat) / "received.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_stdio_bot_plays_a_match_against_grpc_seats_with_no_fault(
    stdio_match: StdioMatch,
) -> None:
    run = stdio_match(seeds=(1, 2))
    assert run.faults == []
    assert run.match.lingering == []  # it exited by itself when its stdin closed
    check_environment(run.log_dir / f"seat{SEAT}.log")
    for seat in (0, 3):
        assert all(report.seats[seat].decisions > 0 for report in run.reports)
        messages = received(run, seat)
        assert set(messages[0]) == {"welcome", "events"}
        assert messages[0]["welcome"]["seat"] == seat  # type: ignore[index]
        assert messages[-1] == {"matchOver": {"reason": "finished"}, "events": []}
        requests = [m["request"] for m in messages if "request" in m]
        # Every field present, zeros and empty lists too; a uint64 is a JSON string.
        assert [r["id"] for r in requests] == [str(i) for i in range(1, len(requests) + 1)]  # type: ignore[index]
        assert {"id", "kind", "view", "legal", "timeMs", "bankMs"} == set(requests[0])  # type: ignore[arg-type]
        assert set(requests[0]["legal"]) == {"bids", "suits", "cards"}  # type: ignore[index]


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_malformed_line_is_a_malformed_fault(stdio_match: StdioMatch) -> None:
    run = stdio_match("malformed")
    only_seat_faulted(run, FaultKind.MALFORMED)
    (fault,) = run.faults  # its own answer, after the bad line, is the expected late one
    assert fault.sent == "this is not json"
    assert fault.reason.startswith("not a BotMessage in JSON")
    assert fault.request_id == 3 and fault.fallback


@pytest.mark.timeout(120)
def test_a_line_over_64_kib_closes_the_seat_and_it_is_auto_played(stdio_match: StdioMatch) -> None:
    run = stdio_match("oversized")
    only_seat_faulted(run, FaultKind.CLOSED)
    assert len(run.faults) == 1  # auto-played from then on: one fault
    assert run.faults[0].reason == "a line over 64 KiB (the limit of a message)"


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_an_answer_to_the_wrong_request_is_a_wrong_request_fault(stdio_match: StdioMatch) -> None:
    run = stdio_match("wrong_request")
    only_seat_faulted(run, FaultKind.WRONG_REQUEST)
    assert run.faults[0].reason == "answer to request 1001; the open request is 1"


@pytest.mark.timeout(120)
def test_an_answer_before_its_request_is_taken_as_its_answer(stdio_match: StdioMatch) -> None:
    run = stdio_match("early")
    assert run.faults == []


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("exit", ""),  # whichever the referee sees first: the process or its pipe ending
        ("close_stdout", "the bot closed its standard output"),
    ],
)
def test_closing_stdout_or_exiting_is_a_closed_fault(
    stdio_match: StdioMatch, mode: str, reason: str
) -> None:
    run = stdio_match(mode)
    only_seat_faulted(run, FaultKind.CLOSED)
    (fault,) = run.faults
    assert fault.reason.startswith(reason)
    assert fault.request_id == 5


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_a_bot_that_never_reads_does_not_block_the_referee(stdio_match: StdioMatch) -> None:
    run = stdio_match("deaf")
    only_seat_faulted(run, FaultKind.TIMEOUT, FaultKind.STALLED)
    # Each request times out until the pipe is full; then the seat is stalled, and
    # auto-played for the rest of the match.
    kinds = [f.kind for f in run.faults]
    assert kinds[-1] is FaultKind.STALLED and kinds.count(FaultKind.STALLED) == 1
    assert run.faults[-1].reason.startswith(("the bot does not read", "could not deliver"))


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_stderr_goes_to_the_log_and_is_never_read_as_a_message(stdio_match: StdioMatch) -> None:
    run = stdio_match("stderr")
    assert run.faults == []
    log = (run.log_dir / f"seat{SEAT}.log").read_text(errors="replace")
    assert 'junk {"answer": {"requestId": "1", "bid": 6}}' in log


@pytest.mark.timeout(120)
def test_the_protos_field_names_and_numeric_ids_are_read_too(stdio_match: StdioMatch) -> None:
    run = stdio_match("snake")
    assert run.faults == []


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_first_line_that_is_not_a_join_is_a_no_join_fault(stdio_match: StdioMatch) -> None:
    run = stdio_match("bad_join")
    only_seat_faulted(run, FaultKind.NO_JOIN)
    (fault,) = run.faults
    assert fault.reason.startswith("its first line is not a join: ")


def test_the_manifest_names_a_protocol_it_does_not_know(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text('name = "x"\ncommand = ["./x"]\nprotocol = "udp"\n')
    with pytest.raises(BotSpecError, match="'protocol' must be \"grpc\" or \"stdio\", not 'udp'"):
        load_bot(tmp_path)
    (tmp_path / "bot.toml").write_text('name = "x"\ncommand = ["./x"]\n')
    assert load_bot(tmp_path).protocol == "grpc"


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_sandboxed_stdio_bot_plays_through_its_pipes_alone(tmp_path: Path) -> None:
    """In bubblewrap, with its limits and cgroups, a stdio bot has no socket, no address
    and no token, and plays as well."""
    if (problem := sandbox_problem()) is not None:
        pytest.skip(f"no sandbox here: {problem}")
    stdio = load_bot(TEST_BOTS / "stdio")
    entrants = (stdio, sample("random"), sample("random"))
    plan = MatchPlan("sandboxed", entrants, [1], tmp_path / "logs", SETTINGS)

    async def main() -> Match:
        async with Referee() as referee:
            match = Match(referee, plan)
            await match.play()
            return match

    match = asyncio.run(main())
    assert match.table is not None and match.table.faults == []
    check_environment(tmp_path / "logs" / "seat0.log")


@pytest.mark.timeout(120)
def test_arena_try_puts_its_requests_to_a_stdio_bot(tmp_path: Path) -> None:
    result = try_bot(load_bot(TEST_BOTS / "stdio"), tmp_path / "try", requests=8, sandbox=False)
    assert result.joined and result.bot_name == "stdio"
    assert len(result.exchanges) == 8 and result.faults == []
    assert result.exited_cleanly
