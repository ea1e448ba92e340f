"""The fast protobuf JSON mapping (``arena.wire.pbjson``) is protobuf's own: on every
message of real games it writes what ``json_format.MessageToDict`` writes with every
field shown, and reads it back; other spellings the mapping allows go to ``json_format``."""

from __future__ import annotations

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message

from arena.v1 import arena_pb2 as pb
from arena.wire.pbjson import from_json, to_json
from arena.wire.protocol import (
    PROTOCOL_VERSION,
    action_to_answer,
    notice_to_pb,
    request_to_pb,
    told_to_pb,
    welcome_to_pb,
)
from arena.wire.seat import Notice, Welcome
from wire.games import requests_of


def game_messages(seed: int) -> list[Message]:
    """Every message of seat-by-seat play of one random game, both ways."""
    welcome = Welcome(2, 2, 5, 3, 1000, 10_000, 200, ("a", "b", "c"), "m")
    messages: list[Message] = [pb.RefereeMessage(welcome=welcome_to_pb(welcome))]
    join = pb.Join(token="t", bot_name="b", bot_version="1", protocol_version=PROTOCOL_VERSION)
    messages.append(pb.BotMessage(join=join))
    for request, action in requests_of(seed):
        told = told_to_pb(request.events)
        if action is None:  # the end of the game, told with no decision
            messages.append(pb.RefereeMessage(events=told))
            continue
        messages.append(pb.RefereeMessage(events=told, request=request_to_pb(request)))
        messages.append(pb.BotMessage(answer=action_to_answer(request.id, action)))
    notice = Notice("timeout", "no answer within 1000 ms plus the bank", 3, "pass")
    messages.append(pb.RefereeMessage(notice=notice_to_pb(notice)))
    messages.append(pb.RefereeMessage(match_over=pb.MatchOver(reason="finished")))
    return messages


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_every_message_of_a_game_is_written_and_read_as_json_format_does(seed: int) -> None:
    for message in game_messages(seed):
        expected = json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
        written = to_json(message)
        assert written == expected
        assert from_json(written, type(message)()) == message


def test_the_mappings_other_spellings_are_read_and_unknown_fields_refused() -> None:
    answer = pb.BotMessage(answer=pb.Answer(request_id=17, trump=pb.SUIT_HEARTS))
    for spelling in (
        {"answer": {"requestId": "17", "trump": "SUIT_HEARTS"}},
        {"answer": {"request_id": 17, "trump": 3}},
    ):
        assert from_json(spelling, pb.BotMessage()) == answer
    with pytest.raises(json_format.ParseError):
        from_json({"answer": {"requestId": "17", "colour": "red"}}, pb.BotMessage())
