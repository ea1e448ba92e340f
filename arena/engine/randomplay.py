"""A random legal player: the benchmark's and the tests' player, and the random sample bot's.

It bids only now and then (a bot that bids at random sets itself back so often that
games last for hundreds of deals), and otherwise picks uniformly among legal choices.
"""

from __future__ import annotations

import random
from typing import Final

from arena.engine.actions import PASS, Action, DecisionKind, Discard
from arena.engine.cards import CardSet, cards_of_mask
from arena.engine.game import Game
from arena.engine.legal import DiscardRule, Legal

BID_PROBABILITY = 0.15

_PLAY: Final = DecisionKind.PLAY
_BID: Final = DecisionKind.BID
_DISCARD: Final = DecisionKind.DISCARD


def random_discard(rule: DiscardRule, rng: random.Random) -> Discard:
    """A uniformly sized legal discard built from the rule's description (R5.2-R5.4)."""
    count = rule.min_count + uniform_below(rule.max_count - rule.min_count + 1, rng)  # randint
    must = rule.must.mask
    chosen = must
    more = count - must.bit_count()
    if more:  # rng.sample draws nothing for none
        for card in rng.sample(cards_of_mask(rule.may.mask & ~must), more):
            chosen |= 1 << card.index
    return Discard(CardSet(chosen))


def uniform_below(count: int, rng: random.Random) -> int:
    """A uniform integer in [0, count): the draw ``rng.choice`` and ``rng.randint`` make
    (``Random._randbelow``: as many random bits as ``count`` has, until one is below it),
    so the same games as theirs, without their two or three Python calls each time."""
    width = count.bit_length()
    drawn = rng.getrandbits(width)
    while drawn >= count:
        drawn = rng.getrandbits(width)
    return drawn


def random_legal_action(legal: Legal, rng: random.Random) -> Action:
    """A random choice among ``legal``: a bid only with ``BID_PROBABILITY``, else uniform."""
    kind = legal.kind
    # The engine's own tuple, so that choice() indexes it in C: the benchmark's hot path.
    actions = legal._actions
    if kind is _PLAY:
        # rng.choice(actions), as uniform_below draws, written out: this is every card.
        count = len(actions)
        width = count.bit_length()
        drawn = rng.getrandbits(width)
        while drawn >= count:
            drawn = rng.getrandbits(width)
        return actions[drawn]
    if kind is _BID:
        if len(actions) == 1 or rng.random() >= BID_PROBABILITY:
            return PASS
        return rng.choice(actions[1:])
    if kind is _DISCARD:
        return random_discard(legal.discard_rule, rng)
    return rng.choice(actions)


def random_action(game: Game, rng: random.Random) -> Action:
    return random_legal_action(game.legal(), rng)


def play_random_game(seed: int, rng: random.Random, draw_limit: int = 200) -> Game:
    game = Game(seed=seed, draw_limit=draw_limit)
    apply, legal = game.apply, game.legal
    while not game.is_over:
        apply(random_legal_action(legal(), rng))
    return game
