"""Determinism and duplicate play: everything follows from the seed (R1.3, R3.1a)."""

from __future__ import annotations

import random

import pytest

from arena.engine import Game, GameKey, deal_cards, to_record
from arena.engine.game import first_dealer

from .helpers import SWEEP_PLAY, Policy, always_pass, eager_action, play_cards, sweep_game


def run(seed: int, rng_seed: int, policy: Policy = eager_action, draw_limit: int = 200) -> Game:
    rng = random.Random(rng_seed)
    game = Game(seed=seed, draw_limit=draw_limit)
    while not game.is_over:
        game.apply(policy(game, rng))
    return game


@pytest.mark.parametrize("seed", [0, 1, 12345, 2**40 + 3, -7])
def test_R3_1a_deal_cards_depends_on_seed_and_deal_number_only(seed: int) -> None:
    """R3.1a: deal k of a seed is the same whatever happened before, even with the global
    random state disturbed and other deals made in between; it differs between deals."""
    first = {k: deal_cards(GameKey.from_seed(seed), k) for k in (1, 2, 3, 50, 200)}
    random.seed(99)
    random.random()
    run(seed + 1, 3, draw_limit=5)
    for k in (200, 3, 50, 1, 2):
        assert deal_cards(GameKey.from_seed(seed), k) == first[k]
    assert first[1] != first[2] != first[3]
    assert deal_cards(GameKey.from_seed(seed + 1), 1) != first[1]
    hands, stock = first[1]
    union = 0
    for h in hands:
        assert h.bit_count() == 6 and union & h == 0
        union |= h
    assert len(stock) == 17 and union.bit_count() + len(set(stock)) == 53


@pytest.mark.parametrize("seed", [3, 77])
def test_R3_1a_same_seed_same_actions_same_record(seed: int) -> None:
    """R3.1a, R1.3: two games with the same seed and the same actions are identical."""
    a, b = run(seed, 5), run(seed, 5)
    assert to_record(a) == to_record(b)
    assert a.events == b.events
    c = run(seed, 6)
    assert to_record(c) != to_record(a)  # other actions, another game (sanity)


@pytest.mark.parametrize("seed", [5, 31, 4242])
def test_R3_1a_kth_deal_is_the_same_whoever_plays(seed: int) -> None:
    """R3.1a: the k-th deal's hands and stock are the same in two games with the same seed
    even when the players act differently (here: always pass vs. playing), seat for seat."""
    passing = run(seed, 0, policy=always_pass, draw_limit=60)
    playing = run(seed, 1, policy=eager_action, draw_limit=60)
    assert len(playing.deals) > 1
    for k in range(1, min(len(passing.deals), len(playing.deals)) + 1):
        expected = deal_cards(GameKey.from_seed(seed), k)
        for game in (passing, playing):
            deal = game.deals[k - 1]
            assert (deal.hands, deal.stock) == expected
    assert (
        passing.deals[0].dealer == playing.deals[0].dealer == first_dealer(GameKey.from_seed(seed))
    )  # R1.3


def test_R3_1a_arranged_first_deal_later_deals_from_the_seed() -> None:
    """R3.1a: after a hand-built first deal, deal 2 of an arranged game is the seed's."""
    game = sweep_game(seed=8)
    play_cards(game, SWEEP_PLAY)
    assert game.deal_number == 2
    assert (game.deal.hands, game.deal.stock) == deal_cards(GameKey.from_seed(8), 2)
