"""``arena bench referee``: one table of six real ``random`` bot processes, over each channel.

Each round plays the same games on one table of six ``random`` bots over gRPC, then over
stdio (the same bot with ``protocol = "stdio"``: JSON lines on its stdin and stdout),
reading each match's decisions/s and its CPU per decision (``arena.bench.cpu``: the
referee's, and the bots' own, so a busy machine does not move them); then each channel's
floor, with the same messages: a bare gRPC ping-pong with the same server and client
flavour, and a bare pipe ping-pong, JSON both ways (``arena.bench.pingpong``), each with
one client process and with six taking turns as a table's seats do. Beside them, once:
the same bots called in-process on the same table (the in-process channel: no transport,
the floor of the table's own work). Each ratio is taken within its round.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from arena.bench.inprocess import load_python_bot, play_game_in_process
from arena.bots.samples import sample_bot
from arena.wire.loop import run as run_loop

from . import median_of, median_over_rounds
from .cpu import CpuRound, channel_lines, cpu_lines, measured_match, strategies
from .pingpong import PingPong, pipe_pingpong, serve_pingpong


@dataclass(frozen=True)
class RefereeRound:
    """One round: the table over each channel, then each channel's ping-pongs."""

    grpc: CpuRound
    stdio: CpuRound
    round_trips: dict[str, list[float]]  # seconds from request to answer, by channel
    pingpong_one: PingPong  # gRPC, one client process
    pingpong_six: PingPong  # gRPC, six client processes taking turns
    pipe_one: PingPong  # pipes, JSON both ways
    pipe_six: PingPong

    @property
    def decisions_per_second(self) -> float:
        return self.grpc.decisions_per_second

    @property
    def stdio_decisions_per_second(self) -> float:
        return self.stdio.decisions_per_second

    @property
    def stdio_to_grpc(self) -> float:
        return self.stdio_decisions_per_second / self.decisions_per_second

    @property
    def ratio(self) -> float:
        """Against gRPC's limit for a table: six processes taking turns."""
        return self.decisions_per_second / self.pingpong_six.per_second

    @property
    def ratio_one_stream(self) -> float:
        return self.decisions_per_second / self.pingpong_one.per_second

    @property
    def stdio_ratio(self) -> float:
        """Against a pipe's limit for a table: six processes taking turns."""
        return self.stdio_decisions_per_second / self.pipe_six.per_second

    @property
    def stdio_ratio_one(self) -> float:
        return self.stdio_decisions_per_second / self.pipe_one.per_second


# A property of the figures: the median over their rounds of one figure of a round.
_median = median_over_rounds[RefereeRound]


