"""``arena bench stats`` in a quick mode: every figure line is printed, every rate in [0, 1].

No timing and no statistical verdict is asserted: the study prints figures (README,
"The statistics study"); with a handful of seeds they mean little.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from arena.bench.inprocess import load_python_bot, play_game_in_process
from arena.bench.stats import Coverage, NoisyBot, SeedGroup, coverage, tilted
from arena.bots.samples import sample_bot
from arena.cli import app
from arena.engine import Action
from arena.sdk.bot import Decision

pytestmark = pytest.mark.timeout(300)

QUICK = ("--seeds", "4", "--null-seeds", "2", "--run-seeds", "2", "--runs", "20")
QUICK += ("--tests", "3", "--max-groups", "8", "--jobs", "2")


def test_the_quick_study_prints_every_figure_as_a_fraction() -> None:
    result = CliRunner().invoke(app, ["bench", "stats", *QUICK], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    out = result.stdout
    fractions: list[float] = []
    for pattern in (
        r"^coverage over fresh runs: seed bootstrap ([\d.]+), Wilson per game ([\d.]+) ",
        r"^coverage over drawn runs: seed bootstrap ([\d.]+), Wilson per game ([\d.]+) ",
        r"^false-positive rate at equal strength: ([\d.]+) ",
        r"^power at the margin: ([\d.]+) ",
        r"^truth: G's win rate ([\d.]+) .*G's group score against N ([\d.]+) ",
    ):
        match = re.search(pattern, out, re.MULTILINE)
        assert match is not None, f"no line {pattern!r} in:\n{out}"
        fractions += [float(figure) for figure in match.groups()]
    sweep = re.search(
        r"^coverage over drawn runs by seeds per run \(seed bootstrap / Wilson per game\): "
        r"(.*)$",
        out,
        re.M,
    )
    assert sweep is not None, out
    pairs = re.findall(r"(\d+): ([\d.]+) / ([\d.]+)", sweep.group(1))
    assert [int(seeds) for seeds, _, _ in pairs] == [5, 10, 20, 40]
    fractions += [float(x) for _, *figures in pairs for x in figures]
    assert all(0.0 <= x <= 1.0 for x in fractions), fractions
    needed = re.search(
        r"^games needed at G's true advantage [+-][\d.]+: median (\d+) games with duplicate "
        r"seed groups, (\d+) with independent deals; ratio ([\d.]+)",
        out,
        re.M,
    )
    assert needed is not None, out
    assert int(needed.group(1)) % 24 == 0  # whole looks of four seed groups of six games
    at_the_margin = re.search(
        r"^games needed at the margin \(both tilted to a group score of 0.55\): median (\d+) "
        r"games with duplicate seed groups, (\d+) with independent deals; ratio ([\d.]+)",
        out,
        re.M,
    )
    assert at_the_margin is not None, out
    spreads = re.search(r"a group's score SD ([\d.]+) and ([\d.]+);", out)
    assert spreads is not None, out
    assert all(0.0 <= float(sd) <= 0.5 for sd in spreads.groups())  # a score lies in [0, 1]
    assert re.search(r"rerun: arena bench stats --seeds 4 --null-seeds 2 ", out), out


def test_an_impossible_size_is_refused() -> None:
    result = CliRunner().invoke(app, ["bench", "stats", "--p", "1.5"])
    assert result.exit_code != 0
    assert "--p is a probability" in " ".join(result.stderr.split())


def test_tilting_reaches_the_asked_mean_and_saturates_outside_the_values() -> None:
    values = [0.25, 0.5, 0.5, 0.75, 1.0]
    weights = tilted(values, 0.7)
    assert weights.sum() == pytest.approx(1.0)
    assert float(weights @ np.asarray(values)) == pytest.approx(0.7, abs=1e-9)
    assert float(tilted(values, 2.0) @ np.asarray(values)) == pytest.approx(1.0)


def test_coverage_counts_the_runs_whose_interval_holds_the_truth() -> None:
    # Every seed alike: the seed bootstrap's interval is the point, Wilson's is wide.
    groups = [SeedGroup(strong_wins=3.0, strong_places=9, seating_points=(1.0,) * 6)] * 8
    runs = [list(range(8))] * 3
    at_the_value = coverage(groups, runs, 3 / 9)
    assert at_the_value == Coverage(3, 8, 1.0, 1.0, 0.0, at_the_value.wilson_width)
    beside = coverage(groups, runs, 0.4)
    assert (beside.bootstrap, beside.wilson) == (0.0, 1.0)


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
