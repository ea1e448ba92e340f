"""A table: six seats playing a match of games, with the referee's rules for time and faults.

The table drives the engine, asks each seat for its decisions through its ``SeatLink``,
sends each seat only the events R10 lets it know (``Game.events_for``), and turns every
misbehaviour into a recorded ``Fault`` and a fallback action (``policy``), so no bot can
stop the table.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import DecodeError

from arena.engine import (
    Action,
    DecisionKind,
    EngineError,
    Game,
    GameKey,
    IllegalActionError,
    to_record,
    view,
)
from arena.engine.game import team_of
from arena.v1 import arena_pb2 as pb
from arena.wire.protocol import (
    KIND_TO_PB,
    EventTranslator,
    WrongKindError,
    answer_to_action,
    legal_to_pb,
    view_to_pb,
)

from .policy import Fault, FaultKind, fallback_action
from .server import LinkClosedError, SeatLink

SEATS = 6
SEND_TIMEOUT = 5.0  # a bot that does not read its messages for this long is stalled


@dataclass(frozen=True)
class TableSettings:
    """The referee's time rules (defaults as in docs/PROTOCOL.md)."""

    decision_ms: int = 1000
    overage_ms: int = 10_000
    join_timeout_s: float = 10.0
    draw_limit: int = 200


@dataclass
class SeatStats:
    """Per seat and game: decisions, their times, bids, faults."""

    decisions: int = 0
    seconds_total: float = 0.0
    seconds_max: float = 0.0
    bids_made: int = 0
    bids_won: int = 0
    faults: int = 0


@dataclass
class GameReport:
    """Everything the tournament keeps of one finished game."""

    game_index: int
    seed: GameKey  # what the game was dealt from: never written to a record or a log
    winner: int | None
    scores: tuple[int, int, int]
    deals: int
    duration_s: float
    record: dict[str, Any]
    seats: list[SeatStats]
    faults: list[Fault]


@dataclass
class _SeatState:
    link: SeatLink
    cursor: int = 0  # index into game.events of the next event to send
    bank_ms: float = 0.0
    request_id: int = 0
    auto: bool = False  # auto-played for the rest of the match
    stats: SeatStats = field(default_factory=SeatStats)
    pending_start: pb.Event | None = None  # the GameStarted event not yet sent
    notices: list[pb.Notice] = field(default_factory=list)  # faults not yet told
    unanswered: int = 0  # faulted requests whose own (late) answer may still arrive
    stale: int = 0  # unasked-for answers during the current decision


OnGame = Callable[[GameReport], Awaitable[None] | None]
# A game's key; an int is a guessable seed for tests and benchmarks (GameKey.from_seed).
GameSeed = GameKey | int


def game_key(seed: GameSeed) -> GameKey:
    return seed if isinstance(seed, GameKey) else GameKey.from_seed(seed)


