"""The wire reads a bot's answer bytes: an action, a late answer to an earlier request, or
a refusal with its fault kind, its reason and what was sent (docs/PROTOCOL.md, 5. Faults)."""

from __future__ import annotations

import pytest
from google.protobuf.message import DecodeError

from arena.engine import PASS, Bid, DecisionKind, Play
from arena.engine.cards import Card
from arena.v1 import arena_pb2 as pb
from arena.wire.answers import (
    SENT_LIMIT,
    STALE,
    FaultKind,
    Refusal,
    abbreviate,
    decode_answer,
    message_text,
)
from arena.wire.faults import clip

OPEN = 5  # the open request's id


def answer(**fields: object) -> bytes:
    return pb.BotMessage(answer=pb.Answer(**fields)).SerializeToString()  # type: ignore[arg-type]


def test_the_answer_to_the_open_request_is_its_action() -> None:
    assert decode_answer(answer(request_id=OPEN, bid=0), DecisionKind.BID, OPEN) == PASS
    assert decode_answer(answer(request_id=OPEN, bid=4), DecisionKind.BID, OPEN) == Bid(4)
    played = decode_answer(answer(request_id=OPEN, card="7C"), DecisionKind.PLAY, OPEN)
    assert played == Play(Card.parse("7C"))


@pytest.mark.parametrize("earlier", [1, OPEN - 1])
def test_an_answer_to_an_earlier_request_is_stale(earlier: int) -> None:
    assert decode_answer(answer(request_id=earlier, bid=0), DecisionKind.BID, OPEN) is STALE


def refusal(raw: bytes, kind: DecisionKind = DecisionKind.BID) -> Refusal:
    decoded = decode_answer(raw, kind, OPEN)
    assert isinstance(decoded, Refusal), decoded
    # What was sent travels with the fault: a message as its text, other bytes as hex.
    try:
        message = pb.BotMessage.FromString(raw)
    except DecodeError:
        assert decoded.sent == abbreviate(raw)
    else:
        assert decoded.sent == abbreviate(message_text(message))
    return decoded


@pytest.mark.parametrize(
    ("raw", "kind", "reason"),
    [
        (b"\xff\xff not protobuf", FaultKind.MALFORMED, "not a BotMessage"),
        (
            pb.BotMessage(join=pb.Join(token="t")).SerializeToString(),
            FaultKind.MALFORMED,
            "expected an Answer, got join",
        ),
        (b"", FaultKind.MALFORMED, "expected an Answer, got None"),
        (answer(request_id=OPEN), FaultKind.MALFORMED, "the answer sets no choice"),
        (answer(request_id=OPEN + 1, bid=0), FaultKind.WRONG_REQUEST, "answer to request 6"),
        (answer(request_id=0, bid=0), FaultKind.WRONG_REQUEST, "answer to request 0"),
        (answer(request_id=OPEN, card="7C"), FaultKind.WRONG_KIND, "a bid decision was asked"),
        (answer(request_id=OPEN, bid=9), FaultKind.ILLEGAL, "R4.2: a bid is 3 to 6"),
    ],
)
def test_a_refused_answer_says_which_fault_and_why(
    raw: bytes, kind: FaultKind, reason: str
) -> None:
    refused = refusal(raw)
    assert refused.kind is kind
    assert refused.reason.startswith(reason), refused.reason


def test_a_card_not_written_exactly_is_malformed() -> None:
    refused = refusal(answer(request_id=OPEN, card="7c"), DecisionKind.PLAY)
    assert refused.kind is FaultKind.MALFORMED


def test_what_was_sent_is_kept_abbreviated() -> None:
    garbage = bytes(range(256))
    refused = refusal(garbage)
    # Cut on a whole byte, and marked with the whole length.
    assert refused.sent == garbage[: SENT_LIMIT // 2].hex() + "… (256 bytes)"
    assert abbreviate(b"\x01\x02") == "0102"
    # Cut whenever the hex is longer than the limit, not only the bytes.
    just_over = bytes(SENT_LIMIT // 2 + 1)
    assert abbreviate(just_over) == "00" * (SENT_LIMIT // 2) + f"… ({SENT_LIMIT // 2 + 1} bytes)"
    assert abbreviate(bytes(SENT_LIMIT // 2)) == "00" * (SENT_LIMIT // 2)


def test_a_reason_quotes_a_parsers_words_whole() -> None:
    words = 'Message type "arena.v1.Answer" has no field named "colour" at "BotMessage.answer".'
    assert clip(words + "\n Available Fields: ...") == words
    cut = clip(words, 50)
    assert cut.endswith("…") and len(cut) <= 51
    assert words.startswith(cut[:-1]) and words[len(cut) - 1] == " "  # after a whole word


def test_a_well_formed_answer_refused_is_kept_as_its_text() -> None:
    refused = refusal(answer(request_id=OPEN + 1, bid=0))
    assert refused.sent == f"answer {{ request_id: {OPEN + 1} bid: 0 }}"
    over = SENT_LIMIT + 1
    assert abbreviate("é" * over) == "é" * SENT_LIMIT + f"… ({over} characters)"
