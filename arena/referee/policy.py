"""What the referee does when a bot is late or wrong: one policy per fault kind.

Every fault is recorded with what the bot sent and what was played instead (``Fault``).
``POLICY`` says, for each kind, everything else the referee does about it: whether the
seat is auto-played from then on, whether the bot's own answer may still arrive late,
whether the bot is told in a ``Notice``, whether its time bank is emptied, whether the
documented deterministic fallback (:mod:`.fallback`) is played in its place, and which
submission check the fault fails (docs/PROTOCOL.md, "Faults").

``arena_trouble`` is the rule that tells a bot's fault from the arena's own trouble
before a match plays: a match the arena could not give its bots is replayed, never
scored (docs/PROTOCOL.md, "Faults").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Final

from arena.wire.faults import FaultKind

from .fallback import fallback_action

__all__ = [
    "POLICY",
    "SUBMISSION_CHECKS",
    "ArenaTrouble",
    "Fault",
    "FaultKind",
    "FaultPolicy",
    "JoinState",
    "arena_trouble",
    "fallback_action",
]

# The checks ``arena submit`` reports, in order; each fault kind fails exactly one of them.
JOINS: Final = "starts and joins within the deadline"
ANSWERS_LEGALLY: Final = "answers every decision legally"
ANSWERS_IN_TIME: Final = "answers in time"
STAYS_CONNECTED: Final = "stays connected until the match ends"
SUBMISSION_CHECKS: Final = (JOINS, ANSWERS_LEGALLY, ANSWERS_IN_TIME, STAYS_CONNECTED)


@dataclass(frozen=True, slots=True)
class FaultPolicy:
    """What the referee does about one kind of fault, besides recording it."""

    auto_play: bool  # the seat is auto-played (fallbacks) for the rest of the match
    # The request ended without its answer, which may still come: one late answer to it
    # is expected and dropped, not counted as a flood.
    late_answer_expected: bool
    notice: bool  # the bot is told (a bot that is gone or not reading cannot be)
    empties_bank: bool  # the overage bank is spent: the next requests get the bare time
    # The fault can end an open request, and then the fallback is played in the bot's
    # place; the other kinds happen between requests (and a seat they switch to
    # auto-play gets the fallback at each of its turns).
    plays_fallback: bool
    check: str  # the submission check the fault fails (one of SUBMISSION_CHECKS)


def _answer_fault(late_answer_expected: bool = False) -> FaultPolicy:
    return FaultPolicy(
        auto_play=False,
        late_answer_expected=late_answer_expected,
        notice=True,
        empties_bank=False,
        plays_fallback=True,
        check=ANSWERS_LEGALLY,
    )


def _gone(check: str, plays_fallback: bool = True) -> FaultPolicy:
    return FaultPolicy(
        auto_play=True,
        late_answer_expected=False,
        notice=False,
        empties_bank=False,
        plays_fallback=plays_fallback,
        check=check,
    )


POLICY: Final[Mapping[FaultKind, FaultPolicy]] = MappingProxyType(
    {
        FaultKind.ILLEGAL: _answer_fault(),
        # The bot's answer to this request may still be on its way behind what was read.
        FaultKind.WRONG_REQUEST: _answer_fault(late_answer_expected=True),
        FaultKind.WRONG_KIND: _answer_fault(),
        FaultKind.MALFORMED: _answer_fault(late_answer_expected=True),
        # Like an answer fault, but the time is what was missed: the bank is spent.
        FaultKind.TIMEOUT: replace(
            _answer_fault(late_answer_expected=True), empties_bank=True, check=ANSWERS_IN_TIME
        ),
        # Between requests: nothing to play in the bot's place.
        FaultKind.FLOOD: replace(_answer_fault(), plays_fallback=False),
        FaultKind.CLOSED: _gone(STAYS_CONNECTED),
        FaultKind.NO_JOIN: _gone(JOINS, plays_fallback=False),
        FaultKind.STALLED: _gone(ANSWERS_IN_TIME),
    }
)


@dataclass(frozen=True)
class Fault:
    """One recorded fault: who, what, why, and what the referee played instead."""

    game_index: int
    deal_number: int
    seat: int
    kind: FaultKind
    reason: str
    sent: str = ""  # what the bot sent, abbreviated
    fallback: str = ""  # the action played in the bot's place, if one was
    request_id: int = 0  # the request the fault answered; 0 between requests
    # Index into its deal's "decisions" in the game record of the decision the fault
    # replaced with the fallback; None for a fault between decisions (docs/GAME_RECORD.md).
    decision_index: int | None = None


class JoinState(StrEnum):
    """How a seat's start ended, as its match sees it when the join deadlines are over."""

    JOINED = "joined"
    EXITED = "exited"  # its process ended by itself (or was ended by its own limits) first
    SILENT = "silent"  # its process ran to the deadline without joining
    NOT_STARTED = "not started"  # the machine could not start its process
    MANUAL = "manual"  # left open for a person (``arena play --manual``): not judged


class ArenaTrouble(RuntimeError):
    """A match the arena could not give its bots: nothing of it is scored; it is played
    again with the same deals (``arena.tournament.runner``), a bounded number of times."""


def arena_trouble(seats: Sequence[JoinState], join_timeout_s: float) -> str | None:
    """Why a match's start failed for a reason no bot is answerable for, or None.

    The rule (docs/PROTOCOL.md, "Faults"): a seat that never joins is its bot's fault
    (``no_join``) when a table-mate's bot did join: the machine let a bot in, each bot has
    its own CPU share, and time a seat was starved of the CPU is not counted against its
    deadline, so its author can fix it. It is the arena's trouble when the machine could
    not start a bot's process at all, or when no seat of the table joined, whatever the
    processes did next: a bot refused as late exits, one held off the CPU may run to its
    deadline, and a machine too busy for all six is no bot's doing.
    """
    if JoinState.NOT_STARTED in seats:
        count = seats.count(JoinState.NOT_STARTED)
        return f"the machine could not start {count} of the bots' processes"
    judged = [state for state in seats if state is not JoinState.MANUAL]
    if not judged or JoinState.JOINED in judged:
        return None
    running, ended = judged.count(JoinState.SILENT), judged.count(JoinState.EXITED)
    said = f"no seat joined within its {join_timeout_s:g} s"
    if not ended:
        return (
            f"{said} although {running} of the bots' processes were running "
            "(the machine was too busy to start them)"
        )
    return (
        f"{said} ({running} of the bots' processes still running, {ended} ended before "
        "joining): none got in, so the machine may have been too busy for all of them, "
        "and no bot is blamed"
    )
