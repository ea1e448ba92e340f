"""Where a run's matches are played: the match executors the runner hands each match to.

The runner (the coordinator) decides what to play and is the only writer of the results
database; an executor plays one match wherever it plays them and hands each finished
game back to the coordinator as it ends (``on_game``), which stores it in one
transaction. Everything that crosses the boundary pickles: the ``MatchPlan`` going out
(its game keys go only to the process that deals, never to a bot), the ``GameResult``s
and the ``MatchOutcome`` coming back.

* ``InProcessExecutor``: one referee and its event loop in this process, ``tables``
  matches at once; the next matches' bots start while the current ones play.
* ``LocalProcessExecutor``: referee processes on this machine's cores, each with its own
  event loop, referee and tables (an ``InProcessExecutor``); plans go to them and games
  come back over pipes, game by game. How many: ``referee_processes``.
* ``play_match_blocking``: one match, whole, on a referee of its own, in whatever process
  or thread calls it; for executors whose unit of work is one match (a cluster task).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import itertools
import multiprocessing.connection
import os
import pickle
import resource
import signal
import subprocess
import sys
import threading
import time
import traceback as tracebacks
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Protocol, Self

from arena.referee.match import Match, MatchPlan, Referee
from arena.referee.result import GameResult
from arena.wire.loop import run as run_loop

__all__ = [
    "LAUNCH_HEAD_START_S",
    "InProcessExecutor",
    "LocalProcessExecutor",
    "MatchExecutor",
    "MatchOutcome",
    "OnMatchGame",
    "RefereeProcessError",
    "play_match_blocking",
    "play_match_collected",
    "referee_processes",
]

LAUNCH_HEAD_START_S = 2.0  # longest a launch waits for the previous match's bots to join
# How long a referee process may take to end its matches and exit when told to stop: its
# bots get EXIT_GRACE_S and then a second of SIGTERM (arena.referee.match), then it exits.
REFEREE_STOP_GRACE_S = 10.0
# What one table keeps busy with fast bots, as `arena bench tournament` measures it: about
# half a core in its referee, the rest in its six bots.
CORES_PER_TABLE = 1.4

# Told of each finished game of a match, in the coordinator's process and event loop.
OnMatchGame = Callable[[GameResult], None]


@dataclass(frozen=True)
class MatchOutcome:
    """What the coordinator learns of a match besides its games, once it is over."""

    match_id: str
    games_played: int  # those handed to ``on_game``
    join_wait_seconds: float  # its table slot waiting for bots to be launched and join
    launch_seconds: float  # spent starting its bot processes
    bots_cpu_seconds: float | None  # all its bot processes, where their cgroups count it


class MatchExecutor(Protocol):
    """Plays matches for the runner; used as ``async with executor: ... await play(...)``.

    ``tables`` is how many matches it plays at once; the runner keeps about twice that
    many handed to it, so that the next matches' bots start while the current ones play.
    Leaving the ``async with`` (also when cancelled) ends every match still under way and
    leaves no process behind. ``play`` calls ``on_game`` from the coordinator's event loop,
    once per finished game that is not in ``skip``, in game order.
    """

    @property
    def tables(self) -> int: ...

    @property
    def referee_cpu_seconds(self) -> tuple[float, ...]:
        """CPU seconds of each referee process it ran apart from the coordinator, once left;
        () where the coordinator referees (or where it cannot be known)."""
        ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None: ...

    async def play(
        self, plan: MatchPlan, skip: frozenset[int], on_game: OnMatchGame
    ) -> MatchOutcome: ...


class InProcessExecutor:
    """One referee in this process, ``tables`` matches at once on its event loop.

    Matches are launched one at a time, in the order ``play`` is called, each in one
    long-lived thread (a bot dies with the thread that started it: PR_SET_PDEATHSIG),
    while earlier matches play.
    """

    def __init__(self, tables: int, join_timeout: float = 10.0) -> None:
        self._tables = max(1, tables)
        self._join_timeout = join_timeout
        self._referee: Referee | None = None
        self._launch_thread: concurrent.futures.ThreadPoolExecutor | None = None
        self._launch_lock = asyncio.Lock()
        # One entry per idle table: the time it fell idle. Taking one is taking a table.
        self._idle_tables: asyncio.Queue[float] = asyncio.Queue()
        self.matches: list[Match] = []  # launched and not yet over

    @property
    def tables(self) -> int:
        return self._tables

    @property
    def referee_cpu_seconds(self) -> tuple[float, ...]:
        return ()  # the coordinator's own

    async def __aenter__(self) -> Self:
        referee = Referee(join_timeout=self._join_timeout)
        await referee.start()
        self._referee = referee
        self._launch_thread = concurrent.futures.ThreadPoolExecutor(1, "arena-launch")
        now = time.monotonic()
        for _ in range(self._tables):
            self._idle_tables.put_nowait(now)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            if self._launch_thread is not None:
                # A launch under way finishes first; then no match, launched but never
                # played or cut short, may leave a process behind.
                await asyncio.to_thread(self._launch_thread.shutdown, wait=True)
            await asyncio.gather(*(m.shutdown() for m in self.matches))
            self.matches.clear()
        finally:
            if self._referee is not None:
                await self._referee.stop()
                self._referee = None

    async def play(
        self,
        plan: MatchPlan,
        skip: frozenset[int],
        on_game: OnMatchGame,
        on_launched: Callable[[], None] | None = None,
    ) -> MatchOutcome:
        """Play ``plan``; ``on_launched`` is told once its bots have joined (or the head
        start is over), when the next match may be launched."""
        referee, launch_thread = self._referee, self._launch_thread
        assert referee is not None and launch_thread is not None, "async with the executor"
        match = Match(referee, plan)
        async with self._launch_lock:
            self.matches.append(match)  # before launching: shutdown must see it
            # Starting processes blocks (fork, exec, cgroups): off the event loop, which
            # referees every table.
            await asyncio.get_running_loop().run_in_executor(launch_thread, match.launch)
            # One match's bots at a time: started together they share the CPU and every
            # table waits for the slowest; bounded, so a bot that never joins holds up
            # no other match for long.
            await match.joined(timeout=LAUNCH_HEAD_START_S)
        if on_launched is not None:
            on_launched()
        idle_since = await self._idle_tables.get()
        # A table waiting for a launch is waiting for start-up too.
        waited = time.monotonic() - idle_since
        played = 0

        def count_and_pass(result: GameResult) -> None:
            nonlocal played
            played += 1
            on_game(result)

        try:
            table = await match.play(on_game=count_and_pass, skip=set(skip))
        finally:
            self._idle_tables.put_nowait(time.monotonic())
            self.matches.remove(match)  # over, or failed (ArenaTrouble): its processes ended
        return MatchOutcome(
            plan.match_id,
            played,
            waited + table.join_wait_seconds,
            match.start_seconds,
            match.bots_cpu_seconds,
        )


def play_match_blocking(
    plan: MatchPlan,
    skip: frozenset[int] = frozenset(),
    on_game: OnMatchGame | None = None,
) -> MatchOutcome:
    """Play one match whole on a referee of its own, in the calling thread; no process of
    it outlives the call. A plain function of picklable arguments, so that it can run in
    any process (a cluster worker's task); ``on_game`` is called in the calling thread."""

    async def one_match() -> MatchOutcome:
        async with InProcessExecutor(1, plan.settings.join_timeout_s) as executor:
            return await executor.play(plan, skip, on_game or _ignore)

    return run_loop(one_match())


def play_match_collected(
    plan: MatchPlan, skip: frozenset[int] = frozenset()
) -> tuple[MatchOutcome, list[GameResult]]:
    """``play_match_blocking`` with the finished games returned at the end, in order."""
    games: list[GameResult] = []
    outcome = play_match_blocking(plan, skip, games.append)
    return outcome, games


def _ignore(result: GameResult) -> None:
    del result


def referee_processes(jobs: int, cores: int) -> int:
    """How many referee processes play ``jobs`` tables on a machine of ``cores`` cores.

    A table keeps about CORES_PER_TABLE cores busy, about half a core of it in its
    referee, so one referee process carries two tables at most before it is their
    ceiling. Where the machine has cores for more than one table, the tables are spread
    over one referee process per core, never more processes than tables (``--jobs 8`` on
    4 cores: 4 processes of 2 tables): the referees then use every core. Elsewhere (one
    table, or two cores, which two tables' bots already fill) every table plays in the
    coordinator: processes of their own would only add their start-up and a hop.
    """
    if jobs <= 1 or cores < 2 * CORES_PER_TABLE:
        return 1
    return min(jobs, cores)


class RefereeProcessError(RuntimeError):
    """A referee process ended, or failed a match, while the coordinator waited on it."""


class LocalProcessExecutor:
    """``tables`` matches at once, spread over ``processes`` referee processes.

    Each process runs an ``InProcessExecutor`` with its share of the tables (their counts
    differ by one at most). ``play`` hands a match to the process with the most room and
    relays its games to ``on_game`` as they end. Each process is a fresh interpreter
    (none of the coordinator's threads, locks or open database) in a session of its own,
    so that a Ctrl-C at the terminal reaches the coordinator alone, which decides how the
    run stops. A process whose coordinator is gone (its command pipe closed, even by
    ``kill -9``) ends its matches and exits; its bots die with it in any case
    (PR_SET_PDEATHSIG).
    """

    def __init__(self, tables: int, processes: int, join_timeout: float = 10.0) -> None:
        tables = max(1, tables)
        processes = max(1, min(processes, tables))
        self._shares = [tables // processes + (i < tables % processes) for i in range(processes)]
        self._join_timeout = join_timeout
        self._referees: list[_RefereeProcess] = []
        # One match's bots start at a time on the whole machine, as on one referee: bots
        # started together share the CPU, and every table waits for the slowest.
        self._launch_lock = asyncio.Lock()
        self._cpu: tuple[float, ...] = ()
        self._lost: list[_RefereeProcess] = []  # referee processes that died, replaced

    @property
    def tables(self) -> int:
        return sum(self._shares)

    @property
    def processes(self) -> int:
        return len(self._shares)

    @property
    def referee_cpu_seconds(self) -> tuple[float, ...]:
        return self._cpu

    async def __aenter__(self) -> Self:
        loop = asyncio.get_running_loop()
        try:
            for tables in self._shares:
                self._referees.append(_RefereeProcess(tables, self._join_timeout, loop))
        except BaseException:
            await asyncio.gather(*(r.stop() for r in self._referees))
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        referees, self._referees = [*self._lost, *self._referees], []
        self._lost = []
        await asyncio.gather(*(r.stop() for r in referees))
        self._cpu = tuple(r.cpu_seconds for r in referees if r.cpu_seconds is not None)

    async def _replace_lost(self) -> None:
        """A referee process that died (its matches failed: the runner plays them again)
        is replaced by a fresh one with the same tables."""
        loop = asyncio.get_running_loop()
        lost = []
        # Replaced before any await: two matches played again at once must not both
        # replace it (one replacement would be left running).
        for index, referee in enumerate(self._referees):
            if referee.ended:
                lost.append(referee)
                self._referees[index] = _RefereeProcess(referee.tables, self._join_timeout, loop)
        self._lost += lost
        await asyncio.gather(*(referee.stop() for referee in lost))

    async def play(
        self, plan: MatchPlan, skip: frozenset[int], on_game: OnMatchGame
    ) -> MatchOutcome:
        assert self._referees, "async with the executor"
        await self._replace_lost()
        referee = max(self._referees, key=lambda r: r.room)
        return await referee.play(plan, skip, on_game, self._launch_lock)


@dataclass
class _Waiting:
    """A match handed to a referee process: who is told of its games and its end."""

    on_game: OnMatchGame
    outcome: asyncio.Future[MatchOutcome]
    launched: asyncio.Future[None]


class _RefereeProcess:
    """One referee process as the coordinator sees it: two pipes and a reader thread."""

    def __init__(self, tables: int, join_timeout: float, loop: asyncio.AbstractEventLoop) -> None:
        self.tables = tables
        self.cpu_seconds: float | None = None  # its own, told as it exits
        self._loop = loop
        commands_out, commands_in = os.pipe()
        results_out, results_in = os.pipe()
        try:
            # A fresh interpreter that imports only the referee (not this program's main
            # module, as multiprocessing's spawn would), in a session of its own: a
            # Ctrl-C at the terminal reaches the coordinator, which stops it.
            self._process = subprocess.Popen(
                [sys.executable, "-c", _REFEREE_MAIN, str(commands_out), str(results_in)],
                stdin=subprocess.DEVNULL,
                pass_fds=(commands_out, results_in),
                start_new_session=True,
            )
        except BaseException:
            for fd in (commands_in, results_out):
                os.close(fd)
            raise
        finally:
            os.close(commands_out)
            os.close(results_in)
        self._commands = multiprocessing.connection.Connection(commands_in, readable=False)
        self._results = multiprocessing.connection.Connection(results_out, writable=False)
        self._commands.send((tables, join_timeout))
        self._tickets = itertools.count()
        self._waiting: dict[int, _Waiting] = {}
        self._reader = threading.Thread(target=self._read, name="arena-referee-results")
        self._reader.start()

    @property
    def ended(self) -> bool:
        """Whether the process has exited (it only does when told to, or when it dies)."""
        return self._process.poll() is not None

    @property
    def room(self) -> int:
        """Matches it can take before it has one playing and one ahead at each table."""
        return 2 * self.tables - len(self._waiting)

    async def play(
        self,
        plan: MatchPlan,
        skip: frozenset[int],
        on_game: OnMatchGame,
        launch_lock: asyncio.Lock,
    ) -> MatchOutcome:
        ticket = next(self._tickets)
        loop = self._loop
        waiting = _Waiting(on_game, loop.create_future(), loop.create_future())
        self._waiting[ticket] = waiting
        try:
            async with launch_lock:
                try:
                    self._commands.send((ticket, plan, skip))
                except OSError as error:
                    raise RefereeProcessError(f"{self._describe()} is gone ({error})") from None
                # The next launch waits for this match's bots (or its end, if it fails).
                either: list[asyncio.Future[Any]] = [waiting.launched, waiting.outcome]
                await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            return await waiting.outcome
        finally:
            # Games that still arrive for a match given up (the run is stopping) are dropped.
            self._waiting.pop(ticket, None)

    def _read(self) -> None:
        """In its own thread (unpickling games off the event loop), until the pipe ends."""
        while True:
            try:
                message = self._results.recv()
            except (EOFError, OSError):
                message = None
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                self._loop.call_soon_threadsafe(self._receive, message)
            if message is None:
                return

    def _receive(self, message: tuple[str, Any, Any] | None) -> None:
        if message is None:
            self._lost()
            return
        kind, ticket, value = message
        if kind == "cpu":
            self.cpu_seconds = value
            return
        waiting = self._waiting.get(ticket)
        if waiting is None or waiting.outcome.done():
            return
        if kind == "launched":
            waiting.launched.set_result(None)
        elif kind == "game":
            try:
                waiting.on_game(value)
            except Exception as error:  # storing it failed (a full disk): the match fails
                waiting.outcome.set_exception(error)
        elif kind == "done":
            waiting.outcome.set_result(value)
        else:
            waiting.outcome.set_exception(value)

    def _lost(self) -> None:
        for waiting in self._waiting.values():
            if not waiting.outcome.done():
                waiting.outcome.set_exception(
                    RefereeProcessError(f"{self._describe()} ended during its match")
                )

    def _describe(self) -> str:
        code = self._process.poll()
        status = "" if code is None else f", exit code {code}"
        return f"referee process {self._process.pid}{status}"

    async def stop(self) -> None:
        """Tell it to stop, wait for it to end its matches; then SIGTERM, then SIGKILL."""
        with contextlib.suppress(OSError):
            self._commands.send(None)
        self._commands.close()
        process = self._process
        with contextlib.suppress(subprocess.TimeoutExpired):
            await asyncio.to_thread(process.wait, REFEREE_STOP_GRACE_S)
        if process.poll() is None:
            process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                await asyncio.to_thread(process.wait, 2.0)
        if process.poll() is None:
            process.kill()
            await asyncio.to_thread(process.wait)
        await asyncio.to_thread(self._reader.join)
        self._results.close()


_REFEREE_MAIN = "from arena.tournament.executor import serve_referee; serve_referee()"


def serve_referee() -> None:
    """A referee process's main: its pipes' descriptors are its two arguments.

    The first command is ``(tables, join_timeout)``; then each is ``(ticket, plan, skip)``
    to play on those tables; ``None``, the end of the pipe or SIGTERM stops
    it (its matches end, their bots with them). It sends ``("launched", ticket, None)``
    once a match's bots have joined, ``("game", ticket, GameResult)`` for each finished
    game, ``("done", ticket, MatchOutcome)`` or ``("failed", ticket, error)`` for each
    match, and ``("cpu", None, seconds)`` as it exits.
    """
    commands_fd, results_fd = (int(arg) for arg in sys.argv[1:3])
    commands = multiprocessing.connection.Connection(commands_fd, writable=False)
    results = multiprocessing.connection.Connection(results_fd, readable=False)
    try:
        tables, join_timeout = commands.recv()
        run_loop(_serve(commands, results, tables, join_timeout))
    except EOFError:
        pass  # the coordinator went before it said anything
    finally:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        with contextlib.suppress(OSError):
            results.send(("cpu", None, usage.ru_utime + usage.ru_stime))
        results.close()
        sys.stderr.flush()
    # Without the interpreter's teardown, which takes long with grpc loaded: everything
    # this process started is stopped by now.
    os._exit(0)


async def _serve(
    commands: multiprocessing.connection.Connection,
    results: multiprocessing.connection.Connection,
    tables: int,
    join_timeout: float,
) -> None:
    loop = asyncio.get_running_loop()
    inbox: asyncio.Queue[tuple[int, MatchPlan, frozenset[int]] | None] = asyncio.Queue()

    def read_commands() -> None:
        while True:
            try:
                command = commands.recv()
            except (EOFError, OSError):
                command = None
            with contextlib.suppress(RuntimeError):  # the loop is closed: it has stopped
                loop.call_soon_threadsafe(inbox.put_nowait, command)
            if command is None:
                return

    def send(message: tuple[str, Any, Any]) -> None:
        try:
            results.send(message)
        except OSError:  # the coordinator is gone: nobody to play for
            inbox.put_nowait(None)
            raise

    async def play(ticket: int, plan: MatchPlan, skip: frozenset[int]) -> None:
        try:
            outcome = await executor.play(
                plan,
                skip,
                lambda game: send(("game", ticket, game)),
                lambda: send(("launched", ticket, None)),
            )
        except Exception as error:
            with contextlib.suppress(OSError):
                send(("failed", ticket, _portable(error)))
        else:
            with contextlib.suppress(OSError):
                send(("done", ticket, outcome))

    threading.Thread(target=read_commands, name="arena-referee-commands", daemon=True).start()
    loop.add_signal_handler(signal.SIGTERM, inbox.put_nowait, None)
    playing: set[asyncio.Task[None]] = set()
    async with InProcessExecutor(tables, join_timeout) as executor:
        try:
            while (command := await inbox.get()) is not None:
                task = asyncio.ensure_future(play(*command))
                playing.add(task)
                task.add_done_callback(playing.discard)
        finally:
            for task in playing:
                task.cancel()
            await asyncio.gather(*playing, return_exceptions=True)


def _portable(error: Exception) -> Exception:
    """``error`` if it survives pickling, else a ``RefereeProcessError`` telling it."""
    try:
        pickle.loads(pickle.dumps(error))
    except Exception:
        text = "".join(tracebacks.format_exception_only(error)).strip()
        return RefereeProcessError(f"a match failed in its referee process: {text}")
    return error
