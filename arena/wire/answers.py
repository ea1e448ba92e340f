"""Reading a bot's answer: the raw bytes of one ``BotMessage`` become an action or a refusal.

The referee never parses a bot's bytes itself: it hands them here with the decision it
asked for and its open request id, and gets back the action, a marker for a late answer
to an earlier request, or a ``Refusal`` saying which fault the bytes are and why.

The fault kinds live here because they are protocol words: a ``Notice`` tells a bot the
kind by its value (docs/PROTOCOL.md). What the referee does about each kind is its own
policy (``arena.referee.policy``).
"""

from __future__ import annotations

from google.protobuf import text_format
from google.protobuf.message import DecodeError

from arena.engine import Action, DecisionKind, EngineError, IllegalActionError
from arena.v1 import arena_pb2 as pb

from .faults import SENT_LIMIT, STALE, FaultKind, Refusal, Stale, abbreviate
from .protocol import WrongKindError, answer_to_action

__all__ = [
    "SENT_LIMIT",
    "STALE",
    "Decoded",
    "FaultKind",
    "Refusal",
    "Stale",
    "abbreviate",
    "decode_answer",
    "decode_message",
    "message_text",
]

Decoded = Action | Stale | Refusal


def decode_answer(raw: bytes, kind: DecisionKind, request_id: int) -> Decoded:
    """What one ``BotMessage`` from a bot means while request ``request_id`` is open."""
    try:
        message = pb.BotMessage.FromString(raw)
    except DecodeError:
        return Refusal(FaultKind.MALFORMED, "not a BotMessage", abbreviate(raw))
    # The usual case first: the answer to the open request, readable. Abbreviating the
    # bytes for a fault is done only when there is a fault.
    if message.WhichOneof("body") == "answer" and message.answer.request_id == request_id:
        try:
            return answer_to_action(message.answer, kind)
        except EngineError:
            pass
    return decode_message(message, kind, request_id, abbreviate(message_text(message)))


def message_text(message: pb.BotMessage) -> str:
    """A well-formed message as the fault's ``sent``: protobuf's one-line text format
    (``answer { request_id: 6 bid: 0 }``), which escapes what is not printable; hex is
    for bytes that are no message."""
    return text_format.MessageToString(message, as_one_line=True)


def decode_message(
    message: pb.BotMessage, kind: DecisionKind, request_id: int, sent: str
) -> Decoded:
    """What a parsed ``BotMessage`` means while request ``request_id`` is open; ``sent`` is
    what the bot sent, abbreviated, for the fault (hex bytes over gRPC, a line over stdio)."""
    body = message.WhichOneof("body")
    if body != "answer":
        return Refusal(FaultKind.MALFORMED, f"expected an Answer, got {body}", sent)
    answer = message.answer
    if answer.request_id != request_id:
        if 0 < answer.request_id < request_id:
            return STALE
        return Refusal(
            FaultKind.WRONG_REQUEST,
            f"answer to request {answer.request_id}; the open request is {request_id}",
            sent,
        )
    try:
        return answer_to_action(answer, kind)
    except IllegalActionError as error:
        return Refusal(FaultKind.ILLEGAL, str(error), sent)
    except WrongKindError as error:
        return Refusal(FaultKind.WRONG_KIND, str(error), sent)
    except EngineError as error:
        return Refusal(FaultKind.MALFORMED, str(error), sent)
