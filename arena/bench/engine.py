"""``arena bench engine``: complete games between random legal players, in one process.

With a git revision (``--against eb3dbeb``) the revision's engine is checked out into a
temporary directory and both engines play the benchmark in worker processes of their own,
started alike, round by round in alternation (this tree first in odd rounds, the other in
even ones), so that a machine's noise falls on both; each plays its own revision's
benchmark round (``run_engine_round``) on the same game seeds, timed in CPU seconds. The
cost per call of ``Game.copy()`` and, where the engine has it, of determinization is
printed beside."""

from __future__ import annotations

import io
import json
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from arena.engine.game import Game
from arena.engine.randomplay import play_random_game, random_action
from arena.engine.view import view


@dataclass(frozen=True)
class EngineFigures:
    games: int
    decisions: int
    deals: int
    seconds: float

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds

    @property
    def deals_per_game(self) -> float:
        return self.deals / self.games


def run_engine_round(games: int, seed: int) -> EngineFigures:
    rng = random.Random(seed)
    decisions = deals = 0
    start = time.perf_counter()
    for game_seed in range(seed, seed + games):
        game = play_random_game(game_seed, rng)
        decisions += game.decisions
        deals += game.deal_number
    return EngineFigures(games, decisions, deals, time.perf_counter() - start)


def bench_engine(games: int, rounds: int, seed: int) -> tuple[EngineFigures, list[EngineFigures]]:
    """Play ``rounds`` rounds of ``games`` games; return the median round and all rounds.

    The machine is shared and noisy, so the median of several rounds is what we report.
    """
    results = [run_engine_round(games, seed + r * games) for r in range(rounds)]
    median = statistics.median(r.decisions_per_second for r in results)
    chosen = min(results, key=lambda r: abs(r.decisions_per_second - median))
    return chosen, results


def engine_lines(median: EngineFigures, rounds: list[EngineFigures]) -> list[str]:
    """The figures as ``arena bench engine`` prints them: each round, then the median."""
    return [
        f"round: {r.games} games in {r.seconds:.2f} s, {r.decisions_per_second:,.0f} decisions/s"
        for r in rounds
    ] + [
        f"{median.games_per_second:.1f} games/s (median round)",
        f"{median.decisions_per_second:.0f} decisions/s",
        f"{median.deals_per_game:.1f} deals/game",
    ]


# --- against another revision -------------------------------------------------------------

# A worker plays rounds on request, one JSON line in and out. It runs with -S -E, so that
# the tree on its path is the one imported (not this installation's), and imports only
# the benchmark module of that tree, which every revision has kept to the standard library.
# It times a round in CPU seconds of its own process: on a shared machine the wall clock
# also counts the time other processes held the CPU, which falls unevenly on the rounds.
_WORKER = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from arena.bench.engine import run_engine_round
for line in sys.stdin:
    games, seed = json.loads(line)
    start = time.process_time()
    f = run_engine_round(games, seed)
    cpu = time.process_time() - start
    print(json.dumps([f.games, f.decisions, f.deals, cpu]), flush=True)
"""


class EngineWorker:
    """A process playing benchmark rounds with the engine of one source tree."""

    def __init__(self, source_root: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-S", "-E", "-c", _WORKER, str(source_root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def round(self, games: int, seed: int) -> EngineFigures:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps([games, seed]) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the engine worker stopped (exit {self.process.wait()})")
        played, decisions, deals, seconds = json.loads(line)
        return EngineFigures(played, decisions, deals, seconds)

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=30)


def this_tree() -> Path:
    """The source tree this ``arena`` is imported from (the repository, when editable)."""
    return Path(__file__).resolve().parents[2]


@contextmanager
def revision_tree(
    revision: str, paths: tuple[str, ...] = ("arena",), prefix: str = "arena-engine-"
) -> Iterator[Path]:
    """The ``arena`` package (or the top-level ``paths``) of ``revision``, checked out of
    this tree's git repository into a temporary directory for as long as the block runs."""
    archive = subprocess.run(
        ["git", "-C", str(this_tree()), "archive", "--format=tar", revision, *paths],
        capture_output=True,
        check=False,
    )
    if archive.returncode != 0:
        raise ValueError(f"git archive {revision}: {archive.stderr.decode().strip()}")
    with tempfile.TemporaryDirectory(prefix=prefix) as directory:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(directory, filter="data")
        yield Path(directory)


