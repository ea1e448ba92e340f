"""Reading a bot's answer: the raw bytes of one ``BotMessage`` become an action or a refusal.

The referee never parses a bot's bytes itself: it hands them here with the decision it
asked for and its open request id, and gets back the action, a marker for a late answer
to an earlier request, or a ``Refusal`` saying which fault the bytes are and why.

The fault kinds live here because they are protocol words: a ``Notice`` tells a bot the
kind by its value (docs/PROTOCOL.md). What the referee does about each kind is its own
policy (``arena.referee.policy``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

from google.protobuf.message import DecodeError

from arena.engine import Action, DecisionKind, EngineError, IllegalActionError
from arena.v1 import arena_pb2 as pb

from .protocol import WrongKindError, answer_to_action

__all__ = ["STALE", "Decoded", "FaultKind", "Refusal", "Stale", "abbreviate", "decode_answer"]

SENT_LIMIT: Final = 120  # how much of what a bot sent is kept with its fault


class FaultKind(Enum):
    ILLEGAL = "illegal"  # a well-formed answer the rules forbid (the reason cites the rule)
    WRONG_REQUEST = "wrong_request"  # an answer whose request id is not the open request
    WRONG_KIND = "wrong_kind"  # an answer for another kind of decision (wrong phase)
    MALFORMED = "malformed"  # bytes that are not a BotMessage, or an unreadable answer
    TIMEOUT = "timeout"  # no answer within the decision time plus the overage bank
    FLOOD = "flood"  # messages sent while no decision was open, beyond a small allowance
    CLOSED = "closed"  # the stream closed or the process died; auto-played from then on
    NO_JOIN = "no_join"  # the seat did not join before the join deadline; auto-played
    STALLED = "stalled"  # the bot stopped reading its messages; auto-played from then on


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why what a bot sent (or did not send) cannot stand as its answer."""

    kind: FaultKind
    reason: str
    sent: str = ""  # what the bot sent, abbreviated (``abbreviate``)


class Stale(Enum):
    """An answer to an earlier request than the open one: not this decision's answer."""

    ANSWER = "stale"


STALE: Final = Stale.ANSWER

Decoded = Action | Stale | Refusal


def decode_answer(raw: bytes, kind: DecisionKind, request_id: int) -> Decoded:
    """What one ``BotMessage`` from a bot means while request ``request_id`` is open."""
    try:
        message = pb.BotMessage.FromString(raw)
    except DecodeError:
        return Refusal(FaultKind.MALFORMED, "not a BotMessage", abbreviate(raw))
    body = message.WhichOneof("body")
    if body != "answer":
        return Refusal(FaultKind.MALFORMED, f"expected an Answer, got {body}", abbreviate(raw))
    answer = message.answer
    if answer.request_id != request_id:
        if 0 < answer.request_id < request_id:
            return STALE
        return Refusal(
            FaultKind.WRONG_REQUEST,
            f"answer to request {answer.request_id}; the open request is {request_id}",
            abbreviate(raw),
        )
    try:
        return answer_to_action(answer, kind)
    except IllegalActionError as error:
        return Refusal(FaultKind.ILLEGAL, str(error), abbreviate(raw))
    except WrongKindError as error:
        return Refusal(FaultKind.WRONG_KIND, str(error), abbreviate(raw))
    except EngineError as error:
        return Refusal(FaultKind.MALFORMED, str(error), abbreviate(raw))


def abbreviate(raw: bytes | str, limit: int = SENT_LIMIT) -> str:
    """Bytes as hex (text as it is), cut to ``limit`` characters with a mark if cut."""
    text = raw if isinstance(raw, str) else raw[:limit].hex()
    return text[:limit] + ("…" if len(raw) > limit else "")
