"""The CPU-per-decision and ping-pong figures: read from /proc, and printed for each tree
and each channel (no timing: the figures are made up, or only counted)."""

from __future__ import annotations

import os
import subprocess
import sys

from arena.bench.cpu import CpuRound, channel_lines, comparison_lines, cpu_lines, tree_cpu_seconds
from arena.bench.pingpong import PingPong, pipe_pingpong
from arena.bench.referee import RefereeFigures, RefereeRound


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


def _round(referee: float, bots: float, protocol: str = "grpc") -> CpuRound:
    strategy = {"random": 1e-5, "greedy": 1e-4}
    return CpuRound(1000, referee, bots, 1.2, strategy, seconds=0.5, protocol=protocol)


def test_the_lines_give_each_tree_and_channel_its_cpu_per_decision_and_the_ratios() -> None:
    grpc = [_round(0.2, 0.4), _round(0.3, 0.5)]
    stdio = [_round(0.1, 0.1, "stdio"), _round(0.1, 0.1, "stdio")]
    theirs = [_round(0.4, 1.0), _round(0.6, 1.0)]
    lines = comparison_lines("4c9cbd7", {"grpc": grpc, "stdio": stdio}, theirs)
    assert any(line.startswith("this tree: CPU per decision over grpc") for line in lines)
    assert any(line.startswith("this tree: CPU per decision over stdio") for line in lines)
    assert any(line.startswith("4c9cbd7: CPU per decision over grpc") for line in lines)
    assert lines[-2].startswith(
        "CPU per decision, this tree over grpc / 4c9cbd7 (medians): referee 0.50"
    )
    assert lines[-1].startswith(
        "CPU per decision, this tree over stdio / 4c9cbd7 (medians): referee 0.20"
    )
    assert (
        "start-up over grpc (imports, connect, join, once per match) 200 ms"
        in (cpu_lines("x", grpc)[1])
    )
    assert CpuRound.from_json(stdio[0].to_json()) == stdio[0]
    by_channel = channel_lines(grpc, stdio)
    assert by_channel[0] == (
        "CPU per decision, referee: gRPC 0.250 ms, stdio 0.100 ms (stdio/gRPC 0.40)"
    )
    assert by_channel[1].endswith("gRPC 0.450 ms, stdio 0.100 ms (stdio/gRPC 0.22)")


def test_the_referee_figures_give_each_channel_its_ratio_to_its_own_floor() -> None:
    pingpong = PingPong(1000, 0.25, 0.1, 0.2, "260 bytes down")  # 4000 round trips/s
    pipe = PingPong(1000, 0.1, 0.02, 0.03, "1052 bytes down, 41 up")  # 10000 round trips/s
    stdio = _round(0.1, 0.1, "stdio")
    played = RefereeRound(
        grpc=CpuRound(1000, 0.2, 0.2, 1.2, {"random": 1e-5, "greedy": 1e-4}, seconds=1.0),
        stdio=CpuRound(3000, 0.2, 0.2, 0.6, stdio.strategy, seconds=1.0, protocol="stdio"),
        round_trips={"grpc": [0.001, 0.002], "stdio": [0.0005, 0.0006]},
        pingpong_one=pingpong,
        pingpong_six=pingpong,
        pipe_one=pipe,
        pipe_six=pipe,
    )
    lines = RefereeFigures(
        games=3, rounds=[played, played], inprocess_decisions_per_second=9
    ).lines()
    assert "stdio to gRPC: 3.00x the decisions/s (median of the rounds)" in lines
    assert "ratio: 0.25" in lines
    assert "ratio over stdio (the stdio table to the six-client pipe ping-pong): 0.30" in lines
    assert any(
        line.startswith("10000 round trips/s bare pipe ping-pong, JSON both ways") for line in lines
    )
    assert "CPU per decision, referee: gRPC 0.200 ms, stdio 0.067 ms (stdio/gRPC 0.33)" in lines


def test_the_pipe_ping_pong_counts_its_round_trips_and_both_sides_cpu() -> None:
    measured = pipe_pingpong(50, clients=2)
    assert measured.rounds == 50 and measured.seconds > 0
    assert measured.server_cpu >= 0 and measured.clients_cpu >= 0
    assert measured.note.endswith("bytes down, 41 up")
