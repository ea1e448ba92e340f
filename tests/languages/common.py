"""What the tests of the non-Python sample bots share: playing a match, checking its seats."""

from __future__ import annotations

import asyncio
from pathlib import Path

# The referee package sets grpc's environment and must be imported before grpc is.
import arena.referee  # noqa: F401
from arena.bots import BotSpec, alive_processes_in_group
from arena.engine import replay
from arena.referee.match import Match, MatchPlan, Referee
from arena.referee.table import GameReport, Table, TableSettings

REPO = Path(__file__).resolve().parents[2]
RANDOM_BOT = REPO / "sample_bots" / "random"
FIRST_TEAM_SEATS = (0, 3)  # the first entrant plays team 0 (R1.2)


def play_match(
    entrants: tuple[BotSpec, BotSpec, BotSpec],
    log_dir: Path,
    seeds: list[int],
    address: str | None = None,
) -> tuple[Match, Table, list[GameReport]]:
    plan = MatchPlan(
        match_id=f"{entrants[0].name}-vs-random",
        entrants=entrants,
        seeds=seeds,
        log_dir=log_dir,
        settings=TableSettings(),
        seed=7,
    )
    reports: list[GameReport] = []

    async def main() -> tuple[Match, Table]:
        async with Referee(address) as referee:
            match = Match(referee, plan)
            return match, await match.play(on_game=reports.append)

    match, table = asyncio.run(main())
    return match, table, reports


def check_first_team_clean(
    match: Match, table: Table, reports: list[GameReport], games: int, name: str
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
