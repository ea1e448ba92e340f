"""``arena bench tournament``: the Python sample bots in a real run, and the same run on one table.

Figures: games/s and decisions/s of the run with ``jobs`` tables; the share of wall time
the tables spent waiting for bot processes to start and join; and the scaling against
the same schedule played one table at a time (target: at least 0.7 of one table times
the number of cores).
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from arena.bots import load_bot
from arena.tournament.runner import RunConfig, RunSummary, run_tournament

from . import median_of

SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots"
PYTHON_SAMPLES = ("random", "greedy", "lowest")


@dataclass(frozen=True)
class TournamentRound:
    """One round: the run with ``jobs`` tables, then the same run on one table."""

    jobs: int
    summary: RunSummary
    single: RunSummary

    @property
    def games_per_second(self) -> float:
        return self.summary.played / self.summary.wall_seconds

    @property
    def decisions_per_second(self) -> float:
        return self.summary.decisions / self.summary.wall_seconds

    @property
    def single_games_per_second(self) -> float:
        return self.single.played / self.single.wall_seconds

    @property
    def startup_share(self) -> float:
        """Wall time during which a table slot waited for bots to be launched and join."""
        return self.summary.join_wait_seconds / (self.summary.wall_seconds * self.jobs)

    @property
    def scaling(self) -> float:
        return self.games_per_second / (self.single_games_per_second * self.jobs)


@dataclass(frozen=True)
class TournamentFigures:
    jobs: int
    games: int
    rounds: list[TournamentRound]

    @property
    def games_per_second(self) -> float:
        return median_of(self.rounds, lambda r: r.games_per_second)

    @property
    def decisions_per_second(self) -> float:
        return median_of(self.rounds, lambda r: r.decisions_per_second)

    @property
    def single_games_per_second(self) -> float:
        return median_of(self.rounds, lambda r: r.single_games_per_second)

    @property
    def startup_share(self) -> float:
        return median_of(self.rounds, lambda r: r.startup_share)

    @property
    def launch_seconds(self) -> float:
        return median_of(self.rounds, lambda r: r.summary.launch_seconds)

    @property
    def scaling(self) -> float:
        return median_of(self.rounds, lambda r: r.scaling)


def _run(games: int, jobs: int, seed: int, root: Path) -> RunSummary:
    specs = tuple(load_bot(SAMPLE_BOTS / name) for name in PYTHON_SAMPLES)
    config = RunConfig(entrants=specs, games=games, seed=seed, jobs=jobs, db_path=root / "arena.db")
    started = time.perf_counter()
    summary = run_tournament(config, root / "logs")
    summary.wall_seconds = time.perf_counter() - started
    return summary


def bench_tournament(games: int, jobs: int, seed: int, rounds: int) -> TournamentFigures:
    """``rounds`` rounds of the run and its one-table twin, back to back; each scaling is
    taken within its round (the machine is shared and its load drifts), medians reported."""
    measured = []
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        for index in range(rounds):
            summary = _run(games, jobs, seed, Path(tmp) / f"run{index}")
            single = _run(games, 1, seed, Path(tmp) / f"single{index}")
            measured.append(TournamentRound(jobs, summary, single))
    return TournamentFigures(jobs, games, measured)
