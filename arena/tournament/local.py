"""Referee processes on this machine: the ``LocalProcessExecutor`` and the processes' main.

Each referee process runs an ``InProcessExecutor`` (its own event loop, referee and
tables); the coordinator hands it plans and it hands back games, match by match and game
by game, over two pipes in the messages of ``arena.tournament.messages``. The leases of
the deals stay with the coordinator: before each game a referee process asks for its
deal (``GameWanted``) and its table waits for the grant (``GameMayStart``); the lease is
free again once the coordinator has the game (``GameFinished``), or once the match or the
whole process has ended. How many processes a run's tables are spread over by default:
``arena.tournament.split``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import multiprocessing.connection
import os
import pickle
import resource
import signal
import subprocess
import sys
import threading
import traceback as tracebacks
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Self, TypeVar, assert_never

from arena.referee.match import MatchPlan
from arena.referee.table import DealGate, game_key
from arena.tournament.executor import InProcessExecutor, MatchExecutor, MatchOutcome, OnMatchGame
from arena.tournament.leases import DealLeases
from arena.tournament.messages import (
    Command,
    GameFinished,
    GameMayStart,
    GameWanted,
    MatchFailed,
    MatchFinished,
    MatchLaunched,
    OpenTables,
    PlayMatch,
    ProtocolError,
    RefereeExited,
    Report,
    StopMatch,
    StopReferee,
    read_command,
    read_report,
    send,
)
from arena.wire.loop import run as run_loop

__all__ = [
    "LocalProcessExecutor",
    "RefereeProcessError",
    "local_executor",
    "serve_referee",
]

# How long a referee process may take to end its matches and exit when told to stop: its
# bots get EXIT_GRACE_S and then a second of SIGTERM (arena.referee.match), then it exits.
REFEREE_STOP_GRACE_S = 10.0

_T = TypeVar("_T")


class RefereeProcessError(RuntimeError):
    """A referee process ended, or failed a match, while the coordinator waited on it."""


def local_executor(tables: int, processes: int, join_timeout: float = 10.0) -> MatchExecutor:
    """``tables`` at once on this machine: on one referee in this process where
    ``processes`` is 1, else spread over that many referee processes."""
    if processes <= 1:
        return InProcessExecutor(tables, join_timeout)
    return LocalProcessExecutor(tables, processes, join_timeout)


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
        # The deals' leases of every table of every process: the coordinator's alone.
        self.leases = DealLeases()
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
                self._referees.append(self._start(tables, loop))
        except BaseException:
            await asyncio.gather(*(r.stop() for r in self._referees))
            raise
        return self

    async def __aexit__(self, *exc_info: object) -> None:
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
                self._referees[index] = self._start(referee.tables, loop)
        self._lost += lost
        await asyncio.gather(*(referee.stop() for referee in lost))

    def _start(self, tables: int, loop: asyncio.AbstractEventLoop) -> _RefereeProcess:
        return _RefereeProcess(tables, self._join_timeout, loop, self.leases)

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


@dataclass
class _Ticket:
    """A match a referee process may be playing, until it says the match is over (even
    one the coordinator gave up): its plan, which names its games' deals, and the grants
    of their leases under way."""

    plan: MatchPlan
    granting: set[asyncio.Task[None]] = field(default_factory=set)


class _RefereeProcess:
    """One referee process as the coordinator sees it: two pipes and a reader thread."""

    def __init__(
        self,
        tables: int,
        join_timeout: float,
        loop: asyncio.AbstractEventLoop,
        leases: DealLeases,
    ) -> None:
        self.tables = tables
        self.cpu_seconds: float | None = None  # its own, told as it exits
        self._loop = loop
        self._leases = leases
        self._tickets: dict[int, _Ticket] = {}
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
        send(self._commands, OpenTables(tables, join_timeout))
        self._numbers = itertools.count()
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
        ticket = next(self._numbers)
        loop = self._loop
        waiting = _Waiting(on_game, loop.create_future(), loop.create_future())
        self._waiting[ticket] = waiting
        self._tickets[ticket] = _Ticket(plan)
        try:
            async with launch_lock:
                try:
                    send(self._commands, PlayMatch(ticket, plan, skip))
                except OSError as error:
                    self._forget(ticket)
                    raise RefereeProcessError(f"{self._describe()} is gone ({error})") from None
                # The next launch waits for this match's bots (or its end, if it fails).
                either: list[asyncio.Future[Any]] = [waiting.launched, waiting.outcome]
                await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            return await waiting.outcome
        except asyncio.CancelledError:
            # Given up: the process ends the match and then says so, which frees its
            # leases (not before: a game of it may still be live there).
            if ticket in self._tickets:
                with contextlib.suppress(OSError):
                    send(self._commands, StopMatch(ticket))
            raise
        finally:
            # Games that still arrive for a match given up (the run is stopping) are dropped.
            self._waiting.pop(ticket, None)

    def _read(self) -> None:
        """In its own thread (unpickling games off the event loop), until the pipe ends."""
        while True:
            try:
                report = read_report(self._results)
            except (EOFError, OSError):
                self._process.kill()  # its pipe ended: it is gone, or of no more use
                self._process.wait()  # and its bots with it (PR_SET_PDEATHSIG)
                self._tell(self._lost, "ended during its match")
                return
            except Exception as error:  # a ProtocolError, or a report that did not unpickle
                self._process.kill()  # it cannot be followed: ended, and so replaced
                self._process.wait()
                self._tell(self._lost, f"sent what the coordinator cannot read ({error})")
                return
            self._tell(self._receive, report)

    def _tell(self, receiver: Callable[[_T], None], value: _T) -> None:
        """``receiver(value)`` on the coordinator's event loop, from the reader thread."""
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
            self._loop.call_soon_threadsafe(receiver, value)

    def _receive(self, report: Report) -> None:
        match report:
            case RefereeExited(cpu_seconds=seconds):
                self.cpu_seconds = seconds
            case MatchLaunched(ticket=ticket):
                if (waiting := self._under_way(ticket)) is not None:
                    waiting.launched.set_result(None)
            case GameWanted(ticket=ticket, index=index):
                if (held := self._tickets.get(ticket)) is not None:
                    granting = self._loop.create_task(self._grant(ticket, held.plan, index))
                    held.granting.add(granting)
                    granting.add_done_callback(held.granting.discard)
            case GameFinished(ticket=ticket, result=result):
                if (held := self._tickets.get(ticket)) is not None:
                    deal = game_key(held.plan.seeds[result.game_index])
                    self._leases.release(deal, (self, ticket))
                if (waiting := self._under_way(ticket)) is not None:
                    try:
                        waiting.on_game(result)
                    except Exception as error:  # storing it failed (a full disk): it fails
                        waiting.outcome.set_exception(error)
            case MatchFinished(ticket=ticket, outcome=outcome):
                self._forget(ticket)
                if (waiting := self._under_way(ticket)) is not None:
                    waiting.outcome.set_result(outcome)
            case MatchFailed(ticket=ticket, error=error):
                self._forget(ticket)
                if (waiting := self._under_way(ticket)) is not None:
                    waiting.outcome.set_exception(error)
            case _:
                assert_never(report)

    async def _grant(self, ticket: int, plan: MatchPlan, index: int) -> None:
        """Wait for the lease of game ``index``'s deal, then let the table play it."""
        deal = game_key(plan.seeds[index])
        await self._leases.acquire(deal, (self, ticket))
        try:
            send(self._commands, GameMayStart(ticket, index))
        except OSError:  # the process is gone: no game of it will be played
            self._leases.release(deal, (self, ticket))

    def _forget(self, ticket: int) -> None:
        """Match ``ticket`` is over on the process (or the process is): its leases free."""
        held = self._tickets.pop(ticket, None)
        if held is not None:
            for granting in held.granting:
                granting.cancel()
            self._leases.release_all((self, ticket))

    def _under_way(self, ticket: int) -> _Waiting | None:
        """The match ``ticket`` names, unless it is over or given up."""
        waiting = self._waiting.get(ticket)
        return None if waiting is None or waiting.outcome.done() else waiting

    def _lost(self, what: str) -> None:
        """Its pipe ended (or carried what cannot be read) and it has exited, its bots
        with it: every match on it fails, and their leases are free."""
        for ticket in list(self._tickets):
            self._forget(ticket)
        for waiting in self._waiting.values():
            if not waiting.outcome.done():
                waiting.outcome.set_exception(RefereeProcessError(f"{self._describe()} {what}"))

    def _describe(self) -> str:
        code = self._process.poll()
        status = "" if code is None else f", exit code {code}"
        return f"referee process {self._process.pid}{status}"

    async def stop(self) -> None:
        """Tell it to stop, wait for it to end its matches; then SIGTERM, then SIGKILL."""
        with contextlib.suppress(OSError):
            send(self._commands, StopReferee())
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


