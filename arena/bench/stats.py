"""``arena bench stats``: every interval the arena prints, and ``arena compare``'s test,
checked on worlds whose truth is known; it fails when one falls short.

The statistics are pure functions of counts, so the study simulates known worlds directly
(numpy, as an independent simulation would) and feeds the package's own functions, the ones
the report and ``arena compare`` call (``Statistics``: this tree's, or another's put in
their place). A world is a few entrants of known strength in the arena's own schedule
(``schedule.round_robin``: every seating of every triple on every game seed); a team's
chance in a game comes from its entrant's strength, the seed's *seat luck* (the cards favour
one team's seats in every seating of the seed, R3.1a), the entrant's *fit* to the seed (it
plays that seed's deals better or worse in all its seatings), its fit to one team's hand,
and the game's own noise (Gumbel: the finishing order is Plackett-Luce's). A large
simulation of the same world gives each figure's truth: a win rate, a head-to-head share,
the Bradley-Terry ratings that the fit converges to, a unit's mean score.

Four checks, each cell printed (a shortfall with its distance in Monte Carlo standard
errors):

- **Win rates and head-to-head** (``rates.seed_rate_interval``) at 4 seeds (the fewest
  that get an interval) to 40, in worlds on and off the lattice of a seed's rate.
- **Ratings** (``ratings.rate_field``) at 4 to 20 seeds, one entrant dominant in some
  worlds: its bound must lie above its truth no more often than the 2.5 % that the lower
  bound of a 95 % interval allows, and everyone's interval must cover.
- **The test** (``comparison.counted_verdict``, looked at after every unit) on units drawn
  from worlds, from hard score distributions, and from pools of real games played in-process
  (greedy against lowest, and against a greedy that errs 10 % of its cards, where the
  engine's own variance matters): false positives at equal strength, power at the margin,
  games to a verdict, looking after every unit and every 24 games as before.
- **The interval at a verdict** (the confidence sequence): its coverage at the stop, and
  that of the report's head-to-head of the same units (``rates.seed_rate_interval`` of a
  run a test stopped).

A cell falls short when it misses its promise by more than ``NOISE`` standard errors:
coverage below ``COVERAGE_FLOOR``, a dominant bound above its truth more often than 2.5 %,
false positives above alpha, power below ``POWER_FLOOR``; ``arena bench stats`` then exits
1 with the list.
"""

from __future__ import annotations

import dataclasses
import math
import multiprocessing
import random
import statistics
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Final, Literal

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize

from arena.bench.inprocess import load_python_bot, play_game_in_process
from arena.bots.samples import sample_bot
from arena.engine import Action, DecisionKind
from arena.sdk.bot import Bot, Decision
from arena.stats.comparison import (
    GROUP_GAMES,
    GROUP_SEATINGS,
    PAIR_GAMES,
    counted_verdict,
    next_target,
)
from arena.stats.rates import GameOutcome, finishing_positions, seed_rate_interval
from arena.stats.ratings import ELO_PER_NAT, rate_field
from arena.stats.seeds import SeedRatio
from arena.stats.sequential import Sprt, Verdict, first_decision, group_score
from arena.tournament.compare import BATCH_GAMES
from arena.tournament.schedule import round_robin
from arena.v1 import arena_pb2 as pb

__all__ = [
    "BOT_PAIRS",
    "THIS_TREE",
    "WORLDS",
    "NoisyBot",
    "RatingStatement",
    "SeedGroup",
    "Statistics",
    "StudyFigures",
    "StudySize",
    "VerdictStatement",
    "World",
    "bench_stats",
    "pair_scores",
    "simulate",
    "tilted",
]

CONFIDENCE: Final = 0.95
COVERAGE_FLOOR: Final = 0.93  # an interval covering less, beyond its noise, falls short
POWER_FLOOR: Final = 0.90  # power at the margin below this, beyond noise, falls short
NOISE: Final = 3.0  # standard errors a cell may miss by before it falls short
DOMINANT_TAIL: Final = (1.0 - CONFIDENCE) / 2.0  # a lower bound above its truth: at most this
RATE_SEEDS: Final = (4, 5, 10, 20, 40)
RATING_SEEDS: Final = (4, 5, 10, 20)
TRUTH_SEEDS: Final = 50_000  # seeds of the large simulation that gives a world's truths
POOL_UNITS: Final = 100_000  # units simulated for a world's score distribution
PAIRS_PER_SEATING: Final = 2  # each seating holds two NEW-versus-BASE pairs of teams


# -- worlds ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class World:
    """Entrants of known strength (nats of a team's utility) and the seeds' spread."""

    name: str
    strengths: tuple[float, ...]
    luck: float  # SD of a seed's seat luck: one team position's cards, in every seating
    fit: float  # SD of an entrant's fit to a seed's deals, in all its seatings
    hand: float  # SD of an entrant's fit to one team's hand of a seed
    describe: str

    @property
    def entrants(self) -> int:
        return len(self.strengths)


