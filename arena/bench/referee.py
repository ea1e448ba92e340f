"""``arena bench referee``: one table of six real ``random`` bot processes over gRPC.

Beside it, the same games with the same bots called in-process (no transport), and a
bare gRPC ping-pong with the same server and client flavour (the transport's limit).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import arena.referee  # noqa: F401 - sets grpc's environment before grpc is imported
from arena.bots import load_bot
from arena.referee.inprocess import load_python_bot, play_game_in_process
from arena.referee.loop import run as run_loop
from arena.referee.match import Match, MatchPlan, Referee
from arena.referee.table import TableSettings

from .pingpong import serve_pingpong

SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots"


@dataclass(frozen=True)
class RefereeFigures:
    games: int
    decisions: int
    play_seconds: float
    round_trips: list[float]
    inprocess_decisions_per_second: float
    pingpong_round_trips_per_second: float
    pingpong_note: str
    pingpong_six_per_second: float

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.play_seconds

    @property
    def games_per_second(self) -> float:
        return self.games / self.play_seconds

    @property
    def median_ms(self) -> float:
        return statistics.median(self.round_trips) * 1000

    @property
    def p99_ms(self) -> float:
        return statistics.quantiles(self.round_trips, n=100)[98] * 1000

    @property
    def ratio(self) -> float:
        return self.decisions_per_second / self.pingpong_round_trips_per_second


async def _grpc_games(games: int, seed: int, log_dir: Path) -> tuple[int, float, list[float]]:
    spec = load_bot(SAMPLE_BOTS / "random")
    plan = MatchPlan(
        match_id="bench",
        entrants=(spec, spec, spec),
        seeds=[seed + i for i in range(games)],
        log_dir=log_dir,
        settings=TableSettings(),
        seed=seed,
    )
    async with Referee() as referee:
        match = Match(referee, plan)
        match.launch()
        started = time.perf_counter()
        table = await match.play()
        seconds = time.perf_counter() - started - table.join_wait_seconds
    return len(table.round_trips), seconds, table.round_trips


def _inprocess(games: int, seed: int) -> float:
    bots = [load_python_bot(SAMPLE_BOTS / "random") for _ in range(6)]
    decisions = 0
    started = time.perf_counter()
    for i in range(games):
        decisions += play_game_in_process(bots, seed + i, i).decisions
    return decisions / (time.perf_counter() - started)


def bench_referee(games: int, seed: int, pingpong_rounds: int) -> RefereeFigures:
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        decisions, seconds, trips = run_loop(_grpc_games(games, seed, Path(tmp) / "logs"))
        address = f"unix:{tmp}/pingpong.sock"
        pp_seconds, note = run_loop(serve_pingpong(address, pingpong_rounds))
        six_seconds, _ = run_loop(serve_pingpong(address + "6", pingpong_rounds, streams=6))
    return RefereeFigures(
        games=games,
        decisions=decisions,
        play_seconds=seconds,
        round_trips=trips,
        inprocess_decisions_per_second=_inprocess(games, seed),
        pingpong_round_trips_per_second=pingpong_rounds / pp_seconds,
        pingpong_note=note,
        pingpong_six_per_second=pingpong_rounds / six_seconds,
    )
