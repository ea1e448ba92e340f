"""``arena bench tournament``'s measured split: the faster of one referee and the spread,
from the rounds' figures (written here, not timed)."""

from __future__ import annotations

import pytest

from arena.bench.tournament import MeasuredRun, TournamentFigures, TournamentRound
from arena.tournament.runner import RunSummary


def _run(games: int, wall: float) -> MeasuredRun:
    summary = RunSummary("run", games, 0, wall, 100 * games, 0.1, 0.2)
    return MeasuredRun(summary, own_cpu_seconds=1.0, bots_cpu_seconds=2.0)


def _figures(jobs: int, referees: int, spread_walls: list[float]) -> TournamentFigures:
    rounds = [
        TournamentRound(jobs, 4, _run(12, 10.0), _run(12, 20.0), _run(12, wall))
        for wall in spread_walls
    ]
    return TournamentFigures(jobs, 4, 2, referees, rounds, "2026-01-01T00:00:00+00:00")


@pytest.mark.parametrize(
    ("spread_walls", "processes"),
    [
        ([8.0, 7.5, 20.0], 4),  # the median round: spread 1.25 times as fast
        ([9.8, 9.9, 10.0], 1),  # within the margin: one referee
        ([12.0, 11.0, 5.0], 1),  # slower in the median round
    ],
)
def test_the_split_is_the_faster_of_one_referee_and_the_spread_in_the_median_round(
    spread_walls: list[float], processes: int
) -> None:
    split = _figures(4, 4, spread_walls).split
    assert split is not None
    assert (split.cores, split.tables, split.spread_processes) == (4, 4, 4)
    assert split.processes == processes
    assert split.measured_at == "2026-01-01T00:00:00+00:00"


def test_one_table_has_no_split_to_measure() -> None:
    assert _figures(1, 1, [10.0]).split is None
