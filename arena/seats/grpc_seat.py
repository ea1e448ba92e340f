"""A seat whose bot dials the referee over gRPC: the messages of ``arena.v1`` on one stream.

``GrpcChannel`` is the ``SeatChannel`` (``arena.seats.channel``) of such a seat: it turns
the table's values into ``RefereeMessage``s (the wire's ``arena.wire.protocol``) written
on the seat's call, and the bot's ``BotMessage`` bytes, which ``read_into`` moves from the
call into the link's inbox as they come, into answers or refusals
(``arena.wire.answers``). The servers and the tokens that bind a call to its seat are the
referee's (``arena.referee.server``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from arena.engine import DecisionKind
from arena.v1 import arena_pb2 as pb
from arena.wire.answers import decode_answer
from arena.wire.grpc_env import configure_grpc
from arena.wire.protocol import (
    notice_to_pb,
    request_into,
    told_to_pb,
    welcome_to_pb,
)

from .channel import Answer, Notice, Request, Told, Welcome
from .link import INBOX_LIMIT, InboxItem, LinkClosedError, LinkedSeat, SeatLink

configure_grpc()  # grpc reads its settings once, when first imported
import grpc  # noqa: E402

__all__ = ["GrpcChannel", "decode_item", "read_into"]


def decode_item(item: InboxItem, kind: DecisionKind, request_id: int) -> Answer:
    """What one item of a gRPC seat's inbox means while ``request_id`` is open."""
    if item is None:
        raise LinkClosedError
    return decode_answer(item, kind, request_id)


async def read_into(link: SeatLink, context: Any) -> None:
    """Move the bot's messages from its call (a ``grpc.aio.ServicerContext``) into its
    inbox until the call ends; a full inbox drops them (flood)."""
    try:
        while True:
            raw = await context.read()
            if raw is grpc.aio.EOF:
                break
            if link.inbox.qsize() >= INBOX_LIMIT:
                link.overflow += 1
                continue
            if link.tap is not None:
                link.tap("up", raw)
            link.inbox.put_nowait(raw)
    except asyncio.CancelledError:
        raise
    except Exception:
        pass
    link.close()


class GrpcChannel(LinkedSeat):
    """The table's side of a gRPC seat's ``SeatLink`` (see the module's docstring)."""

    @property
    def connected(self) -> bool:
        return self.link.connected

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
