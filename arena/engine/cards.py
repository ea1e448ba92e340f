"""Card values of Schmier: suits, ranks, the 53 cards and sets of cards (R2).

Cards are interned: there is exactly one ``Card`` object per card, indexed 0‥52, so a
set of cards is an integer bitmask behind the tidy ``CardSet`` type (as python-chess
does with squares). The text forms read like a card table: ``"JH"`` is the jack of
hearts, ``"TS"`` the ten of spades (``"10S"`` is accepted too) and ``"JK"`` the joker.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import IntEnum
from typing import Final

from arena.engine.errors import MalformedActionError


class Suit(IntEnum):
    """The four suits, in bridge order; ``str(Suit.HEARTS) == "H"``."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        return "CDHS"[self]

    @property
    def is_red(self) -> bool:
        """R2.2: hearts and diamonds are red, spades and clubs black."""
        return self in (Suit.DIAMONDS, Suit.HEARTS)

    @property
    def same_colour(self) -> Suit:
        """The other suit of this suit's colour (R2.2), home of the left bauer (R2.3)."""
        return _SAME_COLOUR[self]

    @property
    def noun(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Suit:
        """``Suit.parse("h") == Suit.HEARTS``; also accepts the full name."""
        key = text.strip().upper()
        if len(key) == 1 and key in "CDHS":
            return cls("CDHS".index(key))
        try:
            return cls[key]
        except KeyError:
            raise MalformedActionError(f"not a suit: {text!r} (use C, D, H or S)") from None

    def __str__(self) -> str:
        return self.letter


_SAME_COLOUR: Final = {
    Suit.CLUBS: Suit.SPADES,
    Suit.SPADES: Suit.CLUBS,
    Suit.DIAMONDS: Suit.HEARTS,
    Suit.HEARTS: Suit.DIAMONDS,
}

RANK_LETTERS: Final = "23456789TJQKA"
"""Rank letters, low to high; the rank index of a card is its position here."""

TEN: Final = RANK_LETTERS.index("T")
JACK: Final = RANK_LETTERS.index("J")
QUEEN: Final = RANK_LETTERS.index("Q")
KING: Final = RANK_LETTERS.index("K")
ACE: Final = RANK_LETTERS.index("A")
TWO: Final = 0

JOKER_INDEX: Final = 52
DECK_SIZE: Final = 53  # R2.1


class Card:
    """One of the 53 cards (R2.1). Use ``Card.parse`` or ``CARDS[i]``; never construct."""

    __slots__ = ("index", "rank", "suit")

    index: int
    suit: Suit | None
    rank: int | None

    def __init__(self, index: int) -> None:
        self.index = index
        if index == JOKER_INDEX:
            self.suit, self.rank = None, None
        else:
            self.suit, self.rank = Suit(index // 13), index % 13

    @property
    def is_joker(self) -> bool:
        return self.index == JOKER_INDEX

    @property
    def bit(self) -> int:
        return 1 << self.index

    @classmethod
    def parse(cls, text: str) -> Card:
        """``Card.parse("JH")`` is the jack of hearts, ``Card.parse("JK")`` the joker.

        >>> str(Card.parse("10s"))
        'TS'
        """
        key = text.strip().upper()
        card = _BY_TEXT.get(key)
        if card is None:
            raise MalformedActionError(
                f"not a card: {text!r} (rank 2-9, T, J, Q, K, A then suit C, D, H, S; or JK)"
            )
        return card

    def __str__(self) -> str:
        if self.suit is None:
            return "JK"
        assert self.rank is not None
        return RANK_LETTERS[self.rank] + self.suit.letter

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (_card_by_index, (self.index,))


CARDS: Final[tuple[Card, ...]] = tuple(Card(i) for i in range(DECK_SIZE))
JOKER: Final = CARDS[JOKER_INDEX]
FULL_DECK_MASK: Final = (1 << DECK_SIZE) - 1

_BY_TEXT: Final[dict[str, Card]] = {str(c): c for c in CARDS}
_BY_TEXT.update({"10" + s: _BY_TEXT["T" + s] for s in "CDHS"})


def _card_by_index(index: int) -> Card:
    return CARDS[index]


def card_of(suit: Suit, rank: int) -> Card:
    return CARDS[suit * 13 + rank]


class CardSet:
    """An immutable set of cards stored as a 53-bit mask; iterates in card-index order.

    >>> hand = CardSet.parse("AH 2H JK")
    >>> len(hand), Card.parse("JK") in hand, str(hand)
    (3, True, '2H AH JK')
    """

    __slots__ = ("mask",)

    mask: int

    def __init__(self, mask: int = 0) -> None:
        if mask < 0 or mask > FULL_DECK_MASK:
            raise ValueError(f"card mask out of range: {mask:#x}")
        self.mask = mask

    @classmethod
    def of(cls, cards: Iterable[Card]) -> CardSet:
        mask = 0
        for card in cards:
            mask |= 1 << card.index
        return cls(mask)

    @classmethod
    def parse(cls, text: str) -> CardSet:
        """Parse cards separated by spaces or commas; a card given twice is malformed."""
        mask = 0
        for token in text.replace(",", " ").split():
            bit = Card.parse(token).bit
            if mask & bit:
                raise MalformedActionError(f"card {token} given twice in {text!r}")
            mask |= bit
        return cls(mask)

    def __iter__(self) -> Iterator[Card]:
        return iter(cards_of_mask(self.mask))

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __contains__(self, card: object) -> bool:
        return isinstance(card, Card) and bool(self.mask >> card.index & 1)

    def __bool__(self) -> bool:
        return self.mask != 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CardSet) and other.mask == self.mask

    def __hash__(self) -> int:
        return hash(self.mask)

    def __or__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask | other.mask)

    def __and__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & other.mask)

    def __sub__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & ~other.mask)

    def issubset(self, other: CardSet) -> bool:
        return self.mask & ~other.mask == 0

    def __str__(self) -> str:
        return " ".join(str(c) for c in self)

    def __repr__(self) -> str:
        return f"CardSet.parse({str(self)!r})"


