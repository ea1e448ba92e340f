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

__all__ = [
    "REASON_LIMIT",
    "SENT_LIMIT",
    "STALE",
    "FaultKind",
    "Refusal",
    "Stale",
    "abbreviate",
    "clip",
]

SENT_LIMIT: Final = 120  # how much of what a bot sent is kept with its fault
REASON_LIMIT: Final = 160  # how much of a library's words a fault's reason quotes


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
    """What a bot sent, for its fault: text as it is, bytes that are no text (not UTF-8,
    not a message) as hex, two digits a byte. Whatever is cut is cut on a character
    boundary (a whole byte of hex) to ``limit`` characters, and marked with the whole
    length: ``…`` and ``(N characters)``, or ``(N bytes)``."""
    if isinstance(raw, str):
        if len(raw) <= limit:
            return raw
        return f"{raw[:limit]}… ({len(raw)} characters)"
    if 2 * len(raw) <= limit:
        return raw.hex()
    return f"{raw[: limit // 2].hex()}… ({len(raw)} bytes)"


def clip(words: str, limit: int = REASON_LIMIT) -> str:
    """Words for a fault's reason (a parser's message, say): the first line, cut after a
    whole word to at most ``limit`` characters, ``…`` where it was cut; never mid-word."""
    line = words.strip().split("\n", 1)[0].strip()
    if len(line) <= limit:
        return line
    cut = line[: limit + 1].rsplit(" ", 1)[0].rstrip(" ,;:")
    return (cut if cut and len(cut) <= limit else line[:limit]) + "…"
