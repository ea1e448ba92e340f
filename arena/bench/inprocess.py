"""Python bot objects as seats of the one table, called directly: the in-process channel.

``InProcessChannel`` is a ``SeatChannel`` (``arena.referee.channel``) whose bot is an
``arena.sdk.Bot`` in this process: it gets the messages a process would get (built by the
wire, ``arena.wire.protocol``), its answers are read as the referee reads a process's
(``arena.wire.answers``), and the table is the real one, with its clock and fault policy.
There is no transport: no process, no pipe, no socket. ``arena bench referee`` measures
what the transports cost against it; ``arena bench stats``, ``arena bench pimc`` and tests
evaluate Python bots with it (``play_game_in_process``).

A bot's ``decide`` runs on the table's event loop, so it cannot be interrupted at its
deadline: an answer that took longer than the decision's time plus the bank is refused
as ``timeout`` when it comes (the fallback is played), as a process's would have been.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.bots.cgroup import CpuMeter
from arena.engine import DecisionKind, Game
from arena.referee.channel import (
    Answer,
    ChannelClosedError,
    Notice,
    Request,
    Told,
    Welcome,
)
from arena.referee.result import GameResult
from arena.referee.table import Table, TableSettings
from arena.sdk.bot import Bot, Decision
from arena.v1 import arena_pb2 as pb
from arena.wire.answers import decode_answer
from arena.wire.faults import FaultKind, Refusal
from arena.wire.loop import run as run_loop
from arena.wire.protocol import (
    action_to_answer,
    notice_to_pb,
    request_to_pb,
    told_to_pb,
    welcome_to_pb,
)

__all__ = [
    "InProcessChannel",
    "InProcessMatch",
    "load_python_bot",
    "play_game_in_process",
    "play_in_process",
]


def load_python_bot(directory: Path) -> Bot:
    """Instantiate the ``Bot`` subclass defined in ``directory/bot.py``."""
    path = directory / "bot.py"
    name = f"_arena_bot_{directory.name}_{abs(hash(path))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    for value in vars(module).values():
        if inspect.isclass(value) and issubclass(value, Bot) and value is not Bot:
            return value()
    raise ImportError(f"{path} defines no Bot subclass")


class InProcessChannel:
    """One seat played by ``bot`` (see the module's docstring).

    ``raise_errors``: an exception of the bot's propagates and stops the table (for
    benchmarks and studies, where a bug must not pass for a fault); otherwise it ends the
    seat, as a process that dies would: a ``closed`` fault, auto-played from then on.
    """

    def __init__(self, seat: int, bot: Bot, raise_errors: bool = True) -> None:
        self._seat = seat
        self.bot = bot
        self.raise_errors = raise_errors
        self._closed = False
        self._close_reason = "the bot raised an exception"
        self._pending: tuple[pb.DecisionRequest, int] | None = None  # request, its limit in ms
        self._sent_at = 0.0

    def __repr__(self) -> str:
        return f"<InProcessChannel seat {self._seat} {type(self.bot).__name__}>"

    @property
    def seat(self) -> int:
        return self._seat

    @property
    def joined(self) -> bool:
        return True

    @property
    def gone(self) -> bool:
        return self._closed

    @property
    def connected(self) -> bool:
        return not self._closed

    @property
    def close_reason(self) -> str:
        return self._close_reason

    @property
    def ended(self) -> str:
        return ""

    @property
    def cpu_meter(self) -> CpuMeter | None:
        return None

    async def wait_joined(self) -> None:
        return None

    def take_overflow(self) -> int:
        return 0

    async def welcome(self, welcome: Welcome, timeout: float) -> bool:
        return self._call(lambda: self.bot.on_welcome(welcome_to_pb(welcome)))

    async def tell(self, events: Sequence[Told], timeout: float) -> bool:
        return self._call(lambda: self.bot.on_events(told_to_pb(events)))

    async def request(self, request: Request) -> None:
        if self._closed:
            raise ChannelClosedError
        if request.events and not self._call(
            lambda: self.bot.on_events(told_to_pb(request.events))
        ):
            raise ChannelClosedError
        self._pending = (request_to_pb(request), request.time_ms + request.bank_ms)
        self._sent_at = time.monotonic()

    async def answer(self, kind: DecisionKind, request_id: int) -> Answer:
        pending, self._pending = self._pending, None
        if self._closed or pending is None:
            raise ChannelClosedError
        request, limit_ms = pending
        try:
            action = self.bot.decide(Decision.from_request(request))
        except Exception as error:
            self._fail(error)
            raise ChannelClosedError from error
        if (time.monotonic() - self._sent_at) * 1000 > limit_ms:
            reason = f"no answer within {request.time_ms} ms plus the bank"
            return Refusal(FaultKind.TIMEOUT, reason)
        # Through the wire's bytes, exactly as a process's answer is read.
        raw = pb.BotMessage(answer=action_to_answer(request_id, action)).SerializeToString()
        return decode_answer(raw, kind, request_id)

    def answer_waiting(self) -> bool:
        return self._pending is not None and not self._closed

    async def notice(self, notice: Notice, timeout: float) -> bool:
        return self._call(lambda: self.bot.on_notice(notice_to_pb(notice)))

    async def close(self, reason: str, timeout: float) -> bool:
        self._closed = True
        return True

    def drop(self) -> None:
        self._closed = True

    def _call(self, call: Callable[[], None]) -> bool:
        if self._closed:
            return False
        try:
            call()
        except Exception as error:
            self._fail(error)
            return False
        return True

    def _fail(self, error: Exception) -> None:
        if self.raise_errors:
            raise error
        self._closed = True
        self._close_reason = f"the bot raised {type(error).__name__}: {str(error)[:80]}"


TEAM_NAMES = ("team 0", "team 1", "team 2")


@dataclass(frozen=True)
class InProcessMatch:
    """A match played in-process: its table (faults, the last game) and each game's result."""

    table: Table
    results: list[GameResult]


async def play_in_process(
    bots: Sequence[Bot],
    seeds: Sequence[int],
    settings: TableSettings | None = None,
    raise_errors: bool = True,
    first_index: int = 0,
) -> InProcessMatch:
    """A match on the one table, seat s played by ``bots[s]``; game k of the match is
    ``seeds[k]`` with index ``first_index + k``."""
    channels = [InProcessChannel(seat, bot, raise_errors) for seat, bot in enumerate(bots)]
    table = Table("in-process", channels, list(seeds), settings or TableSettings(), TEAM_NAMES)
    results: list[GameResult] = []
    await table.open()
    try:
        for k, seed in enumerate(seeds):
            results.append(await table.play_game(first_index + k, seed))
    finally:
        await table.close("finished")
    return InProcessMatch(table, results)


def play_game_in_process(bots: Sequence[Bot], seed: int, game_index: int = 0) -> Game:
    """One game from a test seed (for benchmarks and tests: guessable) on the one table,
    with its clock and fault policy; seat s is played by ``bots[s]``. An illegal answer
    gets the fallback; an exception of a bot's propagates."""
    match = run_loop(play_in_process(bots, [seed], first_index=game_index))
    assert match.table.game is not None
    return match.table.game
