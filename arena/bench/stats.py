"""``arena bench stats``: the report's intervals and ``arena compare``'s test, checked.

Three checks, each printed as figures with the cells that miss what they promise:

- **The test on real games.** Pools of seed groups (one game seed in every seating of
  {NEW, NEW, BASE} and {NEW, BASE, BASE}, ``comparison.GROUP_SEATINGS``: six games on the same
  cards, R3.1a) are played in-process (``inprocess``: the referee's messages, no transport)
  for pairs of bots of known relation (``BOT_PAIRS``): lopsided (greedy against lowest),
  close (greedy against a greedy that errs 10 % of its cards), noisy (two greedies erring
  30 % and 70 %) and even (a noisy greedy against its copy). From them the study draws
  units of two designs, seed groups and swap pairs (one seating and its mirror,
  ``schedule.swap_pairs``: each pair on its own seed), and runs sequential tests on them
  as ``arena compare`` does: at each pair's own advantage (the games needed, against the
  test of 4c9cbd7, which kept the pseudo-observations for ever, on seed groups), at the
  margin (the units' distribution tilted to a mean of 1/2 + margin: power) and at equal
  strength (the even pool and its mirror image: false positives).
- **The test on score distributions** that make it hard: 90 % and 98 % of units at exactly
  1/2, a binomial, a uniform, a coin-like one (40 % at 0 and at 1), and pentanomial ones (a
  swap pair's five values), each at 1/2 and tilted to the margin.
- **Coverage of the 95 % intervals** (``stats.seed_rate_interval``, the standings' and the
  head-to-head's) over runs of fresh seeds of a known world: each seed's chance drawn from a
  beta law of the given mean and intra-seed correlation, nine team places a seed (as a
  seed group's), at rates near 0, 1/3, 2/3 and 1 and 5 to 40 seeds. Real fresh seeds enough
  to read coverage to ±0.02 would be about 18,000 seed groups a cell here (hours of
  games); the pools' own correlations are printed beside the world's.

Nothing is asserted: the caller reads the figures, and ``misses`` lists the cells outside
their promise (coverage below 0.95, false positives above alpha, power below 1 - beta),
each with its Monte Carlo error, so that the study can fail where the statistics do.
"""

from __future__ import annotations

import dataclasses
import math
import multiprocessing
import random
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Final, Literal

import numpy as np
from numpy.typing import NDArray

from arena.bench.inprocess import load_python_bot, play_game_in_process
from arena.bots.samples import sample_bot
from arena.engine import Action, DecisionKind
from arena.sdk.bot import Bot, Decision
from arena.stats.comparison import GROUP_GAMES, GROUP_SEATINGS, PAIR_GAMES
from arena.stats.rates import GameOutcome, finishing_positions, seed_rate_interval
from arena.stats.resample import SeedRatio, design_effect
from arena.stats.sequential import Sprt, Verdict, group_score, gsprt_llr
from arena.tournament.compare import BATCH_GAMES
from arena.v1 import arena_pb2 as pb

__all__ = [
    "BOT_PAIRS",
    "NoisyBot",
    "SeedGroup",
    "StudyFigures",
    "StudySize",
    "bench_stats",
    "pair_scores",
    "tilted",
    "world_coverage",
]

NEW: Final = 0  # entrant indices in GROUP_SEATINGS
BASE: Final = 1
# Each seating holds two NEW-versus-BASE pairs of teams: a group's score is the share of 12.
PAIRS_PER_SEATING: Final = 2
CONFIDENCE: Final = 0.95
# The coverage sweep's worlds: rates near 0, 1/3, 2/3 and 1, runs of 5 to 40 seeds, a
# small and a large intra-seed correlation.
WORLD_RATES: Final = (0.02, 1 / 3, 2 / 3, 0.98)
WORLD_SEEDS: Final = (5, 10, 20, 40)
WORLD_CORRELATIONS: Final = (0.05, 0.3)
PLACES_PER_SEED: Final = 9  # NEW's team places in a seed group: 3 x 1 + 3 x 2

Player = tuple[Literal["greedy", "lowest", "noisy"], float]  # and a noisy one's error rate
TestKind = Literal["4c9cbd7", "this"]


