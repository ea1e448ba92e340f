"""A table: six seats playing a match of games, with the referee's rules for time and faults.

The table drives the engine, asks each seat for its decisions through its
``SeatChannel`` (``arena.seats.channel``: gRPC, standard input/output or in-process, in
engine types; the table never sees a transport or a generated message), sends each seat
only the events R10 lets it know (decided by ``arena.engine.events.is_told_to``), keeps
every seat's clock, and turns every misbehaviour into a recorded ``Fault`` and a fallback
action (``policy``), so no bot can stop the table.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.engine import (
    Action,
    DecisionKind,
    Game,
    GameKey,
    IllegalActionError,
    to_record,
    view,
)
from arena.engine.events import is_told_to
from arena.engine.forfeit import FORFEIT_DEALS, apply_forfeit
from arena.engine.game import team_of
from arena.engine.record import DecisionNote, Fallback, TimeControl
from arena.seats.channel import (
    ChannelClosedError,
    GameStarted,
    Notice,
    Request,
    SeatChannel,
    Told,
    Welcome,
)
from arena.wire.faults import Refusal, Stale

from .deadline import Deadline
from .policy import POLICY, Fault, FaultKind, fallback_action
from .result import GameResult, SeatStats
from .starved import PROBE_S, DecisionClock, StarvationCredit

SEATS = 6
SEND_TIMEOUT = 5.0  # a bot that does not read its messages for this long is stalled


@dataclass(frozen=True)
class TableSettings:
    """The referee's time rules (defaults as in docs/PROTOCOL.md)."""

    decision_ms: int = 1000
    overage_ms: int = 10_000
    join_timeout_s: float = 10.0
    draw_limit: int = 200
    # F1: a team forfeits a game in which one of its seats' every decision of this many
    # deals in a row was a fallback (arena.engine.forfeit; 0: never).
    forfeit_deals: int = FORFEIT_DEALS


@dataclass
class _SeatState:
    channel: SeatChannel
    cursor: int = 0  # index into game.events of the next event to send
    bank_ms: float = 0.0
    request_id: int = 0
    auto: bool = False  # auto-played for the rest of the match
    auto_since: Fault | None = None  # the fault that made the seat auto-played
    stats: SeatStats = field(init=False)  # of the game being played
    pending_start: GameStarted | None = None  # the game's start, not yet told
    notices: list[Notice] = field(default_factory=list)  # faults not yet told
    unanswered: int = 0  # faulted requests whose own (late) answer may still arrive
    stale: int = 0  # unasked-for answers during the current decision
    clock: DecisionClock | None = None  # the fair clock, where the bot's CPU is metered

    def __post_init__(self) -> None:
        self.stats = SeatStats(self.channel.seat)


@dataclass(frozen=True, slots=True)
class _Exchange:
    """One request and what came of it: the bot's action, or the refusal in its place."""

    answer: Action | Refusal
    asked_at: float
    sent_at: float | None  # None: the request was never delivered
    answered_at: float
    # Of the elapsed time, what is not charged to the seat: what others' load kept the bot
    # off the CPU (the fair clock), and for an answer that was in by its deadline but read
    # after it, the referee's own delay. The record's ``credit``.
    credit: float = 0.0

    @property
    def elapsed(self) -> float:
        """The bot's time: from delivery to answer; an undelivered request takes none."""
        return 0.0 if self.sent_at is None else self.answered_at - self.sent_at

    @property
    def charged(self) -> float:
        """The time the seat's clock is charged: its own, not what it was starved of."""
        return max(0.0, self.elapsed - self.credit)


OnGame = Callable[[GameResult], Awaitable[None] | None]
# What a table passes before each game, given the game's index: the lease of the game's
# deal, held while the game is played, so that no deal is live at two tables at once
# (``arena.tournament.leases``).
DealGate = Callable[[int], contextlib.AbstractAsyncContextManager[object]]
# A game's key; an int is a guessable seed for tests and benchmarks (GameKey.from_seed).
GameKeyOrSeed = GameKey | int


def game_key(seed: GameKeyOrSeed) -> GameKey:
    return seed if isinstance(seed, GameKey) else GameKey.from_seed(seed)


