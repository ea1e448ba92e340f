"""What the referee adds to a game record: each decision's time and its fallback mark.

Real bot processes over gRPC (the recorder bot of ``bots/botlib.py``, misbehaving where
``TEST_BOT_FAULT_<seat>`` says). Every fault that replaced a decision points, by deal
number and decision index, at a decision of the record marked as that fault's fallback;
no other decision is marked, except those of a seat auto-played after it went away.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.engine import replay
from arena.referee.policy import Fault, FaultKind

from .harness import FAST, MatchRun, check_games, recorder, run_match


def played(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    seats: tuple[int, ...],
    seeds: tuple[int, ...] = (1,),
) -> MatchRun:
    for seat in seats:
        monkeypatch.setenv(f"TEST_BOT_FAULT_{seat}", mode)
    run = run_match([recorder()] * 3, tmp_path / "logs", seeds=seeds, seed=seeds[0])
    check_games(run, games=len(seeds))  # every record replays, decisions checked
    return run


def decision_of(record: dict[str, Any], fault: Fault) -> dict[str, Any]:
    assert fault.decision_index is not None, fault
    decision: dict[str, Any] = record["deals"][fault.deal_number - 1]["decisions"][
        fault.decision_index
    ]
    return decision


def marked(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [d for deal in record["deals"] for d in deal["decisions"] if d["fallback"]]


@pytest.mark.slow
@pytest.mark.timeout(90)
def test_each_malformed_answer_is_a_marked_decision_its_fault_points_at(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = played(tmp_path, monkeypatch, "malformed", seats=(0, 3))
    (report,) = run.reports
    record = report.record
    assert report.faults and len(marked(record)) == len(report.faults)
    for fault in report.faults:
        decision = decision_of(record, fault)
        assert decision["seat"] == fault.seat
        assert decision["fallback"] == {
            "fault": FaultKind.MALFORMED.value,
            "reason": fault.reason,
            "sent": fault.sent,
        }
        assert decision["seconds"] is not None and decision["seconds"] >= 0
    # Every decision was asked of a bot that answered (rightly or not): each has its time.
    for deal in record["deals"]:
        assert all(isinstance(d["seconds"], float) for d in deal["decisions"])
    seat_time = sum(
        d["seconds"] for deal in record["deals"] for d in deal["decisions"] if d["seat"] == 1
    )
    assert seat_time == pytest.approx(report.seats[1].decision_seconds_total)


@pytest.mark.slow
@pytest.mark.timeout(90)
def test_a_timeout_is_marked_with_the_time_it_took(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = played(tmp_path, monkeypatch, "timeout", seats=(0,))
    (report,) = run.reports
    (fault,) = report.faults
    decision = decision_of(report.record, fault)
    assert decision["fallback"]["fault"] == "timeout" and decision["seat"] == 0
    assert decision["seconds"] >= (FAST.decision_ms + FAST.overage_ms) / 1000
    assert marked(report.record) == [decision]


@pytest.mark.slow
@pytest.mark.timeout(90)
def test_a_seat_gone_is_auto_played_and_every_later_decision_is_marked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot exits at its fifth decision: that decision is the ``closed`` fault's, and
    every later decision of the seat, in both games, is a fallback with no time."""
    run = played(tmp_path, monkeypatch, "exit", seats=(0,), seeds=(1, 2))
    first, second = run.reports
    (fault,) = first.faults
    closed = decision_of(first.record, fault)
    assert closed["fallback"]["fault"] == "closed" and closed["seat"] == 0
    decisions = [
        d for r in (first, second) for deal in r.record["deals"] for d in deal["decisions"]
    ]
    seat0 = [d for d in decisions if d["seat"] == 0]
    assert all(d["fallback"] is None and d["seconds"] is not None for d in seat0[:4])
    assert seat0[4] is closed
    later = seat0[5:]
    assert later and all(d["seconds"] is None for d in later)
    assert {d["fallback"]["fault"] for d in later} == {"closed"}
    assert all("auto-played" in d["fallback"]["reason"] for d in later)
    assert all(d["fallback"] is None for d in decisions if d["seat"] != 0)
    replay(second.record)
