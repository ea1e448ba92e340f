"""A launched seat as its match and channel see it: its join, its end, and a gRPC seat's stream.

A ``SeatLink`` holds what every seat played by a process has, whatever its transport: the
join deadline (moved on by what was not the bot's fault), whether the bot joined, its
name, whether its channel closed and why, why it never joined (``ended``), its CPU meter.
A gRPC seat's link also carries its stream: the ``RefereeService`` of
``arena.referee.server`` binds the call to it, its reader (``arena.seats.grpc_seat``) puts
the bot's messages in its ``Inbox``, and ``write`` and ``send`` write to the call. A stdio
seat's channel (``arena.seats.stdio``) reads and writes its pipes itself, and uses the
link for the join and the end only.
"""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from arena.bots.cgroup import CpuMeter
from arena.v1 import arena_pb2 as pb

from .channel import ChannelClosedError

__all__ = [
    "INBOX_LIMIT",
    "MAX_MESSAGE_BYTES",
    "NAME_LIMIT",
    "Inbox",
    "InboxItem",
    "LinkClosedError",
    "LinkedSeat",
    "SeatLink",
]

MAX_MESSAGE_BYTES: Final = 64 * 1024  # far above any honest message (a join, an answer)
INBOX_LIMIT: Final = 32  # unread messages kept per seat before the rest count as flood
NAME_LIMIT: Final = 64
# A join deadline counts only the time the referee could serve (SeatLink.joined_or_gone):
# the loop is checked every tick, and lateness beyond the tolerance is not the bot's.
JOIN_TICK_S: Final = 0.05
LOOP_LAG_TOLERANCE_S: Final = 0.02


class LinkClosedError(ChannelClosedError):
    """The seat's stream is closed or broken."""


# What a gRPC seat's reader puts in its inbox: a message's bytes; None once the link is
# closed.
InboxItem = bytes | None


class Inbox:
    """A seat's unread messages: the stream's reader puts, the table takes.

    ``asyncio.Queue`` with only what a seat needs (one reader, one taker), since every
    answer passes through here on the hot path. An item stays queued until taken, so a
    taker cancelled by its deadline loses nothing.
    """

    def __init__(self) -> None:
        self._items: collections.deque[InboxItem] = collections.deque()
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: InboxItem) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> InboxItem:
        while not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.popleft()

    def qsize(self) -> int:
        return len(self._items)

    def empty(self) -> bool:
        return not self._items


@dataclass
class SeatLink:
    """One seat's join and end, and a gRPC seat's stream (see the module's docstring)."""

    seat: int
    token: str
    join_deadline: float  # time.monotonic() after which the token is refused
    address: str = ""  # where this seat's bot dials (ARENA_ADDRESS): its own socket
    joined: asyncio.Event = field(default_factory=asyncio.Event)
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    gone: asyncio.Event = field(default_factory=asyncio.Event)  # closed, or process exited
    inbox: Inbox = field(default_factory=Inbox)
    bot_name: str = ""
    bot_version: str = ""
    closed: bool = False  # the stream ended or broke: auto-play from here on
    close_reason: str = "the stream closed or the process died"
    # Why the seat never joined, where its match knows (how its process ended, its log):
    # the reason of its ``no_join`` fault.
    ended: str = ""
    overflow: int = 0  # messages dropped because the inbox was full (flood)
    # Sees every message to and from this seat ("down" and "up"), for transcripts.
    tap: Callable[[str, pb.RefereeMessage | bytes], None] | None = None
    expired: bool = False  # the join deadline passed while someone waited for the join
    # How long other bots' load kept this seat's bot from the CPU (its cgroup's pressure),
    # where the kernel counts it: never charged to the seat (arena.referee.starved).
    cpu_meter: CpuMeter | None = None
    # What moves the join deadline on, for each wait: a fresh count of the time other bots'
    # load has kept the bot off the CPU since its launch, not given yet (set by its match,
    # from ``cpu_meter``: arena.referee.starved).
    join_credit: Callable[[], Callable[[], float]] | None = None
    _context: Any = None
    _watchers: int = 0

    @property
    def connected(self) -> bool:
        return self._context is not None and not self.closed

    async def write(self, message: pb.RefereeMessage) -> None:
        """Write one message; a broken stream closes the link and raises LinkClosedError."""
        if not self.connected:
            raise LinkClosedError
        try:
            if self.tap is not None:
                self.tap("down", message)
            await self._context.write(message)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # any transport error closes only this seat
            self.close()
            raise LinkClosedError from error

    async def send(self, message: pb.RefereeMessage, timeout: float) -> bool:
        """Write one message within ``timeout``; False (and the link closed) on failure."""
        try:
            async with asyncio.timeout(timeout):
                await self.write(message)
        except (TimeoutError, LinkClosedError):
            self.close()
            return False
        return True

    async def joined_or_gone(self) -> None:
        """Return when the seat has joined, has gone, or its join deadline has passed.

        The deadline counts only time in which the referee could serve: a join that
        arrived in time but waited for a busy event loop (another seat's flood, a slow
        machine) is not late, so each tick the loop comes back late moves the deadline
        (and the token's, which is the same) by that lateness. Nor does it count the time
        other bots' load kept this bot from the CPU since it was launched
        (``join_credit``).
        """
        joined = asyncio.ensure_future(self.joined.wait())
        gone = asyncio.ensure_future(self.gone.wait())
        credit = None if self.join_credit is None else self.join_credit()
        self._watchers += 1
        try:
            while not (joined.done() or gone.done()):
                remaining = self.join_deadline - time.monotonic()
                if remaining <= 0 and credit is not None:
                    self.join_deadline += credit()
                    remaining = self.join_deadline - time.monotonic()
                if remaining <= 0:
                    self.expired = True
                    break
                tick = min(remaining, JOIN_TICK_S)
                before = time.monotonic()
                first = asyncio.FIRST_COMPLETED
                await asyncio.wait([joined, gone], timeout=tick, return_when=first)
                late = time.monotonic() - before - tick
                if late > LOOP_LAG_TOLERANCE_S and not (joined.done() or gone.done()):
                    self.join_deadline += late
        finally:
            self._watchers -= 1
            joined.cancel()
            gone.cancel()

    def too_late(self) -> bool:
        """Whether a join now is past the deadline. While someone waits for the join
        (``joined_or_gone``), it decides, since only it knows how late the loop has been:
        a join that waited for the loop arrives before the clock says it is late."""
        if self._watchers:
            return self.expired
        return self.expired or time.monotonic() > self.join_deadline

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.inbox.put_nowait(None)
        self.gone.set()


class LinkedSeat:
    """What every channel of a launched seat reads from its ``SeatLink``: the seat, its
    join, its end and its CPU meter (``GrpcChannel`` and ``StdioChannel`` build on it)."""

    def __init__(self, link: SeatLink) -> None:
        self.link = link

    def __repr__(self) -> str:
        return f"<{type(self).__name__} seat {self.link.seat}>"

    @property
    def seat(self) -> int:
        return self.link.seat

    @property
    def joined(self) -> bool:
        return self.link.joined.is_set()

    @property
    def gone(self) -> bool:
        return self.link.gone.is_set()

    @property
    def close_reason(self) -> str:
        return self.link.close_reason

    @property
    def ended(self) -> str:
        return self.link.ended

    @property
    def cpu_meter(self) -> CpuMeter | None:
        return self.link.cpu_meter

    async def wait_joined(self) -> None:
        await self.link.joined_or_gone()