@dataclass(frozen=True)
class BotPair:
    description: str
    new: Player
    base: Player


BOT_PAIRS: Final[dict[str, BotPair]] = {
    "lopsided": BotPair("greedy against lowest", ("greedy", 0.0), ("lowest", 0.0)),
    "close": BotPair("greedy against a greedy erring 10 %", ("greedy", 0.0), ("noisy", 0.1)),
    "noisy": BotPair(
        "a greedy erring 30 % against one erring 70 %", ("noisy", 0.3), ("noisy", 0.7)
    ),
    "even": BotPair("a greedy erring 30 % against its copy", ("noisy", 0.3), ("noisy", 0.3)),
}
# The pairs whose games needed are measured at their own advantage and at the margin.
UNEQUAL: Final = ("lopsided", "close", "noisy")


class NoisyBot(Bot):
    """Greedy, except that with probability ``p`` it plays a random legal card."""

    name = "noisy-greedy"

    def __init__(self, greedy: Bot, p: float, rng: random.Random) -> None:
        self.greedy = greedy
        self.p = p
        self.rng = rng

    def decide(self, decision: Decision) -> Action:
        if decision.kind is DecisionKind.PLAY and self.rng.random() < self.p:
            return self.rng.choice(list(decision.legal))
        return self.greedy.decide(decision)

    def on_events(self, events: list[pb.Event]) -> None:
        self.greedy.on_events(events)


@dataclass(frozen=True)
class StudySize:
    """How much the study plays and samples; the defaults take about ten minutes on two
    cores, most of it playing the pools."""

    groups: int = 120  # seed groups played per pair of bots (six games each)
    runs: int = 500  # fresh runs per coverage cell: coverage read to about ±0.02
    tests: int = 200  # sequential tests per case
    margin: float = 0.05
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int = 3000  # a test still undecided here counts as undecided
    seed: int = 1  # first game seed (guessable: a benchmark)
    jobs: int = 1

    def __post_init__(self) -> None:
        if min(self.groups, self.runs, self.tests) < 1:
            raise ValueError("every size of the study is at least 1")
        if self.max_games < GROUP_GAMES:
            raise ValueError(f"--max-games must allow one seed group ({GROUP_GAMES} games)")
        Sprt(self.margin, self.alpha, self.beta)  # the test's own checks

    @property
    def test(self) -> Sprt:
        return Sprt(self.margin, self.alpha, self.beta)

    def command(self) -> str:
        """The command line that reruns the study with these sizes."""
        return (
            f"arena bench stats --groups {self.groups} --runs {self.runs} --tests {self.tests} "
            f"--margin {self.margin:g} --alpha {self.alpha:g} --beta {self.beta:g} "
            f"--max-games {self.max_games} --seed {self.seed} --jobs {self.jobs}"
        )


# -- playing the pools (in worker processes) ----------------------------------------------------


@dataclass(frozen=True)
class SeedGroup:
    """One seed's six games: NEW's win count over its team places, and the pair results."""

    new_wins: float  # a draw counts half (as the report's win rate)
    new_places: int  # teams NEW held: 2 in {N,N,B}, 1 in {N,B,B}; 9 in all
    # Per seating (GROUP_SEATINGS order): NEW's points in its two pairs (1 ahead, 1/2 tie).
    seating_points: tuple[float, ...]

    @property
    def score(self) -> float:
        return sum(self.seating_points) / (PAIRS_PER_SEATING * len(self.seating_points))


_GREEDY: list[type[Bot]] = []


def _greedy_class() -> type[Bot]:
    if not _GREEDY:
        _GREEDY.append(type(load_python_bot(sample_bot("greedy"))))
    return _GREEDY[0]


def _player(player: Player, rng: random.Random) -> Bot:
    kind, p = player
    if kind == "lowest":
        return load_python_bot(sample_bot("lowest"))
    greedy = _greedy_class()()
    return greedy if kind == "greedy" else NoisyBot(greedy, p, rng)


