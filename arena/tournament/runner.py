"""Running a tournament: ``jobs`` matches at a time on an executor, each game stored as it ends.

A run is identified by what it plays (entrants and their versions, games, seed if one
was given, settings), so running the same command again resumes it: only the games
missing from the database are played. A new run draws its deal key from the OS CSPRNG
(or derives it from an explicit seed) and keeps it only in the database, from which a
resumed run reads it back: the key is no part of the identity, so the same command
finds the same run, and the same deals go to the same seats. The matches are played by
a match executor (``arena.tournament.executor``): one referee in this process, referee
processes on this machine's cores (``arena.tournament.local``), or a cluster; this process
alone writes the database.

The arena's own trouble never becomes a result: a match the arena could not give its bots
(``arena.referee.policy.arena_trouble``: no seat joined, processes that could not be
started, a referee process that died) is played again with the same deals, up to
``MATCH_ATTEMPTS`` times, and then the run stops with the reason; nothing of a failed
attempt is stored, and the games an attempt finished before it failed are not replayed.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import functools
import hashlib
import json
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from arena.bots import BotSpec, Limits
from arena.bots.sandbox import DEFAULT_WORKDIR_BYTES
from arena.referee.match import MatchPlan
from arena.referee.policy import ArenaTrouble, FaultKind
from arena.referee.result import GameResult
from arena.referee.table import TableSettings
from arena.tournament.executor import MatchExecutor
from arena.tournament.local import RefereeProcessError, local_executor
from arena.tournament.schedule import RunKey, ScheduledMatch, SchedulePlan, schedule_size
from arena.tournament.store import DuplicateGameError, ResultsStore, entrant_label
from arena.wire.loop import run as run_loop

# In every run's identity, so that a run dealt another way is never resumed with these deals.
DEALING = "hmac-sha256-v1"
# How often a match the arena could not give its bots is tried before the run stops, and
# the pause before each new attempt (times the attempts so far): a machine busy for a
# moment gets time to settle, a machine that cannot start bots at all stops the run soon.
MATCH_ATTEMPTS = 3
REPLAY_PAUSE_S = 2.0


class MatchUnplayableError(RuntimeError):
    """A match failed for the arena's own reasons ``MATCH_ATTEMPTS`` times: the run stops."""


@dataclass(frozen=True)
class RunConfig:
    entrants: tuple[BotSpec, ...]
    games: int
    seed: int | None  # None: a secret deal key (the safe default); N: reproducible by anyone
    jobs: int
    db_path: Path
    settings: TableSettings = field(default_factory=TableSettings)
    limits: Limits = field(default_factory=Limits)
    schedule: SchedulePlan = field(default_factory=SchedulePlan)  # the full round robin
    # Neither is part of the run's identity: they do not change results.
    sandbox: bool = True  # each bot in bubblewrap where it works (arena.bots.sandbox)
    workdir_bytes: int = DEFAULT_WORKDIR_BYTES
    pass_env: tuple[str, ...] = ()  # the arena's variables the operator gives every bot
    # Referee processes the ``jobs`` tables are spread over; 1: every table on one referee
    # in this process (the default: ``arena.tournament.split.referee_processes``).
    referees: int = 1

    @property
    def labels(self) -> list[str]:
        return [entrant_label(e.name, e.version) for e in self.entrants]

    def identity(self) -> dict[str, Any]:
        """What a run plays; the same identity means the same run (and resuming it)."""
        identity: dict[str, Any] = {
            "entrants": self.labels,
            "games": self.games,
            "seed": self.seed,
            "dealing": DEALING,
            "table": asdict(self.settings),
        }
        schedule = self.schedule.identity()
        if schedule is not None:  # absent for the full round robin: older runs keep their ids
            identity["schedule"] = schedule
        return identity

    @property
    def run_id(self) -> str:
        canonical = json.dumps(self.identity(), sort_keys=True)
        return hashlib.sha256(canonical.encode()).hexdigest()[:12]


