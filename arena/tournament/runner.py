"""Running a tournament: what a schedule hands out, on an executor, each game stored as it ends.

A run is identified by what it plays (entrants and their versions, games, seed if one
was given, settings), so running the same command again resumes it: only the games
missing from the database are played. A new run draws its deal key from the OS CSPRNG
(or derives it from an explicit seed) and keeps it only in the database, from which a
resumed run reads it back: the key is no part of the identity, so the same command
finds the same run, and the same deals go to the same seats. The matches are played by
a match executor (``arena.tournament.executor``): one referee in this process, referee
processes on this machine's cores (``arena.tournament.local``), or a cluster; this process
alone writes the database.

The runner asks a ``Schedule`` (``arena.tournament.schedule``) which match to play next:
the round robin and the sampled schedule are fixed lists, and a comparison's batches and
a contest's ladder answer as they go. The arena's own trouble never becomes a result: a
match the arena could not give its bots is played again with the same deals
(``arena.tournament.retry``), and after ``MATCH_ATTEMPTS`` the schedule decides (a fixed
one stops the run with the reason); nothing of a failed attempt is stored, and the games
an attempt finished before it failed are not replayed. No deal is live at two tables at
once: the executor plays every game inside its deal's lease (``arena.tournament.leases``).
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
from arena.bots.build import BotOptions
from arena.bots.sandbox import DEFAULT_WORKDIR_BYTES
from arena.referee.match import MatchPlan
from arena.referee.policy import FaultKind
from arena.referee.result import GameResult
from arena.referee.table import TableSettings
from arena.tournament.executor import MatchExecutor, MatchOutcome
from arena.tournament.local import local_executor
from arena.tournament.retry import (
    MATCH_ATTEMPTS,
    REPLAY_PAUSE_S,
    MatchUnplayableError,
    RetryPolicy,
)
from arena.tournament.schedule import (
    Done,
    RunKey,
    Schedule,
    ScheduledMatch,
    SchedulePlan,
    Wait,
)
from arena.tournament.store import DuplicateGameError, ResultsStore, entrant_label
from arena.wire.loop import run as run_loop

__all__ = [
    "DEALING",
    "MATCH_ATTEMPTS",
    "REPLAY_PAUSE_S",
    "MatchUnplayableError",
    "RunConfig",
    "RunInterrupted",
    "RunProgress",
    "RunSummary",
    "TournamentRunner",
    "run_tournament",
]

# In every run's identity, so that a run dealt another way is never resumed with these deals.
DEALING = "hmac-sha256-v1"


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

    @property
    def bot_options(self) -> BotOptions:
        """How the run's seats run, as one value (``MatchPlan.of``); their builds were made
        before the run."""
        return BotOptions(
            limits=self.limits,
            sandbox=self.sandbox,
            workdir_bytes=self.workdir_bytes,
            pass_env=self.pass_env,
        )

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
    # What the deals' leases cost: seconds tables waited for a deal played at another.
    deal_wait_seconds: float = 0.0


OnProgress = Callable[[RunProgress], None]
# Told one line for the operator as it happens: an entrant whose seat never joined (its
# exit status, its log's end and path), a match played again for the arena's trouble.
OnNotice = Callable[[str], None]
# Told of each game once it is stored, with the seating it was played in (``arena compare``
# follows its test game by game).
OnGame = Callable[[ScheduledMatch, GameResult], None]


class TournamentRunner:
    """Plays what its schedule hands out, a match at a time, and stores each game as it ends.

    The one runner of every kind of run: it asks its ``Schedule`` which match next whenever
    it has room (about two matches per table handed to the executor, so that the next
    matches' bots start while the current ones play), skips the games already stored
    (a resumed run), plays each match through the retry policy (``RetryPolicy``: the
    arena's trouble is played again, never counted) and tells the schedule of every game
    stored and every match ended. ``wake`` makes it ask again at once (an entrant added).
    """

    def __init__(
        self,
        config: RunConfig,
        store: ResultsStore,
        log_dir: Path,
        on_progress: OnProgress | None = None,
        on_game: OnGame | None = None,
        executor: MatchExecutor | None = None,
        on_notice: OnNotice | None = None,
        schedule: Schedule | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.config = config
        self.store = store
        self.log_dir = log_dir
        self.on_progress = on_progress
        self.on_game = on_game
        self.on_notice = on_notice
        self._told: set[str] = set()  # entrants whose missed join the operator was told of
        self.schedule: Schedule = schedule or config.schedule.schedule(
            config.entrants, config.games
        )
        self.retry = retry or RetryPolicy()
        self._run_key: RunKey | None = None  # read from the store when the run starts
        self._entrant_ids: dict[int, int] = {}  # the store's, by the schedule's index
        self._wake = asyncio.Event()
        self.progress = RunProgress(total=self.schedule.total_games or 0)
        self.executor: MatchExecutor = executor or executor_for(config)

    def wake(self) -> None:
        """Ask the schedule again now (it has more to play than when it last answered)."""
        self._wake.set()

    async def run(self) -> RunSummary:
        config, store = self.config, self.store
        run_id = config.run_id
        fresh = RunKey.generate() if config.seed is None else RunKey.from_seed(config.seed)
        store.start_run(run_id, config.seed, config.identity(), fresh.secret)
        self._run_key = RunKey(store.deal_key(run_id))  # the first key, if resuming
        done = store.completed_games(run_id)
        self.progress.already_done = self.progress.done = len(done)
        started = time.monotonic()
        summary = RunSummary(run_id, 0, len(done), 0.0, 0, 0.0, 0.0)
        self._emit()
        try:
            await self._play_all(summary)
        except asyncio.CancelledError:
            summary.interrupted = True
            store.finish_run(run_id, "interrupted")
            raise
        finally:
            summary.wall_seconds = time.monotonic() - started
            summary.referee_cpu_seconds = self.executor.referee_cpu_seconds
            summary.deal_wait_seconds = self.executor.leases.waited_seconds
        store.finish_run(run_id, "finished")
        return summary

    async def _play_all(self, summary: RunSummary) -> None:
        """Ask, play, store, until the schedule is done and its last match over."""
        schedule = self.schedule
        playing: dict[str, asyncio.Task[None]] = {}
        finished = False
        async with contextlib.AsyncExitStack() as executor_held:
            entered = False  # the executor, for the first game to play
            try:
                while True:
                    self._wake.clear()
                    for key in schedule.withdrawn():
                        if (withdrawn := playing.get(key)) is not None:
                            withdrawn.cancel()  # its stored games are kept
                    wait_s: float | None = None
                    while not finished and len(playing) < 2 * self.executor.tables:
                        answer = schedule.next_match()
                        if isinstance(answer, Done):
                            finished = True
                        elif isinstance(answer, Wait):
                            wait_s = answer.seconds
                            break
                        elif answer.key in playing:
                            raise ValueError(f"match {answer.key} handed out while it plays")
                        elif len(skip := self._register(answer)) >= answer.games:
                            schedule.match_ended(answer)  # stored whole already
                        else:
                            if not entered:  # nothing to play: no referee to start
                                await executor_held.enter_async_context(self.executor)
                                entered = True
                            play = self._play_match(answer, skip, summary)
                            playing[answer.key] = asyncio.ensure_future(play)
                    if finished and not playing:
                        return
                    await self._until_something(playing, wait_s)
            finally:
                for task in playing.values():
                    task.cancel()
                await asyncio.gather(*playing.values(), return_exceptions=True)

    async def _until_something(
        self, playing: dict[str, asyncio.Task[None]], timeout: float | None
    ) -> None:
        """Until a match ends, a game is stored, the runner is woken, or ``timeout``."""
        woken = asyncio.ensure_future(self._wake.wait())
        try:
            await asyncio.wait(
                [*playing.values(), woken], timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            woken.cancel()
        ended = {key: task for key, task in playing.items() if task.done()}
        for key in ended:
            del playing[key]
        # Every failure among them is retrieved (else asyncio prints each one's traceback);
        # the first that failed (a full disk, a match given up) stops the run. A match
        # cancelled was withdrawn by the schedule.
        failures = [t.exception() for t in ended.values() if not t.cancelled()]
        for failure in failures:
            if failure is not None:
                raise failure

    def _register(self, scheduled: ScheduledMatch) -> frozenset[int]:
        """The match in the store (with its entrants) and the games of it not to play:
        not its own, or stored already."""
        run_id = self.config.run_id
        ids = tuple(self._entrant_id(i) for i in scheduled.entrants)
        self.store.ensure_match(run_id, scheduled.key, (ids[0], ids[1], ids[2]))
        return self._skip(scheduled)

    def _skip(self, scheduled: ScheduledMatch) -> frozenset[int]:
        done = self.store.completed_games(self.config.run_id)
        return scheduled.skipped(i for i in scheduled.indices if (scheduled.key, i) in done)

    def _entrant_id(self, index: int) -> int:
        if index not in self._entrant_ids:
            spec = self.schedule.entrants[index]
            self._entrant_ids[index] = self.store.upsert_entrant(
                spec.name, spec.version, list(spec.command)
            )
        return self._entrant_ids[index]

    async def _play_match(
        self, scheduled: ScheduledMatch, skip: frozenset[int], summary: RunSummary
    ) -> None:
        """One match through the retry policy: each attempt plays the games still missing."""
        store_game = functools.partial(self._store_game, scheduled, summary)
        plan = self._plan(scheduled)
        first = True

        async def attempt() -> MatchOutcome:
            nonlocal first
            missing = skip if first else self._skip(scheduled)  # an attempt's games count
            first = False
            return await self.executor.play(plan, missing, store_game)

        try:
            outcome = await self.retry.play(attempt, self._notice)
        except MatchUnplayableError as error:
            # The schedule decides: a fixed one stops the run, a ladder leaves the round.
            stops = "so the run stops (no game of those attempts counts)"
            given_up = MatchUnplayableError(error.trouble, error.attempts, stops)
            self.schedule.given_up(scheduled, given_up)
            return
        summary.join_wait_seconds += outcome.join_wait_seconds
        summary.launch_seconds += outcome.launch_seconds
        if summary.bots_cpu_seconds is not None:
            cpu = outcome.bots_cpu_seconds
            summary.bots_cpu_seconds = None if cpu is None else summary.bots_cpu_seconds + cpu
        self.store.finish_match(self.config.run_id, scheduled.key)
        self.schedule.match_ended(scheduled)

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
            label = self._label(scheduled.entrants[fault.seat % 3])
            if fault.kind is FaultKind.NO_JOIN and label not in self._told:
                self._told.add(label)
                self._notice(
                    f"{label} never joined (seat {fault.seat}, match {scheduled.key}; "
                    f"its seats are played by the fallbacks): {fault.reason}"
                )
        self.schedule.game_stored(scheduled, result)
        if self.on_game is not None:
            self.on_game(scheduled, result)
        self._count(scheduled, result)
        self._wake.set()  # the schedule may have more to say now

    def _label(self, index: int) -> str:
        spec = self.schedule.entrants[index]
        return entrant_label(spec.name, spec.version)

    def _plan(self, scheduled: ScheduledMatch) -> MatchPlan:
        config = self.config
        assert self._run_key is not None
        specs = tuple(self.schedule.entrants[i] for i in scheduled.entrants)
        return MatchPlan.of(
            scheduled.match_id or scheduled.key,
            (specs[0], specs[1], specs[2]),
            [self._run_key.game(i) for i in range(scheduled.games)],
            self.log_dir / scheduled.key,
            config.bot_options,
            settings=config.settings,
            order=scheduled.order,
            private=_private_paths(config.db_path, self.log_dir),
        )

    def _count(self, scheduled: ScheduledMatch, result: GameResult) -> None:
        progress = self.progress
        progress.done += 1
        for team, entrant in enumerate(scheduled.entrants):
            label = self._label(entrant)
            progress.games_by_entrant[label] += 1
            if result.winner == team:
                progress.wins[label] += 1
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
    schedule: Schedule | None = None,
) -> RunSummary:
    """Run (or resume) a tournament to the end; SIGINT/SIGTERM stop it cleanly.

    ``executor``: where its matches are played (default: ``executor_for(config)``);
    ``on_notice``: told what the operator should hear at once (``OnNotice``);
    ``schedule``: what it plays (default: ``config.schedule``'s matches of its entrants).

    On a signal the tables stop, every bot process is ended, the run is marked
    interrupted, and ``RunInterrupted`` is raised; games already stored are kept.
    """
    import signal

    with exclusive(config.db_path), ResultsStore.open(config.db_path) as store:
        runner = TournamentRunner(
            config,
            store,
            log_root / config.run_id,
            on_progress,
            on_game,
            executor,
            on_notice,
            schedule,
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
