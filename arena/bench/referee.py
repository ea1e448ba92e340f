"""``arena bench referee``: one table of six real ``random`` bot processes over gRPC.

Beside it, in the same run: the same games with the same bot speaking JSON lines over its
standard input and output (``protocol = "stdio"``), the same bots called in-process on the
same table (the in-process channel: no transport), and a bare gRPC ping-pong with the
same server and client flavour (the transport's limit).
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from arena.bench.inprocess import load_python_bot, play_game_in_process
from arena.bots import BotSpec, load_bot
from arena.bots.samples import sample_bot
from arena.referee.match import Match, Referee
from arena.wire.loop import run as run_loop

from . import median_of, median_over_rounds
from .cpu import bench_plan
from .pingpong import serve_pingpong


@dataclass(frozen=True)
class RefereeRound:
    """One round: the table's games over gRPC, then both ping-pongs, back to back."""

    decisions: int
    play_seconds: float
    round_trips: list[float]
    pingpong_one: float  # round trips/s, one client process
    pingpong_six: float  # round trips/s, six client processes taking turns
    stdio_decisions: int = 0
    stdio_seconds: float = 0.0

    @property
    def stdio_decisions_per_second(self) -> float:
        return self.stdio_decisions / self.stdio_seconds if self.stdio_seconds else 0.0

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.play_seconds

    @property
    def ratio(self) -> float:
        """Against the transport's limit for a table: six processes taking turns."""
        return self.decisions_per_second / self.pingpong_six

    @property
    def ratio_one_stream(self) -> float:
        return self.decisions_per_second / self.pingpong_one


# A property of the figures: the median over their rounds of one figure of a round.
_median = median_over_rounds[RefereeRound]


@dataclass(frozen=True)
class RefereeFigures:
    games: int
    rounds: list[RefereeRound]
    inprocess_decisions_per_second: float
    pingpong_note: str

    @property
    def decisions(self) -> int:
        return sum(r.decisions for r in self.rounds)

    decisions_per_second = _median(lambda r: r.decisions_per_second)
    stdio_decisions_per_second = _median(lambda r: r.stdio_decisions_per_second)

    @property
    def games_per_second(self) -> float:
        return median_of(self.rounds, lambda r: self.games / r.play_seconds)

    pingpong_one = _median(lambda r: r.pingpong_one)
    pingpong_six = _median(lambda r: r.pingpong_six)
    ratio = _median(lambda r: r.ratio)
    ratio_one_stream = _median(lambda r: r.ratio_one_stream)

    @property
    def _all_trips(self) -> list[float]:
        return [t for r in self.rounds for t in r.round_trips]

    @property
    def median_ms(self) -> float:
        return statistics.median(self._all_trips) * 1000

    @property
    def p99_ms(self) -> float:
        return statistics.quantiles(self._all_trips, n=100)[98] * 1000

    def lines(self) -> list[str]:
        """The figures as ``arena bench referee`` prints them: each round, then the medians."""
        lines = [
            f"round {i}: {r.decisions_per_second:.0f} decisions/s over gRPC, "
            f"{r.stdio_decisions_per_second:.0f} over stdio; ping-pong "
            f"{r.pingpong_one:.0f} round trips/s with one client process, "
            f"{r.pingpong_six:.0f} with six; ratio {r.ratio:.2f}"
            for i, r in enumerate(self.rounds, 1)
        ]
        return [
            *lines,
            f"grpc: {self.games} games × {len(self.rounds)} rounds, {self.decisions} decisions",
            f"{self.decisions_per_second:.0f} decisions/s over gRPC (median round)",
            f"round trip per decision: median {self.median_ms:.3f} ms, p99 {self.p99_ms:.3f} ms",
            f"{self.games_per_second:.2f} games/s over gRPC",
            f"{self.stdio_decisions_per_second:.0f} decisions/s over stdio (median round; "
            "the same bot as JSON lines on its stdin and stdout)",
            f"{self.inprocess_decisions_per_second:.0f} decisions/s in-process "
            "(same bots on the same table, no transport)",
            f"decisions/s by channel: gRPC {self.decisions_per_second:.0f}, "
            f"stdio {self.stdio_decisions_per_second:.0f}, "
            f"in-process {self.inprocess_decisions_per_second:.0f}",
            f"{self.pingpong_one:.0f} round trips/s bare gRPC ping-pong, one client process "
            f"({self.pingpong_note})",
            f"{self.pingpong_six:.0f} round trips/s bare gRPC ping-pong, six client processes "
            "taking turns (a table's pattern: the transport's limit for a table)",
            f"ratio to the one-process ping-pong: {self.ratio_one_stream:.2f}",
            f"ratio: {self.ratio:.2f}",
        ]


