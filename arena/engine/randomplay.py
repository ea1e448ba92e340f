"""A random legal player for the engine alone: used by the benchmark and by tests.

It bids only now and then (a bot that bids at random sets itself back so often that
games last for hundreds of deals), and otherwise picks uniformly among legal choices.
"""

from __future__ import annotations

import random

from arena.engine.actions import PASS, Action, Discard
from arena.engine.cards import CardSet, cards_of_mask
from arena.engine.game import DiscardRule, Game

BID_PROBABILITY = 0.15


def random_discard(rule: DiscardRule, rng: random.Random) -> Discard:
    """A uniformly sized legal discard built from the rule's description (R5.2-R5.4)."""
    count = rng.randint(rule.min_count, rule.max_count)
    spare = cards_of_mask(rule.may.mask & ~rule.must.mask)
    chosen = rule.must.mask
    for card in rng.sample(spare, count - len(rule.must)):
        chosen |= card.bit
    return Discard(CardSet(chosen))


def random_action(game: Game, rng: random.Random) -> Action:
    legal = game.legal()
    if isinstance(legal, DiscardRule):
        return random_discard(legal, rng)
    if legal[0] is PASS:
        if len(legal) == 1 or rng.random() >= BID_PROBABILITY:
            return PASS
        return rng.choice(legal[1:])
    return rng.choice(legal)


def play_random_game(seed: int, rng: random.Random, draw_limit: int = 200) -> Game:
    game = Game(seed=seed, draw_limit=draw_limit)
    while not game.is_over:
        game.apply(random_action(game, rng))
    return game
