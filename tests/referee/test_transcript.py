"""docs/PROTOCOL.md's transcripts are what a real game sends today (regenerate them with
``python -m arena.referee.transcript --write`` after changing the contract or the referee),
and every message of that game holds the fields the guide's table says it always holds."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from google.protobuf.descriptor import Descriptor

from arena.referee.transcript import (
    PROTOCOL_DOC,
    STDIO_END,
    STDIO_START,
    Exchange,
    capture,
    embedded,
    render,
    render_lines,
    sent,
)
from arena.v1 import arena_pb2 as pb
from arena.wire.pbjson import to_json

STALE = "docs/PROTOCOL.md's {} is stale: run python -m arena.referee.transcript --write"


@pytest.fixture(scope="module")
def grpc_game() -> Exchange:
    return capture()


@pytest.fixture(scope="module")
def stdio_game() -> Exchange:
    from arena.referee.transcript import STDIO_SEED

    return capture(STDIO_SEED, stdio=True)


def normalised(text: str) -> str:
    # The overage bank left depends on how fast the machine answered; nothing else may.
    return re.sub(r'"bankMs": \d+', '"bankMs": N', text).strip()


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_protocol_doc_transcript_is_current(grpc_game: Exchange) -> None:
    documented = embedded(PROTOCOL_DOC.read_text())
    assert documented, "docs/PROTOCOL.md has no transcript"
    assert normalised(render(grpc_game)) == normalised(documented), STALE.format("transcript")
    # What §6 promises it shows: a notice, the end of the game, the end of the match.
    for shown in ('"notice": {"kind": "illegal"', '{"gameEnded": {', '"matchOver": {'):
        assert shown in documented, shown


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_protocol_doc_stdio_transcript_is_current(stdio_game: Exchange) -> None:
    """§8's lines are what a stdio seat's pipes carry in a real game today."""
    documented = embedded(PROTOCOL_DOC.read_text(), STDIO_START, STDIO_END)
    assert documented.startswith('```text\n< {"join"')
    fresh = render_lines(stdio_game)
    for text in (fresh, documented):
        for line in text.splitlines()[1:-1]:
            if line[:2] in ("> ", "< "):
                json.loads(line[2:])  # every line one JSON object
    bank = r'"bankMs":\d+'
    assert re.sub(bank, "", fresh) == re.sub(bank, "", documented), STALE.format("stdio transcript")
    for shown in ('"notice":{"kind":"illegal"', '{"gameEnded":{', '"matchOver":{'):
        assert shown in documented, shown


def check_sent(data: dict[str, Any], descriptor: Descriptor, where: str) -> list[str]:
    """Where a stdio line's JSON breaks what the guide's table says of its fields."""
    problems = []
    for field in descriptor.fields:
        said = sent(descriptor.name, field)
        present = field.json_name in data
        if said == "always" and not present:
            problems.append(f"{where}.{field.json_name} is missing")
        if said == "only in a discard request" and present != (
            where.endswith("request.legal") and data.get("_kind") == "DECISION_KIND_DISCARD"
        ):
            problems.append(f"{where}.{field.json_name} present={present}")
        if present and field.message_type is not None:
            values = data[field.json_name] if field.is_repeated else [data[field.json_name]]
            for value in values:
                if field.name == "legal":
                    value = {**value, "_kind": data.get("kind")}
                problems += check_sent(value, field.message_type, f"{where}.{field.json_name}")
    oneofs = {f.containing_oneof.name for f in descriptor.fields if f.containing_oneof}
    for oneof in oneofs:
        members = descriptor.oneofs_by_name[oneof].fields
        if sum(f.json_name in data for f in members) > 1:
            problems.append(f"{where}: more than one of {oneof}")
    return problems


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_every_line_holds_what_the_guide_s_table_says(
    grpc_game: Exchange, stdio_game: Exchange
) -> None:
    """The table of every field (docs/PROTOCOL.md §8) says when each is in a line: every
    message of two real games, as a stdio bot reads it, holds exactly that."""
    problems = []
    kinds = set()
    for _, message in (*grpc_game, *stdio_game):
        if isinstance(message, pb.RefereeMessage):
            kinds.add(message.request.kind)
            problems += check_sent(to_json(message), pb.RefereeMessage.DESCRIPTOR, "message")
    assert problems == [], problems[:10]
    assert pb.DECISION_KIND_DISCARD in kinds and pb.DECISION_KIND_PLAY in kinds
