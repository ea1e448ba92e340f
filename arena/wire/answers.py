"""Reading a bot's answer: one ``BotMessage``, bytes or a JSON line, becomes an action or refusal.

The referee never parses a bot's bytes itself: it hands them here with the decision it
asked for and its open request id, and gets back the action, a marker for a late answer
to an earlier request, or a ``Refusal`` saying which fault the bytes are and why. A gRPC
seat's message is protobuf's bytes (``decode_answer``); a stdio seat's is a line of JSON
(``decode_line``), read straight into the action when it is an answer in the usual form
(``arena.wire.jsonlines.answer_fields``), and otherwise by protobuf's JSON mapping.

The fault kinds live here because they are protocol words: a ``Notice`` tells a bot the
kind by its value (docs/PROTOCOL.md). What the referee does about each kind is its own
policy (``arena.referee.policy``).
"""

from __future__ import annotations

import json

from google.protobuf import text_format
from google.protobuf.message import DecodeError

from arena.engine import Action, DecisionKind, EngineError, IllegalActionError
from arena.v1 import arena_pb2 as pb

from .faults import SENT_LIMIT, STALE, FaultKind, Refusal, Stale, abbreviate, clip
from .jsonlines import answer_fields
from .pbjson import from_json
from .protocol import WrongKindError, answer_to_action
from .values import action_of

__all__ = [
    "SENT_LIMIT",
    "STALE",
    "Decoded",
    "FaultKind",
    "Refusal",
    "Stale",
    "abbreviate",
    "decode_answer",
    "decode_line",
    "decode_message",
    "message_text",
    "read_line",
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


def read_line(line: bytes) -> tuple[object, str] | Refusal:
    """A stdio bot's line (without its newline) as its JSON value and its text, or the
    refusal of a line that is not JSON in UTF-8 (what was sent kept as text, or as hex)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        reason = "a line that is not UTF-8 (kept as hex)"
        return Refusal(FaultKind.MALFORMED, reason, abbreviate(line))
    try:
        return json.loads(text), text
    except ValueError as error:  # JSONDecodeError, and digits past int's limit
        reason = f"not a BotMessage in JSON ({clip(str(error))})"
    except RecursionError:
        reason = "not a BotMessage in JSON (nested too deeply)"
    return Refusal(FaultKind.MALFORMED, reason, abbreviate(text))


def read_message(data: object, text: str) -> pb.BotMessage | Refusal:
    """A line's JSON value as a ``BotMessage`` by protobuf's JSON mapping (the proto's names,
    enum numbers and numeric ids too; an unknown field is an error), or its refusal."""
    try:
        return from_json(data, pb.BotMessage())
    except Exception as error:  # json_format's ParseError, or anything it raises: never fatal
        reason = f"not a BotMessage in JSON ({clip(str(error)) or type(error).__name__})"
        return Refusal(FaultKind.MALFORMED, reason, abbreviate(text))


def decode_line(line: bytes, kind: DecisionKind, request_id: int) -> Decoded:
    """What one line of a stdio bot means while request ``request_id`` is open."""
    read = read_line(line)
    if isinstance(read, Refusal):
        return read
    data, text = read
    # The usual case first: the open request's answer in the form the SDK writes.
    fields = answer_fields(data)
    if fields is not None and fields[0] == request_id:
        try:
            return action_of(kind, fields[1], fields[2])
        except EngineError:
            pass  # the refusal's words are the mapping's, below
    message = read_message(data, text)
    if isinstance(message, Refusal):
        return message
    return decode_message(message, kind, request_id, abbreviate(text))


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
