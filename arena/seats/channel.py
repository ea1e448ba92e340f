"""The seat channel: everything the table says to one seat and hears back, in engine types.

The table (``arena.referee.table``) plays a match through six ``SeatChannel``s and knows
nothing else of its seats: not the transport, not the generated messages. What it says:

- ``welcome``: once, when every seat has joined (or gone, or missed its deadline);
- ``tell``: events the seat may know (R10), with no decision to make;
- ``request`` then ``answer``: one decision, asked with the events since the last message,
  the seat's view, the legal choices and its time; the clock starts when ``request``
  returns (the request is delivered), and ``answer`` gives the bot's action, or the
  typed ``Refusal`` that replaces it (a malformed, illegal, wrong-kind or wrong-request
  answer), or ``STALE`` for an answer to an older request;
- ``notice``: a fault of the seat's, with the fallback played in its place;
- ``close``: the match is over.

The values (``Welcome``, ``Request``, ``Notice``, ``GameStarted``) are in ``arena.wire.seat``,
where the wire converts them. The time control and the fault policy stay in the table,
the same for every channel of this package: gRPC (``arena.seats.grpc_seat``), standard
input/output (``arena.seats.stdio``) and in-process (``arena.seats.inprocess``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from arena.bots.cgroup import CpuMeter
from arena.engine import Action, DecisionKind
from arena.wire.faults import Refusal, Stale
from arena.wire.seat import GameStarted, Notice, Request, Told, Welcome

__all__ = [
    "Answer",
    "ChannelClosedError",
    "GameStarted",
    "Notice",
    "Request",
    "SeatChannel",
    "Told",
    "Welcome",
]


class ChannelClosedError(Exception):
    """The seat's channel is closed or broken: nothing more can be said or heard."""


# An answer read while a request is open: the action, an answer to an older request, or
# why what the bot sent cannot stand as its answer.
Answer = Action | Stale | Refusal


class SeatChannel(Protocol):
    """One seat, as the table sees it (see the module's docstring)."""

    @property
    def seat(self) -> int: ...

    @property
    def joined(self) -> bool:
        """The bot has joined (its first message was a valid join, in time)."""
        ...

    @property
    def gone(self) -> bool:
        """The channel closed, or the bot's process ended."""
        ...

    @property
    def connected(self) -> bool:
        """Joined and not closed: messages can still be delivered."""
        ...

    @property
    def close_reason(self) -> str:
        """Why the channel closed: the reason of the seat's ``closed`` fault."""
        ...

    @property
    def ended(self) -> str:
        """Why the seat never joined, where its match knows (the ``no_join`` reason)."""
        ...

    @property
    def cpu_meter(self) -> CpuMeter | None:
        """The bot's CPU pressure, where the kernel counts it (``arena.referee.starved``)."""
        ...

    async def wait_joined(self) -> None:
        """Return when the seat has joined, has gone, or its join deadline has passed."""
        ...

    def take_overflow(self) -> int:
        """How many unrequested messages were dropped since the last call (flood)."""
        ...

    async def welcome(self, welcome: Welcome, timeout: float) -> bool:
        """Deliver the welcome within ``timeout`` s; False (and closed) if it could not be."""
        ...

    async def tell(self, events: Sequence[Told], timeout: float) -> bool:
        """Deliver events with no decision; False (and closed) if it could not be."""
        ...

    async def request(self, request: Request) -> None:
        """Deliver a request (the caller bounds the time); ChannelClosedError if closed."""
        ...

    async def answer(self, kind: DecisionKind, request_id: int) -> Answer:
        """The next answer read while ``request_id`` (of ``kind``) is open; waits for it,
        bounded by the caller. ChannelClosedError once the channel is closed."""
        ...

    def answer_waiting(self) -> bool:
        """Something the bot sent has arrived and not been read by ``answer`` yet."""
        ...

    async def notice(self, notice: Notice, timeout: float) -> bool:
        """Deliver a notice; False (and closed) if it could not be."""
        ...

    async def close(self, reason: str, timeout: float) -> bool:
        """Tell the seat the match is over (``reason``) and end the channel; False if the
        last message could not be delivered."""
        ...

    def drop(self) -> None:
        """End the channel at once (the bot stopped reading): auto-played from here on."""
        ...
