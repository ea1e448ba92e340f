"""Conversion between protobuf messages of ``arena.v1`` and engine values.

This is the one module that knows both sides; the gRPC seats and the Python SDK over
gRPC use it, and nothing else touches both the engine's types and the generated ones.
The spellings of cards, suits and kinds, and the readings of an answer, a view and the
legal choices, are the contract's (``arena.wire.values``), shared with the JSON lines of
standard input and output (``arena.wire.jsonlines``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Final

from arena.engine import (
    Action,
    Bid,
    CardSet,
    DecisionKind,
    Legal,
    NameTrump,
    Pass,
    Play,
    Suit,
    View,
)
from arena.engine import events as ev
from arena.engine.events import is_public, is_told_to
from arena.engine.game import Trick
from arena.v1 import arena_pb2 as pb

from .seat import GameStarted, Notice, Request, Told, Welcome
from .values import (
    CARD_TEXTS,
    WrongKindError,
    action_of,
    card_texts,
    exact_card,
    legal_of,
    parse_cards,
    view_of,
)

__all__ = [
    "CARD_TEXTS",
    "KIND_FROM_PB",
    "KIND_TO_PB",
    "PROTOCOL_VERSION",
    "SUIT_FROM_PB",
    "SUIT_TO_PB",
    "EventTranslator",
    "WrongKindError",
    "action_to_answer",
    "answer_to_action",
    "card_texts",
    "deal_started_to_pb",
    "event_to_pb",
    "exact_card",
    "legal_from_pb",
    "legal_to_pb",
    "notice_to_pb",
    "parse_cards",
    "request_into",
    "request_to_pb",
    "told_to_pb",
    "trick_to_pb",
    "view_from_pb",
    "view_into",
    "view_to_pb",
    "welcome_to_pb",
]

PROTOCOL_VERSION: Final = pb.PROTOCOL_VERSION_1

SUIT_TO_PB: Final = {
    Suit.CLUBS: pb.SUIT_CLUBS,
    Suit.DIAMONDS: pb.SUIT_DIAMONDS,
    Suit.HEARTS: pb.SUIT_HEARTS,
    Suit.SPADES: pb.SUIT_SPADES,
}
SUIT_FROM_PB: Final = {v: k for k, v in SUIT_TO_PB.items()}

KIND_TO_PB: Final = {
    DecisionKind.BID: pb.DECISION_KIND_BID,
    DecisionKind.TRUMP: pb.DECISION_KIND_TRUMP,
    DecisionKind.DISCARD: pb.DECISION_KIND_DISCARD,
    DecisionKind.PLAY: pb.DECISION_KIND_PLAY,
}
KIND_FROM_PB: Final = {v: k for k, v in KIND_TO_PB.items()}

# --- events ----------------------------------------------------------------------------


def event_to_pb(event: ev.Event) -> pb.Event:
    """One engine event as the protocol's ``Event`` (the audience was checked by the caller)."""
    if isinstance(event, ev.CardPlayed):
        return pb.Event(
            card_played=pb.CardPlayed(seat=event.seat, card=CARD_TEXTS[event.card.index])
        )
    if isinstance(event, ev.TrickWon):
        return pb.Event(trick_won=pb.TrickWon(trick_number=event.trick_number, winner=event.winner))
    if isinstance(event, ev.BidMade):
        return pb.Event(bid_made=pb.BidMade(seat=event.seat, amount=event.amount))
    if isinstance(event, ev.Exchanged):
        return pb.Event(
            exchanged=pb.Exchanged(
                seat=event.seat, discarded=event.discarded, received=event.received
            )
        )
    if isinstance(event, ev.OwnExchange):
        return pb.Event(
            own_exchange=pb.OwnExchange(
                discarded=card_texts(event.discarded), received=card_texts(event.received)
            )
        )
    if isinstance(event, ev.TrumpNamed):
        return pb.Event(
            trump_named=pb.TrumpNamed(
                seat=event.seat, suit=SUIT_TO_PB[event.suit], contract=event.contract
            )
        )
    if isinstance(event, ev.DealScored):
        teams = {name: -1 if team is None else team for name, team in event.categories}
        return pb.Event(
            deal_scored=pb.DealScored(
                deal_number=event.deal_number,
                bidder=event.bidder,
                contract=event.contract,
                game_totals=event.game_totals,
                points=event.points,
                scores=event.scores,
                **teams,
            )
        )
    if isinstance(event, ev.DealThrownIn):
        return pb.Event(deal_thrown_in=pb.DealThrownIn(deal_number=event.deal_number))
    if isinstance(event, ev.GameEnded):
        return pb.Event(
            game_ended=pb.GameEnded(
                winner=-1 if event.winner is None else event.winner,
                scores=event.scores,
                deals=event.deals,
            )
        )
    raise TypeError(f"no protocol form for {event!r}")  # DealStarted/HandDealt: see below


def deal_started_to_pb(started: ev.DealStarted, hand: ev.HandDealt) -> pb.Event:
    """R3: the deal's start carries the receiving seat's own hand (R3.2)."""
    return pb.Event(
        deal_started=pb.DealStarted(
            deal_number=started.deal_number, dealer=started.dealer, hand=card_texts(hand.cards)
        )
    )


