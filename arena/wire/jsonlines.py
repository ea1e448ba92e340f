"""The stdio seats' JSON lines, straight from and to engine values: no message in between.

A stdio seat's line is a message of ``arena.v1`` in protobuf's JSON mapping, exactly as
``arena.wire.pbjson.line_of`` writes it (docs/PROTOCOL.md §8): lowerCamelCase names, enums
by name, 64-bit integers as strings, every field without presence shown (zeros and empty
lists too), a submessage or oneof member only when set, compact, ASCII, one line. This
module writes those bytes from the table's values (``arena.wire.seat``) and the bot's
answer, and reads a request's JSON value into engine values for the Python SDK, with no
generated message and no protobuf import: the referee's stdio seats and a Python bot over
stdio pay for JSON only. Tests hold every line of random games byte for byte to the
protobuf mapping, and every reading to protobuf's.

What is not in the usual form (the proto's own field names, enum numbers, numeric ids,
anything unexpected) is left to the mapping itself: ``answer_fields`` says None, and the
referee reads the line through ``arena.wire.pbjson`` (``arena.wire.answers.decode_line``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any, Final

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
from arena.engine.cards import indices_of_mask
from arena.engine.game import Trick

from .seat import GameStarted, Notice, Request, Told, Welcome
from .values import (
    CARD_TEXTS,
    KIND_NAMES,
    SUIT_BY_NAME,
    SUIT_NAMES,
    legal_of,
    view_of,
)

__all__ = [
    "PROTOCOL_VERSION_NAME",
    "answer_fields",
    "answer_line",
    "join_line",
    "legal_from_json",
    "match_over_line",
    "notice_line",
    "request_line",
    "tell_line",
    "view_from_json",
    "welcome_line",
]

PROTOCOL_VERSION_NAME: Final = "PROTOCOL_VERSION_1"
_UINT64: Final = 2**64
_UINT32: Final = 2**32

_CARD: Final = tuple(f'"{text}"' for text in CARD_TEXTS)
_SUIT: Final = {suit: f'"{name}"' for suit, name in SUIT_NAMES.items()}
_NO_SUIT: Final = '"SUIT_UNSPECIFIED"'
_KIND: Final = {kind: f'"{name}"' for kind, name in KIND_NAMES.items()}
_NO_CHOICES: Final = '{"bids":[],"suits":[],"cards":[]}'


def _text(value: str) -> str:
    """A string as the mapping writes it: quoted, escaped, ASCII."""
    return json.dumps(value)


def _ints(values: Sequence[int]) -> str:
    return "[" + ",".join(map(str, values)) + "]"


@functools.lru_cache(maxsize=4096)
def _card_set(mask: int) -> str:
    """A set of cards in card-index order, as a JSON list (a hand, a discard's cards)."""
    return "[" + ",".join([_CARD[i] for i in indices_of_mask(mask)]) + "]"


@functools.lru_cache(maxsize=1024)
def _trick(trick: Trick) -> str:
    cards = ",".join([_CARD[c.index] for c in trick.cards])
    return f'{{"leader":{trick.leader},"cards":[{cards}],"winner":{trick.winner}}}'


# A deal's bids, exchanges and tricks so far: every later view of the deal repeats them.
@functools.lru_cache(maxsize=1024)
def _bids(bids: tuple[tuple[int, int], ...]) -> str:
    return "[" + ",".join([f'{{"seat":{s},"amount":{a}}}' for s, a in bids]) + "]"


@functools.lru_cache(maxsize=1024)
def _exchanges(exchanges: tuple[tuple[int, int, int], ...]) -> str:
    inner = ",".join([f'{{"seat":{s},"discarded":{d},"received":{r}}}' for s, d, r in exchanges])
    return "[" + inner + "]"


@functools.lru_cache(maxsize=1024)
def _tricks(tricks: tuple[Trick, ...]) -> str:
    return "[" + ",".join([_trick(t) for t in tricks]) + "]"


# --- events ----------------------------------------------------------------------------


# typed: events are named tuples, and two of different types can be equal as tuples.
@functools.lru_cache(maxsize=8192, typed=True)
def _event(event: ev.Event | GameStarted) -> str:
    """One event as the protocol's ``Event`` in JSON (but a deal's start: ``_deal_started``).
    Cached by value: the same public event goes to six seats, and equal events are equal
    lines."""
    if isinstance(event, ev.CardPlayed):
        return f'{{"cardPlayed":{{"seat":{event.seat},"card":{_CARD[event.card.index]}}}}}'
    if isinstance(event, ev.TrickWon):
        return f'{{"trickWon":{{"trickNumber":{event.trick_number},"winner":{event.winner}}}}}'
    if isinstance(event, ev.BidMade):
        return f'{{"bidMade":{{"seat":{event.seat},"amount":{event.amount}}}}}'
    if isinstance(event, ev.Exchanged):
        return (
            f'{{"exchanged":{{"seat":{event.seat},"discarded":{event.discarded},'
            f'"received":{event.received}}}}}'
        )
    if isinstance(event, ev.OwnExchange):
        return (
            f'{{"ownExchange":{{"discarded":{_card_set(event.discarded.mask)},'
            f'"received":{_card_set(event.received.mask)}}}}}'
        )
    if isinstance(event, ev.TrumpNamed):
        return (
            f'{{"trumpNamed":{{"seat":{event.seat},"suit":{_SUIT[event.suit]},'
            f'"contract":{event.contract}}}}}'
        )
    if isinstance(event, ev.DealScored):
        teams = {name: -1 if team is None else team for name, team in event.categories}
        won = ",".join(
            f'"{name}":{teams.get(name, 0)}'
            for name in ("high", "low", "right", "left", "joker", "game")
        )
        return (
            f'{{"dealScored":{{"dealNumber":{event.deal_number},"bidder":{event.bidder},'
            f'"contract":{event.contract},{won},"gameTotals":{_ints(event.game_totals)},'
            f'"points":{_ints(event.points)},"scores":{_ints(event.scores)}}}}}'
        )
    if isinstance(event, ev.DealThrownIn):
        return f'{{"dealThrownIn":{{"dealNumber":{event.deal_number}}}}}'
    if isinstance(event, ev.GameEnded):
        winner = -1 if event.winner is None else event.winner
        return (
            f'{{"gameEnded":{{"winner":{winner},"scores":{_ints(event.scores)},'
            f'"deals":{event.deals}}}}}'
        )
    if isinstance(event, GameStarted):
        return (
            f'{{"gameStarted":{{"gameIndex":{event.game_index},'
            f'"firstDealer":{event.first_dealer}}}}}'
        )
    raise TypeError(f"no protocol form for {event!r}")  # DealStarted/HandDealt: see below


@functools.lru_cache(maxsize=1024)
def _deal_started(started: ev.DealStarted, hand: CardSet) -> str:
    """R3: the deal's start carries the receiving seat's own hand (R3.2)."""
    return (
        f'{{"dealStarted":{{"dealNumber":{started.deal_number},"dealer":{started.dealer},'
        f'"hand":{_card_set(hand.mask)}}}}}'
    )


def _events(events: Sequence[Told]) -> str:
    """What a seat is told (the table chose the events, R10), as the protocol's events: a
    deal's start carries the seat's own hand (``DealStarted`` then its ``HandDealt``)."""
    if not events:
        return "[]"
    out: list[str] = []
    started: ev.DealStarted | None = None
    for event in events:
        if isinstance(event, ev.DealStarted):
            started = event
        elif isinstance(event, ev.HandDealt):
            assert started is not None, "a hand is told with its deal's start"
            out.append(_deal_started(started, event.cards))
        else:
            out.append(_event(event))
    return "[" + ",".join(out) + "]"


# --- what the referee writes -----------------------------------------------------------------


def _view(view: View, game_index: int) -> str:
    """R10: the seat's view, complete enough for a stateless bot."""
    trump = _NO_SUIT if view.trump is None else _SUIT[view.trump]
    bidder = -1 if view.bidder is None else view.bidder
    leader = 0 if view.trick_leader is None else view.trick_leader
    current = ",".join([_CARD[card.index] for _, card in view.trick_cards])
    return (
        f'{{"seat":{view.seat},"gameIndex":{game_index},"dealNumber":{view.deal_number},'
        f'"dealer":{view.dealer},"scores":{_ints(view.scores)},'
        f'"hand":{_card_set(view.hand.mask)},"bids":{_bids(view.bids)},'
        f'"bidder":{bidder},"contract":{view.contract},"trump":{trump},'
        f'"exchanges":{_exchanges(view.exchanges)},'
        f'"ownDiscarded":{_card_set(view.own_discarded.mask)},'
        f'"ownReceived":{_card_set(view.own_received.mask)},"tricks":{_tricks(view.tricks)},'
        f'"currentTrick":{{"leader":{leader},"cards":[{current}],"winner":-1}}}}'
    )


def _legal(legal: Legal) -> str:
    """The legal choices of a request, by the decision's kind (empty once the game is over)."""
    kind = legal.kind
    if kind is DecisionKind.PLAY:
        cards = ",".join([_CARD[a.card.index] for a in legal if type(a) is Play])
        return f'{{"bids":[],"suits":[],"cards":[{cards}]}}'
    if kind is DecisionKind.BID:
        bids = ",".join([str(a.amount) if type(a) is Bid else "0" for a in legal])
        return f'{{"bids":[{bids}],"suits":[],"cards":[]}}'
    if kind is DecisionKind.DISCARD:
        rule = legal.discard_rule
        dealer = "true" if rule.dealer else "false"
        return (
            f'{{"bids":[],"suits":[],"cards":[],"discard":{{"may":{_card_set(rule.may.mask)},'
            f'"must":{_card_set(rule.must.mask)},"minCount":{rule.min_count},'
            f'"maxCount":{rule.max_count},"dealer":{dealer}}}}}'
        )
    if kind is DecisionKind.TRUMP:
        suits = ",".join([_SUIT[a.suit] for a in legal if type(a) is NameTrump])
        return f'{{"bids":[],"suits":[{suits}],"cards":[]}}'
    return _NO_CHOICES


def request_line(request: Request) -> bytes:
    """A decision request, with the events the seat is told first, as one line."""
    return (
        f'{{"events":{_events(request.events)},"request":{{"id":"{request.id}",'
        f'"kind":{_KIND[request.kind]},"view":{_view(request.view, request.game_index)},'
        f'"legal":{_legal(request.legal)},"timeMs":{request.time_ms},'
        f'"bankMs":{request.bank_ms}}}}}\n'
    ).encode()


def tell_line(events: Sequence[Told]) -> bytes:
    """Events with no decision (the end of a deal or a game), as one line."""
    return f'{{"events":{_events(events)}}}\n'.encode()


def welcome_line(welcome: Welcome) -> bytes:
    names = ",".join([_text(name) for name in welcome.team_names])
    return (
        f'{{"events":[],"welcome":{{"seat":{welcome.seat},"team":{welcome.team},'
        f'"partner":{welcome.partner},"games":{welcome.games},'
        f'"decisionMs":{welcome.decision_ms},"overageMs":{welcome.overage_ms},'
        f'"drawLimit":{welcome.draw_limit},"teamNames":[{names}],'
        f'"matchId":{_text(welcome.match_id)}}}}}\n'
    ).encode()


def notice_line(notice: Notice) -> bytes:
    return (
        f'{{"events":[],"notice":{{"kind":{_text(notice.kind)},"reason":{_text(notice.reason)},'
        f'"requestId":"{notice.request_id}","fallback":{_text(notice.fallback)}}}}}\n'
    ).encode()


def match_over_line(reason: str) -> bytes:
    return f'{{"events":[],"matchOver":{{"reason":{_text(reason)}}}}}\n'.encode()


# --- what a bot writes -------------------------------------------------------------------------


def join_line(bot_name: str, bot_version: str) -> bytes:
    """A stdio bot's join (it has no token: its pipes are its seat)."""
    return (
        f'{{"join":{{"token":"","botName":{_text(bot_name)},'
        f'"botVersion":{_text(bot_version)},"protocolVersion":"{PROTOCOL_VERSION_NAME}"}}}}\n'
    ).encode()


def answer_line(request_id: int, action: Action) -> bytes:
    """The answer ``action`` to request ``request_id``, as one line."""
    if isinstance(action, Play):
        choice = f'"card":{_CARD[action.card.index]}'
    elif isinstance(action, Pass):
        choice = '"bid":0'
    elif isinstance(action, Bid):
        choice = f'"bid":{action.amount}'
    elif isinstance(action, NameTrump):
        choice = f'"trump":{_SUIT[action.suit]}'
    else:
        choice = f'"discard":{{"cards":{_card_set(action.cards.mask)}}}'
    return f'{{"answer":{{"requestId":"{request_id}",{choice}}}}}\n'.encode()


# --- reading -------------------------------------------------------------------------------------


def answer_fields(data: Any) -> tuple[int, str, object] | None:
    """A bot's line, parsed, as (request id, choice, value) when it is an answer in the
    usual form (``{"answer": {"requestId": "17", "card": "JH"}}``, as ``answer_line``
    writes it); the value is a bid's amount, a trump's ``Suit``, a discard's card texts or
    a card's text. None for anything else, which only the protobuf mapping can judge."""
    if type(data) is not dict or len(data) != 1:
        return None
    answer = data.get("answer")
    if type(answer) is not dict or len(answer) != 2:
        return None
    request_id = answer.get("requestId")
    if type(request_id) is not str or not (request_id.isascii() and request_id.isdigit()):
        return None
    number = int(request_id)
    if number >= _UINT64:
        return None
    for field, value in answer.items():
        if field == "requestId":
            continue
        if field == "card" and type(value) is str:
            return number, field, value
        if field == "bid" and type(value) is int and 0 <= value < _UINT32:
            return number, field, value
        if field == "trump" and type(value) is str and value in SUIT_BY_NAME:
            return number, field, SUIT_BY_NAME[value]
        if field == "discard" and type(value) is dict and len(value) == 1:
            cards = value.get("cards")
            if type(cards) is list and all(type(card) is str for card in cards):
                return number, field, cards
    return None


def view_from_json(view: dict[str, Any], kind: DecisionKind) -> View:
    """A request's ``view`` as the engine's ``View`` of the seat asked to decide ``kind``."""
    current = view["currentTrick"]
    return view_of(
        kind,
        view["seat"],
        (view["dealNumber"], view["dealer"]),
        view["scores"],
        view["hand"],
        ((b["seat"], b["amount"]) for b in view["bids"]),
        (view["bidder"], view["contract"], SUIT_BY_NAME.get(view["trump"])),
        ((e["seat"], e["discarded"], e["received"]) for e in view["exchanges"]),
        (view["ownDiscarded"], view["ownReceived"]),
        ((t["leader"], t["cards"], t["winner"]) for t in view["tricks"]),
        (current["leader"], current["cards"]),
    )


def legal_from_json(
    kind: DecisionKind, legal: dict[str, Any], seat: int, hand: CardSet | None
) -> Legal:
    """A request's ``legal`` as the engine's ``Legal``; ``hand`` matters only for a discard."""
    rule = legal.get("discard")
    discard = None
    if rule is not None:
        discard = (rule["may"], rule["must"], rule["minCount"], rule["maxCount"], rule["dealer"])
    suits: list[Suit] = []
    if kind is DecisionKind.TRUMP:
        suits = [SUIT_BY_NAME[name] for name in legal["suits"]]
    listed = (legal["bids"], suits, legal["cards"])
    return legal_of(kind, listed, discard, seat, hand or CardSet(0))