class Table:
    """One match: the same six seats play ``seeds`` games in order."""

    def __init__(
        self,
        match_id: str,
        links: Sequence[SeatLink],
        seeds: Sequence[GameSeed],
        settings: TableSettings,
        team_names: Sequence[str],
        meta: dict[str, Any] | None = None,
    ) -> None:
        if len(links) != SEATS:
            raise ValueError("R1.1: a table has six seats")
        self.match_id = match_id
        self.seats = [_SeatState(link) for link in links]
        self.seeds = list(seeds)
        self.settings = settings
        self.team_names = list(team_names)
        self.meta = meta or {}
        self.faults: list[Fault] = []
        self._game: Game | None = None
        self._game_index = 0
        self._faults_before = 0
        self._translator = EventTranslator([])
        self.join_wait_seconds = 0.0  # how long the table waited for its bots to join
        # Seconds from sending each request to having its answer (or fault), for benchmarks.
        self.round_trips: list[float] = []

    # --- the match ------------------------------------------------------------------

    async def play(self, on_game: OnGame | None = None, skip: set[int] | None = None) -> None:
        """Play every game (except indices in ``skip``), reporting each as it finishes."""
        await self._await_joins()
        for state in self.seats:
            await self._send(state, pb.RefereeMessage(welcome=self._welcome(state.link.seat)))
        try:
            for index, seed in enumerate(self.seeds):
                if skip and index in skip:
                    continue
                report = await self.play_game(index, seed)
                if on_game is not None:
                    result = on_game(report)
                    if result is not None:
                        await result
        finally:
            await self.close("finished")

    async def close(self, reason: str) -> None:
        for state in self.seats:
            await self._send(state, pb.RefereeMessage(match_over=pb.MatchOver(reason=reason)))
            state.link.finished.set()
            state.link.close()

    async def _await_joins(self) -> None:
        """Wait until every seat has joined, gone away, or missed its join deadline."""
        waiting_since = time.monotonic()
        pending = [s.link for s in self.seats if not s.link.joined.is_set()]
        # Each seat until its own deadline: a seat left open for a person is given longer.
        await asyncio.gather(*(link.joined_or_gone() for link in pending))
        self.join_wait_seconds = time.monotonic() - waiting_since
        for state in self.seats:
            if not state.link.joined.is_set():
                state.auto = True
                reason = (
                    "the bot's process ended before it joined"
                    if state.link.gone.is_set()
                    else "the bot did not join before the deadline"
                )
                self._fault(state, FaultKind.NO_JOIN, reason)

    def _welcome(self, seat: int) -> pb.Welcome:
        s = self.settings
        return pb.Welcome(
            seat=seat,
            team=team_of(seat),
            partner=(seat + 3) % SEATS,
            games=len(self.seeds),
            decision_ms=s.decision_ms,
            overage_ms=s.overage_ms,
            draw_limit=s.draw_limit,
            team_names=self.team_names,
            match_id=self.match_id,
        )

    # --- one game -----------------------------------------------------------------------

    async def play_game(self, index: int, seed: GameSeed) -> GameReport:
        key = game_key(seed)
        game = self._game = Game(key, draw_limit=self.settings.draw_limit)
        self._translator = EventTranslator(game.events)
        self._game_index = index
        started = time.monotonic()
        start_event = pb.Event(
            game_started=pb.GameStarted(game_index=index, first_dealer=game.first_dealer)
        )
        for state in self.seats:
            state.cursor = 0
            state.bank_ms = float(self.settings.overage_ms)
            state.stats = SeatStats()
            state.pending_start = start_event
        deal_number = game.deal_number
        while not game.is_over:
            await self._turn(self.seats[game.to_act], game)
            if game.deal_number != deal_number or game.is_over:
                deal_number = game.deal_number
                # The seat to act next gets these events at once, with its request.
                await self._flush_all(game, skip=None if game.is_over else game.to_act)
        return self._report(game, index, key, time.monotonic() - started)

    async def _flush_all(self, game: Game, skip: int | None = None) -> None:
        """At the end of a deal and of the game every seat gets its events (R10)."""
        for state in self.seats:
            if state.link.connected and state.link.seat != skip:
                events = self._take_events(state, game)
                if events:
                    await self._send(state, pb.RefereeMessage(events=events))

    def _take_events(self, state: _SeatState, game: Game) -> list[pb.Event]:
        seat = state.link.seat
        events = self._translator.for_seat(seat, state.cursor)
        state.cursor = len(game.events)
        if state.pending_start is not None:
            events.insert(0, state.pending_start)
            state.pending_start = None
        return events

    async def _turn(self, state: _SeatState, game: Game) -> None:
        """Ask the seat to act and apply its answer; any fault plays the fallback (policy)."""
        if state.auto or not state.link.connected:
            if not state.auto:
                state.auto = True
                self._fault(state, FaultKind.CLOSED, state.link.close_reason)
            game.apply(fallback_action(game))
            return
        kind = game.decision_kind
        assert kind is not None
        state.stale = 0
        state.request_id += 1
        request_id = state.request_id
        time_ms = self.settings.decision_ms
        request = pb.DecisionRequest(
            id=request_id,
            kind=KIND_TO_PB[kind],
            view=view_to_pb(view(game, state.link.seat), self._game_index),
            legal=legal_to_pb(game.legal()),
            time_ms=time_ms,
            bank_ms=int(state.bank_ms),
        )
        message = pb.RefereeMessage(events=self._take_events(state, game), request=request)
        if state.link.overflow:
            dropped, state.link.overflow = state.link.overflow, 0
            self._fault(state, FaultKind.FLOOD, f"{dropped} unrequested messages were dropped")
            await self._tell_faults(state)
        action: Action | None = None
        fault: tuple[FaultKind, str, str] | None = None
        sent_at: float | None = None
        asked_at = time.monotonic()
        try:
            # One deadline, moved once (cheaper than two on the hot path): first for the
            # delivery, then for the answer. Delivering is not timed against the decision
            # time, so a slow moment of the referee is not the bot's; a bot that does not
            # read its messages at all is stalled.
            async with asyncio.timeout(SEND_TIMEOUT) as deadline:
                await state.link.write(message)
                sent_at = time.monotonic()
                deadline.reschedule(
                    asyncio.get_running_loop().time() + (time_ms + state.bank_ms) / 1000
                )
                action, fault = await self._await_answer(state, kind, request_id)
        except TimeoutError:
            if sent_at is None:
                state.link.close()
                fault = (FaultKind.STALLED, "the bot does not read its messages", "")
            else:
                action, fault = await self._answer_already_here(state, kind, request_id)
                if action is None and fault is None:
                    state.bank_ms = 0.0
                    fault = (FaultKind.TIMEOUT, f"no answer within {time_ms} ms plus the bank", "")
        except LinkClosedError:
            fault = (FaultKind.CLOSED, state.link.close_reason, "")
        if fault is not None and fault[0] in (FaultKind.CLOSED, FaultKind.STALLED):
            state.auto = True
        answered_at = time.monotonic()
        elapsed = 0.0 if sent_at is None else answered_at - sent_at  # undelivered: no time
        stats = state.stats
        stats.decisions += 1
        stats.seconds_total += elapsed
        stats.seconds_max = max(stats.seconds_max, elapsed)
        self.round_trips.append(answered_at - asked_at)
        over_ms = elapsed * 1000 - time_ms
        if over_ms > 0:
            state.bank_ms = max(0.0, state.bank_ms - over_ms)
        if action is not None:
            try:
                game.apply(action)  # the one door: it refuses an illegal action unchanged
                if state.notices:  # e.g. a flood noticed while waiting
                    await self._tell_faults(state)
                return
            except IllegalActionError as error:
                fault = (FaultKind.ILLEGAL, str(error), str(action))
        assert fault is not None
        if fault[0] in (FaultKind.TIMEOUT, FaultKind.MALFORMED, FaultKind.WRONG_REQUEST):
            state.unanswered += 1  # the bot's own answer to this request may still come
        fallback = fallback_action(game)
        game.apply(fallback)
        fault_kind, reason, sent = fault
        self._fault(state, fault_kind, reason, sent, str(fallback), request_id)
        await self._tell_faults(state)

    async def _answer_already_here(
        self, state: _SeatState, kind: DecisionKind, request_id: int
    ) -> tuple[Action | None, tuple[FaultKind, str, str] | None]:
        """After the deadline: an answer that is already waiting still counts.

        If the referee itself was slow (a busy machine), the answer may have arrived in
        time but not yet been read; the bot should not pay for the referee's delay.
        """
        await asyncio.sleep(0)  # let the stream's reader hand over what has arrived
        if state.link.inbox.empty():
            return None, None
        try:
            async with asyncio.timeout(0):
                return await self._await_answer(state, kind, request_id)
        except TimeoutError:
            return None, None
        except LinkClosedError:
            return None, (FaultKind.CLOSED, state.link.close_reason, "")

    async def _await_answer(
        self, state: _SeatState, kind: DecisionKind, request_id: int
    ) -> tuple[Action | None, tuple[FaultKind, str, str] | None]:
        """Read until the answer to ``request_id``; return it, or the fault that replaced it.

        The caller bounds the wait with the decision's deadline.
        """
        while True:
            raw = await state.link.inbox.get()
            if raw is None:
                raise LinkClosedError
            try:
                message = pb.BotMessage.FromString(raw)
            except DecodeError:
                return None, (FaultKind.MALFORMED, "not a BotMessage", _abbreviate(raw))
            if message.WhichOneof("body") != "answer":
                return None, (
                    FaultKind.MALFORMED,
                    "expected an Answer, got " + str(message.WhichOneof("body")),
                    _abbreviate(raw),
                )
            answer = message.answer
            if answer.request_id != request_id:
                if 0 < answer.request_id < request_id:
                    self._stale_answer(state)
                    continue
                return None, (
                    FaultKind.WRONG_REQUEST,
                    f"answer to request {answer.request_id}; the open request is {request_id}",
                    _abbreviate(raw),
                )
            try:
                action = answer_to_action(answer, kind)
            except IllegalActionError as error:
                return None, (FaultKind.ILLEGAL, str(error), _abbreviate(raw))
            except WrongKindError as error:
                return None, (FaultKind.WRONG_KIND, str(error), _abbreviate(raw))
            except EngineError as error:
                return None, (FaultKind.MALFORMED, str(error), _abbreviate(raw))
            return action, None

    async def _send(self, state: _SeatState, message: pb.RefereeMessage) -> bool:
        if not state.link.connected:
            return False
        ok = await state.link.send(message, SEND_TIMEOUT)
        if not ok and not state.auto:
            state.auto = True
            self._fault(
                state,
                FaultKind.STALLED,
                "could not deliver a message (the bot stopped reading or went away)",
            )
        return ok

    def _stale_answer(self, state: _SeatState) -> None:
        """An answer to an old request: one late answer per request that ended without its
        answer is expected; anything beyond that was never asked for (flood), recorded at
        most once per decision."""
        if state.unanswered > 0:
            state.unanswered -= 1
            return
        state.stale += 1
        if state.stale == 1:
            self._fault(state, FaultKind.FLOOD, "answers to requests already answered")

    def _fault(
        self,
        state: _SeatState,
        kind: FaultKind,
        reason: str,
        sent: str = "",
        fallback: str = "",
        request_id: int = 0,
    ) -> None:
        game = self._game
        fault = Fault(
            self._game_index,
            game.deal_number if game else 0,
            state.link.seat,
            kind,
            reason,
            sent,
            fallback,
        )
        self.faults.append(fault)
        if kind not in (FaultKind.CLOSED, FaultKind.STALLED, FaultKind.NO_JOIN):
            state.notices.append(
                pb.Notice(kind=kind.value, reason=reason, request_id=request_id, fallback=fallback)
            )

    async def _tell_faults(self, state: _SeatState) -> None:
        """Send the seat a notice for each fault recorded against it (best effort)."""
        notices, state.notices = state.notices, []
        for notice in notices:
            await self._send(state, pb.RefereeMessage(notice=notice))

    def _report(self, game: Game, index: int, seed: GameKey, duration: float) -> GameReport:
        """The game's report; it also carries faults from before it (e.g. a missed join)."""
        assert game.outcome is not None
        faults = self.faults[self._faults_before :]
        self._faults_before = len(self.faults)
        for state in self.seats:
            state.stats.faults = sum(1 for f in faults if f.seat == state.link.seat)
        for deal in game.deals:
            if deal.bidder is None or len(deal.tricks) < 6:
                continue
            stats = self.seats[deal.bidder].stats
            stats.bids_made += 1
            if deal.points[team_of(deal.bidder)] >= deal.contract:
                stats.bids_won += 1
        meta = dict(self.meta, match_id=self.match_id, game_index=index)
        return GameReport(
            game_index=index,
            seed=seed,
            winner=game.outcome.winner,
            scores=game.outcome.scores,
            deals=game.outcome.deals,
            duration_s=duration,
            record=to_record(game, meta),
            seats=[s.stats for s in self.seats],
            faults=faults,
        )


def _abbreviate(raw: bytes | str, limit: int = 120) -> str:
    text = raw if isinstance(raw, str) else raw[:limit].hex()
    return text[:limit] + ("…" if len(raw) > limit else "")
