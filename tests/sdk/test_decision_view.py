"""A decision's values are the seat's own, whichever way its request came: read back from
the gRPC message, from the stdio line, or the table's engine values in-process (R10), so a
bot plays the same on any channel and can search with the engine."""

from __future__ import annotations

from engine.helpers import advance
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import view
from arena.wire.protocol import request_to_pb
from arena.wire.seat import Request
from sdk.helpers import decisions


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 200))
def test_the_values_of_a_decision_are_the_seats_on_every_channel(seed: int, steps: int) -> None:
    game = advance(seed, steps)
    if game.is_over:
        return
    seen = view(game, game.to_act)
    for decision in decisions(game, request_id=steps + 1):
        assert decision.engine_view == seen
        assert decision.hand == seen.hand and decision.trump == seen.trump
        assert decision.legal == game.legal() and decision.kind is game.decision_kind
        assert (decision.seat, decision.request_id, decision.game_index) == (
            game.to_act,
            steps + 1,
            3,
        )
        assert (decision.time_ms, decision.bank_ms) == (1000, 777)
        assert decision.request == request_to_pb(
            Request(steps + 1, decision.kind, seen, game.legal(), 3, 1000, 777)
        )
        assert decision.view == decision.request.view