_REFEREE_MAIN = "from arena.tournament.local import serve_referee; serve_referee()"


def serve_referee() -> None:
    """A referee process's main: its pipes' descriptors are its two arguments.

    The first command is ``OpenTables``; then each ``PlayMatch`` is played on those
    tables; ``StopReferee``, the end of the pipe or SIGTERM stops it (its matches end,
    their bots with them). It reports each match (``MatchLaunched``, ``GameFinished``,
    then ``MatchFinished`` or ``MatchFailed``) and, as it exits, ``RefereeExited``.
    """
    commands_fd, results_fd = (int(arg) for arg in sys.argv[1:3])
    commands = multiprocessing.connection.Connection(commands_fd, writable=False)
    results = multiprocessing.connection.Connection(results_fd, readable=False)
    code = 0
    try:
        match read_command(commands):
            case OpenTables(tables=tables, join_timeout=join_timeout):
                run_loop(_serve(commands, results, tables, join_timeout))
            case StopReferee():
                pass
            case PlayMatch() | GameMayStart() | StopMatch() as command:
                raise ProtocolError(f"told to play before it opened its tables: {command}")
            case unexpected:
                assert_never(unexpected)
    except EOFError:
        pass  # the coordinator went before it said anything
    except ProtocolError as error:
        print(f"referee process {os.getpid()}: {error}", file=sys.stderr)
        code = 2
    finally:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        with contextlib.suppress(OSError):
            send(results, RefereeExited(usage.ru_utime + usage.ru_stime))
        results.close()
        sys.stderr.flush()
    # Without the interpreter's teardown, which takes long with grpc loaded: everything
    # this process started is stopped by now.
    os._exit(code)


