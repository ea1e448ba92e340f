"""Where a run's matches are played: the match executors the runner hands each match to.

The runner (the coordinator) decides what to play and is the only writer of the results
database; an executor plays one match wherever it plays them and hands each finished
game back to the coordinator as it ends (``on_game``), which stores it in one
transaction. Everything that crosses the boundary pickles: the ``MatchPlan`` going out
(its game keys go only to the process that deals, never to a bot), the ``GameResult``s
and the ``MatchOutcome`` coming back.

* ``InProcessExecutor``: one referee and its event loop in this process, ``tables``
  matches at once; the next matches' bots start while the current ones play.
* ``LocalProcessExecutor`` (``arena.tournament.local``): referee processes on this
  machine's cores, each with its own event loop, referee and tables (an
  ``InProcessExecutor``); plans go to them and games come back over pipes, game by game,
  as the messages of ``arena.tournament.messages``.
* ``DaskExecutor`` (``arena.tournament.cluster``): matches as tasks on a Dask cluster.
* ``play_match_blocking``: one match, whole, on a referee of its own, in whatever process
  or thread calls it; for executors whose unit of work is one match (a cluster task).

Whatever the executor, no two games of one deal are live at once among the matches it
plays: every game is played inside its deal's lease (``arena.tournament.leases``), which
the executor's coordinator holds.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, Self

from arena.referee.match import Match, MatchPlan, Referee
from arena.referee.result import GameResult
from arena.referee.table import DealGate
from arena.wire.loop import run as run_loop

from .leases import DealLeases

__all__ = [
    "LAUNCH_HEAD_START_S",
    "InProcessExecutor",
    "MatchExecutor",
    "MatchOutcome",
    "OnMatchGame",
    "play_match_blocking",
    "play_match_collected",
]

LAUNCH_HEAD_START_S = 2.0  # longest a launch waits for the previous match's bots to join

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
    once per finished game that is not in ``skip``, in the plan's order; it plays each game
    only while it holds the lease of the game's deal, so that no two games of one deal are
    ever live at once on its tables (``arena.tournament.leases``). Cancelling ``play`` ends
    that match (its bots with it) and returns once its games stopped.
    """

    # The leases of the deals of every game it plays: held here, in the coordinator.
    leases: DealLeases

    @property
    def tables(self) -> int: ...

    @property
    def referee_cpu_seconds(self) -> tuple[float, ...]:
        """CPU seconds of each referee process it ran apart from the coordinator, once left;
        () where the coordinator referees (or where it cannot be known)."""
        ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(self, *exc_info: object) -> None: ...

    async def play(
        self, plan: MatchPlan, skip: frozenset[int], on_game: OnMatchGame
    ) -> MatchOutcome: ...


class InProcessExecutor:
    """One referee in this process, ``tables`` matches at once on its event loop.

    Matches are launched one at a time, in the order ``play`` is called, each in one
    long-lived thread (a bot dies with the thread that started it: PR_SET_PDEATHSIG),
    while earlier matches play. Its games take their deals' leases from ``leases`` (its
    own where this process is the coordinator), or pass the ``gate`` ``play`` is given
    (a referee process's, which asks the coordinator).
    """

    def __init__(
        self, tables: int, join_timeout: float = 10.0, leases: DealLeases | None = None
    ) -> None:
        self._tables = max(1, tables)
        self._join_timeout = join_timeout
        self.leases = leases or DealLeases()
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

    async def __aexit__(self, *exc_info: object) -> None:
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
        gate: DealGate | None = None,
    ) -> MatchOutcome:
        """Play ``plan``; ``on_launched`` is told once its bots have joined (or the head
        start is over), when the next match may be launched; each game passes ``gate``
        (default: its deal's lease from ``leases``)."""
        referee, launch_thread = self._referee, self._launch_thread
        assert referee is not None and launch_thread is not None, "async with the executor"
        match = Match(referee, plan)
        gate = gate or self.leases.gate(plan, holder=match)
        self.matches.append(match)  # before launching: shutdown must see it
        try:
            async with self._launch_lock:
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
        except BaseException:
            # Given up before a table took it (cancelled): its bots end now, once their
            # launch is over, rather than with the executor.
            if match in self.matches:
                self.matches.remove(match)
                await asyncio.shield(self._end_unplayed(match))
            raise
        # A table waiting for a launch is waiting for start-up too.
        waited = time.monotonic() - idle_since
        played = 0

        def count_and_pass(result: GameResult) -> None:
            nonlocal played
            played += 1
            on_game(result)

        try:
            table = await match.play(on_game=count_and_pass, skip=set(skip), gate=gate)
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

    async def _end_unplayed(self, match: Match) -> None:
        launch_thread = self._launch_thread
        if launch_thread is not None:
            # The launch thread takes its jobs in turn: this one runs once the match's
            # launch, under way or queued, is over.
            with contextlib.suppress(RuntimeError):  # shut down: the launch is over
                await asyncio.get_running_loop().run_in_executor(launch_thread, _nothing)
        await match.shutdown()


def _nothing() -> None:
    pass


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