@dataclass
class RunProgress:
    """What the progress display shows; updated as each game is stored."""

    total: int
    done: int = 0
    already_done: int = 0
    started: float = field(default_factory=time.monotonic)
    wins: Counter[str] = field(default_factory=Counter)
    games_by_entrant: Counter[str] = field(default_factory=Counter)

    @property
    def leader(self) -> str:
        if not self.games_by_entrant:
            return "-"
        best = max(
            self.games_by_entrant, key=lambda e: (self.wins[e] / self.games_by_entrant[e], e)
        )
        rate = self.wins[best] / self.games_by_entrant[best]
        return f"{best} ({rate:.0%})"


@dataclass
class RunSummary:
    run_id: str
    played: int
    skipped: int
    wall_seconds: float
    decisions: int
    join_wait_seconds: float  # table slots waiting for bots to be launched and to join
    launch_seconds: float  # spent in starting processes
    interrupted: bool = False
    # CPU of all the run's bot processes, where their cgroups count it (else None).
    bots_cpu_seconds: float | None = 0.0
    # CPU of each referee process apart from this one; () where this process referees.
    referee_cpu_seconds: tuple[float, ...] = ()


OnProgress = Callable[[RunProgress], None]
# Told one line for the operator as it happens: an entrant whose seat never joined (its
# exit status, its log's end and path), a match played again for the arena's trouble.
OnNotice = Callable[[str], None]
# Told of each game once it is stored, with the seating it was played in (``arena compare``
# follows its test game by game).
OnGame = Callable[[ScheduledMatch, GameResult], None]


