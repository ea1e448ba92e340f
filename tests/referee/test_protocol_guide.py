"""docs/PROTOCOL.md and the referee agree, with real processes over gRPC, on three points a
bot author in another language has to get right: when the welcome arrives, what an
answer sent before its request counts as, and what ``currentTrick.leader`` means; and the
guide names every field as the wire does (the transcripts themselves are
test_transcript.py's)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arena.engine import PASS, Game
from arena.engine.record import recorded_actions
from arena.referee.transcript import FIELDS_END, FIELDS_START, PROTOCOL_DOC, embedded, field_table
from arena.v1 import arena_pb2 as pb

from .harness import MatchRun, check_games, recorder, run_match

EARLY = (0, 3)  # team 0 answers its first request before it is asked


def times(run: MatchRun, seat: int) -> dict[str, float]:
    lines = (run.seat_dir(seat) / "times.jsonl").read_text().splitlines()
    return {entry["what"]: entry["at"] for entry in map(json.loads, lines)}


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_the_welcome_comes_after_all_six_seats_joined(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTOCOL §2.2: no seat is welcomed before the slowest seat has joined."""
    monkeypatch.setenv("TEST_BOT_FAULT_4", "slow_join")
    run = run_match([recorder()] * 3, tmp_path / "logs")
    check_games(run)
    assert run.faults == []
    late_join = times(run, 4)["joined"]
    for seat in range(6):
        seat_times = times(run, seat)
        assert seat_times["welcome"] >= late_join, (seat, seat_times, late_join)
    assert min(times(run, s)["joined"] for s in range(6) if s != 4) < late_join - 1.0


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_an_answer_sent_before_its_request_is_the_answer_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTOCOL §2.4: an early answer is read when its request is sent and taken for it
    (R4.2: a pass is always legal, so an early pass to a bid is no fault)."""
    for seat in EARLY:
        monkeypatch.setenv(f"TEST_BOT_FAULT_{seat}", "early_pass")
    run = run_match([recorder()] * 3, tmp_path / "logs")
    check_games(run)
    for seat in EARLY:
        first = run.requests(seat)[0]
        assert first.id == 1
        if first.kind == pb.DECISION_KIND_BID:
            assert run.faults_of(seat) == []
            assert first_action_of(run, seat) == PASS
        else:  # someone bid 6 first (R4.3): the early pass answers a request of another kind
            assert [f.kind.value for f in run.faults_of(seat)] == ["wrong_kind"]
    assert all(f.seat in EARLY for f in run.faults)


def first_action_of(run: MatchRun, seat: int) -> object:
    record = run.reports[0].record
    game = Game(run.reports[0].key, draw_limit=int(record["draw_limit"]))
    for action in recorded_actions(record):
        if game.to_act == seat:
            return action
        game.apply(action)
    raise AssertionError(f"seat {seat} never acted")


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_current_trick_leader_is_the_seat_to_lead_even_before_the_first_card(
    tmp_path: Path,
) -> None:
    """PROTOCOL §3: R7.1 the bidder leads the first trick, R7.3 then each trick's winner;
    before the play there is no trick (no cards, leader 0)."""
    run = run_match([recorder()] * 3, tmp_path / "logs")
    check_games(run)
    leads_checked = 0
    for seat in range(6):
        for request in run.requests(seat):
            view = request.view
            trick = view.current_trick
            if request.kind != pb.DECISION_KIND_PLAY:
                assert list(trick.cards) == [] and trick.leader == 0
                continue
            expected = view.tricks[-1].winner if view.tricks else view.bidder
            assert trick.leader == expected, (seat, request.id)
            # The leader's card comes first; the seat asked is the next to play after it.
            assert (trick.leader + len(trick.cards)) % 6 == seat
            leads_checked += not trick.cards
    assert leads_checked > 0


# --- the guide is the wire: every field named as a stdio bot reads it ------------------------

FIELDS = {
    field.name: field.json_name
    for message in pb.DESCRIPTOR.message_types_by_name.values()
    for field in message.fields
}
JSON_NAMES = set(FIELDS.values())
# The proto names a stdio bot would not find in a line: those the JSON mapping renames.
RENAMED = {name: json for name, json in FIELDS.items() if name != json}
# lowerCamelCase words the guide writes that are no field: none today. A word added here
# must not be a field's misspelling.
NOT_FIELDS: frozenset[str] = frozenset()
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
CAMEL = re.compile(r"[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+")


def guide_paragraphs() -> list[tuple[int, str]]:
    """The guide's prose paragraphs (and table rows), each with its first line's number,
    without its fenced blocks (code in other languages, the generated transcripts) and
    its HTML comments."""
    paragraphs: list[tuple[int, str]] = []
    fenced, start, lines = False, 0, []
    for number, line in enumerate([*PROTOCOL_DOC.read_text().splitlines(), ""], start=1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced or line.startswith("<!--"):
            continue
        if not line.strip() or line.startswith("|"):
            if lines:
                paragraphs.append((start, " ".join(lines)))
            lines = []
            if line.startswith("|"):
                paragraphs.append((number, line))
            continue
        if not lines:
            start = number
        lines.append(line)
    return paragraphs


def test_the_guide_names_every_field_as_a_stdio_bot_reads_it() -> None:
    """Issue 35: the guide named fields in the proto's snake_case (`min_count`) where a
    stdio line has lowerCamelCase (`minCount`), and a bot reading `min_count` got nothing.
    Every field name in the guide's code spans is now a JSON name; a proto name the JSON
    mapping renames stands only beside its JSON name, in the same paragraph or row."""
    wrong = []
    for number, line in guide_paragraphs():
        spans = re.findall(r"`([^`]+)`", line)
        words = {word for span in spans for word in IDENTIFIER.findall(span)}
        for word in words:
            if CAMEL.fullmatch(word) and word not in JSON_NAMES | NOT_FIELDS:
                wrong.append(f"line {number}: `{word}` is no field's JSON name")
            if word in RENAMED and RENAMED[word] not in words:
                wrong.append(f"line {number}: `{word}` without its JSON name `{RENAMED[word]}`")
    assert wrong == [], "\n".join(wrong)


def test_the_guide_s_table_of_fields_is_the_contract_s() -> None:
    """§8's table lists every field of the contract, as the contract is today."""
    documented = embedded(PROTOCOL_DOC.read_text(), FIELDS_START, FIELDS_END)
    assert documented == field_table(), (
        "docs/PROTOCOL.md's table of fields is stale: "
        "run python -m arena.referee.transcript --write"
    )
    for message in pb.DESCRIPTOR.message_types_by_name.values():
        for field in message.fields:
            assert f"| `{message.name}.{field.json_name}` | `{field.name}` |" in documented
