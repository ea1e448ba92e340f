"""No deal live at two tables: the coordinator's leases on deals, taken one game at a time.

Every seating of a run plays game k with the same cards (duplicate play, R3.1a), so two
tables playing game k at once would hold the same hands at the same moment, and any
channel between a bot and its copy at the other table, known or not, could carry a hand
across. So a table takes the lease of the game's deal (its ``GameKey``) before the game's
first message and gives it back once the game is over; a table whose next game's deal is
live elsewhere waits for it. A match plays its games one after another on one table, so
a lease is per game, not per match.

The leases live in one place, the coordinator (the process that hands out the matches):
an executor's tables ask it, in this process directly (``DealLeases.gate``), from a
referee process over its pipes (``arena.tournament.local``), from a Dask worker through the
scheduler (``arena.tournament.cluster``). Waiters are served first come, first served.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import AsyncIterator, Hashable
from typing import TYPE_CHECKING

from arena.engine import GameKey
from arena.referee.table import DealGate, game_key

if TYPE_CHECKING:
    from arena.referee.match import MatchPlan

__all__ = ["DealLeases", "tables_for_deals"]


class DealLeases:
    """One lease per deal: at most one holder at a time, the others queued in turn.

    A holder is any hashable value naming who plays the game (a match, a referee
    process's ticket); the coordinator's event loop is the only one that touches it.
    """

    def __init__(self) -> None:
        self._holders: dict[GameKey, Hashable] = {}
        self._waiting: dict[GameKey, deque[tuple[Hashable, asyncio.Future[None]]]] = {}
        # What the leases cost: games that had to wait for their deal, and the seconds
        # their tables waited in all (the runner's summary says it).
        self.waits = 0
        self.waited_seconds = 0.0

    @property
    def live(self) -> frozenset[GameKey]:
        """The deals whose lease is held now: a game of each is being played."""
        return frozenset(self._holders)

    def holder(self, deal: GameKey) -> Hashable | None:
        return self._holders.get(deal)

    async def acquire(self, deal: GameKey, holder: Hashable) -> None:
        """Wait until ``deal`` is free, then hold it for ``holder``. Cancelled while
        waiting, it holds nothing (a lease granted at that moment is passed on)."""
        if deal not in self._holders:
            self._holders[deal] = holder
            return
        granted = asyncio.get_running_loop().create_future()
        entry = (holder, granted)
        self._waiting.setdefault(deal, deque()).append(entry)
        self.waits += 1
        since = time.monotonic()
        try:
            await granted
        except BaseException:
            if granted.done() and not granted.cancelled():
                self.release(deal, holder)  # handed over as the waiter gave up
            else:
                queue = self._waiting.get(deal)
                if queue is not None and entry in queue:
                    queue.remove(entry)
                    if not queue:
                        del self._waiting[deal]
            raise
        finally:
            self.waited_seconds += time.monotonic() - since

    def release(self, deal: GameKey, holder: Hashable) -> None:
        """``holder`` is done with ``deal``: the next waiter gets it. Releasing a lease one
        does not hold does nothing (a game's end and its match's end both release)."""
        if deal not in self._holders or self._holders[deal] != holder:
            return
        queue = self._waiting.get(deal)
        while queue:
            waiter, granted = queue.popleft()
            if not granted.done():
                self._holders[deal] = waiter
                granted.set_result(None)
                break
        else:
            del self._holders[deal]
        if queue is not None and not queue:
            del self._waiting[deal]

    def release_all(self, holder: Hashable) -> None:
        """Every lease ``holder`` holds (its match ended, or the process playing it did)."""
        for deal in [d for d, h in self._holders.items() if h == holder]:
            self.release(deal, holder)

    @contextlib.asynccontextmanager
    async def hold(self, deal: GameKey, holder: Hashable) -> AsyncIterator[None]:
        """``deal``'s lease for the body of the ``async with``, whatever ends it."""
        await self.acquire(deal, holder)
        try:
            yield
        finally:
            self.release(deal, holder)

    def gate(self, plan: MatchPlan, holder: Hashable) -> DealGate:
        """The gate a table of ``plan`` passes before each game: the game's deal's lease,
        held while the game is played (``Table.play``)."""

        def game(index: int) -> contextlib.AbstractAsyncContextManager[None]:
            return self.hold(game_key(plan.seeds[index]), holder)

        return game


def tables_for_deals(tables: int, deals: int) -> tuple[int, str]:
    """A run of ``deals`` deals (games per seating) plays at most that many games at
    once: the tables worth opening for ``tables`` asked, and the line that says so."""
    kept = max(1, min(tables, deals))
    at_once = "1 table at a time" if kept == 1 else f"{kept} tables at once"
    return kept, (
        f"playing {at_once}, not {tables}: the run has {deals} deal{'s' * (deals != 1)} "
        "(--games), and no deal is played at two tables at once"
    )
