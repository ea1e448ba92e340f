"""What the tests of the non-Python sample bots share: playing a match, checking its seats."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from pathlib import Path

from bots.helpers import alive_processes_in_group

from arena.bots import BotSpec, load_bot
from arena.bots.samples import sample_bots_dir
from arena.bots.sandbox import contract_dir
from arena.engine import replay
from arena.referee.match import Match, MatchPlan, Referee
from arena.referee.result import GameResult
from arena.referee.table import Table, TableSettings
from arena.tournament.runner import RunConfig, run_tournament
from arena.tournament.store import ResultsStore

REPO = Path(__file__).resolve().parents[2]
RANDOM_BOT = sample_bots_dir() / "random"
FIRST_TEAM_SEATS = (0, 3)  # the first entrant plays team 0 (R1.2)
GAMES = 6  # of a bot's match against two random teams


def play_match(
    entrants: tuple[BotSpec, BotSpec, BotSpec],
    log_dir: Path,
    seeds: list[int],
    address: str | None = None,
    sandbox: bool = False,
) -> tuple[Match, Table, list[GameResult]]:
    plan = MatchPlan(
        match_id=f"{entrants[0].name}-vs-random",
        entrants=entrants,
        seeds=seeds,
        log_dir=log_dir,
        settings=TableSettings(),
        seed=7,
        sandbox=sandbox,
    )
    reports: list[GameResult] = []

    async def main() -> tuple[Match, Table]:
        async with Referee(address) as referee:
            match = Match(referee, plan)
            return match, await match.play(on_game=reports.append)

    match, table = asyncio.run(main())
    return match, table, reports


def check_first_team_clean(
    match: Match, table: Table, reports: list[GameResult], games: int, name: str
) -> list[str]:
    """Every game complete and replayable, no fault on seats 0 and 3; their logs returned."""
    assert len(reports) == games
    for report in reports:
        game = replay(report.record)
        assert game.is_over
        assert game.outcome is not None and game.outcome.winner == report.winner
        faults = [f for f in report.faults if f.seat in FIRST_TEAM_SEATS]
        assert faults == [], faults
    assert [f for f in table.faults if f.seat in FIRST_TEAM_SEATS] == []
    logs = []
    for seat in FIRST_TEAM_SEATS:
        assert match.links[seat].bot_name == name
        assert reports[-1].seats[seat].decisions > 0
        process = match.processes[seat]
        assert process is not None
        # The bot ends its stream on MatchOver and exits 0 by itself.
        assert process.returncode == 0, process.log_path.read_text()
        assert alive_processes_in_group(process.pid) == []
        log = process.log_path.read_text()
        assert "fault" not in log and "refused" not in log, log
        logs.append(log)
    return logs


def clean_match_against_random(spec: BotSpec, log_dir: Path) -> tuple[list[GameResult], list[str]]:
    """GAMES games of ``spec`` against two random teams, checked ``check_first_team_clean``:
    their reports and the logs of seats 0 and 3."""
    random_bot = load_bot(RANDOM_BOT)
    seeds = list(range(1, GAMES + 1))
    match, table, reports = play_match((spec, random_bot, random_bot), log_dir, seeds)
    return reports, check_first_team_clean(match, table, reports, GAMES, spec.name)


async def run_alone(
    command: list[str], address_of: str | None, token: str
) -> tuple[int | None, str]:
    """Start a bot by hand against a fresh referee (``address_of`` overrides the address)."""
    async with Referee() as referee:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
        env.update(ARENA_ADDRESS=address_of or referee.address, ARENA_TOKEN=token)
        env["ARENA_PROTO_DIR"] = str(contract_dir())  # as the arena tells every bot
        process = await asyncio.create_subprocess_exec(
            *command, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        _, stderr = await asyncio.wait_for(process.communicate(), 30)
        return process.returncode, stderr.decode()


def tcp_match(spec: BotSpec, log_dir: Path) -> None:
    """ARENA_ADDRESS may also be host:port (the default is a unix: socket)."""
    random_bot = load_bot(RANDOM_BOT)
    match, table, reports = play_match((spec, random_bot, random_bot), log_dir, [42], "127.0.0.1:0")
    assert not match.referee.address.startswith("unix:")
    check_first_team_clean(match, table, reports, 1, spec.name)


def check_first_team_holds_its_own(reports: list[GameResult], names_trump: bool = True) -> None:
    """The first entrant's team (seats 0 and 3) plays as a real bot would: it wins some
    of its games against two random teams (par is 1/3), and names trump whenever it wins
    the bidding (R5.1) unless it never bids."""
    if names_trump:
        won = sum(report.seats[seat].bids_won for report in reports for seat in FIRST_TEAM_SEATS)
        assert won > 0
    wins = sum(1 for report in reports if report.winner == 0)
    assert wins >= 1, [(r.winner, r.scores) for r in reports]


def check_clean_tournament(specs: list[BotSpec], tmp_path: Path) -> None:
    """The arena's runner plays the three bots as ``arena run A B C --games 1`` does: one
    triple in six seatings, every game stored with no fault, replayable, and naming them."""
    config = RunConfig(entrants=tuple(specs), games=1, seed=5, jobs=2, db_path=tmp_path / "a.db")
    summary = run_tournament(config, tmp_path / "logs")
    assert summary.played == 6
    with sqlite3.connect(tmp_path / "a.db") as db:
        assert db.execute("SELECT COUNT(*) FROM faults").fetchone()[0] == 0
        game_ids = [row[0] for row in db.execute("SELECT id FROM games")]
    assert len(game_ids) == 6
    with ResultsStore.open(tmp_path / "a.db", create=False) as store:
        for game_id in game_ids:
            record = store.game_record(game_id)
            assert replay(record).is_over
            names = {e["name"] for e in record["meta"]["entrants"]}
            assert names == {spec.name for spec in specs}
