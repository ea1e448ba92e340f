"""The gRPC side of the referee: the servers, seat tokens, and each seat's stream.

Each seat has its own ``grpc.aio`` server on its own unix socket, which accepts only that
seat's token and one call per connection (``create_server``): whatever a bot does to its
HTTP/2 connection stays on that connection and its seat. A bot's stream
is bound to its seat by a single-use token; from then on the table talks to the seat
through its ``SeatLink`` and never sees gRPC. Requests arrive as raw bytes and are parsed
here, so that garbage from a bot is a recorded fault and not a dead stream.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from google.protobuf.message import DecodeError

from arena.bots.cgroup import CpuMeter
from arena.v1 import arena_pb2 as pb
from arena.wire.faults import Refusal
from arena.wire.grpc_env import configure_grpc
from arena.wire.protocol import PROTOCOL_VERSION

from .channel import ChannelClosedError
from .deadline import Deadline
from .starved import MAX_CREDIT_S, StarvationCredit

configure_grpc()  # grpc reads its settings once, when first imported
import grpc  # noqa: E402

SERVICE_NAME: Final = "arena.v1.Referee"
MAX_MESSAGE_BYTES: Final = 64 * 1024  # far above any honest message (a join, an answer)
MAX_METADATA_BYTES: Final = 8 * 1024  # a gRPC client sends about 300 bytes of headers
INBOX_LIMIT: Final = 32  # unread messages kept per seat before the rest count as flood
NAME_LIMIT: Final = 64
# A join deadline counts only the time the referee could serve (SeatLink.joined_or_gone):
# the loop is checked every tick, and lateness beyond the tolerance is not the bot's.
JOIN_TICK_S: Final = 0.05
LOOP_LAG_TOLERANCE_S: Final = 0.02


class LinkClosedError(ChannelClosedError):
    """The seat's stream is closed or broken."""


# What a seat's reader puts in its inbox: a gRPC message's bytes; a message a standard
# input/output seat sent, already parsed, with its line abbreviated for a fault; the
# refusal of a line that is not a message; None once the link is closed.
InboxItem = bytes | tuple[pb.BotMessage, str] | Refusal | None


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


def new_token() -> str:
    """An unguessable single-use seat token (192 random bits)."""
    return secrets.token_urlsafe(24)


@dataclass
class SeatLink:
    """One seat's connection, as the table sees it: a queue in, a send function out."""

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
        deadline = Deadline(timeout)
        try:
            try:
                await self.write(message)
            finally:
                deadline.cancel()
        except asyncio.CancelledError:
            if not deadline.timed_out():
                raise
            self.close()
            return False
        except LinkClosedError:
            self.close()
            return False
        return True

    async def joined_or_gone(self) -> None:
        """Return when the seat has joined, has gone, or its join deadline has passed.

        The deadline counts only time in which the referee could serve: a join that
        arrived in time but waited for a busy event loop (another seat's flood, a slow
        machine) is not late, so each tick the loop comes back late moves the deadline
        (and the token's, which is the same) by that lateness. Nor does it count the time
        other bots' load kept this bot from the CPU since it was launched (its group's
        counters start at its launch).
        """
        joined = asyncio.ensure_future(self.joined.wait())
        gone = asyncio.ensure_future(self.gone.wait())
        credit = StarvationCredit.since_launch(self.cpu_meter)
        self._watchers += 1
        try:
            while not (joined.done() or gone.done()):
                remaining = self.join_deadline - time.monotonic()
                if remaining <= 0 and credit is not None:
                    self.join_deadline += credit.more()
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
        reader = asyncio.ensure_future(_read_into(link, context))
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


async def _read_into(link: SeatLink, context: grpc.aio.ServicerContext) -> None:
    """Move the bot's messages into its inbox; a full inbox drops them (flood)."""
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
