"""What the seat to act may do: one ``Legal`` value, whatever the kind of decision.

As python-chess's ``LegalMoveGenerator`` does for moves, ``Game.legal()`` answers the
same questions for every decision, so no caller checks types:

>>> from arena.engine import Game, PASS, Bid
>>> legal = Game(seed=1).legal()
>>> legal.kind, len(legal), PASS in legal, Bid(3) in legal, legal.example()
(<DecisionKind.BID: 'bid'>, 5, True, True, Pass())

Bids, the trump and plays are a short list of actions, lowest first, which also index
(``legal[0]``, ``legal[1:]``, ``random.choice(legal)``). A discard is a choice of a
subset of the hand (the dealer may have over a hundred thousand), so it is described by
its ``DiscardRule`` (``legal.discard_rule``) rather than listed: iterating or indexing
it raises ``TypeError`` naming the rule, while ``in``, ``len`` (the number of legal
discards) and ``example()`` (the smallest legal discard) work for it as for the others.
Once the game is over, ``kind`` is None and there is nothing in it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from math import comb
from typing import Final, overload

from arena.engine.actions import (
    BIDS,
    MAX_BID,
    MIN_BID,
    PASS,
    PLAYS,
    TRUMPS,
    Action,
    DecisionKind,
    Discard,
    Play,
)
from arena.engine.cards import JOKER_INDEX, CardSet, Suit, cards_of_mask
from arena.engine.errors import IllegalActionError


@dataclass(frozen=True, slots=True)
class DiscardRule:
    """The legal discards for one seat, described rather than listed (R5.2-R5.4).

    A discard D is legal exactly when ``must ⊆ D ⊆ may`` and
    ``min_count <= |D| <= max_count``; every such D is legal, so a bot can build one
    without trial and error (``example`` shows how).
    """

    seat: int
    hand: CardSet
    may: CardSet
    must: CardSet
    min_count: int
    max_count: int
    dealer: bool
    rule: str

    @property
    def must_keep(self) -> CardSet:
        return self.hand - self.may

    def check(self, cards: CardSet) -> None:
        """Raise ``IllegalActionError`` unless ``cards`` is a legal discard."""
        if not cards.issubset(self.hand):
            raise IllegalActionError("R5.2", f"seat {self.seat} does not hold {cards - self.hand}")
        if not cards.issubset(self.may):
            kept = cards - self.may
            if self.dealer:
                raise IllegalActionError(
                    "R5.4", f"the dealer may not discard {kept}: it must keep {self.must_keep}"
                )
            raise IllegalActionError("R5.2", f"may not discard a trump: {kept}")
        if not self.must.issubset(cards):
            raise IllegalActionError(
                "R5.4",
                f"holding more than 6 trumps, the dealer must discard every non-trump "
                f"({self.must - cards} kept)",
            )
        count = len(cards)
        if not self.min_count <= count <= self.max_count:
            if self.dealer:
                raise IllegalActionError(
                    "R5.3", f"the dealer must discard exactly {self.min_count} cards, not {count}"
                )
            raise IllegalActionError("R5.2", f"discard 0 to 3 cards, not {count}")

    def is_legal(self, cards: CardSet) -> bool:
        try:
            self.check(cards)
        except IllegalActionError:
            return False
        return True

    def example(self) -> CardSet:
        """The smallest legal discard: ``must`` plus the first cards of ``may``."""
        mask = self.must.mask
        spare = self.may.mask & ~mask
        for card in cards_of_mask(spare)[: max(0, self.min_count - len(self.must))]:
            mask |= card.bit
        return CardSet(mask)

    def count(self) -> int:
        """How many discards are legal: ``must`` plus any allowed number of the others."""
        required = len(self.must)
        spare = len(self.may) - required
        low = max(self.min_count, required)
        return sum(comb(spare, size - required) for size in range(low, self.max_count + 1))


class Legal:
    """The legal choices of the seat to act, for any kind of decision (see the module).

    ``kind`` is the decision (None once the game is over); iteration, ``len``, ``in``
    and ``example()`` work alike for every kind, except that a discard is not listed.
    """

    __slots__ = ("_actions", "_rule", "kind")

    kind: DecisionKind | None
    _actions: tuple[Action, ...]
    _rule: DiscardRule | None

    def __init__(
        self,
        kind: DecisionKind | None,
        actions: tuple[Action, ...] = (),
        rule: DiscardRule | None = None,
    ) -> None:
        """Prefer ``Legal.of`` (a list of actions) and ``Legal.of_discard`` (a rule)."""
        self.kind = kind
        self._actions = actions
        self._rule = rule

    @classmethod
    def of(cls, kind: DecisionKind, actions: tuple[Action, ...]) -> Legal:
        """The choices of a bid, trump or play decision, listed lowest first."""
        if kind is DecisionKind.DISCARD:
            raise ValueError("R5.2: legal discards are described by a rule: use Legal.of_discard")
        return cls(kind, actions)

    @classmethod
    def of_discard(cls, rule: DiscardRule) -> Legal:
        """The choices of a discard decision (R5.2-R5.4)."""
        return cls(DecisionKind.DISCARD, (), rule)

    @property
    def discard_rule(self) -> DiscardRule:
        """The rule of a discard decision; ``TypeError`` for any other kind."""
        rule = self._rule
        if rule is None:
            raise TypeError(f"only a discard decision has a discard rule, not {self._named()}")
        return rule

    def example(self) -> Action:
        """A legal action: the first listed, or for a discard the smallest legal one
        (``DiscardRule.example``); ``IllegalActionError`` (R9.1) once the game is over."""
        rule = self._rule
        if rule is not None:
            return Discard(rule.example())
        if not self._actions:
            raise IllegalActionError("R9.1", "the game is over; there is nothing to choose")
        return self._actions[0]

    def __contains__(self, action: object) -> bool:
        rule = self._rule
        if rule is None:
            return action in self._actions
        return (
            type(action) is Discard
            and isinstance(action.cards, CardSet)
            and rule.is_legal(action.cards)
        )

    def __iter__(self) -> Iterator[Action]:
        if self._rule is not None:
            raise self._not_listed()
        return iter(self._actions)

    def __len__(self) -> int:
        rule = self._rule
        return len(self._actions) if rule is None else rule.count()

    def __bool__(self) -> bool:
        return bool(self._actions) or self._rule is not None

    @overload
    def __getitem__(self, index: int) -> Action: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Action, ...]: ...
    def __getitem__(self, index: int | slice) -> Action | tuple[Action, ...]:
        if self._rule is not None:
            raise self._not_listed()
        return self._actions[index]

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Legal)
            and other.kind is self.kind
            and other._actions == self._actions
            and other._rule == self._rule
        )

    def __hash__(self) -> int:
        return hash((self.kind, self._actions, self._rule))

    def __repr__(self) -> str:
        if self._rule is not None:
            rule = self._rule
            return (
                f"Legal(discard {rule.rule}: may {rule.may or '-'}, must {rule.must or '-'}, "
                f"{rule.min_count}-{rule.max_count} cards)"
            )
        return f"Legal({self._named()}: {', '.join(str(a) for a in self._actions)})"

    def _named(self) -> str:
        return "the game's end" if self.kind is None else f"a {self.kind.value} decision"

    def _not_listed(self) -> TypeError:
        assert self._rule is not None
        return TypeError(
            f"{self._rule.rule}: legal discards are a choice of cards, not a list; "
            f"build one from legal.discard_rule (or take legal.example())"
        )


NOTHING: Final = Legal(None)
"""R9.1: what is legal once the game is over."""

TRUMP_CHOICES: Final = Legal(DecisionKind.TRUMP, TRUMPS)
"""R5.1: any suit may be named."""

_BIDDING: Final = {
    high: Legal(
        DecisionKind.BID,
        (PASS, *(BIDS[n] for n in range(max(MIN_BID, high + 1), MAX_BID + 1))),
    )
    for high in range(MAX_BID)
}


BIDDING_CHOICES: Final = tuple(_BIDDING[high] for high in range(MAX_BID))
"""BIDDING_CHOICES[high bid]: ``bidding_choices`` as a table, for the engine's hot path."""


