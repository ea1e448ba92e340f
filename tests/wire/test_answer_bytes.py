"""A bot's answer written directly as bytes is the message the SDK used to build."""

from __future__ import annotations

import pytest

from arena.engine import BIDS, PASS, PLAYS, TRUMPS, Action, CardSet, Discard
from arena.v1 import arena_pb2 as pb
from arena.wire.protocol import action_to_answer, answer_message_bytes

ACTIONS: list[Action] = [
    *PLAYS,
    *BIDS.values(),
    PASS,
    *(t for t in TRUMPS if t is not None),
    Discard(CardSet(0)),
    Discard(CardSet(0b1011)),
    Discard(CardSet((1 << 25) - 1)),
]


@pytest.mark.parametrize("request_id", [0, 1, 127, 128, 300, 2**20, 2**40])
def test_answer_bytes_are_the_built_message(request_id: int) -> None:
    for action in ACTIONS:
        built = pb.BotMessage(answer=action_to_answer(request_id, action)).SerializeToString()
        assert answer_message_bytes(request_id, action) == built, action
        assert answer_message_bytes(request_id, action) == built, action  # and from the cache
