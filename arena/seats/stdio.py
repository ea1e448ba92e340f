"""A seat whose bot speaks JSON lines on its standard input and output (``protocol = "stdio"``).

The bot gets no address and no token: the pipes are the seat. Every line is one message
in protobuf's JSON mapping (docs/PROTOCOL.md §8): the referee writes ``RefereeMessage``s
to the bot's stdin and reads ``BotMessage``s from its stdout, the first of them a join.
Its stderr goes to the seat's log (``arena.bots.process``), so nothing it logs can be
taken for a message.

``StdioChannel`` is the fast channel: the event loop reads and writes the pipes' file
descriptors itself (one ``read`` wakes it for a whole answer, one ``write`` sends a whole
request, with no stream, task or protobuf message in between), requests are written
straight from the table's values into their JSON form (``arena.wire.jsonlines``), and a
line is parsed only when the table asks for its answer (``arena.wire.answers.decode_line``).

The join deadline, the time control and every fault are those of a gRPC seat: a line
that is not a ``BotMessage`` is ``malformed``; a line over 64 KiB (the cap of a gRPC
message) ends the seat (``closed``), and is never held whole; closing stdout or exiting is
``closed`` as soon as the pipe says so (a sandboxed bot's pipes are its own alone:
``arena.bots.sandbox``); what the bot wrote before its stdout ended without a newline is
read as its last line; a bot that stops reading cannot block the referee: every write
waits for the pipe at most as long as a gRPC write may (``stalled``). A process that ends
before it joins is named by its exit status and the end of its log, as a gRPC bot's is.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
from collections.abc import Sequence
from typing import IO, Final

from arena.bots.process import BotProcess, exit_status, log_summary
from arena.engine import DecisionKind
from arena.v1 import arena_pb2 as pb
from arena.wire.answers import decode_line, read_line, read_message
from arena.wire.faults import Refusal, abbreviate
from arena.wire.jsonlines import (
    match_over_line,
    notice_line,
    request_line,
    tell_line,
    welcome_line,
)
from arena.wire.pbjson import from_json
from arena.wire.protocol import PROTOCOL_VERSION

from .channel import Answer, Notice, Request, Told, Welcome
from .link import (
    INBOX_LIMIT,
    MAX_MESSAGE_BYTES,
    NAME_LIMIT,
    LinkClosedError,
    LinkedSeat,
    SeatLink,
)

__all__ = ["MAX_LINE_BYTES", "StdioChannel"]

MAX_LINE_BYTES: Final = MAX_MESSAGE_BYTES  # a line's bytes before its newline, at most
OVERSIZED: Final = f"a line over {MAX_LINE_BYTES // 1024} KiB (the limit of a message)"
STDOUT_CLOSED: Final = "the bot closed its standard output"
# A bot whose stdout ends before it joined has, nearly always, exited: this long its
# process is given to say how (its status), before the seat is ended without it.
EXIT_WAIT_S: Final = 1.0
_READ_BYTES: Final = 64 * 1024


class StdioChannel(LinkedSeat):
    """The table's side of a stdio bot's pipes (see the module's docstring).

    ``start`` (on the loop, once the process runs) reads the join, then every line into
    the seat's unread lines; ``stop`` (the process stopped) closes both pipes.
    """

    def __init__(
        self, link: SeatLink, process: BotProcess, pipes: tuple[IO[bytes], IO[bytes]]
    ) -> None:
        super().__init__(link)
        self.process = process
        self._pipes = pipes  # the bot's stdin (we write) and stdout (we read)
        self._to_bot = pipes[0].fileno()
        self._from_bot = pipes[1].fileno()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._partial = b""  # the start of a line whose newline has not come yet
        self._lines: collections.deque[bytes] = collections.deque()  # unread, after the join
        self._waiter: asyncio.Future[None] | None = None
        self._unsent = bytearray()  # written but not taken by the pipe yet (it was full)
        self._drained: asyncio.Future[None] | None = None
        self._reading = False
        self._writing = False
        self._stdin_open = True
        self._ending: asyncio.Task[None] | None = None
        self.overflow = 0  # lines dropped because too many were unread (flood)

    # --- the pipes ---------------------------------------------------------------------

    def start(self) -> None:
        if self._loop is not None:
            return
        self._loop = asyncio.get_running_loop()
        os.set_blocking(self._to_bot, False)
        os.set_blocking(self._from_bot, False)
        self._loop.add_reader(self._from_bot, self._readable)
        self._reading = True

    async def stop(self) -> None:
        """End the reading and close both pipes (the match is over, the process stopped)."""
        self._stop_reading()
        self._close_stdin()
        if self._ending is not None:
            self._ending.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ending
        with contextlib.suppress(OSError):
            self._pipes[1].close()

    def _stop_reading(self) -> None:
        if self._reading and self._loop is not None:
            self._loop.remove_reader(self._from_bot)
        self._reading = False

    def _close_stdin(self) -> None:
        """The end of the bot's input: what it has not read yet goes nowhere."""
        if self._writing and self._loop is not None:
            self._loop.remove_writer(self._to_bot)
            self._writing = False
        if self._stdin_open:
            self._stdin_open = False
            with contextlib.suppress(OSError):
                self._pipes[0].close()
        self._settle_drain()

    def _readable(self) -> None:
        try:
            chunk = os.read(self._from_bot, _READ_BYTES)
        except BlockingIOError:
            return
        except OSError as error:  # a broken pipe: only this seat is closed
            self._end(f"its standard output broke ({type(error).__name__})")
            return
        if not chunk:
            self._stdout_ended()
            return
        if self._partial:
            chunk = self._partial + chunk
        *lines, self._partial = chunk.split(b"\n")
        for line in lines:
            if len(line) > MAX_LINE_BYTES:
                self._end(OVERSIZED)
                return
            self._line(line)
            if not self._reading:
                return
        if len(self._partial) > MAX_LINE_BYTES:  # never held whole
            self._end(OVERSIZED)

    def _line(self, line: bytes) -> None:
        link = self.link
        if not link.joined.is_set():
            self._join(line)
        elif len(self._lines) >= INBOX_LIMIT:
            self.overflow += 1
        else:
            if link.tap is not None:
                self._tap_up(line)
            self._lines.append(line)
            waiter = self._waiter
            if waiter is not None and not waiter.done():
                waiter.set_result(None)

    def _stdout_ended(self) -> None:
        """The end of the bot's stdout: what it wrote without a newline is its last line,
        judged now; before the join, its process says how it ended, if it does at once."""
        if self._partial:
            line, self._partial = self._partial, b""
            self._line(line)
        if not self._reading:
            return
        if self.link.joined.is_set():
            self._end(STDOUT_CLOSED)
            return
        self._stop_reading()
        if not self.link.closed:
            self._ending = asyncio.ensure_future(self._ended_before_join())

    async def _ended_before_join(self) -> None:
        process = self.process
        try:
            code: int | None = await asyncio.wait_for(process.wait_exit(), EXIT_WAIT_S)
        except TimeoutError:
            code = None
        # In a thread: the log may wait a moment for the last words still in the pipe.
        summary = await asyncio.to_thread(log_summary, process)
        if self.link.closed:  # its match named it already (arena.referee.match)
            return
        how = STDOUT_CLOSED if code is None else f"its process {exit_status(code)}"
        self.link.ended = f"{how} before it joined; {summary}"
        self.link.close()

    def _end(self, reason: str) -> None:
        """Nothing more is read from this seat: it is closed, for ``reason``."""
        self._stop_reading()
        self._partial = b""
        link = self.link
        if link.joined.is_set():
            if not link.closed:
                link.close_reason = reason
        elif not link.closed:
            link.ended = f"{reason} before it joined"
            self._close_stdin()  # it never joined: nothing more goes to it
        link.close()
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _join(self, line: bytes) -> None:
        link = self.link
        message = _message(line)
        if isinstance(message, Refusal):
            self._refuse_join(f"its first line is not a join: {message.sent}")
            return
        if message.WhichOneof("body") != "join":
            self._refuse_join(f"its first line is not a join: {abbreviate(line.decode())}")
            return
        join = message.join
        if join.protocol_version != PROTOCOL_VERSION:
            version = join.protocol_version
            self._refuse_join(f"protocol version {version} is not supported; use 1")
            return
        if link.too_late():
            self._refuse_join("it joined after the join deadline had passed")
            return
        link.bot_name = join.bot_name[:NAME_LIMIT]
        link.bot_version = join.bot_version[:NAME_LIMIT]
        if link.tap is not None:
            link.tap("up", message.SerializeToString())
        link.joined.set()

    def _refuse_join(self, reason: str) -> None:
        self._stop_reading()
        self.link.ended = reason
        self._close_stdin()
        self.link.close()

    def _tap_up(self, line: bytes) -> None:
        """A transcript sees the bot's line as the message it is, if it is one."""
        message = _message(line)
        if self.link.tap is not None and not isinstance(message, Refusal):
            self.link.tap("up", message.SerializeToString())

    def _write(self, data: bytes) -> bool:
        """Write ``data`` now if the pipe takes it whole (True); otherwise keep the rest
        and write it as the bot reads (False). A broken pipe closes the seat."""
        if not self._stdin_open:
            raise LinkClosedError
        if self._unsent:
            self._unsent += data
            return False
        try:
            written = os.write(self._to_bot, data)
        except BlockingIOError:
            written = 0
        except OSError as error:  # the bot's stdin is gone: its process ended
            self.link.close()
            self._close_stdin()
            raise LinkClosedError from error
        if written == len(data):
            return True
        self._unsent += data[written:]
        assert self._loop is not None
        self._loop.add_writer(self._to_bot, self._writable)
        self._writing = True
        return False

    def _writable(self) -> None:
        try:
            written = os.write(self._to_bot, self._unsent)
        except BlockingIOError:
            return
        except OSError:  # the bot's stdin is gone: its process ended
            self.link.close()
            self._close_stdin()
            return
        del self._unsent[:written]
        if not self._unsent:
            assert self._loop is not None
            self._loop.remove_writer(self._to_bot)
            self._writing = False
            self._settle_drain()

    def _settle_drain(self) -> None:
        drained = self._drained
        if drained is not None and not drained.done():
            drained.set_result(None)

    async def _drain(self) -> None:
        """Until the pipe has taken everything written (the caller bounds the wait);
        LinkClosedError if the bot's stdin closed first."""
        while self._unsent and self._stdin_open:
            if self._drained is None or self._drained.done():
                assert self._loop is not None
                self._drained = self._loop.create_future()
            await self._drained
        if not self._stdin_open:
            raise LinkClosedError

    async def _send(self, line: bytes, timeout: float) -> bool:
        """Deliver one line within ``timeout``; False (and the seat closed) if it could not be."""
        if not self.connected:
            return False
        try:
            if self.link.tap is not None:
                self.link.tap("down", from_json_line(line))
            if not self._write(line):
                async with asyncio.timeout(timeout):
                    await self._drain()
        except (TimeoutError, LinkClosedError):
            self.link.close()
            return False
        return True

    # --- the channel --------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self.link.joined.is_set() and not self.link.closed

    def take_overflow(self) -> int:
        dropped, self.overflow = self.overflow, 0
        return dropped

    async def welcome(self, welcome: Welcome, timeout: float) -> bool:
        return await self._send(welcome_line(welcome), timeout)

    async def tell(self, events: Sequence[Told], timeout: float) -> bool:
        return await self._send(tell_line(events), timeout)

    async def request(self, request: Request) -> None:
        if not self.connected:
            raise LinkClosedError
        # What the bot wrote of a line and never ended belongs to a decision already
        # judged (a timeout): its next line is read alone, not run together with it.
        self._partial = b""
        line = request_line(request)
        if self.link.tap is not None:
            self.link.tap("down", from_json_line(line))
        if not self._write(line):
            await self._drain()

    async def answer(self, kind: DecisionKind, request_id: int) -> Answer:
        lines = self._lines
        while not lines:
            if self.link.closed:
                raise LinkClosedError
            assert self._loop is not None
            self._waiter = self._loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return decode_line(lines.popleft(), kind, request_id)

    def answer_waiting(self) -> bool:
        return bool(self._lines)

    async def notice(self, notice: Notice, timeout: float) -> bool:
        return await self._send(notice_line(notice), timeout)

    async def close(self, reason: str, timeout: float) -> bool:
        delivered = False
        if self.connected:
            delivered = await self._send(match_over_line(reason), timeout)
        self.link.finished.set()
        self.link.close()
        # MatchOver is written: the end of its input tells the bot to exit.
        self._close_stdin()
        return delivered

    def drop(self) -> None:
        self.link.close()
        self._close_stdin()


def _message(line: bytes) -> pb.BotMessage | Refusal:
    """A bot's line as the ``BotMessage`` it is, or why it is none."""
    read = read_line(line)
    return read if isinstance(read, Refusal) else read_message(*read)


def from_json_line(line: bytes) -> pb.RefereeMessage:
    """A line the referee wrote, as its ``RefereeMessage`` (for a transcript's tap)."""
    return from_json(json.loads(line), pb.RefereeMessage())
