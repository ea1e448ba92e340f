"""The CPU-per-decision figures: read from /proc, and printed for each tree (no timing)."""

from __future__ import annotations

import os
import subprocess
import sys

from arena.bench.cpu import CpuRound, comparison_lines, cpu_lines, tree_cpu_seconds


def test_a_process_tree_counts_its_children() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(5)"])
    try:
        (own,) = tree_cpu_seconds([os.getpid()])
        assert own >= 0.0
        assert tree_cpu_seconds([child.pid]) != []
        assert tree_cpu_seconds([2**22 + 7]) == [0.0]  # gone: nothing counted
    finally:
        child.kill()
        child.wait()


def _round(referee: float, bots: float) -> CpuRound:
    return CpuRound(1000, referee, bots, 1.2, {"random": 1e-5, "greedy": 1e-4})


def test_the_lines_give_each_tree_its_cpu_per_decision_and_the_ratios() -> None:
    ours = [_round(0.2, 0.4), _round(0.3, 0.5)]
    theirs = [_round(0.4, 1.0), _round(0.6, 1.0)]
    lines = comparison_lines("4c9cbd7", ours, theirs)
    assert any(line.startswith("this tree: CPU per decision") for line in lines)
    assert any(line.startswith("4c9cbd7: CPU per decision") for line in lines)
    assert lines[-1].startswith("CPU per decision, this tree / 4c9cbd7 (medians): referee 0.50")
    assert "start-up (imports, connect, join, once per match) 200 ms" in cpu_lines("x", ours)[1]
    assert CpuRound.from_json(ours[0].to_json()) == ours[0]