@dataclass(frozen=True)
class RefereeFigures:
    games: int
    rounds: list[RefereeRound]
    inprocess_decisions_per_second: float

    @property
    def decisions(self) -> int:
        return sum(r.grpc.decisions for r in self.rounds)

    decisions_per_second = _median(lambda r: r.decisions_per_second)
    stdio_decisions_per_second = _median(lambda r: r.stdio_decisions_per_second)
    stdio_to_grpc = _median(lambda r: r.stdio_to_grpc)

    @property
    def games_per_second(self) -> float:
        return median_of(self.rounds, lambda r: self.games / r.grpc.seconds)

    pingpong_one = _median(lambda r: r.pingpong_one.per_second)
    pingpong_six = _median(lambda r: r.pingpong_six.per_second)
    pipe_one = _median(lambda r: r.pipe_one.per_second)
    pipe_six = _median(lambda r: r.pipe_six.per_second)
    ratio = _median(lambda r: r.ratio)
    ratio_one_stream = _median(lambda r: r.ratio_one_stream)
    stdio_ratio = _median(lambda r: r.stdio_ratio)
    stdio_ratio_one = _median(lambda r: r.stdio_ratio_one)

    def _trips(self, channel: str) -> str:
        trips = [t for r in self.rounds for t in r.round_trips[channel]]
        median = statistics.median(trips) * 1000
        p99 = statistics.quantiles(trips, n=100)[98] * 1000
        return f"median {median:.3f} ms, p99 {p99:.3f} ms"

    def _pingpong_cpu(self, pick: str) -> str:
        def us(side: str) -> float:
            return median_of(self.rounds, lambda r: getattr(getattr(r, pick), side))

        return f"{us('server_us'):.0f} µs in this process, {us('client_us'):.0f} µs in a client"

    def lines(self) -> list[str]:
        """The figures as ``arena bench referee`` prints them: each round, then the medians."""
        rounds = [
            f"round {i}: {r.decisions_per_second:.0f} decisions/s over gRPC, "
            f"{r.stdio_decisions_per_second:.0f} over stdio ({r.stdio_to_grpc:.2f}x); "
            f"gRPC ping-pong {r.pingpong_one.per_second:.0f} round trips/s with one client "
            f"process, {r.pingpong_six.per_second:.0f} with six; pipe ping-pong "
            f"{r.pipe_one.per_second:.0f} and {r.pipe_six.per_second:.0f}; ratio "
            f"{r.ratio:.2f} over gRPC, {r.stdio_ratio:.2f} over stdio"
            for i, r in enumerate(self.rounds, 1)
        ]
        notes = self.rounds[0]
        grpc = [r.grpc for r in self.rounds]
        stdio = [r.stdio for r in self.rounds]
        return [
            *rounds,
            f"grpc: {self.games} games × {len(self.rounds)} rounds, {self.decisions} decisions",
            f"{self.decisions_per_second:.0f} decisions/s over gRPC (median round)",
            f"round trip per decision over gRPC: {self._trips('grpc')}; over stdio: "
            f"{self._trips('stdio')}",
            f"{self.games_per_second:.2f} games/s over gRPC",
            f"{self.stdio_decisions_per_second:.0f} decisions/s over stdio (median round; "
            "the same bot as JSON lines on its stdin and stdout)",
            f"stdio to gRPC: {self.stdio_to_grpc:.2f}x the decisions/s (median of the rounds)",
            f"{self.inprocess_decisions_per_second:.0f} decisions/s in-process "
            "(same bots on the same table, no transport: the table's own work)",
            f"decisions/s by channel: gRPC {self.decisions_per_second:.0f}, "
            f"stdio {self.stdio_decisions_per_second:.0f}, "
            f"in-process {self.inprocess_decisions_per_second:.0f}",
            f"{self.pingpong_one:.0f} round trips/s bare gRPC ping-pong, one client process "
            f"({notes.pingpong_one.note}; CPU per round trip "
            f"{self._pingpong_cpu('pingpong_one')})",
            f"{self.pingpong_six:.0f} round trips/s bare gRPC ping-pong, six client processes "
            "taking turns (a table's pattern: the transport's limit for a table)",
            f"{self.pipe_one:.0f} round trips/s bare pipe ping-pong, JSON both ways, one client "
            f"process ({notes.pipe_one.note}; CPU per round trip {self._pingpong_cpu('pipe_one')})",
            f"{self.pipe_six:.0f} round trips/s bare pipe ping-pong, six client processes "
            "taking turns (stdio's limit for a table)",
            f"ratio to the one-process ping-pong: {self.ratio_one_stream:.2f} over gRPC, "
            f"{self.stdio_ratio_one:.2f} over stdio",
            f"ratio: {self.ratio:.2f}",
            f"ratio over stdio (the stdio table to the six-client pipe ping-pong): "
            f"{self.stdio_ratio:.2f}",
            *channel_lines(grpc, stdio),
            *cpu_lines("this tree", grpc),
            *cpu_lines("this tree", stdio),
        ]


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
    """``rounds`` rounds of: the games over gRPC and over stdio, each channel's one-client
    and six-client ping-pong. Each ratio is taken within its round (the machine is shared
    and its load drifts); the medians of the rounds are reported. The bots are sandboxed
    as in a run (``sandbox``), the ping-pong clients are not: they are the transports'
    yardsticks."""
    measured: list[RefereeRound] = []
    strategy = strategies(games, seed)
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        for index in range(rounds):
            tables = {}
            trips = {}
            for channel in ("grpc", "stdio"):
                log_dir = Path(tmp) / f"{channel}-logs{index}"
                played, trips[channel] = run_loop(
                    measured_match(games, seed, log_dir, sandbox, channel)
                )
                tables[channel] = played.with_strategy(strategy)
            address = f"unix:{tmp}/pingpong{index}.sock"
            measured.append(
                RefereeRound(
                    grpc=tables["grpc"],
                    stdio=tables["stdio"],
                    round_trips=trips,
                    pingpong_one=run_loop(serve_pingpong(address, pingpong_rounds)),
                    pingpong_six=run_loop(serve_pingpong(address + "6", pingpong_rounds, 6)),
                    pipe_one=pipe_pingpong(pingpong_rounds),
                    pipe_six=pipe_pingpong(pingpong_rounds, 6),
                )
            )
    return RefereeFigures(
        games=games, rounds=measured, inprocess_decisions_per_second=_inprocess(games, seed)
    )