class EventTranslator:
    """Protocol events of one game for each seat, each public event converted only once.

    Every public event goes to six seats; converting it once matters on the hot path.
    Which seat may be told what is the engine's decision (R10: ``events.is_public`` and
    ``events.is_told_to``), never made here.
    """

    def __init__(self, events: list[ev.Event]) -> None:
        self.events = events
        self._public: list[pb.Event | None] = []

    def for_seat(self, seat: int, start: int) -> list[pb.Event]:
        """The events from index ``start`` on that ``seat`` may be told (R10), as sent."""
        events = self.events
        cache = self._public
        while len(cache) < len(events):
            event = events[len(cache)]
            # DealStarted is public but goes out with each seat's own hand (R3.2).
            public = is_public(event) and not isinstance(event, ev.DealStarted)
            cache.append(event_to_pb(event) if public else None)
        out: list[pb.Event] = []
        for index in range(start, len(events)):
            converted = cache[index]
            if converted is not None:
                out.append(converted)
                continue
            event = events[index]
            if not is_told_to(event, seat):
                continue
            if isinstance(event, ev.HandDealt):
                started = events[index - 1 - event.seat]  # DealStarted precedes the six hands
                assert isinstance(started, ev.DealStarted)
                out.append(deal_started_to_pb(started, event))
            elif not isinstance(event, ev.DealStarted):
                out.append(event_to_pb(event))
        return out


# Public events converted once for all six seats: by identity, holding the event so that
# its id is not reused while it is cached; emptied now and then.
_PUBLIC_CACHE: dict[int, tuple[Told, pb.Event]] = {}
_PUBLIC_CACHE_LIMIT: Final = 4096


def told_to_pb(events: Sequence[Told]) -> list[pb.Event]:
    """What a seat is told (the table chose the events, R10), as the protocol's events: a
    deal's start carries the seat's own hand (``DealStarted`` then its ``HandDealt``)."""
    out: list[pb.Event] = []
    cache = _PUBLIC_CACHE
    started: ev.DealStarted | None = None
    for event in events:
        if type(event) is ev.DealStarted:
            started = event
            continue
        if type(event) is ev.HandDealt:
            assert started is not None, "a hand is told with its deal's start"
            out.append(deal_started_to_pb(started, event))
            continue
        if type(event) is GameStarted:
            out.append(
                pb.Event(
                    game_started=pb.GameStarted(
                        game_index=event.game_index, first_dealer=event.first_dealer
                    )
                )
            )
            continue
        assert not isinstance(event, GameStarted)
        if event.audience is not None:
            out.append(event_to_pb(event))
            continue
        cached = cache.get(id(event))
        if cached is None or cached[0] is not event:
            if len(cache) >= _PUBLIC_CACHE_LIMIT:
                cache.clear()
            cached = cache[id(event)] = (event, event_to_pb(event))
        out.append(cached[1])
    return out


def welcome_to_pb(welcome: Welcome) -> pb.Welcome:
    return pb.Welcome(
        seat=welcome.seat,
        team=welcome.team,
        partner=welcome.partner,
        games=welcome.games,
        decision_ms=welcome.decision_ms,
        overage_ms=welcome.overage_ms,
        draw_limit=welcome.draw_limit,
        team_names=welcome.team_names,
        match_id=welcome.match_id,
    )


def request_to_pb(request: Request) -> pb.DecisionRequest:
    message = pb.DecisionRequest()
    request_into(message, request)
    return message


def request_into(target: pb.DecisionRequest, request: Request) -> None:
    """``request_to_pb`` written into ``target``, the request field of the message that is
    sent: building it in place spares copying the view into each enclosing message."""
    target.id = request.id
    target.kind = KIND_TO_PB[request.kind]
    view_into(target.view, request.view, request.game_index)
    target.legal.CopyFrom(legal_to_pb(request.legal))
    target.time_ms = request.time_ms
    target.bank_ms = request.bank_ms


def notice_to_pb(notice: Notice) -> pb.Notice:
    return pb.Notice(
        kind=notice.kind,
        reason=notice.reason,
        request_id=notice.request_id,
        fallback=notice.fallback,
    )


# --- decision requests -----------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def trick_to_pb(trick: Trick) -> pb.Trick:
    """A completed trick; cached, since every later view of the deal repeats it."""
    return pb.Trick(leader=trick.leader, cards=card_texts(trick.cards), winner=trick.winner)


@functools.lru_cache(maxsize=1024)
def _bids_to_pb(bids: tuple[tuple[int, int], ...]) -> tuple[pb.BidMade, ...]:
    """A deal's bids so far; cached, since every later view of the deal repeats them."""
    return tuple(pb.BidMade(seat=s, amount=a) for s, a in bids)


@functools.lru_cache(maxsize=1024)
def _exchanges_to_pb(exchanges: tuple[tuple[int, int, int], ...]) -> tuple[pb.Exchanged, ...]:
    return tuple(pb.Exchanged(seat=s, discarded=d, received=r) for s, d, r in exchanges)


