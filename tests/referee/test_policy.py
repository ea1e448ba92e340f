"""One table says what the referee does about each fault kind (``policy.POLICY``); the
table covers every kind, says what docs/PROTOCOL.md says, and is what the table does."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from arena.referee.policy import (
    ANSWERS_IN_TIME,
    ANSWERS_LEGALLY,
    JOINS,
    POLICY,
    STAYS_CONNECTED,
    SUBMISSION_CHECKS,
    FaultKind,
    FaultPolicy,
)
from arena.referee.table import Table, TableSettings
from arena.seats.grpc_seat import GrpcChannel
from arena.seats.link import SeatLink

PROTOCOL = Path(__file__).parents[2] / "docs" / "PROTOCOL.md"

# kind: (auto_play, late_answer_expected, notice, empties_bank, plays_fallback, check)
DOCUMENTED: dict[FaultKind, tuple[bool, bool, bool, bool, bool, str]] = {
    FaultKind.ILLEGAL: (False, False, True, False, True, ANSWERS_LEGALLY),
    FaultKind.WRONG_REQUEST: (False, True, True, False, True, ANSWERS_LEGALLY),
    FaultKind.WRONG_KIND: (False, False, True, False, True, ANSWERS_LEGALLY),
    FaultKind.MALFORMED: (False, True, True, False, True, ANSWERS_LEGALLY),
    FaultKind.TIMEOUT: (False, True, True, True, True, ANSWERS_IN_TIME),
    FaultKind.FLOOD: (False, False, True, False, False, ANSWERS_LEGALLY),
    FaultKind.CLOSED: (True, False, False, False, True, STAYS_CONNECTED),
    FaultKind.NO_JOIN: (True, False, False, False, False, JOINS),
    FaultKind.STALLED: (True, False, False, False, True, ANSWERS_IN_TIME),
}


def test_the_policy_covers_every_fault_kind_and_every_check_is_reachable() -> None:
    assert set(POLICY) == set(FaultKind)
    assert {p.check for p in POLICY.values()} == set(SUBMISSION_CHECKS)


@pytest.mark.parametrize("kind", list(FaultKind))
def test_the_policy_of_each_kind_is_the_documented_one(kind: FaultKind) -> None:
    assert POLICY[kind] == FaultPolicy(*DOCUMENTED[kind])
    row = re.search(rf"^\| `{kind.value}` \|.*\| (?P<after>[^|]*) \|$", PROTOCOL.read_text(), re.M)
    assert row is not None, f"docs/PROTOCOL.md has no row for {kind.value}"
    after = row["after"]
    assert ("auto-played" in after) is POLICY[kind].auto_play, after
    assert ("bank emptied" in after) is POLICY[kind].empties_bank, after


@pytest.mark.parametrize("kind", list(FaultKind))
def test_the_table_does_what_the_policy_says(kind: FaultKind) -> None:
    links = [SeatLink(seat, f"token-{seat}", time.monotonic() + 5) for seat in range(6)]
    channels = [GrpcChannel(link) for link in links]
    table = Table("m", channels, [1], TableSettings(), ["a", "b", "c"])
    state = table.seats[1]
    state.bank_ms = 500.0
    table._fault(state, kind, "why", "sent", "fallback", 7)
    policy = POLICY[kind]
    assert state.auto is policy.auto_play
    assert state.unanswered == (1 if policy.late_answer_expected else 0)
    assert state.bank_ms == (0.0 if policy.empties_bank else 500.0)
    expected = [(kind.value, "why", 7, "fallback")] if policy.notice else []
    assert [(n.kind, n.reason, n.request_id, n.fallback) for n in state.notices] == expected
    (fault,) = table.faults
    assert (fault.seat, fault.kind, fault.reason) == (1, kind, "why")
    assert (fault.sent, fault.fallback, fault.request_id) == ("sent", "fallback", 7)