class TournamentRunner:
    """Plays a run's missing games and stores each one as it finishes."""

    def __init__(
        self,
        config: RunConfig,
        store: ResultsStore,
        log_dir: Path,
        on_progress: OnProgress | None = None,
        on_game: OnGame | None = None,
        executor: MatchExecutor | None = None,
        on_notice: OnNotice | None = None,
    ) -> None:
        self.config = config
        self.store = store
        self.log_dir = log_dir
        self.on_progress = on_progress
        self.on_game = on_game
        self.on_notice = on_notice
        self._told: set[str] = set()  # entrants whose missed join the operator was told of
        self.schedule = config.schedule.build(len(config.entrants), config.games)
        self._run_key: RunKey | None = None  # read from the store when the run starts
        self.progress = RunProgress(total=schedule_size(self.schedule))
        self.executor: MatchExecutor = executor or executor_for(config)

    async def run(self) -> RunSummary:
        config, store = self.config, self.store
        run_id = config.run_id
        fresh = RunKey.generate() if config.seed is None else RunKey.from_seed(config.seed)
        store.start_run(run_id, config.seed, config.identity(), fresh.secret)
        self._run_key = RunKey(store.deal_key(run_id))  # the first key, if resuming
        entrant_ids = [
            store.upsert_entrant(e.name, e.version, list(e.command)) for e in config.entrants
        ]
        done = store.completed_games(run_id)
        self.progress.already_done = self.progress.done = len(done)
        todo: list[tuple[ScheduledMatch, frozenset[int]]] = []
        for scheduled in self.schedule:
            skip = scheduled.skipped(i for i in scheduled.indices if (scheduled.key, i) in done)
            if len(skip) < scheduled.games:
                todo.append((scheduled, skip))
            store.ensure_match(run_id, scheduled.key, _ids(entrant_ids, scheduled.entrants))
        started = time.monotonic()
        summary = RunSummary(run_id, 0, len(done), 0.0, 0, 0.0, 0.0)
        self._emit()
        try:
            if todo:  # nothing to play: no referee to start
                async with self.executor:
                    await self._play_all(todo, summary)
        except asyncio.CancelledError:
            summary.interrupted = True
            store.finish_run(run_id, "interrupted")
            raise
        finally:
            summary.wall_seconds = time.monotonic() - started
            summary.referee_cpu_seconds = self.executor.referee_cpu_seconds
        store.finish_run(run_id, "finished")
        return summary

    async def _play_all(
        self, todo: Sequence[tuple[ScheduledMatch, frozenset[int]]], summary: RunSummary
    ) -> None:
        executor = self.executor
        # Each table has one match playing and one handed over ahead of it, whose bots
        # start meanwhile; handed over in schedule order.
        ahead = 2 * executor.tables

        async def play(scheduled: ScheduledMatch, skip: frozenset[int]) -> None:
            store_game = functools.partial(self._store_game, scheduled, summary)
            for attempt in range(1, MATCH_ATTEMPTS + 1):
                try:
                    outcome = await executor.play(self._plan(scheduled), skip, store_game)
                    break
                except (ArenaTrouble, RefereeProcessError) as trouble:
                    if attempt == MATCH_ATTEMPTS:
                        raise MatchUnplayableError(
                            f"{trouble}; tried {MATCH_ATTEMPTS} times, so the run stops "
                            "(no game of those attempts counts)"
                        ) from None
                    self._notice(
                        f"{trouble}: not counted; playing it again with the same deals "
                        f"(attempt {attempt + 1} of {MATCH_ATTEMPTS})"
                    )
                    await asyncio.sleep(REPLAY_PAUSE_S * attempt)
                    done = self.store.completed_games(self.config.run_id)
                    games = scheduled.indices
                    skip = scheduled.skipped(i for i in games if (scheduled.key, i) in done)
            summary.join_wait_seconds += outcome.join_wait_seconds
            summary.launch_seconds += outcome.launch_seconds
            if summary.bots_cpu_seconds is not None:
                cpu = outcome.bots_cpu_seconds
                summary.bots_cpu_seconds = None if cpu is None else summary.bots_cpu_seconds + cpu
            self.store.finish_match(self.config.run_id, scheduled.key)

        playing: set[asyncio.Task[None]] = set()

        async def until_one_ends() -> None:
            nonlocal playing
            ended, playing = await asyncio.wait(playing, return_when=asyncio.FIRST_COMPLETED)
            # Every failure among them is retrieved (else asyncio prints each one's
            # traceback); the first that failed (a full disk) stops the run.
            failures = [t.exception() for t in ended if not t.cancelled()]
            for failure in failures:
                if failure is not None:
                    raise failure

        try:
            for scheduled, skip in todo:
                while len(playing) >= ahead:
                    await until_one_ends()
                playing.add(asyncio.ensure_future(play(scheduled, skip)))
            while playing:
                await until_one_ends()
        finally:
            for task in playing:
                task.cancel()
            await asyncio.gather(*playing, return_exceptions=True)

    def _store_game(
        self, scheduled: ScheduledMatch, summary: RunSummary, result: GameResult
    ) -> None:
        """Commit one finished game (one transaction) and count it."""
        try:
            self.store.record_game(self.config.run_id, scheduled.key, result)
        except DuplicateGameError:
            return  # already stored (the run lock makes this unexpected): keep the first

        summary.played += 1
        summary.decisions += sum(s.decisions for s in result.seats)
        for fault in result.faults:
            label = self.config.labels[scheduled.entrants[fault.seat % 3]]
            if fault.kind is FaultKind.NO_JOIN and label not in self._told:
                self._told.add(label)
                self._notice(
                    f"{label} never joined (seat {fault.seat}, match {scheduled.key}; "
                    f"its seats are played by the fallbacks): {fault.reason}"
                )
        if self.on_game is not None:
            self.on_game(scheduled, result)
        self._count(scheduled, result)

    def _plan(self, scheduled: ScheduledMatch) -> MatchPlan:
        config = self.config
        assert self._run_key is not None
        specs = tuple(config.entrants[i] for i in scheduled.entrants)
        return MatchPlan(
            match_id=scheduled.key,
            entrants=(specs[0], specs[1], specs[2]),
            seeds=[self._run_key.game(i) for i in range(scheduled.games)],
            log_dir=self.log_dir / scheduled.key,
            settings=config.settings,
            limits=config.limits,
            sandbox=config.sandbox,
            workdir_bytes=config.workdir_bytes,
            pass_env=config.pass_env,
            private=_private_paths(config.db_path, self.log_dir),
        )

    def _count(self, scheduled: ScheduledMatch, result: GameResult) -> None:
        progress = self.progress
        progress.done += 1
        labels = self.config.labels
        for team, entrant in enumerate(scheduled.entrants):
            progress.games_by_entrant[labels[entrant]] += 1
            if result.winner == team:
                progress.wins[labels[entrant]] += 1
        self._emit()

    def _notice(self, line: str) -> None:
        if self.on_notice is not None:
            self.on_notice(line)

    def _emit(self) -> None:
        if self.on_progress is not None:
            self.on_progress(self.progress)


