"""``Game.legal()``: one ``Legal`` value answering kind, len, in, iteration and example()
for every decision (R4.2, R5.1-R5.4, R7.2, R9.1), as the engine's own ``apply`` judges."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine import (
    PASS,
    TRUMPS,
    Bid,
    Card,
    CardSet,
    DecisionKind,
    Discard,
    Game,
    IllegalActionError,
    Legal,
    Play,
)
from arena.engine.randomplay import random_action, random_legal_action

from .helpers import fill_hands, to_play


def test_R4_2_bidding_choices_are_listed_lowest_first() -> None:
    legal = Game(seed=1).legal()
    assert legal.kind is DecisionKind.BID
    assert list(legal) == [PASS, Bid(3), Bid(4), Bid(5), Bid(6)]
    assert len(legal) == 5 and legal[0] is PASS and legal[1:] == (Bid(3), Bid(4), Bid(5), Bid(6))
    assert PASS in legal and Bid(6) in legal and TRUMPS[0] not in legal
    assert legal.example() is PASS
    with pytest.raises(TypeError, match="only a discard decision has a discard rule"):
        legal.discard_rule  # noqa: B018 - the property raises


def test_R5_1_any_suit_may_be_named() -> None:
    game = Game(seed=1)
    game.apply(Bid(6))  # R4.3: six ends the bidding
    legal = game.legal()
    assert legal.kind is DecisionKind.TRUMP and list(legal) == list(TRUMPS)
    assert all(t in legal for t in TRUMPS) and PASS not in legal


def test_R7_2_plays_are_the_cards_that_may_be_played_lowest_first() -> None:
    game = to_play(fill_hands({0: "AH KH QH 9S 8S 7S", 1: "2H 3C 4C 5C 6C 7C"}))
    legal = game.legal()
    assert legal.kind is DecisionKind.PLAY
    assert [str(a) for a in legal] == [f"play {c}" for c in ["QH", "KH", "AH", "7S", "8S", "9S"]]
    game.apply(Play(Card.parse("9S")))
    legal = game.legal()  # seat 1 holds no spade, so any of its cards (R7.2)
    assert list(legal) == [Play(card) for card in game.hand(1)]
    assert legal.example() == legal[0] == Play(Card.parse("3C"))
    assert Play(Card.parse("2H")) in legal and Play(Card.parse("AH")) not in legal
    assert PASS not in legal


def test_R9_1_nothing_is_legal_once_the_game_is_over() -> None:
    game = Game(seed=3, draw_limit=1)
    rng = random.Random(3)
    while not game.is_over:
        game.apply(random_action(game, rng))
    legal = game.legal()
    assert legal.kind is None and not legal and len(legal) == 0 and list(legal) == []
    assert PASS not in legal
    with pytest.raises(IllegalActionError, match=r"^R9\.1"):
        legal.example()


def first_discard(seed: int) -> Game:
    """A game at its first discard decision (R5.2), from random play."""
    game = Game(seed=seed)
    rng = random.Random(seed)
    while game.decision_kind is not DecisionKind.DISCARD:
        game.apply(random_action(game, rng))
    return game


def all_subsets(cards: CardSet) -> list[CardSet]:
    listed = list(cards)
    return [
        CardSet.of(chosen)
        for size in range(len(listed) + 1)
        for chosen in itertools.combinations(listed, size)
    ]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_R5_2_R5_4_a_discard_is_described_not_listed(seed: int) -> None:
    """Every discard decision of a deal, non-dealers' (R5.2) and the dealer's (R5.3-R5.4):
    ``in`` and ``len`` agree with the rule ``apply`` enforces, over every subset of a hand
    small enough to list; iterating or indexing is refused, naming the rule."""
    game = first_discard(seed)
    while game.decision_kind is DecisionKind.DISCARD:
        legal = game.legal()
        rule = legal.discard_rule
        assert legal.kind is DecisionKind.DISCARD and legal and rule == game.discard_rule()
        with pytest.raises(TypeError, match=rf"^{rule.rule}: legal discards are a choice"):
            iter(legal)
        with pytest.raises(TypeError, match=rf"^{rule.rule}"):
            legal[0]
        assert PASS not in legal
        hand = game.hand(game.to_act)
        if len(hand) <= 12:  # the dealer may hold 23 cards: 8 million subsets
            subsets = all_subsets(hand)
            accepted = [cards for cards in subsets if rule.is_legal(cards)]
            assert len(legal) == len(accepted) > 0
            assert all((Discard(cards) in legal) == rule.is_legal(cards) for cards in subsets)
        assert legal.example() == Discard(rule.example()) and legal.example() in legal
        # The same rule as plain values, which apply() checks by and search reads.
        assert game.discard_masks() == (
            rule.must.mask,
            rule.may.mask,
            rule.min_count,
            rule.max_count,
        )
        game.apply(legal.example())


@settings(max_examples=40, deadline=None)
@given(game_seed=st.integers(0, 2**32), player_seed=st.integers(0, 2**32))
def test_the_random_player_on_masks_acts_as_on_legal_values(
    game_seed: int, player_seed: int
) -> None:
    """``random_action`` reads the game's masks for plays and discards; at every decision
    of a deal it must take the very action ``random_legal_action(game.legal(), rng)``
    takes, with the very same draws (the golden records rely on them)."""
    game = Game(seed=game_seed, draw_limit=3)
    rng = random.Random(player_seed)
    while not game.is_over:
        state = rng.getstate()
        on_masks = random_action(game, rng)
        after = rng.getstate()
        rng.setstate(state)
        assert random_legal_action(game.legal(), rng) == on_masks
        assert rng.getstate() == after
        assert on_masks in game.legal()
        game.apply(on_masks)


def test_legal_values_compare_by_content() -> None:
    assert (
        Game(seed=1).legal()
        == Game(seed=2).legal()
        == Legal.of(DecisionKind.BID, (PASS, Bid(3), Bid(4), Bid(5), Bid(6)))
    )
    assert Legal.of(DecisionKind.TRUMP, TRUMPS) != Legal.of(DecisionKind.TRUMP, TRUMPS[:2])
    with pytest.raises(ValueError, match=r"^R5\.2"):
        Legal.of(DecisionKind.DISCARD, ())
