"""The `pimc` sample bot plays real games through the referee (real processes, real
gRPC), legally and within its time budget, which its manifest sets."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from arena.bots import load_bot
from arena.bots.samples import sample_bot
from arena.referee.match import Match, MatchPlan, Referee
from arena.referee.result import GameResult
from arena.referee.table import TableSettings

BUDGET_MS = 60
# The machine may be shared and busy: a decision may overrun its budget by scheduling
# delays, but never reaches the referee's limit.
SLACK_S = 0.6
SETTINGS = TableSettings(decision_ms=1000, overage_ms=10_000, join_timeout_s=20)


def pimc_with_budget(tmp_path: Path, budget_ms: int) -> Path:
    """The sample bot's own directory contents, with the budget set in its manifest."""
    bot_dir = tmp_path / "pimc"
    shutil.copytree(sample_bot("pimc"), bot_dir, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = (bot_dir / "bot.toml").read_text()
    assert '"--budget-ms", "200"' in manifest  # the default the README documents
    (bot_dir / "bot.toml").write_text(
        manifest.replace('"--budget-ms", "200"', f'"--budget-ms", "{budget_ms}"')
    )
    return bot_dir


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_pimc_plays_a_real_game_without_faults_within_its_budget(tmp_path: Path) -> None:
    pimc = load_bot(pimc_with_budget(tmp_path, BUDGET_MS))
    entrants = (pimc, load_bot(sample_bot("greedy")), load_bot(sample_bot("random")))
    plan = MatchPlan("pimc-real", entrants, seeds=[5], log_dir=tmp_path / "logs", settings=SETTINGS)
    reports: list[GameResult] = []

    async def main() -> None:
        async with Referee() as referee:
            await Match(referee, plan).play(on_game=reports.append)

    asyncio.run(main())
    (report,) = reports
    assert report.faults == ()
    for seat in (0, 3):  # pimc's seats
        stats = report.seats[seat]
        assert stats.decisions > 0 and stats.faults == 0
        assert stats.decision_seconds_max < BUDGET_MS / 1000 + SLACK_S
        log = (tmp_path / "logs" / f"seat{seat}.log").read_text()
        assert "Traceback" not in log and "fault" not in log
    played = [d for d in report.record["deals"] if not d["thrown_in"]]
    assert any(d["bidder"] % 3 == 0 for d in played), "pimc never took a contract"