async def _serve(
    commands: multiprocessing.connection.Connection,
    results: multiprocessing.connection.Connection,
    tables: int,
    join_timeout: float,
) -> None:
    loop = asyncio.get_running_loop()
    inbox: asyncio.Queue[Command] = asyncio.Queue()
    stop = StopReferee()

    def read_commands() -> None:
        while True:
            command: Command
            try:
                command = read_command(commands)
            except (EOFError, OSError):  # the coordinator is gone
                command = stop
            except Exception as error:  # a ProtocolError, or a plan that did not unpickle
                print(f"referee process {os.getpid()}: {error}; stopping", file=sys.stderr)
                command = stop
            with contextlib.suppress(RuntimeError):  # the loop is closed: it has stopped
                loop.call_soon_threadsafe(inbox.put_nowait, command)
            if isinstance(command, StopReferee):
                return

    def report(message: Report) -> None:
        try:
            send(results, message)
        except OSError:  # the coordinator is gone: nobody to play for
            inbox.put_nowait(stop)
            raise

    # Games waiting for their deal's lease, by (ticket, index): granted by GameMayStart.
    grants: dict[tuple[int, int], asyncio.Future[None]] = {}

    def gate_of(ticket: int) -> DealGate:
        @contextlib.asynccontextmanager
        async def game(index: int) -> AsyncIterator[None]:
            granted = grants[(ticket, index)] = loop.create_future()
            try:
                report(GameWanted(ticket, index))
                await granted
            finally:
                grants.pop((ticket, index), None)
            # The coordinator frees the lease once it has the game (or the match ended).
            yield

        return game

    async def play(ticket: int, plan: MatchPlan, skip: frozenset[int]) -> None:
        try:
            outcome = await executor.play(
                plan,
                skip,
                lambda game: report(GameFinished(ticket, game)),
                lambda: report(MatchLaunched(ticket)),
                gate_of(ticket),
            )
        except asyncio.CancelledError:
            # Stopped (StopMatch, StopReferee): its bots have ended; its leases are free.
            with contextlib.suppress(OSError):
                report(MatchFailed(ticket, RefereeProcessError(f"match {plan.match_id} stopped")))
            raise
        except Exception as error:
            with contextlib.suppress(OSError):
                report(MatchFailed(ticket, _portable(error)))
        else:
            with contextlib.suppress(OSError):
                report(MatchFinished(ticket, outcome))

    threading.Thread(target=read_commands, name="arena-referee-commands", daemon=True).start()
    loop.add_signal_handler(signal.SIGTERM, inbox.put_nowait, stop)
    playing: dict[int, asyncio.Task[None]] = {}

    def over(ticket: int, task: asyncio.Task[None]) -> None:
        del task
        playing.pop(ticket, None)

    async with InProcessExecutor(tables, join_timeout) as executor:
        try:
            while True:
                match await inbox.get():
                    case PlayMatch(ticket=ticket, plan=plan, skip=skip):
                        playing[ticket] = asyncio.ensure_future(play(ticket, plan, skip))
                        playing[ticket].add_done_callback(functools.partial(over, ticket))
                    case GameMayStart(ticket=ticket, index=index):
                        granted = grants.get((ticket, index))
                        if granted is not None and not granted.done():
                            granted.set_result(None)
                    case StopMatch(ticket=ticket):
                        if ticket in playing:
                            playing[ticket].cancel()
                    case StopReferee():
                        break
                    case OpenTables() as command:
                        raise ProtocolError(f"told to open its tables twice: {command}")
                    case unexpected:
                        assert_never(unexpected)
        finally:
            tasks = list(playing.values())
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


def _portable(error: Exception) -> Exception:
    """``error`` if it survives pickling, else a ``RefereeProcessError`` telling it."""
    try:
        pickle.loads(pickle.dumps(error))
    except Exception:
        text = "".join(tracebacks.format_exception_only(error)).strip()
        return RefereeProcessError(f"a match failed in its referee process: {text}")
    return error
