"""One timer for a task's bounded wait, moved without touching the event loop's timers.

``asyncio.timeout`` costs a context manager, a ``Timeout`` object and a timer rescheduled
(cancelled and armed again) each time its deadline moves; a decision moves its deadline
once (from delivering the request to answering it) and every decision has one, so that is
a visible share of the referee's CPU. ``Deadline`` arms one loop timer at the earliest
time the wait could end; moving the deadline later only writes a number, and a timer that
fires before the deadline arms itself again for the rest. On expiry it cancels the task
as ``asyncio.timeout`` does, and ``timed_out`` tells that cancellation (the wait timed
out) from any other, which the caller lets through. A timer armed before the deadline may
call ``early`` when it first fires (the fair clock's probe of a slow decision,
``arena.referee.starved.DecisionClock``), at no cost to a wait that ends sooner.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

__all__ = ["Deadline"]


class Deadline:
    """The deadline of the current task's wait, ``seconds`` from now."""

    __slots__ = (
        "_armed_at",
        "_cancelling",
        "_early",
        "_handle",
        "_loop",
        "_task",
        "expired",
        "when",
    )

    def __init__(
        self,
        seconds: float,
        first: float | None = None,
        early: Callable[[], None] | None = None,
    ) -> None:
        """Expire ``seconds`` from now; the timer is armed ``first`` seconds from now if that
        is sooner, since a ``move`` to a time before the armed one would arm it again.
        ``early`` is called once, if the timer fires before the deadline."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        when = now + seconds
        task = asyncio.current_task(loop)
        assert task is not None, "a deadline bounds a task's wait"
        self._loop = loop
        self._task = task
        self._cancelling = task.cancelling()
        self.when = when
        self.expired = False
        self._early = early
        self._armed_at = when if first is None or first > seconds else now + first
        self._handle: asyncio.TimerHandle | None = loop.call_at(self._armed_at, self._fire)

    def move(self, seconds: float) -> None:
        """The wait now ends ``seconds`` from now; the timer is armed again only if that is
        sooner than the time it is armed for."""
        self.when = when = self._loop.time() + seconds
        if when < self._armed_at and self._handle is not None:
            self._handle.cancel()
            self._armed_at = when
            self._handle = self._loop.call_at(when, self._fire)

    def cancel(self) -> None:
        """The wait is over: the timer will not fire."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def timed_out(self) -> bool:
        """Called on a ``CancelledError`` of the wait: whether it is this deadline's (then
        it is undone: the wait timed out) rather than one from elsewhere, to re-raise."""
        return self.expired and self._task.uncancel() <= self._cancelling

    def _fire(self) -> None:
        if self.when > self._armed_at:  # armed early, or moved later since it was armed
            self._armed_at = self.when
            self._handle = self._loop.call_at(self.when, self._fire)
            early, self._early = self._early, None
            if early is not None:
                early()
            return
        self._handle = None
        self.expired = True
        self._task.cancel()
