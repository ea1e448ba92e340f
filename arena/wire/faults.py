"""The fault kinds and a refused answer: protocol words with no generated code behind them.

A ``Notice`` tells a bot its fault's kind by its value (docs/PROTOCOL.md, "Faults"), so the
kinds belong to the protocol; they are kept apart from the protobuf side of the wire so
that the table, which knows them, never imports generated code (``pyproject.toml``'s
import-linter contracts). What the referee does about each kind is its own policy
(``arena.referee.policy``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

__all__ = ["SENT_LIMIT", "STALE", "FaultKind", "Refusal", "Stale", "abbreviate"]

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


def abbreviate(raw: bytes | str, limit: int = SENT_LIMIT) -> str:
    """Bytes as hex (text as it is), cut to ``limit`` characters with a mark, ``…``,
    whenever anything is cut."""
    if isinstance(raw, str):
        text, length = raw, len(raw)
    else:  # two hex digits a byte: only what can show is converted
        text, length = raw[: limit // 2 + 1].hex(), 2 * len(raw)
    return text[:limit] + ("…" if length > limit else "")