@dataclass(frozen=True)
class Comparison:
    """Rounds of this tree's engine and of a revision's, played in alternation."""

    revision: str
    ours: list[EngineFigures]
    theirs: list[EngineFigures]

    @property
    def ours_median(self) -> float:
        return statistics.median(r.decisions_per_second for r in self.ours)

    @property
    def theirs_median(self) -> float:
        return statistics.median(r.decisions_per_second for r in self.theirs)

    @property
    def ratio(self) -> float:
        """This tree's median decisions/s over the revision's."""
        return self.ours_median / self.theirs_median

    @property
    def round_ratios(self) -> list[float]:
        return [
            a.decisions_per_second / b.decisions_per_second
            for a, b in zip(self.ours, self.theirs, strict=True)
        ]

    def lines(self) -> list[str]:
        width = max(len("this tree"), len(self.revision))
        out = []
        for number, (a, b) in enumerate(zip(self.ours, self.theirs, strict=True), start=1):
            out.append(
                f"round {number}: this tree {a.decisions_per_second:,.0f}, "
                f"{self.revision} {b.decisions_per_second:,.0f} decisions per CPU second, "
                f"ratio {a.decisions_per_second / b.decisions_per_second:.2f}"
            )
        for name, rounds, median in (
            ("this tree", self.ours, self.ours_median),
            (self.revision, self.theirs, self.theirs_median),
        ):
            deals = sum(r.deals for r in rounds) / sum(r.games for r in rounds)
            out.append(
                f"{name:<{width}}  {median:,.0f} decisions per CPU second "
                f"(median of {len(rounds)} rounds), "
                f"{deals:.1f} deals/game"
            )
        out.append(
            f"ratio: {self.ratio:.2f} (this tree / {self.revision}, medians); "
            f"median of the rounds' ratios {statistics.median(self.round_ratios):.2f}"
        )
        return out


def compare_engines(revision: str, games: int, rounds: int, seed: int) -> Comparison:
    """Play ``rounds`` rounds of ``games`` games with this tree's engine and ``revision``'s,
    alternating which goes first; both play the same game seeds in each round."""
    ours: list[EngineFigures] = []
    theirs: list[EngineFigures] = []
    with revision_tree(revision) as other:
        workers = EngineWorker(this_tree()), EngineWorker(other)
        try:
            for worker in workers:  # warm up: imports and the first tables
                worker.round(2, seed)
            for number in range(rounds):
                round_seed = seed + number * games
                order = (0, 1) if number % 2 == 0 else (1, 0)
                figures = {side: workers[side].round(games, round_seed) for side in order}
                ours.append(figures[0])
                theirs.append(figures[1])
        finally:
            for worker in workers:
                worker.close()
    return Comparison(revision, ours, theirs)


# --- the cost of search's primitives -----------------------------------------------------


def search_positions(count: int, seed: int) -> list[Game]:
    """Positions of random games at random decisions, for timing search's primitives:
    ``count`` games, each stopped at a decision drawn from its first few deals."""
    rng = random.Random(seed)
    positions = []
    for game_seed in range(seed, seed + count):
        game = Game(seed=game_seed)
        for _ in range(rng.randrange(1, 400)):
            if game.is_over:
                break
            game.apply(random_action(game, rng))
        if not game.is_over:
            positions.append(game)
    return positions


def microseconds_per_copy(positions: list[Game], repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        for game in positions:
            game.copy()
    return (time.perf_counter() - start) / (repeat * len(positions)) * 1e6


def determinize_costs(positions: list[Game], seed: int) -> tuple[float, float] | None:
    """Microseconds per ``determinize(view, rng)`` call (the whole of it, from the seat to
    act's view) and per further ``Determinizer.sample`` of the same view; None when this
    engine has no determinization."""
    try:
        from arena.engine import determinize as module
    except ImportError:
        return None
    rng = random.Random(seed)
    views = [view(game, game.to_act) for game in positions]
    start = time.perf_counter()
    for seen in views:
        module.determinize(seen, rng)
    whole = (time.perf_counter() - start) / len(views) * 1e6
    samplers = [module.Determinizer(seen) for seen in views]
    samples = 10
    start = time.perf_counter()
    for sampler in samplers:
        for _ in range(samples):
            sampler.sample(rng)
    each = (time.perf_counter() - start) / (len(samplers) * samples) * 1e6
    return whole, each


def search_cost_lines(positions: int, seed: int) -> list[str]:
    """``Game.copy()`` and determinization, per call, at positions of random games."""
    games = search_positions(positions, seed)
    lines = [
        f"Game.copy(): {microseconds_per_copy(games, 20):.1f} µs per call "
        f"(mean over {len(games)} positions of random games)"
    ]
    costs = determinize_costs(games, seed)
    if costs is None:
        lines.append("determinize: not in this engine")
    else:
        whole, each = costs
        lines.append(
            f"determinize(view, rng): {whole:,.0f} µs per call; "
            f"Determinizer(view).sample(rng): {each:,.0f} µs per further sample"
        )
    return lines
