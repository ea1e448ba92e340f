"""``arena bench stats``: the report's intervals and ``arena compare``'s test, checked on games.

The bots are of known relative strength: ``greedy`` (G) and a greedy that plays a random
legal card with probability p (N, ``NoisyBot``), played in-process (``inprocess``: the same
messages, no transport). One seed group is one game seed in every seating of {G, N, N}
and {G, G, N} (``compare.GROUP_SEATINGS``): six games dealt the same cards (R3.1a).

The study first plays two pools of seed groups, G against N and, for equal strength, N
against a copy of N (its own random choices); then it samples repeated runs from them:

- coverage: how often the seed-bootstrap 95 % interval of G's win rate (``SeedRatio``, as
  the report's standings) holds the true value, and how often Wilson's interval per game
  (``win_rate_interval``) does on the same runs. Once over runs of fresh seeds (the pool
  cut into disjoint runs; the truth is the whole pool's value, itself an estimate), once
  over many runs drawn with replacement from the pool (in that world the pool is the
  population, so its value is the truth exactly);
- the sequential test (``Sprt``, looked at every ``compare.DEFAULT_BATCH`` groups as
  ``arena compare`` does): its false-positive rate at equal strength (the N-against-N
  scores with their mirror images 1 - x, so the null world is exactly symmetric) and its
  power at the margin (the G-against-N scores, exponentially tilted to a mean of 1/2 +
  margin);
- the games it needs at G's true advantage, and at the margin (both tilted), with
  duplicate seed groups against the same test on independent deals: a group whose six
  games come from six different seeds of the pool, so each game is dealt its own cards.

Each figure is a plain fraction or count; nothing is asserted, the caller reads them.
"""

from __future__ import annotations

import math
import multiprocessing
import random
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Final, Literal

import numpy as np
from numpy.typing import NDArray

from arena.bench.inprocess import load_python_bot, play_game_in_process
from arena.bots.samples import sample_bot
from arena.engine import Action, DecisionKind
from arena.sdk.bot import Bot, Decision
from arena.tournament.compare import DEFAULT_BATCH, GROUP_SEATINGS
from arena.tournament.resample import SeedRatio
from arena.tournament.sequential import Sprt, group_score
from arena.tournament.stats import GameOutcome, finishing_positions, win_rate_interval
from arena.v1 import arena_pb2 as pb

__all__ = ["NoisyBot", "StudyFigures", "StudySize", "bench_stats"]

STRONG: Final = 0  # entrant indices in GROUP_SEATINGS: G is NEW, N is BASE
WEAK: Final = 1
# Each seating holds two G-versus-N pairs of teams: a group's score is the share of its 12.
PAIRS_PER_SEATING: Final = 2
CONFIDENCE: Final = 0.95
# Run sizes (seeds) of the coverage sweep: `arena run --games 10` stands on 10 seeds.
SWEEP_SEEDS: Final = (5, 10, 20, 40)

Case = Literal["null", "margin", "duplicate", "independent", "margin-independent"]
CASES: Final[tuple[Case, ...]] = (
    "null",
    "margin",
    "duplicate",
    "independent",
    "margin-independent",
)


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
    """How much the study plays and samples; the defaults take a few minutes on two cores."""

    seeds: int = 300  # seed groups of G against N (six games each)
    null_seeds: int = 150  # seed groups of N against a copy of N
    run_seeds: int = 20  # seeds in one run of the coverage check
    runs: int = 2000  # runs drawn from the pool for the coverage check
    tests: int = 200  # sequential tests per case
    p: float = 0.3  # N's chance of a random card
    margin: float = 0.05
    alpha: float = 0.05
    beta: float = 0.05
    max_groups: int = 2000  # a test still undecided here counts as undecided
    seed: int = 1  # first game seed (guessable: a benchmark)
    jobs: int = 1

    def __post_init__(self) -> None:
        if min(self.seeds, self.null_seeds, self.run_seeds, self.runs, self.tests) < 1:
            raise ValueError("every size of the study is at least 1")
        if not 0.0 <= self.p <= 1.0:
            raise ValueError(f"--p is a probability, not {self.p}")
        Sprt(self.margin, self.alpha, self.beta)  # the test's own checks

    def command(self) -> str:
        """The command line that reruns the study with these sizes."""
        return (
            f"arena bench stats --seeds {self.seeds} --null-seeds {self.null_seeds} "
            f"--run-seeds {self.run_seeds} --runs {self.runs} --tests {self.tests} "
            f"--p {self.p:g} --margin {self.margin:g} --alpha {self.alpha:g} "
            f"--beta {self.beta:g} --max-groups {self.max_groups} --seed {self.seed} "
            f"--jobs {self.jobs}"
        )