class Table:
    """One match: the same six seats play ``seeds`` games in order."""

    def __init__(
        self,
        match_id: str,
        channels: Sequence[SeatChannel],
        seeds: Sequence[GameKeyOrSeed],
        settings: TableSettings,
        team_names: Sequence[str],
        meta: dict[str, Any] | None = None,
    ) -> None:
        if len(channels) != SEATS:
            raise ValueError("R1.1: a table has six seats")
        self.match_id = match_id
        self.seats = [_SeatState(channel) for channel in channels]
        self.seeds = list(seeds)
        self.settings = settings
        self.team_names = list(team_names)
        self.meta = meta or {}
        self.faults: list[Fault] = []
        self._game: Game | None = None
        self._game_index = 0
        self._faults_before = 0
        # What the record says of each decision of the game being played (time, fallback),
        # one per entry of the game's history, in its order.
        self._notes: list[DecisionNote] = []
        self.join_wait_seconds = 0.0  # how long the table waited for its bots to join
        # Seconds from sending each request to having its answer (or fault), for benchmarks.
        self.round_trips: list[float] = []

    # --- the match ------------------------------------------------------------------

    @property
    def game(self) -> Game | None:
        """The game being played, or the last one played."""
        return self._game

    async def open(self) -> None:
        """Wait for the seats' joins, then welcome each seat that joined."""
        await self._await_joins()
        for state in self.seats:
            if state.channel.connected:
                welcome = self._welcome(state.channel.seat)
                self._delivered(state, await state.channel.welcome(welcome, SEND_TIMEOUT))

    async def play(
        self,
        on_game: OnGame | None = None,
        skip: set[int] | None = None,
        order: Sequence[int] = (),
        gate: DealGate | None = None,
    ) -> None:
        """Play every game (except indices in ``skip``), reporting each as it finishes:
        in ``order`` (game indices; empty: 0, 1, … in turn), each inside ``gate(index)``."""
        await self.open()
        try:
            for index in order or range(len(self.seeds)):
                if skip and index in skip:
                    continue
                async with gate(index) if gate is not None else contextlib.nullcontext():
                    result = await self.play_game(index, self.seeds[index])
                if on_game is not None:
                    stored = on_game(result)
                    if stored is not None:
                        await stored
        finally:
            await self.close("finished")

    async def close(self, reason: str) -> None:
        for state in self.seats:
            connected = state.channel.connected
            delivered = await state.channel.close(reason, SEND_TIMEOUT)
            if connected:
                self._delivered(state, delivered)

    async def _await_joins(self) -> None:
        """Wait until every seat has joined, gone away, or missed its join deadline."""
        waiting_since = time.monotonic()
        pending = [s.channel for s in self.seats if not s.channel.joined]
        # Each seat until its own deadline: a seat left open for a person is given longer.
        await asyncio.gather(*(channel.wait_joined() for channel in pending))
        self.join_wait_seconds += time.monotonic() - waiting_since
        for state in self.seats:
            if not state.channel.joined:
                reason = state.channel.ended or (
                    "the bot's process ended before it joined"
                    if state.channel.gone
                    else "the bot did not join before the deadline"
                )
                self._fault(state, FaultKind.NO_JOIN, reason)

    def _welcome(self, seat: int) -> Welcome:
        s = self.settings
        return Welcome(
            seat=seat,
            team=team_of(seat),
            partner=(seat + 3) % SEATS,
            games=len(self.seeds),
            decision_ms=s.decision_ms,
            overage_ms=s.overage_ms,
            draw_limit=s.draw_limit,
            team_names=tuple(self.team_names),
            match_id=self.match_id,
        )

    # --- one game -----------------------------------------------------------------------

    async def play_game(self, index: int, seed: GameKeyOrSeed) -> GameResult:
        key = game_key(seed)
        game = self._game = Game(key, draw_limit=self.settings.draw_limit)
        self._game_index = index
        self._notes = []
        started = time.monotonic()
        start_event = GameStarted(index, game.first_dealer)
        for state in self.seats:
            state.cursor = 0
            state.bank_ms = float(self.settings.overage_ms)
            state.stats = SeatStats(state.channel.seat)
            state.pending_start = start_event
        deal_number = game.deal_number
        while not game.is_over:
            await self._turn(self.seats[game.to_act], game)
            if game.deal_number != deal_number or game.is_over:
                deal_number = game.deal_number
                self._forfeit(game)
                # The seat to act next gets these events at once, with its request.
                await self._flush_all(game, skip=None if game.is_over else game.to_act)
        return self._result(game, index, key, time.monotonic() - started)

    def _forfeit(self, game: Game) -> None:
        """At a deal's end: F1, a team with a seat that has not decided anything itself for
        ``forfeit_deals`` deals forfeits the game (``arena.engine.forfeit``), which ends
        here as its loss, as the record then shows."""
        marks = [note.fallback is not None for note in self._notes]
        apply_forfeit(game, marks, self.settings.forfeit_deals)

    async def _flush_all(self, game: Game, skip: int | None = None) -> None:
        """At the end of a deal and of the game every seat gets its events (R10)."""
        for state in self.seats:
            if state.channel.connected and state.channel.seat != skip:
                events = self._take_events(state, game)
                if events:
                    self._delivered(state, await state.channel.tell(events, SEND_TIMEOUT))

    def _take_events(self, state: _SeatState, game: Game) -> list[Told]:
        """The events since the seat's last message that it may be told (R10)."""
        seat = state.channel.seat
        every = game.events
        events: list[Told] = [e for e in every[state.cursor :] if is_told_to(e, seat)]
        state.cursor = len(every)
        if state.pending_start is not None:
            events.insert(0, state.pending_start)
            state.pending_start = None
        return events

    async def _turn(self, state: _SeatState, game: Game) -> None:
        """One decision of the seat: ask, charge the time it took, settle (policy)."""
        # The decision's index in the game's history: its note, and its fault if it has
        # one, are keyed by it.
        at = len(game.history)
        if state.auto or not state.channel.connected:
            fallback = fallback_action(game)
            if state.auto:
                reason = "the seat is auto-played for the rest of the match"
            else:  # gone between two requests: this decision is the one its fault replaced
                reason = state.channel.close_reason
                self._fault(state, FaultKind.CLOSED, reason, fallback=str(fallback), at=at)
            game.apply(fallback)
            cause = state.auto_since
            assert cause is not None
            self._notes.append(DecisionNote(None, Fallback(cause.kind.value, reason)))
            return
        kind = game.decision_kind
        assert kind is not None
        state.stale = 0
        state.request_id += 1
        request = Request(
            id=state.request_id,
            kind=kind,
            view=view(game, state.channel.seat),
            legal=game.legal(),
            game_index=self._game_index,
            time_ms=self.settings.decision_ms,
            bank_ms=int(state.bank_ms),
            events=self._take_events(state, game),
        )
        dropped = state.channel.take_overflow()
        if dropped:
            self._fault(state, FaultKind.FLOOD, f"{dropped} unrequested messages were dropped")
            await self._tell_faults(state)
        exchange = await self._ask(state, kind, request)
        self._charge(state, exchange)
        await self._settle(state, game, exchange, at)

    async def _ask(self, state: _SeatState, kind: DecisionKind, request: Request) -> _Exchange:
        """Send the request and wait for its answer, or for the fault that replaces it."""
        request_id = state.request_id
        time_ms = self.settings.decision_ms
        answer: Action | Refusal
        sent_at: float | None = None
        timed_out = False
        asked_at = time.monotonic()
        clock = self._clock(state)
        # One deadline, moved once: first for the delivery, then for the answer.
        # Delivering is not timed against the decision time, so a slow moment of the
        # referee is not the bot's; a bot that does not read its messages at all is
        # stalled. Its timer is armed at the earlier of the two ends (the answer's cannot
        # come sooner), so that moving it to the answer's end re-arms nothing; where the
        # bot's CPU is metered, sooner still, at the fair clock's probe, which only a slow
        # decision reaches.
        allowed = (time_ms + state.bank_ms) / 1000
        if clock is None:
            deadline = Deadline(SEND_TIMEOUT, allowed)
        else:
            clock.ask()
            deadline = Deadline(SEND_TIMEOUT, min(PROBE_S, allowed), clock.probe)
        try:
            try:
                await state.channel.request(request)
                sent_at = time.monotonic()
                if clock is not None:
                    clock.deliver()
                deadline.move(allowed)
                answer = await self._await_answer(state, kind, request_id)
            finally:
                deadline.cancel()
        except asyncio.CancelledError:
            if not deadline.timed_out():
                raise
            if sent_at is None:
                state.channel.drop()
                answer = Refusal(FaultKind.STALLED, "the bot does not read its messages")
            else:
                late = await self._answer_already_here(state, kind, request_id)
                if late is None:
                    credit = None if clock is None else clock.credit
                    late = await self._overtime(state, kind, request_id, sent_at + allowed, credit)
                timed_out = late is None
                timeout = Refusal(FaultKind.TIMEOUT, f"no answer within {time_ms} ms plus the bank")
                answer = timeout if late is None else late
        except ChannelClosedError:
            answer = Refusal(FaultKind.CLOSED, state.channel.close_reason)
        answered_at = time.monotonic()
        return _Exchange(
            answer,
            asked_at,
            sent_at,
            answered_at,
            self._credit(clock, sent_at, answered_at, allowed, timed_out),
        )

    def _clock(self, state: _SeatState) -> DecisionClock | None:
        """The seat's fair clock, where its bot's CPU is metered."""
        meter = state.channel.cpu_meter
        if meter is None:
            return None
        if state.clock is None or state.clock.meter is not meter:
            state.clock = DecisionClock(meter)
        return state.clock

    def _credit(
        self,
        clock: DecisionClock | None,
        sent_at: float | None,
        answered_at: float,
        allowed: float,
        timed_out: bool,
    ) -> float:
        """The decision's time not charged to the seat (the record's ``credit``), chosen so
        that the record alone judges it: a timeout's charged time is at least its limit
        (time plus bank), any other decision's at most that."""
        if sent_at is None:
            return 0.0
        elapsed = answered_at - sent_at
        credit = None if clock is None else clock.credit
        granted = 0.0
        if credit is not None:
            # Within its time a decision touches no bank and needs no credit; a timeout
            # keeps what moved its deadline, and nothing earned after it gave up.
            if not timed_out and elapsed * 1000 > self.settings.decision_ms:
                credit.more()
            granted = credit.granted
        if timed_out:
            return granted
        # In by its deadline (moved on by the credit), or read after it although it had
        # arrived (a busy referee): either way, never charged beyond the limit.
        return max(granted, elapsed - allowed)

    async def _overtime(
        self,
        state: _SeatState,
        kind: DecisionKind,
        request_id: int,
        limit_at: float,
        credit: StarvationCredit | None,
    ) -> Action | Refusal | None:
        """Past the deadline: the wait goes on until the wall clock, not the event loop's
        coarser one, has passed the limit (``limit_at``), moved on by as much as other
        bots' load kept this one off the CPU (``arena.referee.starved``); None if the
        answer missed it."""
        while True:
            left = limit_at + (0.0 if credit is None else credit.granted) - time.monotonic()
            if left <= 0:
                if credit is None or credit.more() <= 0:
                    return None
                continue
            try:
                async with asyncio.timeout(left):
                    return await self._await_answer(state, kind, request_id)
            except TimeoutError:
                continue
            except ChannelClosedError:
                return Refusal(FaultKind.CLOSED, state.channel.close_reason)

    def _charge(self, state: _SeatState, exchange: _Exchange) -> None:
        """The decision's time goes to the seat's statistics, and beyond its time to the bank."""
        stats = state.stats
        elapsed = exchange.elapsed
        stats.decisions += 1
        stats.decision_seconds_total += elapsed
        stats.decision_seconds_max = max(stats.decision_seconds_max, elapsed)
        self.round_trips.append(exchange.answered_at - exchange.asked_at)
        over_ms = exchange.charged * 1000 - self.settings.decision_ms
        if over_ms > 0:
            state.bank_ms = max(0.0, state.bank_ms - over_ms)

    async def _settle(self, state: _SeatState, game: Game, exchange: _Exchange, at: int) -> None:
        """Apply the answer; a refused one is a fault, and the fallback is played instead."""
        answer = exchange.answer
        # The bot's time and the part of it not charged: null where nobody was asked.
        seconds = credit = None
        if exchange.sent_at is not None:
            seconds, credit = exchange.elapsed, exchange.credit
        if not isinstance(answer, Refusal):
            try:
                game.apply(answer)  # the one door: it refuses an illegal action unchanged
                self._notes.append(DecisionNote(seconds, credit=credit))
                if state.notices:  # e.g. a flood noticed while waiting
                    await self._tell_faults(state)
                return
            except IllegalActionError as error:
                answer = Refusal(FaultKind.ILLEGAL, str(error), str(answer))
        assert POLICY[answer.kind].plays_fallback, answer
        fallback = fallback_action(game)
        game.apply(fallback)
        self._notes.append(
            DecisionNote(seconds, Fallback(answer.kind.value, answer.reason, answer.sent), credit)
        )
        self._fault(
            state,
            answer.kind,
            answer.reason,
            answer.sent,
            str(fallback),
            state.request_id,
            at=at,
        )
        await self._tell_faults(state)

    async def _answer_already_here(
        self, state: _SeatState, kind: DecisionKind, request_id: int
    ) -> Action | Refusal | None:
        """After the deadline: an answer that is already waiting still counts.

        If the referee itself was slow (a busy machine), the answer may have arrived in
        time but not yet been read; the bot should not pay for the referee's delay.
        """
        await asyncio.sleep(0)  # let the stream's reader hand over what has arrived
        if not state.channel.answer_waiting():
            return None
        try:
            async with asyncio.timeout(0):
                return await self._await_answer(state, kind, request_id)
        except TimeoutError:
            return None
        except ChannelClosedError:
            return Refusal(FaultKind.CLOSED, state.channel.close_reason)

    async def _await_answer(
        self, state: _SeatState, kind: DecisionKind, request_id: int
    ) -> Action | Refusal:
        """Read until the answer to ``request_id``; return it, or the refusal that replaced it.

        The caller bounds the wait with the decision's deadline.
        """
        while True:
            answer = await state.channel.answer(kind, request_id)
            if not isinstance(answer, Stale):
                return answer
            self._stale_answer(state)

    def _delivered(self, state: _SeatState, ok: bool) -> None:
        """A message to a connected seat could not be delivered: it stalled (policy)."""
        if not ok and not state.auto:
            self._fault(
                state,
                FaultKind.STALLED,
                "could not deliver a message (the bot stopped reading or went away)",
            )

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
        at: int | None = None,
    ) -> None:
        """Record a fault and do what the policy says about its kind.

        ``at`` is the index in the game's history of the decision the fault replaced with
        the fallback, if it did; its deal and place in the deal come from the history, as
        the record's do, so the two cannot disagree.
        """
        game = self._game
        if at is not None:
            assert game is not None
            deal_number, decision_index = game.deal_of(at)
        else:
            deal_number, decision_index = (game.deal_number if game else 0), None
        fault = Fault(
            self._game_index,
            deal_number,
            state.channel.seat,
            kind,
            reason,
            sent,
            fallback,
            request_id,
            decision_index,
        )
        self.faults.append(fault)
        policy = POLICY[kind]
        if policy.auto_play:
            state.auto = True
            if state.auto_since is None:
                state.auto_since = fault
        if policy.late_answer_expected:
            state.unanswered += 1
        if policy.empties_bank:
            state.bank_ms = 0.0
        if policy.notice:
            state.notices.append(
                Notice(kind=kind.value, reason=reason, request_id=request_id, fallback=fallback)
            )

    async def _tell_faults(self, state: _SeatState) -> None:
        """Send the seat a notice for each fault recorded against it (best effort)."""
        notices, state.notices = state.notices, []
        for notice in notices:
            if state.channel.connected:
                self._delivered(state, await state.channel.notice(notice, SEND_TIMEOUT))

    def _result(self, game: Game, index: int, key: GameKey, duration: float) -> GameResult:
        """The game's result; it also carries faults from before it (e.g. a missed join)."""
        assert game.outcome is not None
        faults = tuple(self.faults[self._faults_before :])
        self._faults_before = len(self.faults)
        for state in self.seats:
            state.stats.faults = sum(1 for f in faults if f.seat == state.channel.seat)
        for deal in game.deals:
            if deal.bidder is None or len(deal.tricks) < 6:
                continue
            stats = self.seats[deal.bidder].stats
            stats.bids_made += 1
            if deal.points[team_of(deal.bidder)] >= deal.contract:
                stats.bids_won += 1
        meta = dict(self.meta, match_id=self.match_id, game_index=index)
        return GameResult(
            game_index=index,
            key=key,
            winner=game.outcome.winner,
            scores=game.outcome.scores,
            forfeited=game.outcome.forfeited,
            deals=game.outcome.deals,
            deal_points=tuple(deal.points for deal in game.deals),
            duration_s=duration,
            record=to_record(
                game,
                meta,
                self._notes,
                TimeControl(self.settings.decision_ms, self.settings.overage_ms),
                self.settings.forfeit_deals,
            ),
            seats=tuple(state.stats for state in self.seats),
            faults=faults,
        )