def cards_of_mask(mask: int) -> list[Card]:
    """The cards of a bitmask, lowest index first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(CARDS[low.bit_length() - 1])
        mask ^= low
    return out


def indices_of_mask(mask: int) -> list[int]:
    """The card indices of a bitmask, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def card_texts(mask: int) -> list[str]:
    return [str(c) for c in cards_of_mask(mask)]


def mask_of_texts(texts: Iterable[str]) -> int:
    mask = 0
    for text in texts:
        mask |= Card.parse(text).bit
    return mask


# --- trump geometry (R2.3-R2.5), precomputed per trump suit -------------------------

SUIT_MASKS: Final[tuple[int, ...]] = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))


def right_bauer(trump: Suit) -> Card:
    """R2.3: the jack of trump."""
    return card_of(trump, JACK)


def left_bauer(trump: Suit) -> Card:
    """R2.3: the other jack of the trump's colour."""
    return card_of(trump.same_colour, JACK)


def _trump_mask(trump: Suit) -> int:
    return SUIT_MASKS[trump] | left_bauer(trump).bit | JOKER.bit


TRUMP_MASKS: Final[tuple[int, ...]] = tuple(_trump_mask(Suit(t)) for t in range(4))
"""R2.3-R2.4: the 15 trump cards for each trump suit."""


def _effective_suit_masks(trump: Suit) -> tuple[int, ...]:
    # R2.4: the left bauer leaves its printed suit, which then has 12 cards.
    return tuple(
        TRUMP_MASKS[trump] if s == trump else SUIT_MASKS[s] & ~left_bauer(trump).bit
        for s in range(4)
    )


FOLLOW_MASKS: Final[tuple[tuple[int, ...], ...]] = tuple(
    _effective_suit_masks(Suit(t)) for t in range(4)
)
"""FOLLOW_MASKS[trump][suit]: the cards that count as ``suit`` when ``trump`` is trump."""


def effective_suit(card: Card, trump: Suit) -> Suit:
    """R2.4: the suit a card belongs to for following, once trump is named."""
    if card.suit is None or card.index == left_bauer(trump).index:
        return trump
    return card.suit


EFFECTIVE_SUITS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(int(effective_suit(c, Suit(t))) for c in CARDS) for t in range(4)
)
"""EFFECTIVE_SUITS[trump][card index]: the suit the card counts as (R2.4)."""


def _trump_order(trump: Suit) -> list[int]:
    """R2.3: the trump suit high to low, as card indices."""
    s = trump
    high = [card_of(s, ACE), card_of(s, KING), card_of(s, QUEEN)]
    low = [card_of(s, r) for r in range(TEN, -1, -1)]
    order = [*high, right_bauer(trump), left_bauer(trump), *low, JOKER]
    return [c.index for c in order]


