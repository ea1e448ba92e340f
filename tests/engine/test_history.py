"""``Game.history``: every decision taken, (seat, action), the one spine the record's
decisions, the referee's notes and its faults are keyed by."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.engine import Game, IllegalActionError, Pass, replay, to_record
from arena.engine.actions import Bid, kind_of
from arena.engine.randomplay import random_action
from arena.engine.record import decision_slots, recorded_actions

from .helpers import always_pass


def _played(seed: int, stop: int | None = None, passing: bool = False) -> Game:
    game = Game(seed=seed, draw_limit=3 if passing else 20)
    rng = random.Random(seed)
    while not game.is_over and (stop is None or game.decisions < stop):
        game.apply(always_pass(game, rng) if passing else random_action(game, rng))
    return game


@given(st.integers(0, 2**31), st.one_of(st.none(), st.integers(0, 400)))
def test_each_deal_s_decisions_are_its_stretch_of_the_history(seed: int, stop: int | None) -> None:
    """What the record says was asked, rebuilt from the record's cards alone, is the history
    (finished games and games stopped anywhere, mid-trick included)."""
    game = _played(seed, stop)
    assert len(game.history) == game.decisions
    record = to_record(game)
    rebuilt = [slot for deal in record["deals"] for slot in decision_slots(deal)]
    assert rebuilt == [(seat, kind_of(action)) for seat, action in game.history]
    assert list(recorded_actions(record)) == [action for _, action in game.history]


@given(st.integers(0, 2**31))
def test_a_thrown_in_deal_starts_after_the_pass_that_threw_it_in(seed: int) -> None:
    game = _played(seed, passing=True)
    assert [deal.thrown_in for deal in game.deals] == [True, True, True]
    assert [deal.first_decision for deal in game.deals] == [0, 6, 12]
    assert all(action == Pass() for _, action in game.history)
    assert [seat for seat, _ in game.history[:6]] == [
        (game.first_dealer + 1 + i) % 6 for i in range(6)
    ]


def test_a_refused_action_leaves_the_history_as_it_was() -> None:
    game = Game(seed=3)
    game.apply(Bid(4))
    before = list(game.history)
    with pytest.raises(IllegalActionError):
        game.apply(Bid(3))  # R4.2: not higher than 4
    assert game.history == before and game.decisions == 1


def test_a_copy_has_its_own_history() -> None:
    game = _played(5, stop=30)
    clone = game.copy()
    clone.apply(random_action(clone, random.Random(1)))
    assert len(clone.history) == len(game.history) + 1 == 31


def test_a_replayed_record_has_the_history_of_the_game() -> None:
    game = _played(11)
    assert replay(to_record(game)).history == game.history