# -- playing the pools (in worker processes) ----------------------------------------------------


@dataclass(frozen=True)
class SeedGroup:
    """One seed's six games: G's win count over its team places, and the pair results."""

    strong_wins: float  # a draw counts half (as the report's win rate)
    strong_places: int  # teams G held: 2 in {G,G,N}, 1 in {G,N,N}; 9 in all
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


def play_group(game_seed: int, p: float, equal: bool) -> SeedGroup:
    """One seed group: G (or, when ``equal``, a second N) as NEW against N as BASE."""
    greedy = _greedy_class()
    wins = 0.0
    places = 0
    points: list[float] = []
    for index, seating in enumerate(GROUP_SEATINGS):
        bots: list[Bot] = []
        for seat in range(6):
            entrant = seating[seat % 3]  # R1.2: team t holds seats t and t + 3
            if entrant == STRONG and not equal:
                bots.append(greedy())
            else:
                # Every noisy seat draws its own stream, fixed by seed, seating and seat.
                rng = random.Random(f"{game_seed}/{index}/{seat}")
                bots.append(NoisyBot(greedy(), p, rng))
        game = play_game_in_process(bots, game_seed)
        assert game.outcome is not None
        winner = game.outcome.winner
        outcome = GameOutcome(
            entrants_by_team=(str(seating[0]), str(seating[1]), str(seating[2])),
            final_scores=game.outcome.scores,
            winner=winner,
        )
        for team, entrant in enumerate(seating):
            if entrant == STRONG:
                places += 1
                wins += 1.0 if winner == team else 0.5 if winner is None else 0.0
        positions = finishing_positions(outcome)
        placings = [
            (positions[a], positions[b])
            for a, new in enumerate(seating)
            for b, base in enumerate(seating)
            if new == STRONG and base == WEAK
        ]
        points.append(group_score(placings) * len(placings))
    return SeedGroup(wins, places, tuple(points))


def _play_one(task: tuple[int, float, bool]) -> SeedGroup:
    return play_group(*task)


# -- sampling runs from the pools --------------------------------------------------------------


@dataclass(frozen=True)
class Coverage:
    runs: int
    run_seeds: int
    bootstrap: float  # share of runs whose seed-bootstrap interval holds the truth
    wilson: float  # the same for Wilson's interval per game
    bootstrap_width: float  # mean width of the intervals
    wilson_width: float


