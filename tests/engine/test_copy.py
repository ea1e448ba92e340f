"""``Game.copy()``: a clone for search that shares nothing the game changes.

Hypothesis draws the game, the moment of the copy and the play on each side; whatever
is played on the copy, the original's record, events and state stay as they were, and
the same actions on both give the same record.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine import Game, to_record, view
from arena.engine.randomplay import random_action

from .helpers import eager_action

SEEDS = st.integers(min_value=0, max_value=2**63)
COPY_SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def copy_property(test: Callable[..., None]) -> Callable[..., None]:
    """A property, in COPY_SETTINGS, of a game of ``seed`` copied after ``before`` decisions
    drawn from ``rng_seed``."""
    draws = given(seed=SEEDS, before=st.integers(0, 400), rng_seed=st.integers(0, 2**32))
    return COPY_SETTINGS(draws(test))


def advance(game: Game, steps: int, rng: random.Random) -> None:
    for _ in range(steps):
        if game.is_over:
            return
        game.apply(eager_action(game, rng))


def game_after(steps: int, rng: random.Random, **game: Any) -> Game:
    """A ``Game(**game)`` after ``steps`` decisions drawn from ``rng`` (or over before)."""
    played = Game(**game)
    advance(played, steps, rng)
    return played


def snapshot(game: Game) -> tuple[object, ...]:
    """Everything observable about a game: its record, events, legal choices and views."""
    legal = game.legal()
    return (
        to_record(game),
        list(game.events),
        legal,
        game.decisions,
        [game.hand(seat) for seat in range(6)],
        [view(game, seat) for seat in range(6)],
    )


@copy_property
def test_play_on_the_copy_leaves_the_original_unchanged(
    seed: int, before: int, rng_seed: int
) -> None:
    """Play the copy to the end of the game: the original is exactly as it was."""
    rng = random.Random(rng_seed)
    game = game_after(before, rng, seed=seed, draw_limit=30)
    expected = snapshot(game)
    clone = game.copy()
    while not clone.is_over:
        clone.apply(random_action(clone, rng))
    assert snapshot(game) == expected


@copy_property
def test_play_on_the_original_leaves_the_copy_unchanged(
    seed: int, before: int, rng_seed: int
) -> None:
    """The other way round: the copy is a snapshot, whatever the original does next."""
    rng = random.Random(rng_seed)
    game = game_after(before, rng, seed=seed, draw_limit=30)
    clone = game.copy()
    expected = snapshot(clone)
    advance(game, 10_000, rng)
    assert snapshot(clone) == expected


@pytest.mark.slow
@copy_property
def test_same_actions_on_copy_and_original_give_the_same_record(
    seed: int, before: int, rng_seed: int
) -> None:
    """The copy is the same game: the same actions take both to the same record and events."""
    game = game_after(before, random.Random(rng_seed), seed=seed, draw_limit=30)
    clone = game.copy()
    assert snapshot(clone) == snapshot(game)
    rng_game, rng_clone = random.Random(rng_seed + 1), random.Random(rng_seed + 1)
    while not game.is_over:
        game.apply(eager_action(game, rng_game))
        clone.apply(eager_action(clone, rng_clone))
    assert clone.is_over
    assert to_record(clone) == to_record(game)
    assert clone.events == game.events
    assert clone.outcome == game.outcome


@copy_property
def test_a_copy_holds_every_attribute_of_the_game_with_equal_values(
    seed: int, before: int, rng_seed: int
) -> None:
    """``copy`` names each of the game's slots; one it forgot would be unset on the clone
    (and read as an AttributeError only when play reaches it). Every value is equal, and
    each list the game changes in place is a list of the clone's own."""
    game = game_after(before, random.Random(rng_seed), seed=seed)
    clone = game.copy()
    for name in Game.__slots__:
        assert hasattr(clone, name), name
        assert getattr(clone, name) == getattr(game, name), name
    for name in ("scores", "deals", "events", "hands", "stock", "_trick", "_won"):
        assert getattr(clone, name) is not getattr(game, name), name
    assert clone.deals[-1] is not game.deals[-1]