WORLDS: Final[tuple[World, ...]] = (
    World("level luck", (0.0, 0.0), 6.0, 0.0, 0.0, "two equal entrants, luck above all: "
          "each seed's rate sits on 3/9 (the lattice)"),
    World("off the lattice", (0.05, 0.0), 6.0, 0.0, 0.1, "the same, NEW a hair better: its "
          "rate 1/3 + 0.0015 and most seeds still at 3/9"),
    World("close", (0.3, 0.0), 1.0, 0.5, 0.5, "two entrants a little apart"),
    World("lopsided", (3.0, 0.0), 1.0, 0.5, 0.5, "two entrants far apart: rates 0.59 and 0.08"),
    World("fit", (1.0, 0.0), 0.5, 1.0, 0.0, "strong fit to the seed: an entrant's seeds "
          "differ much (positive intra-seed correlation)"),
    World("fit, lopsided", (3.0, 0.0), 0.5, 1.0, 0.0, "strong fit, far apart: a rate near "
          "0.07 carried by rare seeds"),
    World("three level", (0.0, 0.0, 0.0), 6.0, 0.0, 0.1, "three equal entrants, luck above "
          "all (seeds on 2/6)"),
    World("three spread", (1.0, 0.0, -1.0), 1.0, 1.0, 1.0, "three entrants a step apart"),
    World("three, one dominant", (7.0, 0.0, 0.0), 0.5, 0.5, 0.5, "one entrant that "
          "loses a pair once in many seeds"),
    World("five spread", (1.0, 0.5, 0.0, -0.5, -1.0), 0.5, 0.5, 0.5, "five entrants in steps"),
    World("five, one dominant", (10.0, 0.0, 0.0, 0.0, 0.0), 0.5, 0.5, 0.5, "one entrant "
          "about +1,300, unbeaten in most runs"),
    World("four, two beyond", (8.0, 4.0, 0.0, -4.0), 0.5, 0.5, 0.5, "a ladder: the top and "
          "bottom often beyond the field"),
)  # fmt: skip


def _seatings(entrants: int) -> NDArray[np.intp]:
    """Entrant by team of every game of one seed, as ``arena run`` schedules them."""
    return np.array([match.entrants for match in round_robin(entrants, 1)], dtype=np.intp)


def simulate(world: World, runs: int, seeds: int, rng: np.random.Generator) -> NDArray[np.int8]:
    """Finishing positions (0 first) of every team in every game: runs × seeds × games × 3."""
    seatings = _seatings(world.entrants)
    games = len(seatings)
    teams = np.arange(3)
    strength = np.asarray(world.strengths)[seatings]  # games × 3
    luck = rng.normal(0.0, world.luck, (runs, seeds, 1, 3))
    fit = rng.normal(0.0, world.fit, (runs, seeds, world.entrants))[..., seatings]
    hand = rng.normal(0.0, world.hand, (runs, seeds, world.entrants, 3))[:, :, seatings, teams]
    noise = rng.gumbel(size=(runs, seeds, games, 3))
    order = np.argsort(-(strength + luck + fit + hand + noise), axis=-1)
    positions: NDArray[np.int8] = np.argsort(order, axis=-1).astype(np.int8)
    return positions


@dataclass(frozen=True)
class Figures:
    """What a run's report is computed from, per seed (runs × seeds × …)."""

    wins: NDArray[np.float64]  # × entrant: teams that won
    places: NDArray[np.float64]  # entrant: teams it held on one seed
    ahead: NDArray[np.float64]  # × entrant × entrant: pairs in which i finished ahead of j
    pairs: NDArray[np.float64]  # entrant × entrant: pairs of the two on one seed


def figures(world: World, positions: NDArray[np.int8]) -> Figures:
    seatings = _seatings(world.entrants)
    size = world.entrants
    lead = positions.shape[:2]
    wins = np.zeros((*lead, size))
    places = np.zeros(size)
    ahead = np.zeros((*lead, size, size))
    pairs = np.zeros((size, size))
    for game, seating in enumerate(seatings):
        for team, entrant in enumerate(seating):
            places[entrant] += 1
            wins[..., entrant] += positions[..., game, team] == 0
            for other_team, other in enumerate(seating):
                if other != entrant:  # two teams of one entrant are no pair ({A, A, B})
                    pairs[entrant, other] += 1
                    ahead[..., entrant, other] += (
                        positions[..., game, team] < positions[..., game, other_team]
                    )
    return Figures(wins, places, ahead, pairs)


@dataclass(frozen=True)
class Truth:
    """A world's figures on a large simulation."""

    win_rates: NDArray[np.float64]  # entrant
    shares: NDArray[np.float64]  # entrant × entrant: i ahead of j in this share of pairs
    strengths: NDArray[np.float64]  # Bradley-Terry fit to every pair, nats


def intra_seed_correlation(successes: Sequence[float] | NDArray[np.float64], units: float) -> float:
    """How alike a seed's units are (a win rate's places, a head-to-head share's pairs):
    (design effect - 1) / (units - 1), the design effect unfloored (below 0: the seed's
    units agree more than coin flips would, as duplicate play makes them)."""
    rates = np.asarray(successes) / units
    mean = float(rates.mean())
    binomial = mean * (1.0 - mean) / units
    return (float(rates.var(ddof=1)) / binomial - 1.0) / (units - 1.0) if binomial else 0.0


def world_correlations(world: World, seed: int) -> tuple[float, float]:
    """Entrant 0's win rate's and its head-to-head share's (over entrant 1) intra-seed
    correlation, on 4,000 seeds of the world."""
    rng = np.random.default_rng([seed, 4001, *map(ord, world.name)])
    seen = figures(world, simulate(world, 1, 4000, rng))
    return (
        intra_seed_correlation(seen.wins[0, :, 0], float(seen.places[0])),
        intra_seed_correlation(seen.ahead[0, :, 0, 1], float(seen.pairs[0, 1])),
    )


