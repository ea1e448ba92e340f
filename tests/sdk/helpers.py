"""One decision as each channel gives it to a bot: the SDK's tests compare the three."""

from __future__ import annotations

import json

from arena.engine import Game, view
from arena.sdk import Decision
from arena.sdk.stdio import JsonDecision
from arena.wire.jsonlines import request_line
from arena.wire.protocol import request_to_pb
from arena.wire.seat import Request


def decisions(game: Game, request_id: int = 1) -> list[Decision]:
    """The decision of the seat to act, from each of the three channels' forms."""
    kind = game.decision_kind
    assert kind is not None
    request = Request(request_id, kind, view(game, game.to_act), game.legal(), 3, 1000, 777)
    line = json.loads(request_line(request))["request"]
    return [
        Decision.from_request(request_to_pb(request)),
        JsonDecision(line),
        Decision.from_engine(request),
    ]
