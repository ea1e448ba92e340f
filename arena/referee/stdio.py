"""A seat whose bot speaks JSON lines on its standard input and output (``protocol = "stdio"``).

The bot gets no address and no token: the pipes are the seat. Every line is one message in
protobuf's JSON mapping (docs/PROTOCOL.md, "Standard input and output"): the referee
writes ``RefereeMessage``s to the bot's stdin, every field shown, and reads
``BotMessage``s from its stdout, the first of them a join. Its stderr goes to the seat's
log (``arena.bots.process``), so nothing it logs can be taken for a message.

The seat is a ``SeatLink`` like a gRPC seat's, so the table (through ``LinkChannel``), the
join deadline, the time control and every fault are the same: a line that is not a
``BotMessage`` is ``malformed``; a line over 64 KiB (the cap of a gRPC message) ends the
seat (``closed``), and is never read into memory whole; closing stdout or exiting is
``closed``; a bot that stops reading cannot block the referee: every write waits for the
pipe at most as long as a gRPC write may (``stalled``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import IO, Final

from arena.v1 import arena_pb2 as pb
from arena.wire.faults import FaultKind, Refusal, abbreviate
from arena.wire.jsonlines import from_json, to_json
from arena.wire.protocol import PROTOCOL_VERSION

from .server import INBOX_LIMIT, MAX_MESSAGE_BYTES, NAME_LIMIT, SeatLink

__all__ = ["MAX_LINE_BYTES", "StdioSeat", "line_of", "parse_line"]

MAX_LINE_BYTES: Final = MAX_MESSAGE_BYTES  # a line's bytes before its newline, at most


def line_of(message: pb.RefereeMessage) -> bytes:
    """One message as a line: the proto3 JSON mapping with lowerCamelCase names, enums by
    name, every field present (zeros and empty lists too), compact, newline. Anything
    beyond ASCII is escaped (``\\u2026``), so the line is valid UTF-8 whatever a string
    holds."""
    return json.dumps(to_json(message), separators=(",", ":")).encode() + b"\n"


def parse_line(line: bytes) -> pb.BotMessage | str:
    """A bot's line as a ``BotMessage``, or why it is not one (json_format's mapping:
    lowerCamelCase or the proto's names, enums by name or number, request ids as strings
    or numbers; an unknown field is an error)."""
    try:
        message = from_json(json.loads(line.decode("utf-8")), pb.BotMessage())
    except UnicodeDecodeError:
        return "a line that is not UTF-8"
    except Exception as error:  # not JSON, json_format's ParseError, deep nesting: never fatal
        return f"not a BotMessage in JSON ({str(error)[:80] or type(error).__name__})"
    return message


class _Pipe:
    """What the seat's link writes to: the bot's stdin, one line per message."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer

    async def write(self, message: pb.RefereeMessage) -> None:
        self.writer.write(line_of(message))
        # Waits while the pipe and the transport's buffer are full: the caller bounds it
        # (SeatLink.send, the table's send timeout), so a bot that does not read stalls.
        await self.writer.drain()


class StdioSeat:
    """The pipes of one stdio bot's process, read and written on the event loop.

    ``start`` (on the loop, once the process runs) connects the pipes and reads the join,
    then every line into the link's inbox; when the link's match is over its stdin is
    closed, so that the bot sees the end of its input and exits.
    """

    def __init__(self, link: SeatLink, pipes: tuple[IO[bytes], IO[bytes]]) -> None:
        self.link = link
        self._stdin, self._stdout = pipes
        self._tasks: list[asyncio.Task[None]] = []
        self._transports: list[asyncio.BaseTransport] = []
        self._writer: asyncio.StreamWriter | None = None

    async def start(self) -> None:
        if self._tasks:
            return
        loop = asyncio.get_running_loop()
        # The bound of StreamReader.readuntil: a line (with its newline) over it is never
        # read whole; the buffer holds at most about twice this much.
        reader = asyncio.StreamReader(limit=MAX_LINE_BYTES + 1)
        read_transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), self._stdout
        )
        write_transport, write_protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, self._stdin
        )
        self._transports = [read_transport]
        self._writer = asyncio.StreamWriter(write_transport, write_protocol, None, loop)
        self._tasks = [
            loop.create_task(self._read(reader)),
            loop.create_task(self._close_when_finished()),
        ]

    async def stop(self) -> None:
        """End the reading and close both pipes (the match is over, the process stopped)."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for transport in self._transports:
            transport.close()
        if self._writer is not None:
            # What the bot left unread goes nowhere: its process is gone, so the pipe's next
            # write fails and the transport ends itself.
            self._writer.close()

    async def _close_when_finished(self) -> None:
        await self.link.finished.wait()
        if self._writer is not None:
            # MatchOver is in the transport's buffer: it goes out before the end of input.
            self._writer.close()

    async def _read(self, reader: asyncio.StreamReader) -> None:
        link = self.link
        try:
            if await self._join(reader):
                await self._answers(reader)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a broken pipe: only this seat is closed
            link.close_reason = f"its standard output broke ({type(error).__name__})"
        link.close()
        writer = self._writer
        if not link.joined.is_set() and writer is not None and not writer.transport.is_closing():
            writer.transport.abort()  # it never joined: nothing more goes to it

    async def _line(self, reader: asyncio.StreamReader) -> bytes | str:
        """The next line without its newline, or why there is none (end, over the cap)."""
        try:
            return (await reader.readuntil(b"\n"))[:-1]
        except asyncio.IncompleteReadError:
            return "the bot closed its standard output"
        except asyncio.LimitOverrunError:
            return f"a line over {MAX_LINE_BYTES // 1024} KiB (the limit of a message)"
        except ValueError:  # the newline came, but past the limit
            return f"a line over {MAX_LINE_BYTES // 1024} KiB (the limit of a message)"

    async def _join(self, reader: asyncio.StreamReader) -> bool:
        link = self.link
        line = await self._line(reader)
        if isinstance(line, str):
            link.ended = f"{line} before it joined"
            return False
        message = parse_line(line)
        if isinstance(message, str) or message.WhichOneof("body") != "join":
            link.ended = (
                f"its first line is not a join: {abbreviate(line.decode('utf-8', 'replace'))}"
            )
            return False
        join = message.join
        if join.protocol_version != PROTOCOL_VERSION:
            link.ended = f"protocol version {join.protocol_version} is not supported; use 1"
            return False
        if link.too_late():
            link.ended = "it joined after the join deadline had passed"
            return False
        link.bot_name = join.bot_name[:NAME_LIMIT]
        link.bot_version = join.bot_version[:NAME_LIMIT]
        assert self._writer is not None
        link._context = _Pipe(self._writer)
        if link.tap is not None:
            link.tap("up", message.SerializeToString())
        link.joined.set()
        return True

    async def _answers(self, reader: asyncio.StreamReader) -> None:
        """Every line after the join into the inbox, as the gRPC reader moves messages."""
        link = self.link
        while True:
            line = await self._line(reader)
            if isinstance(line, str):
                link.close_reason = line
                return
            if link.inbox.qsize() >= INBOX_LIMIT:
                link.overflow += 1
                continue
            message = parse_line(line)
            sent = abbreviate(line.decode("utf-8", "replace"))
            if isinstance(message, str):
                link.inbox.put_nowait(Refusal(FaultKind.MALFORMED, message, sent))
                continue
            if link.tap is not None:
                link.tap("up", message.SerializeToString())
            link.inbox.put_nowait((message, sent))
