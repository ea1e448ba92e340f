"""Two thousand complete random games without an error (slow; CI runs it)."""

from __future__ import annotations

import random

import pytest

from arena.engine import Game, replay, to_record
from arena.engine.randomplay import random_action

from .helpers import check_record, eager_action, ref_winner_after_deal

GAMES = 2_000


@pytest.mark.slow
def test_R9_1_R9_2_R9_4_two_thousand_random_games() -> None:
    """R9.1-R9.4: every one of 2,000 games (even ones with the engine's random player,
    odd ones with an eager bidder) ends, either won by a team at 21 or more as R9.1-R9.2
    say, or drawn at the deal limit (R9.4). Every 100th game is checked against the
    reference model and replayed from its record."""
    deals = draws = 0
    for index in range(GAMES):
        rng = random.Random(index)
        policy = random_action if index % 2 == 0 else eager_action
        game = Game(seed=1_000_000 + index)
        while not game.is_over:
            game.apply(policy(game, rng))
        outcome = game.outcome
        assert outcome is not None
        assert outcome.deals == game.deal_number <= game.draw_limit
        assert outcome.scores == tuple(game.scores)
        if outcome.winner is None:
            draws += 1
            assert game.deal_number == game.draw_limit, index
        else:
            last = game.deal
            assert not last.thrown_in and last.bidder is not None, index
            assert outcome.scores[outcome.winner] >= 21, index
            assert outcome.scores[outcome.winner] == max(outcome.scores), index
            assert ref_winner_after_deal(list(outcome.scores), last.bidder % 3) == outcome.winner
        deals += game.deal_number
        if index % 100 == 0:
            record = to_record(game)
            check_record(record)
            assert to_record(replay(record)) == record, index
    assert draws < GAMES // 20  # bots that bid at all rarely reach the limit (R9.4)
    assert deals > GAMES  # games last more than one deal on average