def view_to_pb(view: View, game_index: int) -> pb.View:
    """R10: the seat's view, complete enough for a stateless bot."""
    message = pb.View()
    view_into(message, view, game_index)
    return message


def view_into(target: pb.View, view: View, game_index: int) -> None:
    """``view_to_pb`` written into ``target`` (an empty ``View``, e.g. a request's)."""
    target.seat = view.seat
    target.game_index = game_index
    target.deal_number = view.deal_number
    target.dealer = view.dealer
    target.scores.extend(view.scores)
    target.hand.extend(card_texts(view.hand))
    if view.bids:
        target.bids.extend(_bids_to_pb(view.bids))
    target.bidder = -1 if view.bidder is None else view.bidder
    target.contract = view.contract
    target.trump = SUIT_TO_PB[view.trump] if view.trump is not None else pb.SUIT_UNSPECIFIED
    if view.exchanges:
        target.exchanges.extend(_exchanges_to_pb(view.exchanges))
    target.own_discarded.extend(card_texts(view.own_discarded))
    target.own_received.extend(card_texts(view.own_received))
    if view.tricks:
        target.tricks.extend([trick_to_pb(t) for t in view.tricks])
    current = target.current_trick
    current.leader = view.trick_leader if view.trick_leader is not None else 0
    if view.trick_cards:
        current.cards.extend([CARD_TEXTS[card.index] for _, card in view.trick_cards])
    current.winner = -1


def view_from_pb(message: pb.View, kind: DecisionKind) -> View:
    """The view of a decision request as the engine's ``View`` (the inverse of
    ``view_to_pb`` for the seat asked to decide ``kind``), for bots that search with
    the engine (``arena.engine.Determinizer``)."""
    current = message.current_trick
    return view_of(
        kind,
        message.seat,
        (message.deal_number, message.dealer),
        message.scores,
        message.hand,
        ((b.seat, b.amount) for b in message.bids),
        (message.bidder, message.contract, SUIT_FROM_PB.get(message.trump)),
        ((e.seat, e.discarded, e.received) for e in message.exchanges),
        (message.own_discarded, message.own_received),
        ((t.leader, t.cards, t.winner) for t in message.tricks),
        (current.leader, current.cards),
    )


def legal_to_pb(legal: Legal) -> pb.LegalChoices:
    """The legal choices of a request, by the decision's kind (empty once the game is over)."""
    kind = legal.kind
    if kind is DecisionKind.PLAY:
        return pb.LegalChoices(cards=[CARD_TEXTS[a.card.index] for a in legal if type(a) is Play])
    if kind is DecisionKind.BID:
        return pb.LegalChoices(bids=[a.amount if type(a) is Bid else 0 for a in legal])
    if kind is DecisionKind.DISCARD:
        rule = legal.discard_rule
        return pb.LegalChoices(
            discard=pb.DiscardRule(
                may=card_texts(rule.may),
                must=card_texts(rule.must),
                min_count=rule.min_count,
                max_count=rule.max_count,
                dealer=rule.dealer,
            )
        )
    if kind is DecisionKind.TRUMP:
        return pb.LegalChoices(suits=[SUIT_TO_PB[a.suit] for a in legal if type(a) is NameTrump])
    return pb.LegalChoices()


def legal_from_pb(kind: DecisionKind, legal: pb.LegalChoices, seat: int, hand: CardSet) -> Legal:
    """The legal choices of a request as the engine's ``Legal`` (used by the Python SDK);
    ``hand`` matters only for a discard."""
    rule = legal.discard
    discard = (rule.may, rule.must, rule.min_count, rule.max_count, rule.dealer)
    suits = [SUIT_FROM_PB[s] for s in legal.suits] if kind is DecisionKind.TRUMP else []
    return legal_of(kind, (legal.bids, suits, legal.cards), discard, seat, hand)


# --- answers -----------------------------------------------------------------------


def action_to_answer(request_id: int, action: Action) -> pb.Answer:
    if isinstance(action, Play):
        return pb.Answer(request_id=request_id, card=str(action.card))
    if isinstance(action, Pass):
        return pb.Answer(request_id=request_id, bid=0)
    if isinstance(action, Bid):
        return pb.Answer(request_id=request_id, bid=action.amount)
    if isinstance(action, NameTrump):
        return pb.Answer(request_id=request_id, trump=SUIT_TO_PB[action.suit])
    return pb.Answer(request_id=request_id, discard=pb.CardList(cards=card_texts(action.cards)))


def answer_to_action(answer: pb.Answer, kind: DecisionKind) -> Action:
    """Read a bot's answer to a decision of ``kind``; raise on a malformed or wrong answer."""
    field = answer.WhichOneof("choice")
    value: object = None
    if field == "trump":
        value = SUIT_FROM_PB.get(answer.trump, answer.trump)
    elif field == "discard":
        value = answer.discard.cards
    elif field is not None:
        value = getattr(answer, field)
    return action_of(kind, field, value)
