"""The stdio seats' lines written and read straight from engine values (``arena.wire.jsonlines``)
are protobuf's JSON mapping to the byte: every line of random games is what the message
built by ``arena.wire.protocol`` and written by ``arena.wire.pbjson.line_of`` (held to
``json_format`` in test_pbjson) is, and every reading is protobuf's reading."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import DecisionKind
from arena.v1 import arena_pb2 as pb
from arena.wire import jsonlines
from arena.wire.answers import (
    Refusal,
    abbreviate,
    decode_line,
    decode_message,
    read_line,
    read_message,
)
from arena.wire.pbjson import line_of
from arena.wire.protocol import (
    PROTOCOL_VERSION,
    action_to_answer,
    legal_from_pb,
    notice_to_pb,
    request_into,
    told_to_pb,
    view_from_pb,
    welcome_to_pb,
)
from arena.wire.seat import Notice, Request, Welcome
from arena.wire.values import KIND_NAMES, SUIT_NAMES
from wire.games import requests_of


def message_of(request: Request) -> pb.RefereeMessage:
    message = pb.RefereeMessage(events=told_to_pb(request.events))
    request_into(message.request, request)
    return message


@settings(max_examples=5)
@given(st.integers(0, 2**32 - 1))  # a uint32 seed (the wire's field)
def test_every_line_of_a_random_game_is_the_protobuf_mappings_to_the_byte(seed: int) -> None:
    for request, action in requests_of(seed):
        if action is None:  # the end of the game, told with no decision
            told = pb.RefereeMessage(events=told_to_pb(request.events))
            assert jsonlines.tell_line(request.events) == line_of(told)
            continue
        message = message_of(request)
        line = jsonlines.request_line(request)
        assert line == line_of(message)
        # The SDK reads it back as protobuf reads it.
        data = json.loads(line)["request"]
        kind = request.kind
        assert jsonlines.view_from_json(data["view"], kind) == view_from_pb(
            message.request.view, kind
        )
        hand = request.view.hand
        assert jsonlines.legal_from_json(kind, data["legal"], request.view.seat, hand) == (
            legal_from_pb(kind, message.request.legal, request.view.seat, hand)
        )
        answer = pb.BotMessage(answer=action_to_answer(request.id, action))
        assert jsonlines.answer_line(request.id, action) == line_of(answer)


# Any text a string field can hold: every code point but the surrogates, which UTF-8 (and
# so protobuf) cannot carry and no bot.toml or referee text can contain.
printable = st.text(st.characters(exclude_categories=("Cs",)), max_size=30)


@given(printable, printable, st.lists(printable, max_size=3), st.integers(0, 2**32 - 1))
def test_welcomes_notices_joins_and_ends_are_the_mappings_whatever_their_text(
    first: str, second: str, names: list[str], number: int
) -> None:
    welcome = Welcome(1, 1, 4, number, 1000, 10_000, 200, tuple(names), first)
    assert jsonlines.welcome_line(welcome) == line_of(
        pb.RefereeMessage(welcome=welcome_to_pb(welcome))
    )
    notice = Notice(second, first, number, second)
    assert jsonlines.notice_line(notice) == line_of(pb.RefereeMessage(notice=notice_to_pb(notice)))
    over = pb.RefereeMessage(match_over=pb.MatchOver(reason=first))
    assert jsonlines.match_over_line(first) == line_of(over)
    join = pb.Join(bot_name=first, bot_version=second, protocol_version=PROTOCOL_VERSION)
    assert jsonlines.join_line(first, second) == line_of(pb.BotMessage(join=join))


def test_the_names_of_suits_kinds_and_the_version_are_the_protos() -> None:
    assert set(SUIT_NAMES.values()) == set(pb.Suit.keys()) - {"SUIT_UNSPECIFIED"}
    assert {pb.Suit.Value(name) for name in SUIT_NAMES.values()} == {1, 2, 3, 4}
    assert set(KIND_NAMES.values()) == set(pb.DecisionKind.keys()) - {"DECISION_KIND_UNSPECIFIED"}
    assert pb.ProtocolVersion.Value(jsonlines.PROTOCOL_VERSION_NAME) == PROTOCOL_VERSION


def by_the_mapping(line: bytes, kind: DecisionKind, request_id: int) -> object:
    """What a line means read through protobuf's JSON mapping alone (no fast path)."""
    read = read_line(line)
    if isinstance(read, Refusal):
        return read
    message = read_message(*read)
    if isinstance(message, Refusal):
        return message
    return decode_message(message, kind, request_id, abbreviate(read[1]))


OPEN = 7
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**65), 2**65),
    st.sampled_from(["7", "07", "0", "-1", "7.0", "١٧", " 7", "18446744073709551616"]),
    st.sampled_from(["JH", "jh", "TS", "10S", "JK", "SUIT_HEARTS", "SUIT_UNSPECIFIED", "3"]),
    st.floats(allow_nan=False),
    st.text(max_size=8),
)
answer_values = st.one_of(
    scalars,
    st.lists(scalars, max_size=3),
    st.fixed_dictionaries({"cards": st.lists(st.sampled_from(["2C", "3D", "2C", "JK", 3]))}),
    st.dictionaries(st.sampled_from(["cards", "card"]), scalars, max_size=2),
)
answer_keys = st.sampled_from(
    ["requestId", "request_id", "bid", "trump", "discard", "card", "colour", "cards"]
)
answers = st.fixed_dictionaries(
    {"answer": st.dictionaries(answer_keys, answer_values, max_size=3)}
) | st.dictionaries(st.sampled_from(["answer", "join", "x"]), answer_values, max_size=2)


@given(answers, st.sampled_from(list(DecisionKind)), st.booleans())
def test_a_bots_line_means_what_protobufs_mapping_says(
    data: Any, kind: DecisionKind, usual: bool
) -> None:
    """The usual form is read straight into the action; every other line, and every
    refusal, is judged by the mapping itself: the two never disagree."""
    if usual and isinstance(data.get("answer"), dict):
        data["answer"]["requestId"] = str(OPEN)
    line = json.dumps(data).encode()
    assert decode_line(line, kind, OPEN) == by_the_mapping(line, kind, OPEN)


def test_the_usual_answers_are_read_without_the_mapping() -> None:
    assert jsonlines.answer_fields({"answer": {"requestId": "17", "card": "JH"}}) == (
        17,
        "card",
        "JH",
    )
    for unusual in (
        {"answer": {"request_id": 17, "card": "JH"}},
        {"answer": {"requestId": 17, "card": "JH"}},
        {"answer": {"requestId": "17", "trump": 3}},
        {"answer": {"requestId": "17", "bid": True}},
        {"answer": {"requestId": "17", "card": "JH", "colour": "red"}},
    ):
        assert jsonlines.answer_fields(unusual) is None, unusual
