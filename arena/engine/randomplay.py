"""A random legal player: the benchmark's and the tests' player, and the random sample bot's.

It bids only now and then (a bot that bids at random sets itself back so often that
games last for hundreds of deals), and otherwise picks uniformly among legal choices.
"""

from __future__ import annotations

import random
from typing import Final

from arena.engine.actions import PASS, PLAYS, Action, DecisionKind, Discard
from arena.engine.cards import CardSet
from arena.engine.game import Game, Phase
from arena.engine.legal import DiscardRule, Legal

BID_PROBABILITY = 0.15

_PLAY: Final = DecisionKind.PLAY
_BID: Final = DecisionKind.BID
_DISCARD: Final = DecisionKind.DISCARD
_PLAY_PHASE: Final = Phase.PLAY
_DISCARD_PHASE: Final = Phase.DISCARD
_PLAY_OF_BIT: Final = {1 << play.card.index: play for play in PLAYS}


def random_discard(rule: DiscardRule, rng: random.Random) -> Discard:
    """A uniformly sized legal discard built from the rule's description (R5.2-R5.4)."""
    chosen = random_discard_mask(rule.must.mask, rule.may.mask, rule.min_count, rule.max_count, rng)
    return Discard(CardSet(chosen))


def random_discard_mask(
    must: int, may: int, min_count: int, max_count: int, rng: random.Random
) -> int:
    """``random_discard`` of a rule given as ``Game.discard_masks()`` gives it: a count
    as ``rng.randint(min_count, max_count)`` draws it, then ``must`` and as many more of
    ``may`` as ``rng.sample`` picks, written out with the very same draws (``sample``'s
    pool method, which it takes for every population this small)."""
    count = min_count + uniform_below(max_count - min_count + 1, rng)  # rng.randint
    more = count - must.bit_count()
    if not more:  # rng.sample draws nothing for none
        return must
    pool = []
    spare = may & ~must
    while spare:  # the cards in index order, as cards_of_mask lists them
        low = spare & -spare
        pool.append(low)
        spare ^= low
    chosen = must
    size = len(pool)
    getrandbits = rng.getrandbits
    for _ in range(more):
        # uniform_below(size, rng), written out: the dealer draws up to 17 times.
        width = size.bit_length()
        j = getrandbits(width)
        while j >= size:
            j = getrandbits(width)
        chosen |= pool[j]
        size -= 1
        pool[j] = pool[size]
    return chosen


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
    """``random_legal_action(game.legal(), rng)``, the same draws and the same action,
    made for plays and discards from the game's masks (``legal_play_mask``,
    ``discard_masks``), as search does, without a ``Legal`` value: the benchmark's and
    the tests' hot path."""
    phase = game.phase
    if phase is _PLAY_PHASE:
        mask = game.legal_play_mask()
        # rng.choice of the plays, lowest card index first, as uniform_below draws.
        count = mask.bit_count()
        width = count.bit_length()
        drawn = rng.getrandbits(width)
        while drawn >= count:
            drawn = rng.getrandbits(width)
        while drawn:  # the lowest cards go, up to the drawn one (often the first)
            mask &= mask - 1
            drawn -= 1
        return _PLAY_OF_BIT[mask & -mask]
    if phase is _DISCARD_PHASE:
        must, may, min_count, max_count = game.discard_masks()
        return Discard(CardSet(random_discard_mask(must, may, min_count, max_count, rng)))
    return random_legal_action(game.legal(), rng)


def play_random_game(seed: int, rng: random.Random, draw_limit: int = 200) -> Game:
    game = Game(seed=seed, draw_limit=draw_limit)
    apply = game.apply
    while not game.is_over:
        apply(random_action(game, rng))
    return game