def bidding_choices(high_bid: int) -> Legal:
    """R4.2: pass, or bid more than ``high_bid`` (0 before any bid), up to six."""
    return _BIDDING[high_bid]


class SuitPlays(dict[int, tuple[Play, ...]]):
    """The plays of a set of one suit's cards, by its 13-bit mask, lowest card first.

    Made on first use and kept: the legal plays of a decision are then the plays of its
    four suits and the joker joined (``plays_of_mask``), with no loop over the cards.
    """

    def __init__(self, suit: Suit) -> None:
        super().__init__()
        self.first_card = 13 * suit

    def __missing__(self, suit_mask: int) -> tuple[Play, ...]:
        plays = tuple(PLAYS[self.first_card + rank] for rank in range(13) if suit_mask >> rank & 1)
        self[suit_mask] = plays
        return plays


class PlayChoices(dict[int, "Legal"]):
    """The ``Legal`` value of a play decision, by the mask of the cards it allows (R7.2).

    Made on first use and kept, as many as ``limit``, then forgotten all at once: in a
    game most of them come back (a follower's cards of the suit led are few), and a
    ``Legal`` is immutable, so one may serve every decision it answers.
    """

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def __missing__(self, mask: int) -> Legal:
        if len(self) >= self.limit:
            self.clear()
        legal = Legal(DecisionKind.PLAY, plays_of_mask(mask))
        self[mask] = legal
        return legal


PLAY_CHOICES: Final = PlayChoices(limit=1 << 16)

SUIT_PLAYS: Final = tuple(SuitPlays(suit) for suit in Suit)
JOKER_PLAYS: Final = (PLAYS[JOKER_INDEX],)


def plays_of_mask(mask: int) -> tuple[Play, ...]:
    """The plays of the cards of ``mask``, lowest card index first.

    >>> [str(play) for play in plays_of_mask(CardSet.parse("JK 2H AC").mask)]
    ['play AC', 'play 2H', 'play JK']
    """
    clubs, diamonds, hearts, spades = SUIT_PLAYS
    return (
        clubs[mask & 0x1FFF]
        + diamonds[mask >> 13 & 0x1FFF]
        + hearts[mask >> 26 & 0x1FFF]
        + spades[mask >> 39 & 0x1FFF]
        + (JOKER_PLAYS if mask >> JOKER_INDEX else ())
    )
