"""The ladder's statistics, computed in a process of their own: ratings with their
intervals, standings, and each contestant's comparison of their latest two
versions (``arena compare``'s sequential test).

Why a process: the fits run numpy and scipy, whose BLAS starts threads; a thread inside a
BLAS call while another thread of the same process forks to start a bot can deadlock the
fork's child, which is how the ladder once hung for good. Here the statistics never share
a process with a fork, and a fit that hangs anyway is killed after ``TIMEOUT_S`` and the
pages keep the last figures. The pages and the ladder read ``Figures.latest``; nothing in
the server computes a statistic on its own loop.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from arena.stats.comparison import UnitTally, compare_outcome
from arena.stats.sequential import Sprt
from arena.tournament.report import RunReport, build_report
from arena.tournament.store import ResultsStore

from .worker import Worker, WorkerError

__all__ = ["Comparison", "Figures", "LadderFigures", "compute_figures"]

TIMEOUT_S: Final = 300.0  # a refresh that takes longer is stopped (its process killed)

Pair = tuple[str, str]  # (NEW, BASE) entrant labels


@dataclass(frozen=True)
class Comparison:
    """Where the sequential test of NEW against BASE stands, on the seed groups the two
    played together (``arena compare``'s figures, by its own code)."""

    new: str
    base: str
    units: int
    games: int
    estimate: float
    interval: tuple[float, float] | None
    verdict: str  # "better", "not better" or "undecided"
    finished: bool  # decided, or the cap on its games reached
    llr: float
    lower: float
    upper: float
    max_games: int


@dataclass(frozen=True)
class LadderFigures:
    report: RunReport
    comparisons: dict[Pair, Comparison] = field(default_factory=dict)
    computed_at: float = field(default_factory=time.time)
    seconds: float = 0.0  # how long the statistics process took


def compute_figures(
    db_path: Path, run_id: str, pairs: tuple[Pair, ...], max_games: int
) -> LadderFigures:
    """In the statistics process: the report of the ladder's run and the comparisons."""
    started = time.monotonic()
    with ResultsStore.open(db_path, create=False) as store:
        report = build_report(store, run_id)
        outcomes = store.game_outcomes(run_id) if pairs else []
    comparisons = {}
    for new, base in pairs:
        tally = UnitTally(new, base, "groups")  # the ladder plays the two in seed groups
        for game in outcomes:
            if set(game.entrants_by_team) == {new, base}:
                tally.add(game)
        outcome = compare_outcome(run_id, tally, Sprt(), max_games=max_games)
        state = outcome.state
        comparisons[(new, base)] = Comparison(
            new=new,
            base=base,
            units=outcome.units,
            games=outcome.games,
            estimate=state.estimate,
            interval=outcome.interval,
            verdict=outcome.verdict,
            finished=outcome.finished,
            llr=state.llr,
            lower=state.lower,
            upper=state.upper,
            max_games=max_games,
        )
    return LadderFigures(report, comparisons, time.time(), time.monotonic() - started)


class Figures:
    """The latest figures of the ladder, refreshed in the statistics process."""

    def __init__(
        self,
        db_path: Path,
        run_id: str,
        compare_max_games: int,
        on_notice: Callable[[str, str], None],
        timeout: float = TIMEOUT_S,
    ) -> None:
        self.db_path = db_path
        self.run_id = run_id
        self.compare_max_games = compare_max_games
        self.timeout = timeout
        self.latest: LadderFigures | None = None
        self.refreshing_since: float | None = None  # time.monotonic(), while one runs
        self._on_notice = on_notice
        self._worker = Worker("statistics")

    @property
    def report(self) -> RunReport | None:
        return None if self.latest is None else self.latest.report

    def comparison(self, new: str, base: str) -> Comparison | None:
        return None if self.latest is None else self.latest.comparisons.get((new, base))

    async def refresh(self, pairs: tuple[Pair, ...]) -> None:
        """Compute them again; on failure (or past the timeout) the last ones stay."""
        self.refreshing_since = time.monotonic()
        try:
            self.latest = await self._worker.call(
                compute_figures,
                self.db_path,
                self.run_id,
                pairs,
                self.compare_max_games,
                timeout=self.timeout,
            )
        except WorkerError as error:
            self._on_notice("the ratings were not updated", str(error))
        finally:
            self.refreshing_since = None

    def close(self) -> None:
        self._worker.kill()
