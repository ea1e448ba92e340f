"""A decision's engine view (``Decision.engine_view``) is the seat's ``arena.engine.view``,
read back from the request the referee sends (R10), so a bot can search with the engine."""

from __future__ import annotations

from engine.helpers import advance
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import view
from arena.sdk import Decision
from arena.v1 import arena_pb2 as pb
from arena.wire.protocol import KIND_TO_PB, legal_to_pb, view_to_pb


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 200))
def test_the_engine_view_of_a_request_is_the_seats_view(seed: int, steps: int) -> None:
    game = advance(seed, steps)
    if game.is_over:
        return
    seen = view(game, game.to_act)
    kind = game.decision_kind
    assert kind is not None
    request = pb.DecisionRequest(
        id=1,
        kind=KIND_TO_PB[kind],
        view=view_to_pb(seen, game_index=0),
        legal=legal_to_pb(game.legal()),
    )
    assert Decision(request).engine_view == seen