def _stdio_random(directory: Path) -> BotSpec:
    """The ``random`` sample bot, copied with ``protocol = "stdio"`` in its manifest (the
    SDK plays over stdin and stdout when the arena says so)."""
    shutil.copytree(sample_bot("random"), directory, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = directory / "bot.toml"
    manifest.write_text(manifest.read_text() + 'protocol = "stdio"\n')
    return load_bot(directory)


async def _grpc_games(
    games: int, seed: int, log_dir: Path, sandbox: bool, spec: BotSpec | None = None
) -> tuple[int, float, list[float]]:
    """The games on one table of six real processes (``spec``: the random sample bot)."""
    plan = bench_plan(
        "bench", spec or load_bot(sample_bot("random")), games, seed, log_dir, sandbox
    )
    async with Referee() as referee:
        match = Match(referee, plan)
        match.launch()
        started = time.perf_counter()
        table = await match.play()
        seconds = time.perf_counter() - started - table.join_wait_seconds
    return len(table.round_trips), seconds, table.round_trips


def _inprocess(games: int, seed: int) -> float:
    bots = [load_python_bot(sample_bot("random")) for _ in range(6)]
    decisions = 0
    started = time.perf_counter()
    for i in range(games):
        decisions += play_game_in_process(bots, seed + i, i).decisions
    return decisions / (time.perf_counter() - started)


def bench_referee(
    games: int, seed: int, pingpong_rounds: int, rounds: int, sandbox: bool = True
) -> RefereeFigures:
    """``rounds`` rounds of: the games over gRPC, the one-stream and the six-process
    ping-pong. Each ratio is taken within its round (the machine is shared and its load
    drifts); the medians of the rounds are reported. The bots are sandboxed as in a
    run (``sandbox``), the ping-pong clients are not: they are the transport's yardstick."""
    measured: list[RefereeRound] = []
    note = ""
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        stdio = _stdio_random(Path(tmp) / "random-stdio")
        for index in range(rounds):
            decisions, seconds, trips = run_loop(
                _grpc_games(games, seed, Path(tmp) / f"logs{index}", sandbox)
            )
            stdio_decisions, stdio_seconds, _ = run_loop(
                _grpc_games(games, seed, Path(tmp) / f"stdio-logs{index}", sandbox, stdio)
            )
            address = f"unix:{tmp}/pingpong{index}.sock"
            one_seconds, note = run_loop(serve_pingpong(address, pingpong_rounds))
            six_seconds, _ = run_loop(serve_pingpong(address + "6", pingpong_rounds, streams=6))
            measured.append(
                RefereeRound(
                    decisions=decisions,
                    play_seconds=seconds,
                    round_trips=trips,
                    pingpong_one=pingpong_rounds / one_seconds,
                    pingpong_six=pingpong_rounds / six_seconds,
                    stdio_decisions=stdio_decisions,
                    stdio_seconds=stdio_seconds,
                )
            )
    return RefereeFigures(
        games=games,
        rounds=measured,
        inprocess_decisions_per_second=_inprocess(games, seed),
        pingpong_note=note,
    )
