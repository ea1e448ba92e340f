"""Judging a record's clock from the record alone (docs/GAME_RECORD.md, *Judging the
clock*): each seat's bank through the game, each timed decision's limit and charge, and
whether the record's timeouts and accepted late answers agree with them."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import Game, ReplayMismatchError, to_record
from arena.engine.randomplay import random_action
from arena.engine.record import (
    TIMEOUT_FAULT,
    DecisionNote,
    Fallback,
    TimeControl,
    judge_clock,
)

CONTROL = TimeControl(decision_ms=1000, overage_ms=500)
TIMEOUT = Fallback(TIMEOUT_FAULT, "no answer within 1000 ms plus the bank")

# Seat 0's first decisions: (seconds, credit, timed out) and what the record alone says of
# each: its bank before (ms), its limit (s), and whether the verdict agrees with the times.
SCENARIO: list[tuple[tuple[float, float, bool], tuple[float, float, bool]]] = [
    ((1.2, 0.0, False), (500, 1.5, True)),  # 0.2 s over its time: from the bank
    ((2.0, 1.0, False), (300, 1.3, True)),  # a late answer accepted for its credit
    ((1.9, 0.5, True), (300, 1.3, True)),  # charged 1.4 s: a timeout, the bank emptied
    ((0.9, 0.0, False), (0, 1.0, True)),
    ((1.1, 0.0, False), (0, 1.0, False)),  # accepted after its limit: wrong
    ((0.5, 0.0, True), (0, 1.0, False)),  # a timeout before its limit: wrong
]


def game_of(seed: int) -> Game:
    rng = random.Random(seed)
    game = Game(seed=seed)
    while not game.is_over:
        game.apply(random_action(game, rng))
    return game


def seat0_scenario_record() -> dict[str, Any]:
    """A finished game whose seat 0 played the scenario first, every other decision quick."""
    game = game_of(3)
    notes: list[DecisionNote] = []
    rows = iter(SCENARIO)
    for seat, _ in game.history:
        row = next(rows, None) if seat == 0 else None
        if row is None:
            notes.append(DecisionNote(0.01, None, 0.0))
            continue
        (seconds, credit, timed_out), _ = row
        notes.append(DecisionNote(seconds, TIMEOUT if timed_out else None, credit))
    assert next(rows, None) is None, "seat 0 has fewer decisions than the scenario"
    return to_record(game, None, notes, CONTROL)


def test_each_decision_is_judged_against_the_bank_its_seat_had() -> None:
    judged = [d for d in judge_clock(seat0_scenario_record()) if d.seat == 0][: len(SCENARIO)]
    for decision, ((seconds, credit, timed_out), (bank_ms, limit, agrees)) in zip(
        judged, SCENARIO, strict=True
    ):
        assert (decision.seconds, decision.credit, decision.timed_out) == (
            seconds,
            credit,
            timed_out,
        )
        assert decision.bank_ms == pytest.approx(bank_ms)
        assert decision.limit == pytest.approx(limit)
        assert decision.charged == pytest.approx(seconds - credit)
        assert decision.agrees is agrees, decision


def test_other_seats_keep_their_own_banks() -> None:
    others = [d for d in judge_clock(seat0_scenario_record()) if d.seat != 0]
    assert others and all(d.bank_ms == CONTROL.overage_ms and d.agrees for d in others)


def test_auto_played_and_undelivered_decisions_are_not_judged() -> None:
    game = game_of(5)
    gone = Fallback("closed", "the seat is auto-played for the rest of the match")
    notes = [
        DecisionNote(None, gone) if seat == 2 else DecisionNote(0.02) for seat, _ in game.history
    ]
    judged = judge_clock(to_record(game, None, notes, CONTROL))
    assert len(judged) == sum(seat != 2 for seat, _ in game.history)
    assert all(d.seat != 2 and d.credit == 0.0 for d in judged)


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r.pop("time_control"),
        lambda r: r.__setitem__("version", 4),
    ],
)
def test_a_record_without_time_control_or_credits_is_not_judged(change: Any) -> None:
    record = seat0_scenario_record()
    change(record)
    with pytest.raises(ReplayMismatchError, match="can be judged"):
        judge_clock(record)


def test_a_malformed_decision_is_refused() -> None:
    record = copy.deepcopy(seat0_scenario_record())
    record["deals"][0]["decisions"][0]["credit"] = "0.1"
    with pytest.raises(ReplayMismatchError, match="credit"):
        judge_clock(record)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), times=st.lists(st.floats(0, 3), min_size=1, max_size=400))
def test_banks_only_shrink_and_limits_stay_within_the_time_control(
    seed: int, times: list[float]
) -> None:
    """Whatever the times and marks: a seat's bank never grows within a game, is empty
    after its timeout, and every limit lies between the bare time and time plus bank."""
    rng = random.Random(seed)
    game = game_of(seed % 50)
    notes = []
    for i in range(len(game.history)):
        seconds = times[i % len(times)]
        timed_out = rng.random() < 0.05
        notes.append(DecisionNote(seconds, TIMEOUT if timed_out else None, seconds * rng.random()))
    judged = judge_clock(to_record(game, None, notes, CONTROL))
    assert len(judged) == len(game.history)
    last: dict[int, tuple[float, bool]] = {}
    for decision in judged:
        assert CONTROL.decision_ms / 1000 <= decision.limit
        assert decision.limit <= (CONTROL.decision_ms + CONTROL.overage_ms) / 1000
        assert decision.charged <= decision.seconds
        if decision.seat in last:
            bank, timed_out = last[decision.seat]
            assert decision.bank_ms <= bank
            assert not timed_out or decision.bank_ms == 0.0
        last[decision.seat] = (decision.bank_ms, decision.timed_out)
