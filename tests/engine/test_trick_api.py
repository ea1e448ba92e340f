"""The public trick API (``arena.engine.tricks``) agrees with the engine's own trick winner
and with the rules' text (R2.3-R2.5, R7.2-R7.3) over random games."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine import (
    CARDS,
    JOKER,
    Card,
    Game,
    Suit,
    beats,
    effective_suit,
    is_trump,
    left_bauer,
    trick_power,
    trump_cards,
    winning_card,
    winning_position,
)
from arena.engine.events import CardPlayed, TrickWon, TrumpNamed
from arena.engine.randomplay import random_action

from .helpers import ref_suit, ref_trump_order, ref_winner


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**63), rng_seed=st.integers(0, 2**32))
def test_R7_3_public_winner_is_the_engines_winner(seed: int, rng_seed: int) -> None:
    """For every trick of a random game: the seat that played ``winning_card`` (at
    ``winning_position``) is the winner the engine announced in ``TrickWon``; the winning
    card beats every other card of the trick and none beats it; and after each card, the
    card then winning is what folding ``beats`` over the cards so far gives."""
    game = Game(seed=seed, draw_limit=8)
    rng = random.Random(rng_seed)
    while not game.is_over:
        game.apply(random_action(game, rng))
    trump: Suit | None = None
    played: list[CardPlayed] = []
    tricks = 0
    for event in game.events:
        if isinstance(event, TrumpNamed):
            trump = event.suit
        elif isinstance(event, CardPlayed):
            played.append(event)
        elif isinstance(event, TrickWon):
            assert trump is not None
            tricks += 1
            cards = [p.card for p in played]
            assert played[winning_position(cards, trump)].seat == event.winner
            best = winning_card(cards, trump)
            assert best is cards[winning_position(cards, trump)]
            led = effective_suit(cards[0], trump)
            assert all(beats(best, c, trump, led) for c in cards if c is not best)
            assert not any(beats(c, best, trump, led) for c in cards)
            leading = cards[0]
            for count in range(1, len(cards) + 1):
                if beats(cards[count - 1], leading, trump, led):
                    leading = cards[count - 1]
                assert winning_card(cards[:count], trump) is leading
            played = []
    assert tricks == sum(len(d.tricks) for d in game.deals)


@settings(max_examples=300, deadline=None)
@given(
    trump=st.sampled_from(list(Suit)),
    cards=st.lists(st.sampled_from(CARDS), min_size=1, max_size=6, unique=True),
)
def test_R7_3_winner_of_any_trick_matches_the_reference_model(
    trump: Suit, cards: list[Card]
) -> None:
    """Any cards in any order (legal play or not): the rules' reference model agrees."""
    texts = [str(c) for c in cards]
    assert winning_position(cards, trump) == ref_winner(trump.letter, texts)
    for card in cards:
        assert str(effective_suit(card, trump)) == ref_suit(str(card), trump.letter)


def test_R2_3_R2_4_trumps_are_the_suit_the_left_bauer_and_the_joker() -> None:
    for trump in Suit:
        trumps = trump_cards(trump)
        assert len(trumps) == 15 and JOKER in trumps and left_bauer(trump) in trumps
        for card in CARDS:
            assert is_trump(card, trump) == (card in trumps)
            assert (effective_suit(card, trump) == trump) == (card in trumps)


def test_R2_3_R2_5_trick_power_orders_trumps_then_plain_cards() -> None:
    for trump in Suit:
        order = [Card.parse(t) for t in ref_trump_order(trump.letter)]  # high to low
        powers = [trick_power(card, trump) for card in order]
        assert powers == sorted(powers, reverse=True) == list(range(115, 100, -1))
        plain = [c for c in CARDS if not is_trump(c, trump)]
        assert all(1 <= trick_power(c, trump) <= 13 for c in plain)
        assert all(trick_power(c, trump) == (c.rank or 0) + 1 for c in plain)


def test_R7_3_off_suit_cards_beat_nothing() -> None:
    """A card neither trump nor of the suit led never wins, even over a lower card."""
    ace_hearts, two_clubs, three_clubs = (Card.parse(t) for t in ("AH", "2C", "3C"))
    assert not beats(ace_hearts, two_clubs, Suit.SPADES, Suit.CLUBS)
    assert beats(two_clubs, ace_hearts, Suit.SPADES, Suit.CLUBS)
    assert beats(three_clubs, two_clubs, Suit.SPADES, Suit.CLUBS)
    assert beats(Card.parse("JK"), Card.parse("AC"), Suit.SPADES, Suit.CLUBS)
    assert not beats(two_clubs, two_clubs, Suit.SPADES, Suit.CLUBS)