def executor_for(config: RunConfig) -> MatchExecutor:
    """Where a run plays on this machine: one referee here, or ``config.referees`` processes."""
    return local_executor(config.jobs, config.referees, config.settings.join_timeout_s)


def _private_paths(db_path: Path, log_root: Path) -> tuple[Path, ...]:
    """What no bot may see: the database's directory, or (where that directory also holds
    a bot's own code, and so cannot be hidden whole) the database and its side files."""
    files = [db_path.with_name(db_path.name + s) for s in ("", "-wal", "-shm", "-journal")]
    return (db_path.parent, *files, log_root)


def _ids(entrant_ids: Sequence[int], seating: tuple[int, int, int]) -> tuple[int, int, int]:
    return (entrant_ids[seating[0]], entrant_ids[seating[1]], entrant_ids[seating[2]])


class RunBusyError(RuntimeError):
    """Another arena process is playing into the same results database."""


@contextlib.contextmanager
def exclusive(db_path: Path) -> Iterator[None]:
    """Hold the database's run lock: one arena process plays into a database at a time."""
    lock_path = db_path.with_name(db_path.name + ".lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunBusyError(
                f"another arena run is playing into {db_path}; wait for it or use another --db"
            ) from None
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def check_free(db_path: Path) -> None:
    """Raise ``RunBusyError`` now if another arena process plays into ``db_path``: said
    before the bots are built, which can take minutes (``run_tournament`` takes the lock
    for the run itself)."""
    with exclusive(db_path):
        pass


class RunInterrupted(Exception):
    """The run was stopped by a signal; every finished game is stored."""

    def __init__(self, summary: RunSummary) -> None:
        super().__init__("interrupted")
        self.summary = summary


def run_tournament(
    config: RunConfig,
    log_root: Path,
    on_progress: OnProgress | None = None,
    on_game: OnGame | None = None,
    executor: MatchExecutor | None = None,
    on_notice: OnNotice | None = None,
) -> RunSummary:
    """Run (or resume) a tournament to the end; SIGINT/SIGTERM stop it cleanly.

    ``executor``: where its matches are played (default: ``executor_for(config)``);
    ``on_notice``: told what the operator should hear at once (``OnNotice``).

    On a signal the tables stop, every bot process is ended, the run is marked
    interrupted, and ``RunInterrupted`` is raised; games already stored are kept.
    """
    import signal

    with exclusive(config.db_path), ResultsStore.open(config.db_path) as store:
        runner = TournamentRunner(
            config, store, log_root / config.run_id, on_progress, on_game, executor, on_notice
        )
        summary_box: list[RunSummary] = []

        async def main() -> None:
            loop = asyncio.get_running_loop()
            task = asyncio.ensure_future(runner.run())
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, task.cancel)
            try:
                summary_box.append(await task)
            finally:
                for sig in (signal.SIGINT, signal.SIGTERM):
                    loop.remove_signal_handler(sig)

        try:
            run_loop(main())
        except asyncio.CancelledError:
            raise RunInterrupted(
                RunSummary(
                    config.run_id,
                    runner.progress.done - runner.progress.already_done,
                    runner.progress.already_done,
                    0.0,
                    0,
                    0.0,
                    0.0,
                    interrupted=True,
                )
            ) from None
        return summary_box[0]
