"""``Decision.legal`` is the engine's ``Legal`` value, read from the request as sent, and
the SDK's defaults answer with its ``example()`` (no transport needed)."""

from __future__ import annotations

import random

from arena.engine import PASS, DecisionKind, Game, Legal, view
from arena.engine.randomplay import random_action
from arena.sdk import Bot, Decision
from arena.v1 import arena_pb2 as pb
from arena.wire.protocol import KIND_TO_PB, legal_to_pb, view_to_pb


def request_for(game: Game) -> pb.DecisionRequest:
    kind = game.decision_kind
    assert kind is not None
    return pb.DecisionRequest(
        id=1,
        kind=KIND_TO_PB[kind],
        view=view_to_pb(view(game, game.to_act), 0),
        legal=legal_to_pb(game.legal()),
    )


def test_decision_legal_is_the_games_legal_value_and_defaults_use_its_example() -> None:
    game = Game(seed=5, draw_limit=3)
    rng = random.Random(5)
    seen: set[DecisionKind] = set()
    bot = Bot()
    while not game.is_over:
        decision = Decision.from_request(request_for(game))
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
    assert Bot().bid(Decision.from_request(request_for(Game(seed=1)))) is PASS