def truth(world: World, seed: int) -> Truth:
    """The figures of ``TRUTH_SEEDS`` seeds; the ratings' truth is the Bradley-Terry fit
    to all their pairs (fitted here with scipy's optimiser, not the package's fit)."""
    rng = np.random.default_rng([seed, 7919, *map(ord, world.name)])
    chunk = max(1, 60_000 // len(_seatings(world.entrants)))
    wins = np.zeros(world.entrants)
    ahead = np.zeros((world.entrants, world.entrants))
    done = 0
    places = pairs = np.zeros(0)
    while done < TRUTH_SEEDS:
        step = min(chunk, TRUTH_SEEDS - done)
        seen = figures(world, simulate(world, 1, step, rng))
        wins += seen.wins.sum(axis=(0, 1))
        ahead += seen.ahead.sum(axis=(0, 1))
        places, pairs = seen.places, seen.pairs
        done += step
    shares = np.divide(ahead, pairs * TRUTH_SEEDS, out=np.full_like(ahead, 0.5), where=pairs > 0)
    return Truth(wins / (places * TRUTH_SEEDS), shares, _bradley_terry(ahead))


def _bradley_terry(ahead: NDArray[np.float64]) -> NDArray[np.float64]:
    size = len(ahead)

    def minus_log_likelihood(free: NDArray[np.float64]) -> float:
        strengths = np.append(free, -free.sum())
        difference = strengths[:, None] - strengths[None, :]
        return float((ahead * np.logaddexp(0.0, -difference)).sum())

    found = minimize(minus_log_likelihood, np.zeros(size - 1), method="BFGS", tol=1e-10)
    strengths: NDArray[np.float64] = np.append(found.x, -found.x.sum())
    return strengths


# -- the statistics checked --------------------------------------------------------------------


@dataclass(frozen=True)
class RatingStatement:
    """What a run's ratings say: each entrant's bounds in Elo (None: that side unbounded;
    the whole None: no statement) and the entrants whose mean is the scale's 0."""

    bounds: list[tuple[float | None, float | None] | None]
    centre: tuple[int, ...]


@dataclass(frozen=True)
class VerdictStatement:
    verdict: Verdict
    units: int  # the units the verdict counts
    interval: tuple[float, float] | None  # printed beside it


@dataclass(frozen=True)
class Statistics:
    """The functions the study checks, as the report and ``arena compare`` call them."""

    name: str
    # A rate's interval from its seeds' numerators and denominators; ``stopped``: in a run a
    # sequential test stopped (a comparison's report)
    rate_interval: Callable[[Sequence[float], Sequence[float], bool], tuple[float, float] | None]
    ratings: Callable[[NDArray[np.float64]], RatingStatement]
    verdict: Callable[[Sequence[float], Sprt, int], VerdictStatement]


def _rate_interval(
    wins: Sequence[float], units: Sequence[float], stopped: bool
) -> tuple[float, float] | None:
    rate = SeedRatio()
    for seed, (won, held) in enumerate(zip(wins, units, strict=True)):
        rate.add(seed, won, held)
    return seed_rate_interval(rate, CONFIDENCE, stopped)


def _ratings(per_seed: NDArray[np.float64]) -> RatingStatement:
    field = rate_field(per_seed, CONFIDENCE)
    bounds: list[tuple[float | None, float | None] | None] = []
    for entrant in field.entrants:
        if entrant.place == "apart" or (entrant.low is None and entrant.high is None):
            bounds.append(None)
            continue
        low, high = entrant.low, entrant.high
        bounds.append(
            (
                None if low is None else low * ELO_PER_NAT,
                None if high is None else high * ELO_PER_NAT,
            )
        )
    centre = tuple(i for i, e in enumerate(field.entrants) if e.place == "rated")
    return RatingStatement(bounds, centre)


def _verdict(scores: Sequence[float], test: Sprt, unit_games: int) -> VerdictStatement:
    state, interval = counted_verdict(scores, test)
    return VerdictStatement(state.verdict, state.units, interval)


THIS_TREE: Final = Statistics("this tree", _rate_interval, _ratings, _verdict)


# -- coverage of rates and ratings --------------------------------------------------------------


@dataclass(frozen=True)
class Coverage:
    """How often one figure's printed statement held its truth."""

    section: Literal["rate", "head-to-head", "rating"]
    world: str
    seeds: int
    figure: str  # the entrant or pair
    truth: float
    printed: int  # runs with a statement
    covered: int
    width: float  # mean width of the two-sided statements
    above: int = 0  # runs where a lower bound lay above the truth (the dominant entrant)
    open_runs: int = 0  # runs with a one-sided statement
    dominant: bool = False

    @property
    def share(self) -> float:
        return self.covered / self.printed if self.printed else math.nan

    @property
    def error(self) -> float:
        """One Monte Carlo standard error of ``share`` at the floor."""
        return math.sqrt(COVERAGE_FLOOR * (1 - COVERAGE_FLOOR) / max(1, self.printed))

    def shortfalls(self) -> list[str]:
        """Each promise the cell misses beyond its noise: its coverage, and a dominant
        entrant's lower bound above its truth."""
        found = []
        if self.printed and (COVERAGE_FLOOR - self.share) / self.error > NOISE:
            found.append(
                f"{self.section} {self.world} {self.figure} at {self.seeds} seeds covers "
                f"{self.share:.3f} < {COVERAGE_FLOOR} "
                f"({(COVERAGE_FLOOR - self.share) / self.error:.1f} SE)"
            )
        if self.dominant and self.printed:
            share = self.above / self.printed
            error = math.sqrt(DOMINANT_TAIL * (1 - DOMINANT_TAIL) / self.printed)
            if (share - DOMINANT_TAIL) / error > NOISE:
                found.append(
                    f"rating {self.world} {self.figure} at {self.seeds} seeds: its lower bound "
                    f"above its truth in {share:.3f} > {DOMINANT_TAIL:g} "
                    f"({(share - DOMINANT_TAIL) / error:.1f} SE)"
                )
        return found


def _holds(bound: tuple[float | None, float | None], value: float) -> bool:
    low, high = bound
    return (low is None or low <= value) and (high is None or value <= high)


def coverage_cell(
    world: World, seeds: int, runs: int, rng_seed: int, known: Truth, checked: Statistics
) -> list[Coverage]:
    """The win rates and head-to-head shares of ``runs`` fresh runs of ``seeds`` seeds."""
    rng = np.random.default_rng([rng_seed, seeds, *map(ord, world.name)])
    seen = figures(world, simulate(world, runs, seeds, rng))
    cells: list[Coverage] = []
    size = world.entrants

    def rate_cells(
        section: Literal["rate", "head-to-head"],
        name: str,
        numerators: NDArray[np.float64],
        per_seed: float,
        value: float,
    ) -> Coverage:
        covered = printed = 0
        widths = []
        for run in numerators:
            interval = checked.rate_interval(list(run), [per_seed] * seeds, False)
            if interval is None:
                continue
            printed += 1
            covered += interval[0] <= value <= interval[1]
            widths.append(interval[1] - interval[0])
        width = statistics.fmean(widths) if widths else math.nan
        return Coverage(section, world.name, seeds, name, value, printed, covered, width)

    for entrant in range(size):
        cells.append(
            rate_cells(
                "rate",
                f"entrant {entrant}",
                seen.wins[..., entrant],
                seen.places[entrant],
                known.win_rates[entrant],
            )
        )
    for a in range(size):
        for b in range(a + 1, size):
            cells.append(
                rate_cells(
                    "head-to-head",
                    f"{a} over {b}",
                    seen.ahead[..., a, b],
                    seen.pairs[a, b],
                    known.shares[a, b],
                )
            )
    return cells


def _rating_cells(
    world: World, seeds: int, seen: Figures, known: Truth, checked: Statistics
) -> list[Coverage]:
    size = world.entrants
    dominant = int(np.argmax(world.strengths)) if _has_dominant(world) else -1
    covered = np.zeros(size, dtype=int)
    printed = np.zeros(size, dtype=int)
    above = np.zeros(size, dtype=int)
    one_sided = np.zeros(size, dtype=int)
    widths: list[list[float]] = [[] for _ in range(size)]
    for per_seed in seen.ahead:
        statement = checked.ratings(per_seed)
        if not statement.centre:
            continue
        centre = float(known.strengths[list(statement.centre)].mean())
        for entrant, bound in enumerate(statement.bounds):
            if bound is None:
                continue
            value = (known.strengths[entrant] - centre) * ELO_PER_NAT
            printed[entrant] += 1
            covered[entrant] += _holds(bound, value)
            above[entrant] += bound[0] is not None and bound[0] > value
            if bound[0] is None or bound[1] is None:
                one_sided[entrant] += 1
            else:
                widths[entrant].append(bound[1] - bound[0])
    centred = (known.strengths - known.strengths.mean()) * ELO_PER_NAT
    return [
        Coverage(
            "rating",
            world.name,
            seeds,
            f"entrant {entrant} ({centred[entrant]:+.0f})",
            float(centred[entrant]),
            int(printed[entrant]),
            int(covered[entrant]),
            statistics.fmean(widths[entrant]) if widths[entrant] else math.nan,
            int(above[entrant]),
            int(one_sided[entrant]),
            entrant == dominant,
        )
        for entrant in range(size)
    ]


def _has_dominant(world: World) -> bool:
    ordered = sorted(world.strengths)
    return ordered[-1] - ordered[-2] >= 4.0


# -- the test: units from worlds, hard distributions and real games -------------------------------


@dataclass(frozen=True)
class Units:
    """A distribution of unit scores: ``values`` with ``probabilities``, mean ``mean``."""

    label: str
    values: tuple[float, ...]
    probabilities: tuple[float, ...]
    unit_games: int
    kind: Literal["null", "margin", "own"]

    @property
    def mean(self) -> float:
        return float(np.dot(self.values, self.probabilities))


def world_units(world: World, design: Literal["pairs", "groups"], seed: int) -> list[float]:
    """Unit scores of ``POOL_UNITS`` units of a two-entrant world (NEW is entrant 0)."""
    rng = np.random.default_rng([seed, 104729, *map(ord, world.name + design)])
    seeds = POOL_UNITS if design == "groups" else POOL_UNITS // 3 + 1
    positions = simulate(world, 1, seeds, rng)[0]  # seeds × six seatings × 3
    points = np.zeros((seeds, GROUP_GAMES))
    for game, seating in enumerate(GROUP_SEATINGS):
        for a, new in enumerate(seating):
            for b, base in enumerate(seating):
                if new == 0 and base == 1:
                    points[:, game] += positions[:, game, a] < positions[:, game, b]
    if design == "groups":
        return list(points.sum(axis=1) / 12.0)
    last = GROUP_GAMES - 1
    pairs = [(points[:, s] + points[:, last - s]) / 4.0 for s in range(GROUP_GAMES // 2)]
    return list(np.stack(pairs, axis=1).reshape(-1)[:POOL_UNITS])


def _even_distribution(label: str, scores: Sequence[float], games: int) -> Units:
    """The scores with their mirror images (NEW and BASE swapped), half the weight each:
    the source's own spread at exactly equal strength."""
    chances: dict[float, float] = {}
    for value in scores:
        for side in (value, 1.0 - value):
            key = round(side, 9)
            chances[key] = chances.get(key, 0.0) + 0.5 / len(scores)
    values = tuple(sorted(chances))
    return Units(f"{label} at 1/2", values, tuple(chances[v] for v in values), games, "null")


def _at_margin(null: Units, mean: float) -> Units:
    """The null case tilted to ``mean`` (``tilted``): power is read there."""
    label = null.label.removesuffix(" at 1/2") + " at the margin"
    shifted = tilted(null.values, mean, null.probabilities)
    return dataclasses.replace(
        null, label=label, probabilities=tuple(shifted.tolist()), kind="margin"
    )


def _hard_distributions() -> list[tuple[str, list[float], list[float], int]]:
    """Score distributions that make the test hard, on a seed group's lattice (k / 12) or a
    swap pair's (k / 4): (name, values, weights, games a unit)."""
    twelfths = [k / 12 for k in range(13)]
    quarters = [k / 4 for k in range(5)]
    lumpy90 = [0.1 / 12] * 13
    lumpy90[6] = 0.9
    lumpy98 = [0.02 / 12] * 13
    lumpy98[6] = 0.98
    coin = [0.0] * 13
    coin[0] = coin[12] = 0.4
    coin[6] = 0.2
    return [
        ("90 % at 1/2", twelfths, lumpy90, GROUP_GAMES),
        ("98 % at 1/2", twelfths, lumpy98, GROUP_GAMES),
        ("binomial", twelfths, [math.comb(12, k) / 2**12 for k in range(13)], GROUP_GAMES),
        ("uniform", twelfths, [1 / 13] * 13, GROUP_GAMES),
        ("coin-like", twelfths, coin, GROUP_GAMES),
        ("pairs, 80 % at 1/2", quarters, [0.05, 0.05, 0.8, 0.05, 0.05], PAIR_GAMES),
        ("pairs, binomial", quarters, [math.comb(4, k) / 16 for k in range(5)], PAIR_GAMES),
    ]


def tilted(
    values: Sequence[float], mean: float, weights: Sequence[float] | None = None
) -> NDArray[np.float64]:
    """Probabilities on ``values`` (given ``weights``, else even) times exp(theta x),
    normalised, with the given mean: the closest distribution (in relative entropy) to the
    given one with that mean; outside the values, all weight goes to the nearest end."""
    x = np.asarray(values, dtype=float)
    base = np.ones_like(x) if weights is None else np.asarray(weights, dtype=float)

    def shaped(theta: float) -> NDArray[np.float64]:
        w = base * np.exp(theta * (x - x.mean()))
        result: NDArray[np.float64] = w / w.sum()
        return result

    low, high = -500.0, 500.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if float(shaped(middle) @ x) < mean:
            low = middle
        else:
            high = middle
    return shaped((low + high) / 2.0)


@dataclass(frozen=True)
class TestRuns:
    """Repeated sequential tests of one case."""

    case: Units
    tests: int
    better: int
    not_better: int
    covered: int  # tests whose printed interval held the case's mean
    # tests whose report's head-to-head interval, over the units the verdict counts, held it
    report_covered: int
    games: list[int]  # games the verdict counts, per test (the cap's for undecided ones)
    played: list[int] = field(default_factory=list)  # games played by arena compare's batches
    looked_every_batch: list[int] = field(default_factory=list)  # as before: a look per batch

    @property
    def undecided(self) -> int:
        return self.tests - self.better - self.not_better

    @property
    def better_rate(self) -> float:
        return self.better / self.tests

    def shortfalls(self, size: StudySize) -> list[str]:
        found = []
        label = self.case.label
        if self.case.kind == "null":
            error = math.sqrt(size.alpha * (1 - size.alpha) / self.tests)
            if (self.better_rate - size.alpha) / error > NOISE:
                found.append(
                    f"false positives {label} {self.better_rate:.3f} > {size.alpha:g} "
                    f"({(self.better_rate - size.alpha) / error:.1f} SE)"
                )
        if self.case.kind == "margin":
            error = math.sqrt(POWER_FLOOR * (1 - POWER_FLOOR) / self.tests)
            if (POWER_FLOOR - self.better_rate) / error > NOISE:
                found.append(
                    f"power {label} {self.better_rate:.3f} < {POWER_FLOOR} "
                    f"({(POWER_FLOOR - self.better_rate) / error:.1f} SE, "
                    f"{self.undecided} undecided at the cap)"
                )
        error = math.sqrt(COVERAGE_FLOOR * (1 - COVERAGE_FLOOR) / self.tests)
        for what, covered in (
            ("interval at the verdict", self.covered),
            ("report's head-to-head at the verdict", self.report_covered),
        ):
            share = covered / self.tests
            if (COVERAGE_FLOOR - share) / error > NOISE:
                found.append(
                    f"{what} {label} covers {share:.3f} < {COVERAGE_FLOOR} "
                    f"({(COVERAGE_FLOOR - share) / error:.1f} SE)"
                )
        return found


def _draws(case: Units, rng: np.random.Generator) -> Callable[[int], list[float]]:
    values = np.asarray(case.values)
    chances = np.asarray(case.probabilities)
    drawn: list[float] = []

    def upto(count: int) -> list[float]:
        if count > len(drawn):
            drawn.extend(rng.choice(values, size=count - len(drawn), p=chances).tolist())
        return drawn[:count]

    return upto


def run_tests(
    case: Units, size: StudySize, first: int, count: int, checked: Statistics, played: bool
) -> TestRuns:
    """``count`` sequential tests on units drawn from ``case``: each test looks at more
    units (64, then doubling) until the statistics decide or the cap is reached."""
    test = size.test
    cap = size.max_games // case.unit_games
    batch = max(1, BATCH_GAMES // case.unit_games)
    better = not_better = covered = report_covered = 0
    pairs = PAIRS_PER_SEATING * case.unit_games  # NEW-versus-BASE pairs in a unit
    games: list[int] = []
    spent: list[int] = []
    every_batch: list[int] = []
    for index in range(first, first + count):
        rng = np.random.default_rng([size.seed, index, *map(ord, case.label)])
        draw = _draws(case, rng)
        looked = min(64, cap)
        while True:
            statement = checked.verdict(draw(looked), test, case.unit_games)
            if statement.verdict != "undecided" or looked >= cap:
                break
            looked = min(2 * looked, cap)
        better += statement.verdict == "better"
        not_better += statement.verdict == "not better"
        interval = statement.interval
        covered += interval is not None and interval[0] <= case.mean <= interval[1]
        counted = draw(statement.units)
        report = checked.rate_interval([x * pairs for x in counted], [pairs] * len(counted), True)
        report_covered += report is not None and report[0] <= case.mean <= report[1]
        games.append(statement.units * case.unit_games)
        if played:
            spent.append(_played_units(draw, test, size, case.unit_games) * case.unit_games)
            every_batch.append(_batch_look_units(draw, test, batch, cap) * case.unit_games)
    return TestRuns(
        case, count, better, not_better, covered, report_covered, games, spent, every_batch
    )


def _played_units(
    draw: Callable[[int], list[float]], test: Sprt, size: StudySize, unit_games: int
) -> int:
    """The units ``arena compare`` plays before it stops, batch by batch
    (``comparison.next_target``), on these units."""
    design: Literal["pairs", "groups"] = "pairs" if unit_games == PAIR_GAMES else "groups"
    batch = max(1, BATCH_GAMES // unit_games)
    played = 0
    while True:
        target = next_target(draw(played), test, batch, size.max_games, design)
        if target is None:
            return played
        played = target
        if first_decision(test.path(draw(played))) is not None:
            return played


def _batch_look_units(draw: Callable[[int], list[float]], test: Sprt, batch: int, cap: int) -> int:
    """Where the same test stops when it looks only after every ``batch`` units (as
    ``arena compare`` did before it looked after every unit)."""
    looked = 0
    while looked < cap:
        looked = min(looked + batch, cap)
        if test.state(draw(looked)).verdict != "undecided":
            return looked
    return looked


# -- real games, played in-process (where the engine's own variance matters) ----------------------

NEW: Final = 0  # entrant indices in GROUP_SEATINGS
BASE: Final = 1

Player = tuple[Literal["greedy", "lowest", "noisy"], float]  # and a noisy one's error rate


@dataclass(frozen=True)
class BotPair:
    description: str
    new: Player
    base: Player


BOT_PAIRS: Final[dict[str, BotPair]] = {
    "lopsided": BotPair("greedy against lowest", ("greedy", 0.0), ("lowest", 0.0)),
    "close": BotPair("greedy against a greedy erring 10 %", ("greedy", 0.0), ("noisy", 0.1)),
}


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
class SeedGroup:
    """One seed's six games: per seating (GROUP_SEATINGS order), NEW's points in its two
    pairs with BASE (1 ahead, 1/2 tie)."""

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
        outcome = GameOutcome(
            entrants_by_team=(str(seating[0]), str(seating[1]), str(seating[2])),
            final_scores=game.outcome.scores,
            winner=game.outcome.winner,
        )
        positions = finishing_positions(outcome)
        placings = [
            (positions[a], positions[b])
            for a, new in enumerate(seating)
            for b, base in enumerate(seating)
            if new == NEW and base == BASE
        ]
        points.append(group_score(placings) * len(placings))
    return SeedGroup(tuple(points))


def pair_scores(groups: Sequence[SeedGroup]) -> list[float]:
    """Every swap pair's score in the pool: seating s with its mirror 5 - s, three a seed."""
    last = GROUP_GAMES - 1
    return [
        (g.seating_points[s] + g.seating_points[last - s]) / (2 * PAIRS_PER_SEATING)
        for g in groups
        for s in range(GROUP_GAMES // 2)
    ]


def _play_one(task: tuple[int, str]) -> tuple[str, SeedGroup]:
    game_seed, name = task
    return name, play_group(game_seed, BOT_PAIRS[name])


# -- the study ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class StudySize:
    """How much the study simulates and plays."""

    runs: int = 400  # fresh runs per world and seed count (win rates, head-to-head)
    rating_runs: int = 150  # of those, the runs whose ratings are fitted
    tests: int = 400  # sequential tests per case
    groups: int = 40  # seed groups of real games per pair of bots (0: none)
    margin: float = 0.05
    alpha: float = 0.05
    beta: float = 0.05
    # A test still undecided here counts as undecided: far above arena compare's default
    # cap, so that power is the test's own, not the cap's.
    max_games: int = 10_000
    seed: int = 1
    jobs: int = 1

    def __post_init__(self) -> None:
        if min(self.runs, self.rating_runs, self.tests) < 1 or self.groups < 0:
            raise ValueError("every size of the study is at least 1 (--groups at least 0)")
        if self.max_games < GROUP_GAMES:
            raise ValueError(f"--max-games must allow one seed group ({GROUP_GAMES} games)")
        Sprt(self.margin, self.alpha, self.beta)  # the test's own checks

    @property
    def test(self) -> Sprt:
        return Sprt(self.margin, self.alpha, self.beta)

    def command(self) -> str:
        """The command line that reruns the study with these sizes."""
        return (
            f"arena bench stats --runs {self.runs} --rating-runs {self.rating_runs} "
            f"--tests {self.tests} --groups {self.groups} --margin {self.margin:g} "
            f"--alpha {self.alpha:g} --beta {self.beta:g} --max-games {self.max_games} "
            f"--seed {self.seed} --jobs {self.jobs}"
        )


@dataclass(frozen=True)
class StudyFigures:
    size: StudySize
    checked: str
    coverage: list[Coverage]
    tests: list[TestRuns]
    games: int  # real games played
    seconds: float
    shortfalls: list[str]
    pools: dict[str, list[SeedGroup]] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """The figures as ``arena bench stats`` prints them."""
        s = self.size
        lines = [
            f"statistics checked: {self.checked}; worlds simulated (numpy), each figure's "
            f"truth from {TRUTH_SEEDS:,} seeds of the same world; a cell falls short when it "
            f"misses by more than {NOISE:g} standard errors (coverage floor {COVERAGE_FLOOR}, "
            f"power floor {POWER_FLOOR}, a dominant bound above its truth at most "
            f"{DOMINANT_TAIL:g})",
        ]
        for world in WORLDS:
            wins, share = world_correlations(world, s.seed)
            lines.append(
                f"world {world.name}: strengths {', '.join(f'{x:g}' for x in world.strengths)}, "
                f"luck {world.luck:g}, fit {world.fit:g}, hand {world.hand:g}: {world.describe}; "
                f"intra-seed correlation of entrant 0's wins {wins:+.3f}, of its pairs with 1 "
                f"{share:+.3f}"
            )
        for name, groups in self.pools.items():
            if groups:
                lines.append(
                    f"pool {name} ({BOT_PAIRS[name].description}): {len(groups)} seed groups "
                    f"of real games, NEW's unit score "
                    f"{statistics.fmean(g.score for g in groups):.4f}, intra-seed correlation "
                    f"of its pairs with BASE "
                    f"{intra_seed_correlation([12 * g.score for g in groups], 12.0):+.3f}"
                )
        for section, runs in (("rate", s.runs), ("head-to-head", s.runs)):
            lines += _coverage_lines(
                [c for c in self.coverage if c.section == section], section, runs
            )
        lines += _coverage_lines(
            [c for c in self.coverage if c.section == "rating"], "rating", s.rating_runs
        )
        lines.append(
            f"sequential test: margin {s.margin:g}, alpha {s.alpha:g}, beta {s.beta:g}, looked "
            f"at after every unit, at most {s.max_games} games; {s.tests} tests a case"
        )
        for tested in self.tests:
            case = tested.case
            line = (
                f"test {case.label} (mean {case.mean:.4f}): better {tested.better_rate:.3f}, "
                f"not better {tested.not_better / tested.tests:.3f}, undecided {tested.undecided}; "
                f"games to a verdict: median {statistics.median(tested.games):.0f}"
            )
            if tested.played:
                line += (
                    f", played by arena compare's batches {statistics.median(tested.played):.0f}"
                    f" (a look every {BATCH_GAMES} games, as before: "
                    f"{statistics.median(tested.looked_every_batch):.0f}; mean "
                    f"{statistics.fmean(tested.played):.1f} against "
                    f"{statistics.fmean(tested.looked_every_batch):.1f})"
                )
            line += (
                f"; interval at the verdict covers {tested.covered / tested.tests:.3f}, the "
                f"report's head-to-head on its units {tested.report_covered / tested.tests:.3f}"
            )
            lines.append(line)
        if self.shortfalls:
            lines.append(
                f"cells that fall short ({len(self.shortfalls)}): " + "; ".join(self.shortfalls)
            )
        else:
            lines.append("cells that fall short: none")
        lines.append(
            f"study time: {self.seconds:.0f} s ({self.games} real games); rerun: {s.command()}"
        )
        return lines


def _coverage_lines(cells: Sequence[Coverage], section: str, runs: int) -> list[str]:
    lines = []
    keys = sorted(
        {(c.world, c.figure) for c in cells},
        key=lambda k: ([w.name for w in WORLDS].index(k[0]), k[1]),
    )
    for world, figure in keys:
        row = sorted(
            (c for c in cells if (c.world, c.figure) == (world, figure)), key=lambda c: c.seeds
        )
        first = row[0]
        parts = []
        for c in row:
            part = f"{c.seeds} seeds {c.share:.3f}"
            if not math.isnan(c.width):
                part += f" (width {c.width:.3g})"
            if c.open_runs:
                part += f", one-sided in {c.open_runs}"
            if c.dominant:
                part += f", bound above truth in {c.above}"
            parts.append(part)
        lines.append(
            f"{section} {world} {figure}, truth {first.truth:.4g} ({runs} runs a cell): "
            + "; ".join(parts)
        )
    return lines


def _coverage_task(
    task: tuple[World, StudySize, Statistics, tuple[Section, ...]],
) -> list[Coverage]:
    """Every seed count's cells of one world (its truth simulated once)."""
    world, size, checked, sections = task
    known = truth(world, size.seed)
    cells: list[Coverage] = []
    for seeds in RATE_SEEDS:
        if "rates" in sections:
            cells += coverage_cell(world, seeds, size.runs, size.seed, known, checked)
        if "ratings" in sections and world.entrants >= 3 and seeds in RATING_SEEDS:
            rng = np.random.default_rng([size.seed, seeds, 31, *map(ord, world.name)])
            seen = figures(world, simulate(world, size.rating_runs, seeds, rng))
            cells += _rating_cells(world, seeds, seen, known, checked)
    return cells


def _test_task(task: tuple[Units, StudySize, int, int, Statistics, bool]) -> TestRuns:
    case, size, first, count, checked, played = task
    return run_tests(case, size, first, count, checked, played)


def _merge(parts: Sequence[TestRuns]) -> TestRuns:
    return TestRuns(
        parts[0].case,
        sum(p.tests for p in parts),
        sum(p.better for p in parts),
        sum(p.not_better for p in parts),
        sum(p.covered for p in parts),
        sum(p.report_covered for p in parts),
        [g for p in parts for g in p.games],
        [g for p in parts for g in p.played],
        [g for p in parts for g in p.looked_every_batch],
    )


def _cases(size: StudySize, pools: dict[str, list[SeedGroup]]) -> list[Units]:
    """At 1/2 and at the margin: units of three worlds in both designs, and the hard
    distributions; at their own advantage: the real games' pools."""
    target = 0.5 + size.margin
    nulls: list[Units] = []
    for name in ("close", "fit"):
        world = next(w for w in WORLDS if w.name == name)
        designs: tuple[tuple[Literal["pairs", "groups"], int], ...] = (
            ("pairs", PAIR_GAMES),
            ("groups", GROUP_GAMES),
        )
        for design, games in designs:
            scores = world_units(world, design, size.seed)
            nulls.append(_even_distribution(f"world {name} {design}", scores, games))
    for name, values, weights, games in _hard_distributions():
        nulls.append(Units(f"hard {name} at 1/2", tuple(values), tuple(weights), games, "null"))
    cases = [case for null in nulls for case in (null, _at_margin(null, target))]
    for name, groups in pools.items():
        for design, scores, games in (
            ("pairs", pair_scores(groups), PAIR_GAMES),
            ("groups", [g.score for g in groups], GROUP_GAMES),
        ):
            if not scores:
                continue
            points, counts = np.unique(np.round(np.asarray(scores), 9), return_counts=True)
            chances = tuple((counts / counts.sum()).tolist())
            lattice = tuple(float(v) for v in points)
            cases.append(Units(f"real {name} {design}", lattice, chances, games, "own"))
    return cases


Section = Literal["rates", "ratings", "tests"]
SECTIONS: Final[tuple[Section, ...]] = ("rates", "ratings", "tests")


def bench_stats(
    size: StudySize, checked: Statistics = THIS_TREE, sections: tuple[Section, ...] = SECTIONS
) -> StudyFigures:
    """The study of ``checked``'s statistics (``sections``: which parts, all by default)."""
    started = time.perf_counter()
    context = multiprocessing.get_context("spawn")  # no state of the caller's threads
    with ProcessPoolExecutor(size.jobs, mp_context=context) as pool:
        groups = size.groups if "tests" in sections else 0
        tasks = [(size.seed + k, name) for name in BOT_PAIRS for k in range(groups)]
        played = list(pool.map(_play_one, tasks, chunksize=2))
        pools: dict[str, list[SeedGroup]] = {name: [] for name in BOT_PAIRS}
        for name, group in played:
            pools[name].append(group)
        # The heaviest worlds (most entrants) first, so that the processes end together.
        coverage_tasks = [
            (world, size, checked, sections)
            for world in sorted(WORLDS, key=lambda w: -w.entrants)
            if "rates" in sections or ("ratings" in sections and world.entrants >= 3)
        ]
        cases = _cases(size, pools) if "tests" in sections else []
        chunk = max(1, min(size.tests, 100))
        test_tasks = [
            (case, size, first, min(chunk, size.tests - first), checked, case.kind == "own")
            for case in cases
            for first in range(0, size.tests, chunk)
        ]
        cells = pool.map(_coverage_task, coverage_tasks)
        test_parts = list(pool.map(_test_task, test_tasks))
        coverage = [c for part in cells for c in part]
    tests = [_merge([p for p in test_parts if p.case.label == case.label]) for case in cases]
    shortfalls = [text for c in coverage for text in c.shortfalls()]
    shortfalls += [text for runs in tests for text in runs.shortfalls(size)]
    return StudyFigures(
        size=size,
        checked=checked.name,
        coverage=coverage,
        tests=tests,
        games=len(played) * GROUP_GAMES,
        seconds=time.perf_counter() - started,
        shortfalls=shortfalls,
        pools=pools,
    )
