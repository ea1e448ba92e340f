"""What the referee does when a bot is late or wrong: fault kinds and fallback actions.

Every fault is recorded, told to the bot in a ``Notice``, and answered by playing the
documented deterministic fallback (:mod:`.fallback`) in the bot's place (docs/PROTOCOL.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .fallback import fallback_action

__all__ = ["Fault", "FaultKind", "fallback_action"]


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


@dataclass(frozen=True)
class Fault:
    """One recorded fault: who, what, why, and what the referee played instead."""

    game_index: int
    deal_number: int
    seat: int
    kind: FaultKind
    reason: str
    sent: str = ""  # what the bot sent, abbreviated
    fallback: str = ""