def play_group(game_seed: int, pair: BotPair) -> SeedGroup:
    """One seed group of ``pair``: NEW and BASE in all six seatings on one seed."""
    wins = 0.0
    places = 0
    points: list[float] = []
    for index, seating in enumerate(GROUP_SEATINGS):
        bots = [
            # Every seat draws its own stream, fixed by seed, seating and seat.
            _player(
                pair.new if seating[seat % 3] == NEW else pair.base,  # R1.2: team t, t+3
                random.Random(f"{game_seed}/{index}/{seat}"),
            )
            for seat in range(6)
        ]
        game = play_game_in_process(bots, game_seed)
        assert game.outcome is not None
        winner = game.outcome.winner
        outcome = GameOutcome(
            entrants_by_team=(str(seating[0]), str(seating[1]), str(seating[2])),
            final_scores=game.outcome.scores,
            winner=winner,
        )
        for team, entrant in enumerate(seating):
            if entrant == NEW:
                places += 1
                wins += 1.0 if winner == team else 0.5 if winner is None else 0.0
        positions = finishing_positions(outcome)
        placings = [
            (positions[a], positions[b])
            for a, new in enumerate(seating)
            for b, base in enumerate(seating)
            if new == NEW and base == BASE
        ]
        points.append(group_score(placings) * len(placings))
    return SeedGroup(wins, places, tuple(points))


def _play_one(task: tuple[int, str]) -> tuple[str, SeedGroup]:
    game_seed, name = task
    return name, play_group(game_seed, BOT_PAIRS[name])


# -- units of the two designs -------------------------------------------------------------------


def group_scores(groups: Sequence[SeedGroup]) -> NDArray[np.float64]:
    return np.asarray([g.score for g in groups], dtype=float)


