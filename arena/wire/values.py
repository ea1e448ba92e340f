"""The contract's spellings of engine values, shared by its protobuf and JSON forms.

Cards as text (``"JH"``, ``"TS"``, ``"JK"``), suits and decision kinds by their enum
names (``"SUIT_HEARTS"``, ``"DECISION_KIND_BID"``), and the one reading of an answer's
choice, a view's fields and a request's legal choices into engine values: the protobuf
mapping (``arena.wire.protocol``) and the JSON-lines mapping (``arena.wire.jsonlines``)
both build on these, so they cannot read a bot's answer, or a seat's view, differently.
No generated code here: the Python SDK playing over standard input and output never
imports protobuf.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from arena.engine import (
    BIDS,
    CARDS,
    PASS,
    PLAYS,
    TRUMPS,
    Action,
    Card,
    CardSet,
    DecisionKind,
    Discard,
    DiscardRule,
    IllegalActionError,
    Legal,
    MalformedActionError,
    Suit,
    View,
)
from arena.engine.cards import indices_of_mask
from arena.engine.game import Phase, Trick, team_of

__all__ = [
    "ANSWER_FIELD",
    "CARD_TEXTS",
    "KIND_BY_NAME",
    "KIND_NAMES",
    "SUIT_BY_NAME",
    "SUIT_NAMES",
    "WrongKindError",
    "action_of",
    "card_texts",
    "exact_card",
    "legal_of",
    "parse_cards",
    "view_of",
]

CARD_TEXTS: Final = tuple(str(c) for c in CARDS)
_CARD_BY_TEXT: Final = {str(c): c for c in CARDS}

# The enums' value names, as proto3 names them (and the JSON mapping writes them).
SUIT_NAMES: Final = {suit: f"SUIT_{suit.name}" for suit in Suit}
SUIT_BY_NAME: Final = {name: suit for suit, name in SUIT_NAMES.items()}
KIND_NAMES: Final = {kind: f"DECISION_KIND_{kind.name}" for kind in DecisionKind}
KIND_BY_NAME: Final = {name: kind for kind, name in KIND_NAMES.items()}

# The field of an answer that carries each kind of decision's choice.
ANSWER_FIELD: Final = {
    DecisionKind.BID: "bid",
    DecisionKind.TRUMP: "trump",
    DecisionKind.DISCARD: "discard",
    DecisionKind.PLAY: "card",
}


def card_texts(cards: CardSet | Iterable[Card]) -> list[str]:
    """Card strings in card-index order for a set; in the given order otherwise."""
    if isinstance(cards, CardSet):
        return [CARD_TEXTS[i] for i in indices_of_mask(cards.mask)]
    return [CARD_TEXTS[c.index] for c in cards]


def exact_card(text: str) -> Card:
    """A card as the contract writes it ("JH", "TS", "JK"), nothing looser (docs/PROTOCOL.md)."""
    card = _CARD_BY_TEXT.get(text)
    if card is None:
        raise MalformedActionError(f"not a card: {text[:20]!r} (write cards like JH, TS, JK)")
    return card


def parse_cards(texts: Iterable[str]) -> CardSet:
    """Cards sent by a bot: exact canonical text only, each card once."""
    mask = 0
    for text in texts:
        card = exact_card(text)
        if mask & card.bit:
            raise MalformedActionError(f"card {card} given twice")
        mask |= card.bit
    return CardSet(mask)


class WrongKindError(MalformedActionError):
    """The answer is for another kind of decision than the one asked."""


def action_of(kind: DecisionKind, field: str | None, value: object) -> Action:
    """The action of an answer to a decision of ``kind`` whose choice is ``field`` with
    ``value`` (a bid's amount, a trump's ``Suit`` or None for an unknown suit, a discard's
    card texts, a card's text); raise on a malformed or wrong answer."""
    if field is None:
        raise MalformedActionError(f"the answer sets no choice (expected {ANSWER_FIELD[kind]})")
    if field != ANSWER_FIELD[kind]:
        raise WrongKindError(f"a {kind.value} decision was asked, but the answer sets {field!r}")
    if field == "card":
        assert isinstance(value, str)
        return PLAYS[exact_card(value).index]
    if field == "bid":
        assert isinstance(value, int)
        if value == 0:
            return PASS
        if value not in BIDS:
            raise IllegalActionError("R4.2", f"a bid is 3 to 6 (or 0 to pass), not {value}")
        return BIDS[value]
    if field == "trump":
        if not isinstance(value, Suit):
            raise MalformedActionError(f"not a suit: {value}")
        return TRUMPS[value]
    assert isinstance(value, Sequence)
    return Discard(parse_cards(value))


_DECISION_PHASE: Final = {
    DecisionKind.BID: Phase.BIDDING,
    DecisionKind.TRUMP: Phase.TRUMP,
    DecisionKind.DISCARD: Phase.DISCARD,
    DecisionKind.PLAY: Phase.PLAY,
}


def view_of(
    kind: DecisionKind,
    seat: int,
    deal: tuple[int, int],
    scores: Sequence[int],
    hand: Iterable[str],
    bids: Iterable[tuple[int, int]],
    contract: tuple[int, int, Suit | None],
    exchanges: Iterable[tuple[int, int, int]],
    own: tuple[Iterable[str], Iterable[str]],
    tricks: Iterable[tuple[int, Sequence[str], int]],
    current: tuple[int, Sequence[str]],
) -> View:
    """The engine's ``View`` of the seat asked to decide ``kind``, from a request's view:
    ``deal`` is (deal number, dealer), ``contract`` (bidder or -1, contract, trump), ``own``
    the seat's own (discarded, received) cards, ``current`` the trick in progress (leader,
    cards). For bots that search with the engine (``arena.engine.Determinizer``)."""
    phase = _DECISION_PHASE[kind]
    bidder, amount, trump = contract
    leader = current[0] if phase is Phase.PLAY else None
    return View(
        seat=seat,
        team=team_of(seat),
        deal_number=deal[0],
        dealer=deal[1],
        phase=phase,
        to_act=seat,
        decision=kind,
        scores=(scores[0], scores[1], scores[2]),
        hand=parse_cards(hand),
        bids=tuple(bids),
        bidder=None if bidder < 0 else bidder,
        contract=amount,
        trump=trump,
        exchanges=tuple(exchanges),
        own_discarded=parse_cards(own[0]),
        own_received=parse_cards(own[1]),
        tricks=tuple(
            Trick(lead, tuple(exact_card(c) for c in cards), winner)
            for lead, cards, winner in tricks
        ),
        trick_leader=leader,
        trick_cards=tuple(((current[0] + i) % 6, exact_card(c)) for i, c in enumerate(current[1]))
        if leader is not None
        else (),
    )


def legal_of(
    kind: DecisionKind,
    listed: tuple[Sequence[int], Sequence[Suit], Sequence[str]],
    discard: tuple[Iterable[str], Iterable[str], int, int, bool] | None,
    seat: int,
    hand: CardSet,
) -> Legal:
    """A request's legal choices as the engine's ``Legal``: ``listed`` holds its bids
    (amounts), suits and cards (texts), of which the decision's kind uses one; ``discard``
    a discard's rule (may, must, min count, max count, dealer). ``hand`` matters only for
    a discard."""
    if kind is DecisionKind.DISCARD:
        assert discard is not None
        may, must, min_count, max_count, dealer = discard
        return Legal.of_discard(
            DiscardRule(
                seat=seat,
                hand=hand,
                may=parse_cards(may),
                must=parse_cards(must),
                min_count=min_count,
                max_count=max_count,
                dealer=dealer,
                rule="R5.4" if dealer else "R5.2",
            )
        )
    bids, suits, cards = listed
    actions: tuple[Action, ...]
    if kind is DecisionKind.PLAY:
        actions = tuple(PLAYS[(_CARD_BY_TEXT.get(t) or Card.parse(t)).index] for t in cards)
    elif kind is DecisionKind.TRUMP:
        actions = tuple(TRUMPS[s] for s in suits)
    else:
        actions = tuple(BIDS[b] if b else PASS for b in bids)
    return Legal.of(kind, actions)
