"""``Decision.legal`` is the engine's ``Legal`` value, read from the request as sent on any
channel, and the SDK's defaults answer with its ``example()`` (no transport needed)."""

from __future__ import annotations

import random

from arena.engine import PASS, DecisionKind, Game, Legal
from arena.engine.randomplay import random_action
from arena.sdk import Bot
from sdk.helpers import decisions


def test_decision_legal_is_the_games_legal_value_and_defaults_use_its_example() -> None:
    game = Game(seed=5, draw_limit=3)
    rng = random.Random(5)
    seen: set[DecisionKind] = set()
    bot = Bot()
    while not game.is_over:
        for decision in decisions(game):
            legal = decision.legal
            assert isinstance(legal, Legal) and legal == game.legal()
            assert decision.kind is legal.kind
            seen.add(decision.kind)
            answer = bot.decide(decision)
            assert answer in legal
            if decision.kind is DecisionKind.DISCARD:
                assert decision.discard_rule == game.discard_rule()
                assert answer == legal.example()
            elif decision.kind in (DecisionKind.BID, DecisionKind.PLAY):
                assert answer == legal.example() == legal[0]
        game.apply(random_action(game, rng))
    assert seen == set(DecisionKind)
    assert all(Bot().bid(decision) is PASS for decision in decisions(Game(seed=1)))