def coverage(groups: Sequence[SeedGroup], runs: Sequence[Sequence[int]], truth: float) -> Coverage:
    """How often each interval of G's win rate, computed on each run, holds ``truth``."""
    held_bootstrap = held_wilson = 0
    widths_bootstrap: list[float] = []
    widths_wilson: list[float] = []
    for run in runs:
        ratio = SeedRatio()
        for position, index in enumerate(run):
            # A seed drawn twice is two clusters of the sampled world, so keyed by position.
            ratio.add(position, groups[index].strong_wins, groups[index].strong_places)
        low, high = ratio.interval(CONFIDENCE)
        held_bootstrap += low <= truth <= high
        widths_bootstrap.append(high - low)
        wins = sum(groups[i].strong_wins for i in run)
        places = sum(groups[i].strong_places for i in run)
        low, high = win_rate_interval(wins, places, CONFIDENCE)
        held_wilson += low <= truth <= high
        widths_wilson.append(high - low)
    count = len(runs)
    return Coverage(
        runs=count,
        run_seeds=len(runs[0]) if runs else 0,
        bootstrap=held_bootstrap / count if count else math.nan,
        wilson=held_wilson / count if count else math.nan,
        bootstrap_width=statistics.fmean(widths_bootstrap) if count else math.nan,
        wilson_width=statistics.fmean(widths_wilson) if count else math.nan,
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
    def mean_games(self) -> float:
        return statistics.fmean(self.games)


_POOLS: dict[str, object] = {}


def _set_pools(pools: dict[str, object]) -> None:
    _POOLS.update(pools)


def _one_test(task: tuple[Case, int, StudySize]) -> tuple[str, int]:
    """One sequential test on groups drawn from the pools; (verdict, games played)."""
    case, index, size = task
    rng = np.random.default_rng([size.seed, CASES.index(case), index])
    test = Sprt(size.margin, size.alpha, size.beta)
    pool = {"null": "null", "margin-independent": "independent"}.get(case, "scores")
    values = np.asarray(_POOLS[pool], dtype=float)
    probabilities: NDArray[np.float64] | None = None
    if case in ("margin", "margin-independent"):
        probabilities = np.asarray(_POOLS[f"tilted {pool}"], dtype=float)
    points = np.asarray(_POOLS["points"], dtype=float)  # seeds × seatings
    scores: list[float] = []
    while len(scores) < size.max_groups:
        batch = min(DEFAULT_BATCH, size.max_groups - len(scores))
        if case == "independent":
            # Every seating's game from its own seed: six deals where a group shares one.
            picks = rng.integers(0, len(points), size=(batch, points.shape[1]))
            drawn = points[picks, np.arange(points.shape[1])].sum(axis=1)
            scores += list(drawn / (PAIRS_PER_SEATING * points.shape[1]))
        else:
            scores += list(rng.choice(values, size=batch, p=probabilities))
        verdict = test.state(scores).verdict
        if verdict != "undecided":
            return verdict, len(scores) * len(GROUP_SEATINGS)
    return "undecided", len(scores) * len(GROUP_SEATINGS)


def _tally(results: Sequence[tuple[str, int]]) -> TestRuns:
    return TestRuns(
        tests=len(results),
        better=sum(1 for verdict, _ in results if verdict == "better"),
        not_better=sum(1 for verdict, _ in results if verdict == "not better"),
        games=[games for _, games in results],
    )


def independent_scores(
    groups: Sequence[SeedGroup], rng: np.random.Generator, draws: int = 20_000
) -> NDArray[np.float64]:
    """Scores of groups whose six games are each dealt from its own seed of the pool."""
    points = np.asarray([g.seating_points for g in groups], dtype=float)
    picks = rng.integers(0, len(points), size=(draws, points.shape[1]))
    scores: NDArray[np.float64] = points[picks, np.arange(points.shape[1])].sum(axis=1) / (
        PAIRS_PER_SEATING * points.shape[1]
    )
    return scores


# -- the study ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class StudyFigures:
    size: StudySize
    games: int
    seconds_playing: float
    seconds: float
    strong_win_rate: float  # the truth of the coverage check: G's win rate in the pool
    strong_interval: tuple[float, float]  # and its own seed-bootstrap interval
    strong_score: float  # G's mean group score against N: 1/2 + its true advantage
    score_interval: tuple[float, float]
    null_score: float  # N against N before mirroring (1/2 up to the pool's noise)
    # The spread of one group's score, which sets the games a test needs: duplicate seed
    # groups, and groups of six games on six independent deals (drawn from the pool).
    duplicate_sd: float
    independent_sd: float
    fresh: Coverage
    drawn: Coverage
    sweep: list[Coverage]  # drawn runs of SWEEP_SEEDS seeds
    null: TestRuns
    margin: TestRuns
    duplicate: TestRuns
    independent: TestRuns
    margin_independent: TestRuns  # independent deals tilted to the margin, as ``margin``

    def lines(self) -> list[str]:
        """The figures as ``arena bench stats`` prints them."""
        s = self.size
        fresh, drawn = self.fresh, self.drawn
        low, high = self.strong_interval
        score_low, score_high = self.score_interval
        ratio = _ratio(self.independent.median_games, self.duplicate.median_games)
        margin_ratio = _ratio(self.margin_independent.median_games, self.margin.median_games)
        return [
            f"study: greedy (G) against greedy playing a random legal card with probability "
            f"{s.p:g} (N), in-process; a seed group is one seed in every seating of "
            "{G,N,N} and {G,G,N} (6 games)",
            f"pools: {s.seeds} seed groups of G against N and {s.null_seeds} of N against a "
            f"copy of N, {self.games:,} games in {self.seconds_playing:.0f} s on {s.jobs} "
            "processes",
            f"truth: G's win rate {self.strong_win_rate:.4f} (its own 95% interval "
            f"{low:.4f}–{high:.4f}, from {s.seeds} seeds); G's group score against N "
            f"{self.strong_score:.4f} ({score_low:.4f}–{score_high:.4f}); N against N "
            f"{self.null_score:.4f}",
            f"coverage over fresh runs: seed bootstrap {fresh.bootstrap:.3f}, Wilson per game "
            f"{fresh.wilson:.3f} ({fresh.runs} disjoint runs of {fresh.run_seeds} seeds; "
            f"truth: the pool's value; mean widths {fresh.bootstrap_width:.3f} and "
            f"{fresh.wilson_width:.3f})",
            f"coverage over drawn runs: seed bootstrap {drawn.bootstrap:.3f}, Wilson per game "
            f"{drawn.wilson:.3f} ({drawn.runs} runs of {drawn.run_seeds} seeds drawn from the "
            f"pool; truth: exactly the pool's value; mean widths {drawn.bootstrap_width:.3f} "
            f"and {drawn.wilson_width:.3f})",
            "coverage over drawn runs by seeds per run (seed bootstrap / Wilson per game): "
            + ", ".join(f"{c.run_seeds}: {c.bootstrap:.3f} / {c.wilson:.3f}" for c in self.sweep),
            f"sequential test: margin {s.margin:g}, alpha {s.alpha:g}, beta {s.beta:g}, a look "
            f"every {DEFAULT_BATCH} seed groups as arena compare, at most {s.max_groups} "
            f"groups; {s.tests} tests per case, groups drawn from the pools",
            f"false-positive rate at equal strength: {self.null.better / self.null.tests:.3f} "
            f"(better in {self.null.better} of {self.null.tests}, undecided "
            f"{self.null.undecided}; N against N, mirrored; alpha {s.alpha:g})",
            f"power at the margin: {self.margin.better / self.margin.tests:.3f} (better in "
            f"{self.margin.better} of {self.margin.tests}, undecided {self.margin.undecided}; "
            f"G against N tilted to a group score of {0.5 + s.margin:g}; 1 - beta "
            f"{1 - s.beta:g})",
            f"games needed at G's true advantage {self.strong_score - 0.5:+.4f}: median "
            f"{self.duplicate.median_games:.0f} games with duplicate seed groups, "
            f"{self.independent.median_games:.0f} with independent deals; ratio {ratio:.2f} "
            f"(means {self.duplicate.mean_games:.0f} and {self.independent.mean_games:.0f}; "
            f"a group's score SD {self.duplicate_sd:.4f} and {self.independent_sd:.4f}; "
            f"better in {self.duplicate.better} and {self.independent.better} of {s.tests})",
            f"games needed at the margin (both tilted to a group score of {0.5 + s.margin:g}): "
            f"median {self.margin.median_games:.0f} games with duplicate seed groups, "
            f"{self.margin_independent.median_games:.0f} with independent deals; ratio "
            f"{margin_ratio:.2f} (means {self.margin.mean_games:.0f} and "
            f"{self.margin_independent.mean_games:.0f}; better in {self.margin.better} and "
            f"{self.margin_independent.better} of {s.tests})",
            f"study time: {self.seconds:.0f} s; rerun: {s.command()}",
        ]


def _ratio(top: float, bottom: float) -> float:
    return top / bottom if bottom else math.nan


def bench_stats(size: StudySize) -> StudyFigures:
    started = time.perf_counter()
    context = multiprocessing.get_context("spawn")  # no state of the caller's threads
    tasks = [(size.seed + k, size.p, False) for k in range(size.seeds)]
    tasks += [(size.seed + k, size.p, True) for k in range(size.null_seeds)]
    with ProcessPoolExecutor(size.jobs, mp_context=context) as pool:
        played = list(pool.map(_play_one, tasks, chunksize=4))
    groups, null_groups = played[: size.seeds], played[size.seeds :]
    seconds_playing = time.perf_counter() - started

    whole = SeedRatio()
    for k, group in enumerate(groups):
        whole.add(k, group.strong_wins, group.strong_places)
    truth = whole.value
    scores = [g.score for g in groups]
    score_ratio = SeedRatio()
    for k, score in enumerate(scores):
        score_ratio.add(k, score, 1.0)
    null_scores = [g.score for g in null_groups]

    per_run = min(size.run_seeds, size.seeds)
    disjoint = [
        range(start, start + per_run) for start in range(0, size.seeds - per_run + 1, per_run)
    ]
    rng = np.random.default_rng([size.seed, 0])
    drawn_runs = [list(rng.integers(0, size.seeds, size=per_run)) for _ in range(size.runs)]
    sweep = [
        coverage(
            groups, [list(rng.integers(0, size.seeds, size=n)) for _ in range(size.runs)], truth
        )
        for n in SWEEP_SEEDS
    ]

    independent = independent_scores(groups, rng)
    pools: dict[str, object] = {
        "scores": scores,
        "null": null_scores + [1.0 - x for x in null_scores],
        "tilted scores": list(tilted(scores, 0.5 + size.margin)),
        "points": [list(g.seating_points) for g in groups],
        "independent": list(independent),
        "tilted independent": list(tilted(list(independent), 0.5 + size.margin)),
    }
    cases = CASES
    with ProcessPoolExecutor(
        size.jobs, mp_context=context, initializer=_set_pools, initargs=(pools,)
    ) as pool:
        tests = [(case, i, size) for case in cases for i in range(size.tests)]
        results = list(pool.map(_one_test, tests, chunksize=8))
    by_case = {
        case: _tally(results[n * size.tests : (n + 1) * size.tests]) for n, case in enumerate(cases)
    }
    return StudyFigures(
        size=size,
        games=len(played) * len(GROUP_SEATINGS),
        seconds_playing=seconds_playing,
        seconds=time.perf_counter() - started,
        strong_win_rate=truth,
        strong_interval=whole.interval(CONFIDENCE),
        strong_score=score_ratio.value,
        score_interval=score_ratio.interval(CONFIDENCE),
        null_score=statistics.fmean(null_scores),
        duplicate_sd=float(np.std(scores)),
        independent_sd=float(np.std(independent)),
        fresh=coverage(groups, disjoint, truth),
        drawn=coverage(groups, drawn_runs, truth),
        sweep=sweep,
        null=by_case["null"],
        margin=by_case["margin"],
        duplicate=by_case["duplicate"],
        independent=by_case["independent"],
        margin_independent=by_case["margin-independent"],
    )
