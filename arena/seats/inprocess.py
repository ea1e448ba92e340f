"""A Python bot object as a seat, called directly: the in-process channel.

``InProcessChannel`` is a ``SeatChannel`` (``arena.seats.channel``) whose bot is an
``arena.sdk.Bot`` in this process, on the one table with its clock and fault policy. There
is no transport: no process, no pipe, no socket, and no encoding: the bot's ``Decision``
reads the table's own engine values (``Decision.from_engine``), and its answer is judged
as a process's (the wrong kind of action is ``wrong_kind``, then the rules). The
protocol's messages are made only for a bot's own ``on_…`` hooks. ``arena bench referee``
measures what the transports cost against it (it is the floor of the table's own work);
``arena.bench.inprocess`` plays matches with it for ``arena bench stats``, ``arena bench
pimc`` and tests.

A bot's ``decide`` runs on the table's event loop, so it cannot be interrupted at its
deadline: an answer that took longer than the decision's time plus the bank is refused
as ``timeout`` when it comes (the fallback is played), as a process's would have been.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from arena.bots.cgroup import CpuMeter
from arena.engine import Action, Bid, DecisionKind, Discard, NameTrump, Pass, Play
from arena.sdk.bot import Bot, Decision, log_notice, overrides
from arena.wire.faults import FaultKind, Refusal
from arena.wire.protocol import notice_to_pb, told_to_pb, welcome_to_pb
from arena.wire.values import ANSWER_FIELD

from .channel import Answer, ChannelClosedError, Notice, Request, Told, Welcome

__all__ = ["InProcessChannel"]

# The actions that answer each kind of decision, and the answer field each action sets.
_ANSWERS: dict[DecisionKind, tuple[type, ...]] = {
    DecisionKind.BID: (Pass, Bid),
    DecisionKind.TRUMP: (NameTrump,),
    DecisionKind.DISCARD: (Discard,),
    DecisionKind.PLAY: (Play,),
}
_FIELD = {action: ANSWER_FIELD[kind] for kind, kinds in _ANSWERS.items() for action in kinds}


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
        self._pending: Request | None = None
        self._sent_at = 0.0
        self._hooks = {hook: overrides(bot, hook) for hook in ("on_events", "on_welcome")}

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
        if not self._hooks["on_welcome"]:
            return not self._closed
        return self._call(lambda: self.bot.on_welcome(welcome_to_pb(welcome)))

    async def tell(self, events: Sequence[Told], timeout: float) -> bool:
        if not self._hooks["on_events"]:
            return not self._closed
        return self._call(lambda: self.bot.on_events(told_to_pb(events)))

    async def request(self, request: Request) -> None:
        if self._closed:
            raise ChannelClosedError
        if (
            request.events
            and self._hooks["on_events"]
            and not self._call(lambda: self.bot.on_events(told_to_pb(request.events)))
        ):
            raise ChannelClosedError
        self._pending = request
        self._sent_at = time.monotonic()

    async def answer(self, kind: DecisionKind, request_id: int) -> Answer:
        request, self._pending = self._pending, None
        if self._closed or request is None:
            raise ChannelClosedError
        try:
            action = self.bot.decide(Decision.from_engine(request))
        except Exception as error:
            self._fail(error)
            raise ChannelClosedError from error
        if (time.monotonic() - self._sent_at) * 1000 > request.time_ms + request.bank_ms:
            reason = f"no answer within {request.time_ms} ms plus the bank"
            return Refusal(FaultKind.TIMEOUT, reason)
        return _judged(action, kind)

    def answer_waiting(self) -> bool:
        return self._pending is not None and not self._closed

    async def notice(self, notice: Notice, timeout: float) -> bool:
        if overrides(self.bot, "on_notice"):
            return self._call(lambda: self.bot.on_notice(notice_to_pb(notice)))
        log_notice(self.bot.name, notice.kind, notice.reason, notice.fallback)
        return not self._closed

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


def _judged(action: object, kind: DecisionKind) -> Answer:
    """A bot's action as the referee reads a process's answer: of the kind asked, or
    refused as a process's would be (the rules are the table's to apply)."""
    field = _FIELD.get(type(action))
    if field is None:
        return Refusal(FaultKind.MALFORMED, f"not an action: {action!r:.60}", repr(action)[:120])
    if field != ANSWER_FIELD[kind]:
        reason = f"a {kind.value} decision was asked, but the answer sets {field!r}"
        return Refusal(FaultKind.WRONG_KIND, reason, str(action))
    assert isinstance(action, Action)
    return action