def most_trumps(hand: CardSet) -> Suit:
    """The suit that would give ``hand`` most trumps (bauers and joker count, R2.4);
    ties go to clubs, diamonds, hearts, spades in that order.

    >>> most_trumps(CardSet.parse("JD 2H 3C"))  # the jack of diamonds is a heart trump
    <Suit.HEARTS: 2>
    """
    return max(Suit, key=lambda s: ((hand.mask & TRUMP_MASKS[s]).bit_count(), -s))


def _power_table(trump: Suit) -> tuple[int, ...]:
    """Trick-taking power: trumps above 100 by R2.3; other cards by rank (R2.5)."""
    power = [0] * DECK_SIZE
    for i, card in enumerate(CARDS):
        if card.rank is not None:
            power[i] = card.rank + 1
    order = _trump_order(trump)
    for position, index in enumerate(order):
        power[index] = 100 + len(order) - position
    return tuple(power)


POWER: Final[tuple[tuple[int, ...], ...]] = tuple(_power_table(Suit(t)) for t in range(4))


def _lead_table(trump: Suit) -> tuple[tuple[int, int, tuple[int, ...]], ...]:
    """Per card led: its suit (R2.4), the cards that follow it (R7.2), and each card's
    power to win the trick (R7.3): ``POWER`` for a trump or a card of the suit led, else 0,
    so that the trick goes to its card of highest power."""
    table = []
    for index in range(DECK_SIZE):
        led = EFFECTIVE_SUITS[trump][index]
        can_win = TRUMP_MASKS[trump] | FOLLOW_MASKS[trump][led]
        power = tuple(POWER[trump][i] if can_win >> i & 1 else 0 for i in range(DECK_SIZE))
        table.append((led, FOLLOW_MASKS[trump][led], power))
    return tuple(table)


LEADS: Final[tuple[tuple[tuple[int, int, tuple[int, ...]], ...], ...]] = tuple(
    _lead_table(Suit(t)) for t in range(4)
)
"""LEADS[trump][card index led]: (suit led, the cards following it, power to win by card)."""


def _protected_mask(trump: Suit) -> int:
    """R5.4: Ace, right bauer, left bauer, 2 of trump and joker never leave the dealer."""
    cards = [card_of(trump, ACE), right_bauer(trump), left_bauer(trump), card_of(trump, TWO)]
    return sum(c.bit for c in cards) | JOKER.bit


PROTECTED_TRUMP_MASKS: Final[tuple[int, ...]] = tuple(_protected_mask(Suit(t)) for t in range(4))


def _card_value(card: Card) -> int:
    """R2.6: values for the Game point."""
    if card.rank is None:
        return 1
    return {ACE: 4, KING: 3, QUEEN: 2, JACK: 1, TEN: 10}.get(card.rank, 0)


GAME_VALUES: Final[tuple[int, ...]] = tuple(_card_value(c) for c in CARDS)
assert sum(GAME_VALUES) == 81  # R2.6: the whole pack holds 81


def card_value(card: Card) -> int:
    """R2.6: what ``card`` counts towards the Game point (ace 4, king 3, queen 2, jack 1,
    ten 10, joker 1, the others 0).

    >>> card_value(Card.parse("TH")), card_value(JOKER)
    (10, 1)
    """
    return GAME_VALUES[card.index]


def _rank_mask(rank: int) -> int:
    return sum(card_of(suit, rank).bit for suit in Suit)


# R2.6 by ranks: a total is counted with five bit counts rather than card by card.
_ACES: Final = _rank_mask(ACE)  # 4 each
_KINGS: Final = _rank_mask(KING)  # 3
_QUEENS: Final = _rank_mask(QUEEN)  # 2
_JACKS_AND_JOKER: Final = _rank_mask(JACK) | JOKER.bit  # 1
_TENS: Final = _rank_mask(TEN)  # 10


def game_value(mask: int) -> int:
    """R6.2: the total card value of a set of cards.

    >>> game_value(CardSet.parse("AH TS JK 2C").mask)
    15
    """
    return (
        (mask & _ACES).bit_count() * 4
        + (mask & _KINGS).bit_count() * 3
        + (mask & _QUEENS).bit_count() * 2
        + (mask & _JACKS_AND_JOKER).bit_count()
        + (mask & _TENS).bit_count() * 10
    )
