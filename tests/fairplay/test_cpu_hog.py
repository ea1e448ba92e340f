"""The fair clock both ways: a bot that burns every core loses only its own games (issue:
fair play, round two, item 4), and a bot whose own children spin earns no credit for it
(round three, finding 7), with the default options.

``bots/cpu_hog`` starts a hundred busy children, each in a session of its own, before it
joins, and plays team 0 (seats 0 and 3: two hogs). The same match is played with the
``random`` sample in its place. Each bot has a cgroup of its own with the same CPU weight
and a quota, and the referee does not charge a seat for time other bots' load kept it
off the CPU: the other seats record no fault in either match, and their decisions stay
far inside their time. Both matches' figures are printed for the record.

``bots/self_hog`` sleeps through its first decisions at seat 0, each longer than the
decision time and the bank together, while a hundred children of its own spin: its own
processes' contention is never credited, so each of those decisions times out, and the
record alone judges every decision of the game (``judge_clock``).
"""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from arena.bots import load_bot
from arena.bots.cgroup import hierarchies
from arena.bots.samples import sample_bots_dir
from arena.engine.record import TIMEOUT_FAULT, judge_clock
from arena.referee.policy import FaultKind
from arena.referee.table import TableSettings
from arena.tournament.play import PlayResult, play_one_game

BOTS = Path(__file__).resolve().parent / "bots"
SAMPLES = sample_bots_dir()
VICTIMS = (1, 2, 4, 5)
SETTINGS = TableSettings()  # the defaults: 1 s a decision, a 10 s bank, 10 s to join

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(autouse=True)
def _confinement_works(sandbox_required: None) -> None:
    if not any("cpu" in h.controllers for h in hierarchies()):
        pytest.skip(
            "this machine lets the arena make no cpu cgroup (docs/SECURITY.md: limits without it)"
        )


def play(first: str, out: Path, settings: TableSettings = SETTINGS) -> PlayResult:
    entrants = [load_bot(first), load_bot(SAMPLES / "greedy"), load_bot(SAMPLES / "lowest")]
    result = play_one_game(entrants, 11, out, settings)
    misjudged = [d for d in judge_clock(result.report.record) if not d.agrees]
    assert misjudged == [], misjudged  # the record alone judges every decision
    return result


def victims_seconds(result: PlayResult) -> list[float]:
    return [
        result.report.seats[seat].decision_seconds_total / result.report.seats[seat].decisions
        for seat in VICTIMS
    ]


@pytest.mark.slow
def test_a_hog_makes_no_other_seat_fault_or_wait(tmp_path: Path) -> None:
    calm = play(str(SAMPLES / "random"), tmp_path / "calm")
    hogged = play(str(BOTS / "cpu_hog"), tmp_path / "hogged")
    for result in (calm, hogged):
        assert [f for f in result.report.faults if f.seat in VICTIMS] == [], result.report.faults
        assert all(result.report.seats[seat].decisions > 0 for seat in VICTIMS)
    calm_mean = statistics.mean(victims_seconds(calm))
    hogged_mean = statistics.mean(victims_seconds(hogged))
    hogged_max = max(hogged.report.seats[seat].decision_seconds_max for seat in VICTIMS)
    print(
        f"victims' mean decision time: {calm_mean * 1000:.1f} ms without the hog, "
        f"{hogged_mean * 1000:.1f} ms with it (slowest {hogged_max * 1000:.0f} ms); "
        f"game {calm.report.duration_s:.1f} s and {hogged.report.duration_s:.1f} s"
    )
    # Far inside the 1 s a decision: nowhere near a timeout, even with both cores busy.
    assert hogged_mean < SETTINGS.decision_ms / 1000 / 4, hogged_mean


# bots/self_hog sleeps 1.5 s at each of seat 0's first four decisions: more than its
# decision time and bank together, so that only a credit could save it.
SELF_HOG_SLEEPS = 4
SHORT = TableSettings(decision_ms=500, overage_ms=500)


@pytest.mark.slow
def test_a_seat_s_own_spinning_children_earn_it_no_credit(tmp_path: Path) -> None:
    result = play(str(BOTS / "self_hog"), tmp_path / "self_hog", SHORT)
    record = result.report.record
    seat0 = [d for deal in record["deals"] for d in deal["decisions"] if d["seat"] == 0]
    slept = seat0[:SELF_HOG_SLEEPS]
    print(
        "self_hog's sleeping decisions: "
        + ", ".join(f"{d['seconds']:.3f} s (credit {d['credit']:.3f} s)" for d in slept)
    )
    assert all(d["fallback"] and d["fallback"]["fault"] == TIMEOUT_FAULT for d in slept), slept
    timeouts = [f for f in result.report.faults if f.seat == 0 and f.kind is FaultKind.TIMEOUT]
    assert len(timeouts) >= SELF_HOG_SLEEPS
