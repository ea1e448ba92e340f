"""CPU per decision of a table of real bot processes, from the processes' own CPU time.

A busy machine stretches the wall clock but not a process's CPU time, so these figures
hold on a shared machine. For one match of six ``random`` sample bots, over each channel
(gRPC, and stdio: the same bot with ``protocol = "stdio"``):

- the referee's CPU per decision: this process's CPU while the table plays (from the
  moment every seat has joined to the end of the last game), over the decisions;
- a bot's CPU per decision: the bot processes' CPU over the same span (every process of
  each bot, read from ``/proc``), over the decisions; a bot's start-up (its imports,
  connect and join, paid once per match) is its CPU until it joined, and is printed apart;
- the strategy's own CPU per decision (``random``, ``greedy``): the bot's ``decide`` in
  this process, with the SDK's conversions already made, so that the SDK's overhead is
  the difference.

With ``--against REV`` a worker process per source tree plays the rounds in alternation
(``arena bench engine``'s mechanism: the revision's ``arena`` and ``sample_bots`` out of
git into a temporary directory); each worker runs this module with its own tree first on
``sys.path``, and its bots import that tree (``PYTHONPATH``). This module therefore uses
only what every revision since 4c9cbd7 has: ``Referee``, ``Match``, ``MatchPlan``, the
SDK's ``Decision`` and ``bench.inprocess``; a revision whose bots know one channel plays
its samples as their manifests say.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for annotations only: nothing a worker imports
    from arena.bots import BotSpec
    from arena.referee.match import MatchPlan

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _proc_stats() -> dict[int, tuple[int, float]]:
    """Every process's parent and CPU seconds (user + system), from ``/proc``."""
    out: dict[int, tuple[int, float]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as file:
                stat = file.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        out[int(name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / _TICKS)
    return out


def tree_cpu_seconds(pids: list[int]) -> list[float]:
    """CPU seconds of each process and all its descendants (a sandboxed bot is bwrap and
    the bot inside it), as the processes run."""
    stats = _proc_stats()
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in stats.items():
        children.setdefault(parent, []).append(pid)
    totals = []
    for root in pids:
        total, todo = 0.0, [root]
        while todo:
            pid = todo.pop()
            if pid in stats:
                total += stats[pid][1]
            todo.extend(children.get(pid, ()))
        totals.append(total)
    return totals


@dataclass(frozen=True)
class CpuRound:
    """One match's CPU, in seconds: the referee's and the bots' while the table played."""

    decisions: int
    referee: float
    bots: float  # the six bots together, after their joins
    startup: float  # the six bots together, until each had joined
    strategy: dict[str, float]  # seconds per decision of each strategy's own decide
    seconds: float = 0.0  # the wall time of the same span: every seat joined to the end
    protocol: str = "grpc"  # the channel the bots spoke

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds if self.seconds else 0.0

    def with_strategy(self, strategy: dict[str, float]) -> CpuRound:
        return dataclasses.replace(self, strategy=strategy)

    @property
    def referee_ms(self) -> float:
        return self.referee / self.decisions * 1000

    @property
    def bot_ms(self) -> float:
        return self.bots / self.decisions * 1000

    @property
    def startup_ms(self) -> float:
        """One bot's start-up (imports, connect, join), the mean of the six."""
        return self.startup / 6 * 1000

    def to_json(self) -> list[Any]:
        fields = (self.decisions, self.referee, self.bots, self.startup, self.strategy)
        return [*fields, self.seconds, self.protocol]

    @classmethod
    def from_json(cls, data: list[Any]) -> CpuRound:
        return cls(data[0], data[1], data[2], data[3], dict(data[4]), data[5], data[6])


def bench_plan(
    match_id: str, spec: BotSpec, games: int, seed: int, log_dir: Path, sandbox: bool
) -> MatchPlan:
    """A benchmark's match: ``spec`` on all six seats, ``games`` games from ``seed`` on, at
    the default table settings."""
    from arena.referee.match import MatchPlan
    from arena.referee.table import TableSettings

    return MatchPlan(
        match_id=match_id,
        entrants=(spec, spec, spec),
        seeds=[seed + i for i in range(games)],
        log_dir=log_dir,
        settings=TableSettings(),
        seed=seed,
        sandbox=sandbox,
    )


def random_over(protocol: str) -> BotSpec:
    """The ``random`` sample bot speaking ``protocol`` ("grpc", "stdio"; "": as its
    manifest says, the only choice of a revision that knows one channel)."""
    from arena.bots import load_bot
    from arena.bots.samples import sample_bot

    spec = load_bot(sample_bot("random"))
    return dataclasses.replace(spec, protocol=protocol) if protocol else spec


async def measured_match(
    games: int, seed: int, log_dir: Path, sandbox: bool, protocol: str = ""
) -> tuple[CpuRound, list[float]]:
    """One match of six ``random`` sample bots over ``protocol`` (``random_over``), with its
    CPU and wall time read as it plays; and each decision's round trip, in seconds."""
    from arena.referee.match import Match, Referee

    spec = random_over(protocol)
    plan = bench_plan("bench-cpu", spec, games, seed, log_dir, sandbox)
    marks: dict[str, tuple[float, float, list[float]]] = {}

    def mark(name: str) -> None:
        pids = [p.pid for p in match.processes if p is not None]
        marks[name] = (time.perf_counter(), time.process_time(), tree_cpu_seconds(pids))

    async def on_joined() -> None:
        while not all(link.joined.is_set() for link in match.links):
            await asyncio.sleep(0.01)
        mark("joined")

    played = 0

    def on_game(_result: Any) -> None:
        nonlocal played
        played += 1
        if played == games:  # before the table closes: every bot is still running
            mark("end")

    async with Referee() as referee:
        match = Match(referee, plan)
        match.launch()
        watcher = asyncio.ensure_future(on_joined())
        table = await match.play(on_game)
        watcher.cancel()
    joined_wall, joined_at, joined_bots = marks["joined"]
    end_wall, end_at, end_bots = marks["end"]
    measured = CpuRound(
        decisions=len(table.round_trips),
        referee=end_at - joined_at,
        bots=sum(end_bots) - sum(joined_bots),
        startup=sum(joined_bots),
        strategy={},
        seconds=end_wall - joined_wall,
        protocol=getattr(spec, "protocol", "grpc"),
    )
    return measured, table.round_trips


def strategy_seconds(name: str, games: int, seed: int) -> float:
    """CPU seconds per decision of the sample bot ``name``'s own ``decide``, in this
    process: the decision's engine values (hand, legal choices, trump) are made before
    the clock starts, since they are the SDK's work."""
    from arena.bench.inprocess import load_python_bot, play_game_in_process
    from arena.bots.samples import sample_bot

    bots = [load_python_bot(sample_bot(name)) for _ in range(6)]
    spent = [0.0]
    calls = [0]
    for bot in bots:
        decide = bot.decide

        def timed(decision: Any, decide: Any = decide) -> Any:
            for prop in ("hand", "legal", "trump"):
                getattr(decision, prop, None)
            start = time.process_time()
            action = decide(decision)
            spent[0] += time.process_time() - start
            calls[0] += 1
            return action

        bot.decide = timed  # type: ignore[method-assign]
    for index in range(games):
        play_game_in_process(bots, seed + index, index)
    return spent[0] / max(1, calls[0])


STRATEGIES = ("random", "greedy")
CHANNELS = ("grpc", "stdio")


def strategies(games: int, seed: int) -> dict[str, float]:
    """Each strategy's own CPU seconds per decision (``strategy_seconds``)."""
    return {name: strategy_seconds(name, max(1, games // 4), seed) for name in STRATEGIES}


def cpu_round(games: int, seed: int, log_dir: Path, sandbox: bool, protocol: str = "") -> CpuRound:
    from arena.wire.loop import run as run_loop

    measured, _ = run_loop(measured_match(games, seed, log_dir, sandbox, protocol))
    return measured.with_strategy(strategies(games, seed))


def cpu_lines(name: str, rounds: list[CpuRound]) -> list[str]:
    """The CPU-per-decision lines of one tree over one channel: medians of its rounds."""
    referee = statistics.median(r.referee_ms for r in rounds)
    bot = statistics.median(r.bot_ms for r in rounds)
    startup = statistics.median(r.startup_ms for r in rounds)
    strategy = {s: statistics.median(r.strategy[s] * 1000 for r in rounds) for s in STRATEGIES}
    over = f" over {rounds[0].protocol}" if rounds else ""
    return [
        f"{name}: CPU per decision{over} (median of {len(rounds)} rounds): referee "
        f"{referee:.3f} ms, Python SDK bot (random) {bot:.3f} ms, of which the strategy "
        f"{strategy['random']:.4f} ms, so SDK {bot - strategy['random']:.3f} ms",
        f"{name}: strategy's own CPU per decision: random {strategy['random']:.4f} ms, "
        f"greedy {strategy['greedy']:.4f} ms; a bot's start-up{over} (imports, connect, "
        f"join, once per match) {startup:.0f} ms of CPU",
    ]


def channel_lines(grpc: list[CpuRound], stdio: list[CpuRound]) -> list[str]:
    """The CPU per decision of each channel side by side, and stdio's to gRPC's."""

    def median(rounds: list[CpuRound], figure: Callable[[CpuRound], float]) -> float:
        return float(statistics.median(map(figure, rounds)))

    lines = []
    for side, figure in (
        ("referee", lambda r: r.referee_ms),
        ("Python SDK bot (random)", lambda r: r.bot_ms),
    ):
        over_grpc, over_stdio = median(grpc, figure), median(stdio, figure)
        lines.append(
            f"CPU per decision, {side}: gRPC {over_grpc:.3f} ms, stdio {over_stdio:.3f} ms "
            f"(stdio/gRPC {over_stdio / over_grpc:.2f})"
        )
    up_grpc = median(grpc, lambda r: r.startup_ms)
    up_stdio = median(stdio, lambda r: r.startup_ms)
    lines.append(
        f"a bot's start-up (imports, connect, join, once per match): gRPC {up_grpc:.0f} ms "
        f"of CPU, stdio {up_stdio:.0f} ms (stdio/gRPC {up_stdio / up_grpc:.2f})"
    )
    return lines


# --- against another revision -------------------------------------------------------------

# Run in a worker with its tree first on sys.path: runpy executes this file from this tree.
_WORKER = """
import os, runpy, sys
root = sys.argv[1]
sys.path.insert(0, root)
os.environ["PYTHONPATH"] = root
module = runpy.run_path(sys.argv[2])
module["worker_main"]()
"""


def worker_main() -> None:
    """A worker's loop: one JSON line of (games, seed, log dir, sandbox, protocol) in, a
    round out."""
    import arena.bots.process as process

    root = os.environ["PYTHONPATH"]
    environment = process.bot_environment

    def with_tree(*args: Any, **kwargs: Any) -> dict[str, str]:
        return environment(*args, **kwargs) | {"PYTHONPATH": root}  # the bots import it too

    process.bot_environment = with_tree
    for line in sys.stdin:
        games, seed, log_dir, sandbox, protocol = json.loads(line)
        measured = cpu_round(games, seed, Path(log_dir), sandbox, protocol)
        print(json.dumps(measured.to_json()), flush=True)


class CpuWorker:
    """A process measuring rounds with the referee, SDK and bots of one source tree."""

    def __init__(self, source_root: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(source_root), __file__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def round(
        self, games: int, seed: int, log_dir: Path, sandbox: bool, protocol: str = ""
    ) -> CpuRound:
        assert self.process.stdin is not None and self.process.stdout is not None
        request = [games, seed, str(log_dir), sandbox, protocol]
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the CPU worker stopped (exit {self.process.wait()})")
        return CpuRound.from_json(json.loads(line))

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=60)


def compare_cpu(
    revision: str, games: int, seed: int, rounds: int, sandbox: bool
) -> tuple[dict[str, list[CpuRound]], list[CpuRound]]:
    """``rounds`` rounds of this tree's match over each channel and ``revision``'s match
    (its samples as their manifests say), taking turns and rotating which goes first; all
    play the same game seeds. Returns (this tree's rounds by channel, the revision's)."""
    from arena.bench.engine import revision_tree, this_tree

    ours: dict[str, list[CpuRound]] = {protocol: [] for protocol in CHANNELS}
    theirs: list[CpuRound] = []
    # The revision's referee, SDK and the sample bots that import it.
    with (
        revision_tree(revision, ("arena", "sample_bots"), prefix="arena-rev-") as other,
        tempfile.TemporaryDirectory() as logs,
    ):
        workers = CpuWorker(this_tree()), CpuWorker(other)
        turns = [(0, protocol) for protocol in CHANNELS] + [(1, "")]
        try:
            for number in range(rounds):
                shift = number % len(turns)
                for side, protocol in turns[shift:] + turns[:shift]:
                    log_dir = Path(logs) / f"{number}-{side}-{protocol}"
                    measured = workers[side].round(games, seed, log_dir, sandbox, protocol)
                    (ours[protocol] if side == 0 else theirs).append(measured)
        finally:
            for worker in workers:
                worker.close()
    return ours, theirs


def comparison_lines(
    revision: str, ours: dict[str, list[CpuRound]], theirs: list[CpuRound]
) -> list[str]:
    """Each round, each tree's medians, and this tree's over each channel to the revision's."""

    def median(rounds: list[CpuRound], figure: Callable[[CpuRound], float]) -> float:
        return float(statistics.median(map(figure, rounds)))

    def sdk(r: CpuRound) -> float:
        return r.bot_ms - r.strategy["random"] * 1000

    lines = []
    for i, each in enumerate(zip(*ours.values(), theirs, strict=True), 1):
        *mine, their = each
        parts = ", ".join(
            f"{r.protocol}: referee {r.referee_ms:.3f}, bot {r.bot_ms:.3f}" for r in mine
        )
        lines.append(
            f"cpu round {i}: ms per decision, this tree {parts}; {revision} ({their.protocol}): "
            f"referee {their.referee_ms:.3f}, bot {their.bot_ms:.3f}"
        )
    for rounds in ours.values():
        lines += cpu_lines("this tree", rounds)
    lines += cpu_lines(revision, theirs)
    for protocol, rounds in ours.items():
        figures = {
            "referee": lambda r: r.referee_ms,
            "SDK bot": lambda r: r.bot_ms,
            "SDK alone": sdk,
            "start-up": lambda r: r.startup_ms,
        }
        ratios = ", ".join(
            f"{name} {median(rounds, figure) / median(theirs, figure):.2f}"
            for name, figure in figures.items()
        )
        lines.append(
            f"CPU per decision, this tree over {protocol} / {revision} (medians): {ratios}"
        )
    return lines
