"""``arena bench stats`` in a quick mode: every figure line is printed, every rate in [0, 1],
and the cells that miss are listed.

No timing is asserted, and no statistical verdict but ones far from chance: the study prints
figures (docs, "The statistics study"); with a handful of seeds they mean little.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from arena.bench.inprocess import load_python_bot, play_game_in_process
from arena.bench.stats import NoisyBot, SeedGroup, pair_scores, tilted, world_coverage
from arena.bots.samples import sample_bot
from arena.cli import app
from arena.engine import Action
from arena.sdk.bot import Decision

pytestmark = pytest.mark.timeout(300)

QUICK = ("--groups", "2", "--runs", "20", "--tests", "3", "--max-games", "96", "--jobs", "2")


def _line(out: str, pattern: str) -> re.Match[str]:
    match = re.search(pattern, out, re.MULTILINE)
    assert match is not None, f"no line {pattern!r} in:\n{out}"
    return match


@pytest.mark.slow  # plays 192 games: about a minute of CPU
def test_the_quick_study_prints_every_figure_and_the_cells_that_miss() -> None:
    result = CliRunner().invoke(app, ["bench", "stats", *QUICK], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    out = result.stdout
    for name in ("lopsided", "close", "noisy", "even"):
        pool = _line(out, rf"^pool {name}: NEW's unit score ([\d.]+); a unit's SD: group ([\d.]+)")
        assert all(0.0 <= float(x) <= 1.0 for x in pool.groups())
    for name in ("lopsided", "close", "noisy"):
        needed = _line(
            out,
            rf"^games needed, {name} at its own advantage [+-][\d.]+: 4c9cbd7's test on seed "
            r"groups (\d+), this test on seed groups (\d+), on swap pairs (\d+)",
        )
        old, groups, pairs = map(int, needed.groups())
        assert old % 24 == groups % 24 == 0  # whole looks of 24 games
        assert pairs % 24 == 0 or pairs == 96  # or the cap, whole pairs
        margin = _line(
            out, rf"^at the margin, {name} tilted to 0.55: .* power ([\d.]+) and ([\d.]+)"
        )
        assert all(0.0 <= float(x) <= 1.0 for x in margin.groups())
    # The lopsided pair is decided by betting: swap pairs at the first look, seed groups soon.
    lopsided = _line(
        out,
        r"^games needed, lopsided .*: 4c9cbd7's test on seed groups (\d+), "
        r"this test on seed groups (\d+), on swap pairs (\d+)",
    )
    assert int(lopsided.group(2)) <= 48 and int(lopsided.group(3)) == 24, out
    assert int(lopsided.group(1)) == 96  # the floored ratio: undecided at the cap
    _line(
        out,
        r"^at equal strength \(even, with its mirror image\): false positives with seed "
        r"groups [\d.]+, with swap pairs [\d.]+",
    )
    hard = _line(out, r"^hard score distributions .*: (.*)$").group(1)
    assert len(re.findall(r"[\d.]+ / [\d.]+", hard)) == 7
    cells = re.findall(
        r"^coverage over fresh runs, rate ([\d.]+), correlation ([\d.]+) .*: (.*)$", out, re.M
    )
    assert [(rate, c) for rate, c, _ in cells] == [
        (rate, c) for c in ("0.05", "0.3") for rate in ("0.020", "0.333", "0.667", "0.980")
    ]
    for _, _, row in cells:
        assert [int(n) for n in re.findall(r"(\d+) seeds", row)] == [5, 10, 20, 40]
        assert all(0.0 <= float(x) <= 1.0 for x in re.findall(r"seeds ([\d.]+) \(", row))
    # Three tests a case and 20 runs a cell: some cell misses, and the study says which.
    missing = _line(out, r"^cells that miss \((\d+)\): (.*)$")
    assert int(missing.group(1)) == len(missing.group(2).split("; "))
    assert re.search(r"rerun: arena bench stats --groups 2 --runs 20 ", out), out


def test_a_world_of_known_rate_is_covered_by_the_interval_most_of_the_time() -> None:
    """Fresh seeds of a world whose rate is known exactly: the interval holds it in most
    runs, at a middling rate and at one near 1 (never a point there), and runs of fewer
    than four seeds get none (``stats.MIN_SEEDS_FOR_INTERVAL``)."""
    rng = np.random.default_rng(5)
    middling = world_coverage(1 / 3, 10, 0.05, 200, rng)
    assert middling.covered >= 0.85 and middling.width > 0.0
    near_one = world_coverage(0.98, 10, 0.3, 200, rng)
    assert near_one.covered >= 0.85 and near_one.width > 0.0
    assert world_coverage(1 / 3, 3, 0.05, 50, rng).covered == 0.0


def test_swap_pairs_are_a_seating_and_its_mirror() -> None:
    # Points of NEW in each seating's two pairs, GROUP_SEATINGS order; seating s mirrors 5 - s.
    group = SeedGroup(new_wins=0.0, new_places=9, seating_points=(2.0, 1.0, 0.0, 2.0, 1.0, 0.5))
    assert list(pair_scores([group])) == [(2.0 + 0.5) / 4, (1.0 + 1.0) / 4, (0.0 + 2.0) / 4]
    assert group.score == 6.5 / 12


def test_an_impossible_size_is_refused() -> None:
    result = CliRunner().invoke(app, ["bench", "stats", "--max-games", "4"])
    assert result.exit_code != 0
    assert "--max-games must allow one seed group" in " ".join(result.stderr.split())


def test_tilting_reaches_the_asked_mean_and_saturates_outside_the_values() -> None:
    values = [0.25, 0.5, 0.5, 0.75, 1.0]
    weights = tilted(values, 0.7)
    assert weights.sum() == pytest.approx(1.0)
    assert float(weights @ np.asarray(values)) == pytest.approx(0.7, abs=1e-9)
    assert float(tilted(values, 2.0) @ np.asarray(values)) == pytest.approx(1.0)


class CheckedNoisyBot(NoisyBot):
    """Counts its decisions that are not among the legal ones."""

    illegal = 0

    def decide(self, decision: Decision) -> Action:
        action = super().decide(decision)
        CheckedNoisyBot.illegal += action not in decision.legal
        return action


def test_noisy_greedy_is_greedy_at_p_zero_and_plays_only_legal_cards() -> None:
    greedy = type(load_python_bot(sample_bot("greedy")))
    plain = play_game_in_process([greedy() for _ in range(6)], seed=5)
    same = play_game_in_process(
        [NoisyBot(greedy(), 0.0, random.Random(seat)) for seat in range(6)], seed=5
    )
    assert same.outcome == plain.outcome and len(same.events) == len(plain.events)
    noisy = play_game_in_process(
        [CheckedNoisyBot(greedy(), 1.0, random.Random(seat)) for seat in range(6)], seed=5
    )
    assert CheckedNoisyBot.illegal == 0
    assert [type(e) for e in noisy.events] != [type(e) for e in plain.events]