def pair_scores(groups: Sequence[SeedGroup]) -> NDArray[np.float64]:
    """Every swap pair's score in the pool: seating s with its mirror 5 - s, three a seed.

    In the design each pair has a seed of its own, so a test draws them independently from
    these (the three of one seed share cards, which the draws do not need to keep).
    """
    last = GROUP_GAMES - 1
    return np.asarray(
        [
            (g.seating_points[s] + g.seating_points[last - s]) / (2 * PAIRS_PER_SEATING)
            for g in groups
            for s in range(GROUP_GAMES // 2)
        ],
        dtype=float,
    )


def tilted(values: Sequence[float], mean: float) -> NDArray[np.float64]:
    """Probabilities on ``values`` proportional to exp(theta x), with the given mean.

    The closest distribution (in relative entropy) to the observed one that has this mean;
    if the mean lies outside the values, all weight goes to the nearest end.
    """
    x = np.asarray(values, dtype=float)

    def weights(theta: float) -> NDArray[np.float64]:
        w = np.exp(theta * (x - x.mean()))
        result: NDArray[np.float64] = w / w.sum()
        return result

    low, high = -500.0, 500.0
    for _ in range(200):
        mid = (low + high) / 2.0
        if float(weights(mid) @ x) < mean:
            low = mid
        else:
            high = mid
    return weights((low + high) / 2.0)


# -- sequential tests on drawn units -------------------------------------------------------------


@dataclass(frozen=True)
class TestCase:
    """Tests on units drawn from ``values`` with ``probabilities`` (None: as observed)."""

    label: str
    values: tuple[float, ...]
    probabilities: tuple[float, ...] | None
    unit_games: int
    kind: TestKind = "this"


@dataclass(frozen=True)
class TestRuns:
    """Repeated sequential tests of one case."""

    tests: int
    better: int
    not_better: int
    games: list[int]  # games played by each test, decided or not

    @property
    def undecided(self) -> int:
        return self.tests - self.better - self.not_better

    @property
    def median_games(self) -> float:
        return statistics.median(self.games)

    @property
    def better_rate(self) -> float:
        return self.better / self.tests


def _verdict(kind: TestKind, test: Sprt, scores: Sequence[float]) -> Verdict:
    if kind == "this":
        return test.state(scores).verdict
    # 4c9cbd7's test: the pseudo-observations at 0 and 1 kept whatever the scores.
    llr = gsprt_llr(scores, 0.5, 0.5 + test.margin, prior=True)
    return "better" if llr >= test.upper else "not better" if llr <= test.lower else "undecided"


def run_test(case: TestCase, size: StudySize, index: int) -> tuple[Verdict, int]:
    """One sequential test, looking every ``BATCH_GAMES`` games as ``arena compare``."""
    rng = np.random.default_rng([size.seed, index, *map(ord, case.label)])
    test = size.test
    values = np.asarray(case.values, dtype=float)
    probabilities = None if case.probabilities is None else np.asarray(case.probabilities)
    batch = max(1, BATCH_GAMES // case.unit_games)
    cap = size.max_games // case.unit_games
    scores: list[float] = []
    while len(scores) < cap:
        scores += list(rng.choice(values, size=min(batch, cap - len(scores)), p=probabilities))
        verdict = _verdict(case.kind, test, scores)
        if verdict != "undecided":
            return verdict, len(scores) * case.unit_games
    return "undecided", len(scores) * case.unit_games


def _one_test(task: tuple[TestCase, StudySize, int]) -> tuple[str, Verdict, int]:
    case, size, index = task
    verdict, games = run_test(case, size, index)
    return case.label, verdict, games


def _tally(results: Sequence[tuple[Verdict, int]]) -> TestRuns:
    return TestRuns(
        tests=len(results),
        better=sum(1 for verdict, _ in results if verdict == "better"),
        not_better=sum(1 for verdict, _ in results if verdict == "not better"),
        games=[games for _, games in results],
    )


# Score distributions that make the test hard, on the lattice of a seed group's twelve pairs
# (k / 12) or of a swap pair's four (k / 4): (name, values, weights).
def _hard_distributions() -> list[tuple[str, list[float], list[float]]]:
    twelfths = [k / 12 for k in range(13)]
    quarters = [k / 4 for k in range(5)]
    lumpy90 = [0.1 / 12] * 13
    lumpy90[6] = 0.9
    lumpy98 = [0.02 / 12] * 13
    lumpy98[6] = 0.98
    binomial = [math.comb(12, k) / 2**12 for k in range(13)]
    coin = [0.0] * 13
    coin[0] = coin[12] = 0.4
    coin[6] = 0.2
    return [
        ("90 % at 1/2", twelfths, lumpy90),
        ("98 % at 1/2", twelfths, lumpy98),
        ("binomial", twelfths, binomial),
        ("uniform", twelfths, [1 / 13] * 13),
        ("coin-like", twelfths, coin),
        ("pairs, 80 % at 1/2", quarters, [0.05, 0.05, 0.8, 0.05, 0.05]),
        ("pairs, binomial", quarters, [math.comb(4, k) / 16 for k in range(5)]),
    ]


# -- coverage over fresh runs of a known world --------------------------------------------------


@dataclass(frozen=True)
class CoverageCell:
    rate: float
    seeds: int
    correlation: float
    runs: int
    covered: float  # share of runs whose interval holds the rate
    width: float  # mean width of the intervals

    @property
    def error(self) -> float:
        """The Monte Carlo error (one standard error) of ``covered`` at 0.95."""
        return math.sqrt(CONFIDENCE * (1 - CONFIDENCE) / self.runs)


def world_coverage(
    rate: float, seeds: int, correlation: float, runs: int, rng: np.random.Generator
) -> CoverageCell:
    """How often ``seed_rate_interval`` holds ``rate`` over ``runs`` runs of fresh seeds.

    Each seed's chance is drawn from the beta law of mean ``rate`` whose intra-seed
    correlation is ``correlation`` (a + b = 1 / correlation - 1); each of its
    ``PLACES_PER_SEED`` team places wins with that chance.
    """
    total = 1.0 / correlation - 1.0
    chances = rng.beta(rate * total, (1.0 - rate) * total, size=(runs, seeds))
    wins = rng.binomial(PLACES_PER_SEED, chances)
    covered = 0
    widths: list[float] = []
    for run in wins:
        ratio = SeedRatio()
        for seed, won in enumerate(run):
            ratio.add(seed, float(won), float(PLACES_PER_SEED))
        interval = seed_rate_interval(ratio, CONFIDENCE)
        if interval is None:  # below the minimum seeds: no interval, nothing covered
            continue
        low, high = interval
        covered += low <= rate <= high
        widths.append(high - low)
    return CoverageCell(
        rate,
        seeds,
        correlation,
        runs,
        covered / runs,
        statistics.fmean(widths) if widths else math.nan,
    )


def _one_cell(task: tuple[float, int, float, int, int]) -> CoverageCell:
    rate, seeds, correlation, runs, seed = task
    rng = np.random.default_rng([seed, seeds, int(rate * 1000), int(correlation * 1000)])
    return world_coverage(rate, seeds, correlation, runs, rng)


def intra_seed_correlation(groups: Sequence[SeedGroup]) -> float:
    """NEW's win rate's intra-seed correlation in a pool: (design effect - 1) / (m - 1),
    with the design effect unfloored (a seed group's places are negatively correlated: one
    game has one winner)."""
    effect = design_effect(
        [g.new_wins for g in groups], [float(g.new_places) for g in groups], floor=False
    )
    return (effect - 1.0) / (PLACES_PER_SEED - 1)


# -- the study ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PoolFigures:
    name: str
    score: float  # NEW's mean unit score (the same in both designs)
    group_sd: float
    pair_sd: float
    win_rate: float  # NEW's win rate (the standings' figure)
    correlation: float  # its intra-seed correlation


@dataclass(frozen=True)
class StudyFigures:
    size: StudySize
    games: int
    seconds_playing: float
    seconds: float
    pools: list[PoolFigures]
    runs: dict[str, TestRuns]  # by case label
    hard: list[str]  # the hard distributions' names, in order
    coverage: list[CoverageCell]
    misses: list[str] = field(default_factory=list)

    def _median(self, label: str) -> float:
        return self.runs[label].median_games

    def lines(self) -> list[str]:
        """The figures as ``arena bench stats`` prints them."""
        s = self.size
        lines = [
            "study: in-process games (the referee's messages, no transport); a seed group is "
            "one seed in all six seatings of {NEW,NEW,BASE} and {NEW,BASE,BASE} (6 games), a "
            "swap pair one seating and its mirror on a seed of its own (2 games)",
            f"pools: {s.groups} seed groups for each of "
            + "; ".join(f"{name} ({BOT_PAIRS[name].description})" for name in BOT_PAIRS)
            + f"; {self.games:,} games in {self.seconds_playing:.0f} s on {s.jobs} processes",
        ]
        for pool in self.pools:
            lines.append(
                f"pool {pool.name}: NEW's unit score {pool.score:.4f}; a unit's SD: group "
                f"{pool.group_sd:.4f}, pair {pool.pair_sd:.4f}; variance per game: group "
                f"{pool.group_sd**2 * GROUP_GAMES:.4f}, pair {pool.pair_sd**2 * PAIR_GAMES:.4f}; "
                f"NEW's win rate {pool.win_rate:.4f}, intra-seed correlation "
                f"{pool.correlation:.3f}"
            )
        lines.append(
            f"sequential test: margin {s.margin:g}, alpha {s.alpha:g}, beta {s.beta:g}, a look "
            f"every {BATCH_GAMES} games ({BATCH_GAMES // GROUP_GAMES} groups, "
            f"{BATCH_GAMES // PAIR_GAMES} pairs) as arena compare, at most {s.max_games} "
            f"games; {s.tests} tests a case, units drawn from the pools"
        )
        for name in UNEQUAL:
            old = self.runs[f"{name} 4c9cbd7 groups"]
            groups, pairs = self.runs[f"{name} groups"], self.runs[f"{name} pairs"]
            best = min(groups.median_games, pairs.median_games)
            score = next(p.score for p in self.pools if p.name == name)
            lines.append(
                f"games needed, {name} at its own advantage {score - 0.5:+.4f}: 4c9cbd7's test "
                f"on seed groups {old.median_games:.0f}, this test on seed groups "
                f"{groups.median_games:.0f}, on swap pairs {pairs.median_games:.0f} (medians; "
                f"{_ratio(old.median_games, best):.2f}x fewer than 4c9cbd7; better in "
                f"{old.better}, {groups.better}, {pairs.better} of {s.tests})"
            )
        for name in UNEQUAL:
            groups, pairs = self.runs[f"{name} groups margin"], self.runs[f"{name} pairs margin"]
            lines.append(
                f"at the margin, {name} tilted to {0.5 + s.margin:g}: games needed with seed "
                f"groups {groups.median_games:.0f}, with swap pairs {pairs.median_games:.0f} "
                f"(medians; ratio {_ratio(groups.median_games, pairs.median_games):.2f}); power "
                f"{groups.better_rate:.3f} and {pairs.better_rate:.3f} (1 - beta {1 - s.beta:g}; "
                f"undecided at the cap {groups.undecided} and {pairs.undecided})"
            )
        groups, pairs = self.runs["even groups null"], self.runs["even pairs null"]
        lines.append(
            f"at equal strength (even, with its mirror image): false positives with seed groups "
            f"{groups.better_rate:.3f}, with swap pairs {pairs.better_rate:.3f} (alpha "
            f"{s.alpha:g}; games needed {groups.median_games:.0f} and {pairs.median_games:.0f})"
        )
        lines.append(
            "hard score distributions (false positives at 1/2 / power at the margin, undecided "
            "at the cap): "
            + "; ".join(
                f"{name} {self.runs[f'hard {name} null'].better_rate:.3f} / "
                f"{self.runs[f'hard {name} margin'].better_rate:.3f}"
                + _undecided(self.runs[f"hard {name} margin"])
                for name in self.hard
            )
        )
        for correlation in WORLD_CORRELATIONS:
            for rate in WORLD_RATES:
                cells = [
                    c for c in self.coverage if c.rate == rate and c.correlation == correlation
                ]
                lines.append(
                    f"coverage over fresh runs, rate {rate:.3f}, correlation {correlation:g} "
                    f"({cells[0].runs} runs a cell, ±{cells[0].error:.3f}): "
                    + ", ".join(
                        f"{c.seeds} seeds {c.covered:.3f} (width {c.width:.3f})" for c in cells
                    )
                )
        if self.misses:
            lines.append(f"cells that miss ({len(self.misses)}): " + "; ".join(self.misses))
        else:
            lines.append("cells that miss: none")
        lines.append(f"study time: {self.seconds:.0f} s; rerun: {s.command()}")
        return lines


def _ratio(top: float, bottom: float) -> float:
    return top / bottom if bottom else math.nan


def _undecided(runs: TestRuns) -> str:
    return f" ({runs.undecided} undecided)" if runs.undecided else ""


def misses(figures: StudyFigures) -> list[str]:
    """The cells outside their promise, with how far in Monte Carlo errors."""
    s = figures.size
    found: list[str] = []
    se_alpha = math.sqrt(s.alpha * (1 - s.alpha) / s.tests)
    se_beta = math.sqrt(s.beta * (1 - s.beta) / s.tests)
    for label, runs in figures.runs.items():
        if label.endswith("null") and runs.better_rate > s.alpha:
            over = (runs.better_rate - s.alpha) / se_alpha
            found.append(
                f"false positives {label} {runs.better_rate:.3f} > {s.alpha:g} ({over:.1f} SE)"
            )
        if label.endswith("margin") and runs.better_rate < 1 - s.beta:
            under = (1 - s.beta - runs.better_rate) / se_beta
            found.append(
                f"power {label} {runs.better_rate:.3f} < {1 - s.beta:g} ({under:.1f} SE"
                + (f", {runs.undecided} undecided at the cap)" if runs.undecided else ")")
            )
    for cell in figures.coverage:
        if cell.covered < CONFIDENCE:
            under = (CONFIDENCE - cell.covered) / cell.error
            found.append(
                f"coverage rate {cell.rate:.3f} correlation {cell.correlation:g} {cell.seeds} "
                f"seeds {cell.covered:.3f} < 0.95 ({under:.1f} SE)"
            )
    return found


def _cases(size: StudySize, pools: dict[str, list[SeedGroup]]) -> list[TestCase]:
    target = 0.5 + size.margin
    cases: list[TestCase] = []
    for name in BOT_PAIRS:
        for design, values, games in (
            ("groups", group_scores(pools[name]), GROUP_GAMES),
            ("pairs", pair_scores(pools[name]), PAIR_GAMES),
        ):
            listed = tuple(float(v) for v in values)
            if name == "even":  # the null, exactly: the scores and their mirror images
                both = listed + tuple(1.0 - v for v in listed)
                cases.append(TestCase(f"even {design} null", both, None, games))
                continue
            cases.append(TestCase(f"{name} {design}", listed, None, games))
            weights = tuple(float(w) for w in tilted(listed, target))
            cases.append(TestCase(f"{name} {design} margin", listed, weights, games))
            if design == "groups":
                cases.append(TestCase(f"{name} 4c9cbd7 groups", listed, None, games, "4c9cbd7"))
    for name, lattice, shape in _hard_distributions():
        games = PAIR_GAMES if len(lattice) == 5 else GROUP_GAMES
        cases.append(TestCase(f"hard {name} null", tuple(lattice), tuple(shape), games))
        margin = tuple(float(w) for w in _tilt_weights(lattice, shape, target))
        cases.append(TestCase(f"hard {name} margin", tuple(lattice), margin, games))
    return cases


def _tilt_weights(
    values: Sequence[float], weights: Sequence[float], mean: float
) -> NDArray[np.float64]:
    """``weights`` on ``values`` exponentially tilted to ``mean``."""
    x, p = np.asarray(values, dtype=float), np.asarray(weights, dtype=float)
    low, high = -200.0, 200.0
    for _ in range(200):
        mid = (low + high) / 2.0
        w = p * np.exp(mid * (x - 0.5))
        if float(w @ x / w.sum()) < mean:
            low = mid
        else:
            high = mid
    w = p * np.exp((low + high) / 2.0 * (x - 0.5))
    result: NDArray[np.float64] = w / w.sum()
    return result


def bench_stats(size: StudySize) -> StudyFigures:
    started = time.perf_counter()
    context = multiprocessing.get_context("spawn")  # no state of the caller's threads
    tasks = [(size.seed + k, name) for name in BOT_PAIRS for k in range(size.groups)]
    with ProcessPoolExecutor(size.jobs, mp_context=context) as pool:
        played = list(pool.map(_play_one, tasks, chunksize=4))
    pools: dict[str, list[SeedGroup]] = {name: [] for name in BOT_PAIRS}
    for name, group in played:
        pools[name].append(group)
    seconds_playing = time.perf_counter() - started

    pool_figures = []
    for name, groups in pools.items():
        wins = sum(g.new_wins for g in groups)
        places = sum(g.new_places for g in groups)
        pool_figures.append(
            PoolFigures(
                name,
                float(group_scores(groups).mean()),
                float(group_scores(groups).std()),
                float(pair_scores(groups).std()),
                wins / places,
                intra_seed_correlation(groups),
            )
        )
    cases = _cases(size, pools)
    cells = [
        (rate, seeds, correlation, size.runs, size.seed)
        for correlation in WORLD_CORRELATIONS
        for rate in WORLD_RATES
        for seeds in WORLD_SEEDS
    ]
    with ProcessPoolExecutor(size.jobs, mp_context=context) as pool:
        tests = [(case, size, i) for case in cases for i in range(size.tests)]
        results = list(pool.map(_one_test, tests, chunksize=8))
        coverage = list(pool.map(_one_cell, cells))
    by_case: dict[str, list[tuple[Verdict, int]]] = {case.label: [] for case in cases}
    for label, verdict, games in results:
        by_case[label].append((verdict, games))
    figures = StudyFigures(
        size=size,
        games=len(played) * GROUP_GAMES,
        seconds_playing=seconds_playing,
        seconds=0.0,
        pools=pool_figures,
        runs={label: _tally(runs) for label, runs in by_case.items()},
        hard=[name for name, _, _ in _hard_distributions()],
        coverage=coverage,
    )
    return dataclasses.replace(
        figures, seconds=time.perf_counter() - started, misses=misses(figures)
    )
