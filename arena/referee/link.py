"""A seat reached through a ``SeatLink``: the messages of ``arena.v1``, over gRPC or JSON lines.

``LinkChannel`` is the ``SeatChannel`` (``arena.referee.channel``) of a seat whose bot is a
process speaking the protocol: it turns the table's values into ``RefereeMessage``s (the
wire's ``arena.wire.protocol``) and the bot's ``BotMessage``s into answers or refusals
(``arena.wire.answers``). The link carries them: a gRPC stream (``arena.referee.server``)
or the bot's standard input and output (``arena.referee.stdio``), whose reader puts
messages it has already parsed in the same inbox.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.bots.cgroup import CpuMeter
from arena.engine import DecisionKind
from arena.v1 import arena_pb2 as pb
from arena.wire.answers import decode_answer, decode_message
from arena.wire.faults import Refusal
from arena.wire.protocol import (
    notice_to_pb,
    request_into,
    told_to_pb,
    welcome_to_pb,
)

from .channel import Answer, Notice, Request, Told, Welcome
from .server import InboxItem, LinkClosedError, SeatLink

__all__ = ["LinkChannel", "decode_item"]


def decode_item(item: InboxItem, kind: DecisionKind, request_id: int) -> Answer:
    """What one item of a seat's inbox means while ``request_id`` is open."""
    if item is None:
        raise LinkClosedError
    if isinstance(item, bytes):
        return decode_answer(item, kind, request_id)
    if isinstance(item, Refusal):
        return item
    message, sent = item
    return decode_message(message, kind, request_id, sent)


class LinkChannel:
    """The table's side of a ``SeatLink`` (see the module's docstring)."""

    def __init__(self, link: SeatLink) -> None:
        self.link = link

    def __repr__(self) -> str:
        return f"<LinkChannel seat {self.link.seat}>"

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
    def connected(self) -> bool:
        return self.link.connected

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

    def take_overflow(self) -> int:
        dropped, self.link.overflow = self.link.overflow, 0
        return dropped

    async def welcome(self, welcome: Welcome, timeout: float) -> bool:
        return await self.link.send(pb.RefereeMessage(welcome=welcome_to_pb(welcome)), timeout)

    async def tell(self, events: Sequence[Told], timeout: float) -> bool:
        return await self.link.send(pb.RefereeMessage(events=told_to_pb(events)), timeout)

    async def request(self, request: Request) -> None:
        message = pb.RefereeMessage(events=told_to_pb(request.events))
        request_into(message.request, request)  # in place: the view is not copied again
        await self.link.write(message)

    async def answer(self, kind: DecisionKind, request_id: int) -> Answer:
        return decode_item(await self.link.inbox.get(), kind, request_id)

    def answer_waiting(self) -> bool:
        return not self.link.inbox.empty()

    async def notice(self, notice: Notice, timeout: float) -> bool:
        return await self.link.send(pb.RefereeMessage(notice=notice_to_pb(notice)), timeout)

    async def close(self, reason: str, timeout: float) -> bool:
        delivered = False
        if self.link.connected:
            message = pb.RefereeMessage(match_over=pb.MatchOver(reason=reason))
            delivered = await self.link.send(message, timeout)
        self.link.finished.set()
        self.link.close()
        return delivered

    def drop(self) -> None:
        self.link.close()
