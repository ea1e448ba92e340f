"""``arena bench engine --against REV``: both engines play, in alternation, and the ratio.

Tests never time anything: they check that the figures are printed and hold together.
"""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from arena.bench.engine import (
    compare_engines,
    revision_tree,
    search_cost_lines,
    search_positions,
)

# The engine before the speed work: its tree has the same benchmark entry point.
BASELINE = "eb3dbeb"


def test_a_revision_and_this_tree_play_the_same_rounds_in_alternation() -> None:
    comparison = compare_engines(BASELINE, games=3, rounds=2, seed=5)
    assert [r.games for r in comparison.ours] == [3, 3]
    assert [r.games for r in comparison.theirs] == [3, 3]
    assert all(r.decisions > 0 and r.seconds > 0 for r in comparison.ours + comparison.theirs)
    lines = comparison.lines()
    assert (
        len(
            re.findall(
                r"^round \d: this tree [\d,]+, eb3dbeb [\d,]+ decisions per CPU",
                "\n".join(lines),
                re.M,
            )
        )
        == 2
    )
    ratio = re.fullmatch(r"ratio: ([\d.]+) \(this tree / eb3dbeb, medians\); .*", lines[-1])
    assert ratio is not None, lines
    assert float(ratio.group(1)) == pytest.approx(comparison.ratio, abs=0.01)


@pytest.mark.parametrize(("options", "rounds"), [([], 5), (["--against", BASELINE], 9)])
def test_a_comparison_plays_nine_rounds_by_default_and_the_engine_alone_five(
    options: list[str], rounds: int
) -> None:
    """A comparison's single rounds swing widely, so ``--against`` takes the median of
    more rounds unless told otherwise."""
    from arena.cli import app

    result = CliRunner().invoke(
        app, ["bench", "engine", "--games", "1", "--positions", "0", *options]
    )
    assert result.exit_code == 0, result.output
    assert len(re.findall(r"^round", result.output, re.M)) == rounds, result.output


def test_an_unknown_revision_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="no-such-revision"), revision_tree("no-such-revision"):
        pass


def test_search_costs_are_printed_per_call() -> None:
    assert all(not game.is_over for game in search_positions(5, 1))
    lines = search_cost_lines(3, 1)
    assert re.fullmatch(r"Game\.copy\(\): [\d.]+ µs per call \(mean over \d positions .*", lines[0])
    assert (
        re.fullmatch(
            r"determinize\(view, rng\): [\d,]+ µs per call; .* [\d,]+ µs per further sample",
            lines[1],
        )
        or lines[1] == "determinize: not in this engine"
    )
