"""``arena bench pimc`` prints decisions/s and the median and maximum time per decision."""

from __future__ import annotations

import re

import pytest

from arena.bench.pimc import bench_pimc


@pytest.mark.slow
def test_bench_pimc_prints_its_figures() -> None:
    figures = bench_pimc(games=1, seed=3, budget_ms=20)
    assert figures.seconds and len(figures.seconds) == len(figures.samples)
    assert any(figures.samples), "no decision was searched"
    lines = figures.lines()
    assert re.fullmatch(r"pimc decisions/s: \d+\.\d", lines[1])
    assert re.fullmatch(r"time per decision: median \d+\.\d ms, max \d+\.\d ms", lines[2])
    assert lines[0].startswith("pimc (seats 0, 3) vs greedy: 1 games, ")
    assert "budget 20 ms" in lines[0]
