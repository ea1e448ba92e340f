"""``arena bench tournament``: the Python sample bots in a real run, and the same run on one table.

Figures: games/s and decisions/s of the run with ``jobs`` tables on one referee (this
process); the share of wall time the tables spent waiting for bot processes to start and
join; and the scaling against the same schedule played one table at a time (target: at
least 0.7 of one table times the number of cores); and the CPU each run kept busy, which
bounds that scaling: tables cannot share out more cores than the machine has. Then the
same run with its tables spread over referee processes (one per core, never more than
tables, at least two), as a ratio to the one-referee run, with the share of a core each
referee kept busy: a referee near 1.00 is the ceiling that spreading them lifts. Which of
the two was faster is this machine's measured split (``TournamentFigures.split``), which
``arena bench tournament`` records for ``arena run``'s default (``arena.tournament.split``).
"""

from __future__ import annotations

import os
import resource
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from arena.bots import load_bot
from arena.bots.samples import sample_bot
from arena.tournament.runner import RunConfig, RunSummary, run_tournament
from arena.tournament.split import MeasuredSplit, best_processes, spread_candidate

from . import median_over_rounds

PYTHON_SAMPLES = ("random", "greedy", "lowest")


@dataclass(frozen=True)
class MeasuredRun:
    summary: RunSummary
    own_cpu_seconds: float  # this process: the results, and the referee where it plays here
    bots_cpu_seconds: float  # every bot process of the run, start-up included
    bots_cpu_counted: bool = True  # False: sandboxed bots without cgroups, CPU unknown

    @property
    def referee_cpu_seconds(self) -> tuple[float, ...]:
        """Each referee's CPU: the referee processes', or this process's own."""
        return self.summary.referee_cpu_seconds or (self.own_cpu_seconds,)

    @property
    def referee_share(self) -> float:
        """Of one core, what the busiest referee kept busy (1.00: it was the ceiling)."""
        return max(self.referee_cpu_seconds) / self.summary.wall_seconds

    @property
    def cores_busy(self) -> float:
        cpu = self.own_cpu_seconds + sum(self.summary.referee_cpu_seconds)
        return (cpu + self.bots_cpu_seconds) / self.summary.wall_seconds

    @property
    def games_per_second(self) -> float:
        return self.summary.played / self.summary.wall_seconds


@dataclass(frozen=True)
class TournamentRound:
    """One round: the run with ``jobs`` tables on one referee, the same run on one table,
    and the same run with its ``jobs`` tables spread over referee processes."""

    jobs: int
    cores: int
    run: MeasuredRun
    single_run: MeasuredRun
    spread_run: MeasuredRun

    @property
    def summary(self) -> RunSummary:
        return self.run.summary

    @property
    def games_per_second(self) -> float:
        return self.run.games_per_second

    @property
    def decisions_per_second(self) -> float:
        return self.summary.decisions / self.summary.wall_seconds

    @property
    def single_games_per_second(self) -> float:
        return self.single_run.games_per_second

    @property
    def spread_ratio(self) -> float:
        """Games/s with the tables spread over referee processes, to those on one referee."""
        return self.spread_run.games_per_second / self.games_per_second

    @property
    def startup_share(self) -> float:
        """Wall time during which a table slot waited for bots to be launched and join."""
        return self.summary.join_wait_seconds / (self.summary.wall_seconds * self.jobs)

    @property
    def scaling(self) -> float:
        return self.games_per_second / (self.single_games_per_second * self.jobs)

    @property
    def scaling_ceiling(self) -> float:
        """The best scaling the machine allows: ``jobs`` tables need ``jobs`` times the
        cores one table keeps busy, and there are only ``cores``."""
        return min(1.0, self.cores / (self.single_run.cores_busy * self.jobs))


# A property of the figures: the median over their rounds of one figure of a round.
_median = median_over_rounds[TournamentRound]


