"""A bot that burns every core loses only its own games (issue: fair play, round two,
item 4), with the default options.

``bots/cpu_hog`` starts a hundred busy children, each in a session of its own, before it
joins, and plays team 0 (seats 0 and 3: two hogs). The same match is played with the
``random`` sample in its place. Each bot has a cgroup of its own with the same CPU weight
and a quota, and the referee does not charge a seat for time other bots' load kept it
off the CPU: the other seats record no fault in either match, and their decisions stay
far inside their time. Both matches' figures are printed for the record.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from arena.bots import load_bot
from arena.bots.cgroup import hierarchies
from arena.bots.samples import sample_bots_dir
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


def play(first: str, out: Path) -> PlayResult:
    entrants = [load_bot(first), load_bot(SAMPLES / "greedy"), load_bot(SAMPLES / "lowest")]
    return play_one_game(entrants, 11, out, SETTINGS)


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
