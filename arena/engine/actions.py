"""The actions a seat can take, one small immutable type per decision kind, with text forms.

>>> parse_action("bid 4"), str(parse_action("play jh")), str(Discard(CardSet.parse("2C 3D")))
(Bid(amount=4), 'play JH', 'discard 2C 3D')
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

from arena.engine.cards import CARDS, Card, CardSet, Suit
from arena.engine.errors import MalformedActionError

MIN_BID: Final = 3  # R4.2
MAX_BID: Final = 6  # R4.2-R4.3


class DecisionKind(Enum):
    """What a seat is asked to decide."""

    BID = "bid"  # R4: pass or bid
    TRUMP = "trump"  # R5.1: name the trump suit
    DISCARD = "discard"  # R5.2-R5.4: discard (non-dealers: and draw replacements)
    PLAY = "play"  # R7: play a card to the trick


@dataclass(frozen=True, slots=True)
class Pass:
    """R4.2: decline to bid."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class Bid:
    """R4.2: bid ``amount`` points (3‥6)."""

    amount: int

    def __post_init__(self) -> None:
        if type(self.amount) is not int or not MIN_BID <= self.amount <= MAX_BID:
            raise MalformedActionError(
                f"R4.2: a bid is a whole number from {MIN_BID} to {MAX_BID}, not {self.amount!r}"
            )

    def __str__(self) -> str:
        return f"bid {self.amount}"


@dataclass(frozen=True, slots=True)
class NameTrump:
    """R5.1: the bidder names the trump suit."""

    suit: Suit

    def __str__(self) -> str:
        return f"trump {self.suit}"


@dataclass(frozen=True, slots=True)
class Discard:
    """R5.2-R5.4: the cards put face down (possibly none for a non-dealer)."""

    cards: CardSet

    def __str__(self) -> str:
        return f"discard {self.cards}".rstrip()


@dataclass(frozen=True, slots=True)
class Play:
    """R7: play one card to the current trick."""

    card: Card

    def __str__(self) -> str:
        return f"play {self.card}"


Action = Pass | Bid | NameTrump | Discard | Play


_KIND_OF: Final[dict[type, DecisionKind]] = {
    Pass: DecisionKind.BID,
    Bid: DecisionKind.BID,
    NameTrump: DecisionKind.TRUMP,
    Discard: DecisionKind.DISCARD,
    Play: DecisionKind.PLAY,
}


def kind_of(action: Action) -> DecisionKind:
    """The kind of decision an action answers (a pass answers a bid)."""
    return _KIND_OF[type(action)]


PASS: Final = Pass()
BIDS: Final[dict[int, Bid]] = {n: Bid(n) for n in range(MIN_BID, MAX_BID + 1)}
TRUMPS: Final[tuple[NameTrump, ...]] = tuple(NameTrump(s) for s in Suit)
PLAYS: Final[tuple[Play, ...]] = tuple(Play(c) for c in CARDS)


def parse_action(text: str) -> Action:
    """Parse ``pass``, ``bid N``, ``trump S``, ``discard C C …`` or ``play C``."""
    words = text.strip().split(maxsplit=1)
    if not words:
        raise MalformedActionError("empty action")
    verb, rest = words[0].lower(), (words[1] if len(words) > 1 else "")
    if verb == "pass" and not rest:
        return PASS
    if verb == "bid":
        try:
            amount = int(rest)
        except ValueError:
            raise MalformedActionError(f"not a bid: {text!r}") from None
        return Bid(amount)
    if verb == "trump":
        return NameTrump(Suit.parse(rest))
    if verb == "discard":
        return Discard(CardSet.parse(rest))
    if verb == "play":
        return Play(Card.parse(rest))
    raise MalformedActionError(f"not an action: {text!r} (pass, bid N, trump S, discard …, play C)")
