"""The rule that tells a bot's missed join from the arena's own trouble (policy.arena_trouble)."""

from __future__ import annotations

import pytest

from arena.referee.policy import JoinState, arena_trouble

J, X, S, N, M = (
    JoinState.JOINED,
    JoinState.EXITED,
    JoinState.SILENT,
    JoinState.NOT_STARTED,
    JoinState.MANUAL,
)


@pytest.mark.parametrize(
    ("seats", "arenas"),
    [
        ([J] * 6, False),
        ([X, J, J, X, J, J], False),  # a bot that crashes at start: its own fault
        ([S, J, J, S, J, J], False),  # too slow while its table-mates joined: its own
        ([X] * 6, False),  # every process ended by itself: the bots', whoever they are
        ([S, X, X, S, X, X], True),  # nobody joined and some still ran: the machine
        ([S] * 6, True),
        ([J, J, J, J, J, N], True),  # the machine could not start a process
        ([M, S, S, S, S, S], True),  # a seat left for a person is not judged
        ([M, J, S, S, S, S], False),
    ],
)
def test_whose_trouble_a_missed_join_is(seats: list[JoinState], arenas: bool) -> None:
    reason = arena_trouble(seats, 10.0)
    assert (reason is not None) is arenas, reason
    if reason is not None:
        assert "could not start" in reason or "no seat joined within its 10 s" in reason
