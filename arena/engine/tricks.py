"""Who takes a trick (R2.3-R2.5, R7.2-R7.3): the questions a bot asks, in cards and suits.

The engine decides tricks from card indices and tables made once per trump suit
(``cards.POWER``, ``cards.TRUMP_MASKS``, ``cards.FOLLOW_MASKS``); these functions answer
from the same tables, so a bot that uses them cannot disagree with the referee.

>>> from arena.engine import Card, Suit
>>> trick = [Card.parse(t) for t in ("KC", "JK", "JD", "AC")]
>>> winning_card(trick, Suit.HEARTS)  # the left bauer is a trump, above the joker
Card('JD')
>>> effective_suit(Card.parse("JD"), Suit.HEARTS), is_trump(Card.parse("JK"), Suit.CLUBS)
(<Suit.HEARTS: 2>, True)
>>> beats(Card.parse("2C"), Card.parse("AH"), trump=Suit.SPADES, led=Suit.CLUBS)
True
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine.cards import (
    EFFECTIVE_SUITS,
    FOLLOW_MASKS,
    POWER,
    TRUMP_MASKS,
    Card,
    CardSet,
    Suit,
    effective_suit,
)

__all__ = [
    "beats",
    "best_position",
    "effective_suit",
    "is_trump",
    "trick_power",
    "trump_cards",
    "winning_card",
    "winning_position",
]


def trump_cards(trump: Suit) -> CardSet:
    """R2.3-R2.4: the 15 trumps: the suit, the left bauer and the joker."""
    return CardSet(TRUMP_MASKS[trump])


def is_trump(card: Card, trump: Suit) -> bool:
    """R2.4: whether ``card`` is a trump (the left bauer and the joker always are)."""
    return bool(TRUMP_MASKS[trump] >> card.index & 1)


def trick_power(card: Card, trump: Suit) -> int:
    """How strongly ``card`` takes tricks under ``trump``; higher wins among cards that can.

    Trumps are 101 (the joker, lowest) up to 115 (the ace) in R2.3's order; every other
    card is 1 (the two) up to 13 (the ace) by R2.5. Only a trump or a card of the suit
    led can win a trick at all (``beats`` takes that into account; this does not).
    """
    return POWER[trump][card.index]


def beats(card: Card, other: Card, trump: Suit, led: Suit) -> bool:
    """R7.3: whether ``card`` wins over ``other`` in a trick whose led suit is ``led``.

    ``led`` is the suit the first card counts as (R7.2: ``effective_suit(first, trump)``).
    A trump beats every non-trump and lower trumps; a card of the suit led beats lower
    cards of that suit and the cards of the other plain suits; any other card beats
    nothing.
    """
    can_win = TRUMP_MASKS[trump] | FOLLOW_MASKS[trump][led]
    if not can_win >> card.index & 1:
        return False
    power = POWER[trump]
    return not can_win >> other.index & 1 or power[card.index] > power[other.index]


def winning_position(cards: Sequence[Card], trump: Suit) -> int:
    """R7.3: the position (0 = the lead) of the card winning the trick ``cards`` so far."""
    return best_position(trump, [card.index for card in cards])


def winning_card(cards: Sequence[Card], trump: Suit) -> Card:
    """R7.3: the card winning the trick ``cards`` (in play order, from the lead) so far."""
    return cards[winning_position(cards, trump)]


def best_position(trump: Suit, indices: Sequence[int]) -> int:
    """``winning_position`` over card indices: the form the engine uses on its hot path.

    >>> from arena.engine.cards import Card
    >>> best_position(Suit.HEARTS, [Card.parse(t).index for t in ("KC", "JK", "JD", "AC")])
    2
    """
    power = POWER[trump]
    trump_mask = TRUMP_MASKS[trump]
    led_mask = FOLLOW_MASKS[trump][EFFECTIVE_SUITS[trump][indices[0]]]
    best, best_pos = -1, 0
    for position, index in enumerate(indices):
        bit = 1 << index
        # POWER ranks every trump above every plain card, so one comparison serves.
        if bit & (trump_mask | led_mask) and power[index] > best:
            best, best_pos = power[index], position
    return best_pos