@dataclass(frozen=True)
class TournamentFigures:
    jobs: int
    cores: int
    games: int
    referees: int  # referee processes of the spread run
    rounds: list[TournamentRound]
    measured_at: str = ""  # ISO 8601, UTC: when the rounds ended

    games_per_second = _median(lambda r: r.games_per_second)
    decisions_per_second = _median(lambda r: r.decisions_per_second)
    single_games_per_second = _median(lambda r: r.single_games_per_second)
    startup_share = _median(lambda r: r.startup_share)
    launch_seconds = _median(lambda r: r.summary.launch_seconds)
    scaling = _median(lambda r: r.scaling)

    @property
    def cpu_counted(self) -> bool:
        """Whether every bot's CPU was counted (see ``MeasuredRun.bots_cpu_counted``)."""
        return all(r.run.bots_cpu_counted and r.single_run.bots_cpu_counted for r in self.rounds)

    cores_busy = _median(lambda r: r.run.cores_busy)
    single_cores_busy = _median(lambda r: r.single_run.cores_busy)
    scaling_ceiling = _median(lambda r: r.scaling_ceiling)
    spread_games_per_second = _median(lambda r: r.spread_run.games_per_second)
    spread_ratio = _median(lambda r: r.spread_ratio)
    referee_share = _median(lambda r: r.run.referee_share)
    spread_referee_share = _median(lambda r: r.spread_run.referee_share)
    spread_cores_busy = _median(lambda r: r.spread_run.cores_busy)

    @property
    def split(self) -> MeasuredSplit | None:
        """The faster of one referee and the spread, as ``arena run``'s default would use
        it; ``None`` for one table, which has nothing to split."""
        if self.jobs < 2 or self.referees < 2:
            return None
        ratio = round(self.spread_ratio, 3)  # as recorded, and chosen by
        return MeasuredSplit(
            cores=self.cores,
            tables=self.jobs,
            processes=best_processes(self.jobs, self.referees, ratio),
            spread_processes=self.referees,
            spread_ratio=ratio,
            measured_at=self.measured_at,
        )

    def lines(self) -> list[str]:
        """The figures as ``arena bench tournament`` prints them: each round, then medians."""
        lines = [
            f"round {i}: {r.summary.played} games, {r.summary.decisions} decisions in "
            f"{r.summary.wall_seconds:.1f} s with {self.jobs} tables; "
            f"{r.games_per_second:.2f} games/s; one table alone "
            f"{r.single_games_per_second:.2f} games/s; scaling {r.scaling:.2f}; "
            f"start-up share {r.startup_share:.1%}; spread over {self.referees} referee "
            f"processes {r.spread_run.games_per_second:.2f} games/s (ratio {r.spread_ratio:.2f})"
            for i, r in enumerate(self.rounds, 1)
        ]
        lines = [
            *lines,
            f"{self.games_per_second:.2f} games/s with {self.jobs} tables (median round)",
            f"{self.decisions_per_second:.0f} decisions/s",
            f"start-up share of wall time: {self.startup_share:.1%} "
            f"(table slots waiting for bots to be launched and join; "
            f"{self.launch_seconds:.2f} s spent launching)",
            f"one table alone: {self.single_games_per_second:.2f} games/s",
            f"CPU kept busy: {self.cores_busy:.2f} cores with {self.jobs} tables, "
            f"{self.single_cores_busy:.2f} with one table, of {self.cores}; so {self.jobs} "
            f"tables can reach at most {self.scaling_ceiling:.2f} of one table × {self.jobs}"
            if self.cpu_counted
            else "CPU kept busy: unknown (sandboxed bots' CPU is counted only in cgroups, "
            "which this machine does not let the arena make; --no-sandbox counts it)",
            f"scaling: {self.scaling:.2f} of one table × {self.jobs}",
            f"referee CPU: one referee for {self.jobs} tables kept {self.referee_share:.2f} "
            f"of a core busy; spread over {self.referees} referee processes, the busiest "
            f"kept {self.spread_referee_share:.2f} (1.00: the referee is the ceiling)",
            f"{self.spread_games_per_second:.2f} games/s with {self.jobs} tables spread over "
            f"{self.referees} referee processes (median round)",
            f"referee processes to one referee: {self.spread_ratio:.2f} (games/s ratio)",
        ]
        if self.cpu_counted:
            lines.append(
                f"CPU kept busy with the tables spread: {self.spread_cores_busy:.2f} cores "
                f"of {self.cores}"
            )
        return lines


def _run(
    games: int, jobs: int, seed: int, root: Path, sandbox: bool, referees: int = 1
) -> MeasuredRun:
    specs = tuple(load_bot(sample_bot(name)) for name in PYTHON_SAMPLES)
    db_path = root / "arena.db"
    config = RunConfig(
        specs, games, seed, jobs, db_path=db_path, sandbox=sandbox, referees=referees
    )
    own, bots = _cpu_seconds()
    started = time.perf_counter()
    summary = run_tournament(config, root / "logs")
    summary.wall_seconds = time.perf_counter() - started
    own_after, bots_after = _cpu_seconds()
    # The bots' cgroups count their CPU wherever they exist; the kernel's per-child
    # accounting loses what runs in the sandbox's PID namespace, and counts the referee
    # processes (which tell their own) with the bots they waited for.
    counted = summary.bots_cpu_seconds
    children = bots_after - bots - sum(summary.referee_cpu_seconds)
    bots_cpu = max(0.0, children) if counted is None else counted
    return MeasuredRun(summary, own_after - own, bots_cpu, counted is not None or not sandbox)


def _cpu_seconds() -> tuple[float, float]:
    """CPU seconds of this process and of its ended children (unsandboxed bots only: a
    bot in a PID namespace is not waited for by the arena, and its CPU is not counted)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def bench_tournament(
    games: int, jobs: int, seed: int, rounds: int, sandbox: bool = True
) -> TournamentFigures:
    """``rounds`` rounds of the run, its one-table twin and its spread twin, back to back;
    each ratio is taken within its round (the machine is shared and its load drifts),
    medians reported. The spread run has one referee process per core, never more than
    ``jobs``, at least two (where there are two tables): ``spread_candidate``."""
    cores = os.cpu_count() or 1
    referees = spread_candidate(jobs, cores)
    measured = []
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        for index in range(rounds):
            run = _run(games, jobs, seed, Path(tmp) / f"run{index}", sandbox)
            single = _run(games, 1, seed, Path(tmp) / f"single{index}", sandbox)
            spread = _run(games, jobs, seed, Path(tmp) / f"spread{index}", sandbox, referees)
            measured.append(TournamentRound(jobs, cores, run, single, spread))
    ended = datetime.now(UTC).isoformat(timespec="seconds")
    return TournamentFigures(jobs, cores, games, referees, measured, ended)
