"""The gRPC side of the referee: the servers, and the seat tokens that bind a call to its seat.

Each seat has its own ``grpc.aio`` server on its own unix socket, which accepts only that
seat's token and one call per connection (``create_server``): whatever a bot does to its
HTTP/2 connection stays on that connection and its seat. A bot's stream is bound to its
seat's ``SeatLink`` by a single-use token; from then on the table talks to the seat
through its channel (``arena.seats.grpc_seat``) and never sees gRPC. Messages arrive as
raw bytes and are parsed by the channel, so that garbage from a bot is a recorded fault
and not a dead stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from typing import Any, Final

from google.protobuf.message import DecodeError

from arena.seats.grpc_seat import read_into
from arena.seats.link import JOIN_TICK_S, MAX_MESSAGE_BYTES, NAME_LIMIT, SeatLink
from arena.v1 import arena_pb2 as pb
from arena.wire.grpc_env import configure_grpc
from arena.wire.protocol import PROTOCOL_VERSION

from .starved import MAX_CREDIT_S

configure_grpc()  # grpc reads its settings once, when first imported
import grpc  # noqa: E402

SERVICE_NAME: Final = "arena.v1.Referee"
MAX_METADATA_BYTES: Final = 8 * 1024  # a gRPC client sends about 300 bytes of headers


def new_token() -> str:
    """An unguessable single-use seat token (192 random bits)."""
    return secrets.token_urlsafe(24)


class TokenRegistry:
    """The seats waiting for their bot: token to link, each usable once."""

    def __init__(self) -> None:
        self._open: dict[str, SeatLink] = {}
        self._used: set[str] = set()
        self._expired: set[str] = set()

    def register(self, link: SeatLink) -> None:
        self._open[link.token] = link

    def withdraw(self, link: SeatLink) -> None:
        """The match is over or the deadline passed: the token is no longer accepted."""
        if self._open.pop(link.token, None) is not None:
            self._expired.add(link.token)

    def may_join(self) -> bool:
        """Whether a seat of this registry may still join (its deadline not yet passed)."""
        return any(not link.too_late() for link in self._open.values())

    def claim(self, token: str) -> tuple[SeatLink | None, grpc.StatusCode, str]:
        link = self._open.get(token)
        if link is None:
            if token in self._expired:
                expired = "the join deadline for this seat has passed"
                return None, grpc.StatusCode.DEADLINE_EXCEEDED, expired
            if token in self._used:
                return None, grpc.StatusCode.ALREADY_EXISTS, "this seat token was already used"
            return None, grpc.StatusCode.UNAUTHENTICATED, "unknown seat token"
        if link.too_late():
            self.withdraw(link)
            return (
                None,
                grpc.StatusCode.DEADLINE_EXCEEDED,
                "the join deadline for this seat has passed",
            )
        del self._open[token]
        self._used.add(token)
        return link, grpc.StatusCode.OK, ""


class RefereeService:
    """The ``Play`` handler: join, then shuttle the seat's messages until the match ends."""

    def __init__(self, registry: TokenRegistry, join_timeout: float) -> None:
        self.registry = registry
        self.join_timeout = join_timeout

    async def play(self, request_iterator: Any, context: grpc.aio.ServicerContext) -> None:
        raw = await self._first_message(context)
        if raw is None:
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "no Join message in time")
            return
        if raw is grpc.aio.EOF:
            return
        join = _parse_join(raw)
        if isinstance(join, str):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, join)
            return
        if join.protocol_version != PROTOCOL_VERSION:
            await context.abort(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"protocol version {join.protocol_version} is not supported; use 1",
            )
            return
        link, code, message = self.registry.claim(join.token)
        if link is None:
            await context.abort(code, message)
            return
        link.bot_name = join.bot_name[:NAME_LIMIT]
        link.bot_version = join.bot_version[:NAME_LIMIT]
        link._context = context
        if link.tap is not None:
            link.tap("up", raw)
        link.joined.set()
        reader = asyncio.ensure_future(read_into(link, context))
        try:
            await link.finished.wait()
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reader
            link._context = None

    async def _first_message(self, context: grpc.aio.ServicerContext) -> Any:
        """The call's first message (or EOF); None if none came in time.

        In time means within the join timeout, and beyond it for as long as a seat of
        this server may still join: a seat's deadline counts only the time its bot could
        run (``SeatLink.joined_or_gone``), so a bot that the machine kept from the CPU
        between opening its call and sending its join is not refused before the referee
        itself would refuse its join (issue 35: such bots were turned away at 10 s of
        wall time, exited, and were blamed for it). Never beyond the longest a deadline
        can move, so that a silent call on a shared server does not stay for ever.
        """
        read = asyncio.ensure_future(context.read())
        started = time.monotonic()
        try:
            while True:
                done, _ = await asyncio.wait([read], timeout=JOIN_TICK_S)
                if done:
                    return read.result()
                waited = time.monotonic() - started
                if waited > self.join_timeout and (
                    not self.registry.may_join() or waited > self.join_timeout + MAX_CREDIT_S
                ):
                    return None
        finally:
            read.cancel()


def _parse_join(raw: bytes) -> pb.Join | str:
    try:
        message = pb.BotMessage.FromString(raw)
    except DecodeError:
        return "the first message is not a BotMessage"
    if message.WhichOneof("body") != "join":
        return "the first message must be a Join"
    return message.join


def _identity(raw: bytes) -> bytes:
    return raw


def server_options(join_timeout: float) -> list[tuple[str, int]]:
    """Channel arguments for a referee server: what one seat's connection may use.

    A seat needs one call, so a connection gets one stream: grpc core refuses any further
    HEADERS (RST_STREAM) before they reach the referee, so a stream or rapid-reset flood
    costs grpc core some parsing and the event loop nothing. A connection with no call,
    or that has not finished its HTTP/2 handshake, is closed after ``join_timeout``.
    """
    timeout_ms = max(1, int(join_timeout * 1000))
    return [
        ("grpc.max_concurrent_streams", 1),
        ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
        ("grpc.max_send_message_length", 4 * 1024 * 1024),
        ("grpc.max_metadata_size", MAX_METADATA_BYTES),
        ("grpc.http2.max_frame_size", 16 * 1024),  # the HTTP/2 minimum; no message needs more
        ("grpc.http2.max_ping_strikes", 2),  # then GOAWAY: pings are not a bot's business
        ("grpc.max_connection_idle_ms", timeout_ms),
        ("grpc.server_handshake_timeout_ms", timeout_ms),
        ("grpc.so_reuseport", 0),
    ]


def create_server(
    address: str,
    registry: TokenRegistry,
    join_timeout: float = 10.0,
) -> tuple[grpc.aio.Server, str]:
    """A referee server bound to ``address`` (``unix:PATH`` or ``HOST:PORT``; port 0 picks one).

    Returns the server (not started, but already listening: a bot that dials before it
    starts waits in the socket's backlog) and the address bots should dial. Only tokens
    of ``registry`` can join through it.
    """
    service = RefereeService(registry, join_timeout)
    handler = grpc.stream_stream_rpc_method_handler(
        service.play,
        request_deserializer=_identity,
        response_serializer=pb.RefereeMessage.SerializeToString,
    )
    server = grpc.aio.server(options=server_options(join_timeout))
    server.add_generic_rpc_handlers(
        [grpc.method_handlers_generic_handler(SERVICE_NAME, {"Play": handler})]
    )
    port = server.add_insecure_port(address)
    if address.startswith("unix:"):
        return server, address
    host = address.rsplit(":", 1)[0]
    return server, f"{host}:{port}"
