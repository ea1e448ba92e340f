"""Ratings for many entrants: a Bradley–Terry fit over finishing order (pure, no I/O).

A raw win rate depends on whom an entrant happened to meet; a rating does not. Each game
is broken into its pairs of teams held by different entrants: the team placed ahead beats
the other (a tie counts half each way). The Bradley–Terry strengths are the maximum-
likelihood fit to all pairs of all games at once, so the result depends neither on the
order the games finished in nor on ``--jobs``. Ratings are on the Elo scale (400 more
means ten times the odds of finishing ahead), centred on the mean of the *rated field*.

**The rated field.** A maximum-likelihood fit exists only where every entrant both beat and
lost to the others, through some chain of pairs (the comparisons are strongly connected,
Zermelo's condition); an entrant that never finished behind any of them would need an
infinite strength, which only a regulariser would turn into a number. So the field is the
largest set of entrants the pairs connect both ways (``rated``); an entrant that never
finished behind any of its entrants is ``above`` it, one that never finished ahead of any
is ``below`` it, one with no pair in either direction ``apart``. An entrant beyond the
field has no rating (None) and one bound: ``above``, the rating it would need for it to
have finished ahead in all of its pairs against the field with chance (1 - confidence) / 2
at most (as Clopper and Pearson's bound for a run of successes), its pairs counted over the
design effect; "> +412" in the report. The field's own ratings and intervals do not see
it: their centre is the field's mean, not pulled by a strength the data cannot bound.

**Intervals** are profile-likelihood intervals over the game seeds: a rating's bound is
where the likelihood, maximised over every other strength, falls below its maximum by the
design effect times t² / 2, Student's t at (1 + confidence) / 2 on seeds - 1 degrees of
freedom. The design effect is how much the fit varies over seeds beyond what independent
pairs would give: the cluster-robust (sandwich) variance of each rating, the seeds as
clusters, over its model variance, averaged over the field and floored at 1 (pairs of one
game, and games of one seed, are not independent: R3.1a). A profile interval bends where
the likelihood does, so that an entrant that lost once in a thousand pairs gets a long
upper side rather than a symmetric interval around a shaky estimate. Below
``MIN_SEEDS_FOR_INTERVAL`` seeds there is no interval ("too few seeds"). ``arena bench
stats`` measures their coverage, a dominant entrant's bound included (docs/STATISTICS.md).

Run by hand, ``python -m arena.stats.ratings GAMES.json`` prints every entrant's rating
with its interval (the games' format: :mod:`arena.stats.byhand`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import brentq
from scipy.sparse.csgraph import connected_components, shortest_path
from scipy.special import expit, log_expit
from scipy.stats import t as student_t

from .rates import MIN_SEEDS_FOR_INTERVAL, GameOutcome, finishing_positions

__all__ = [
    "ELO_PER_NAT",
    "Field",
    "FieldRating",
    "Place",
    "Rating",
    "fit_ratings",
    "pair_wins",
    "rate_field",
]

ELO_PER_NAT: Final = 400.0 / math.log(10.0)
# How far (in nats, about 8,700 Elo) a bound is looked for before its side is called open.
_FARTHEST: Final = 50.0
_TOLERANCE: Final = 1e-10  # a Newton step this small (in nats) ends the fit

Place = Literal["rated", "above", "below", "apart"]


@dataclass(frozen=True)
class Rating:
    entrant: str
    # Elo scale, the rated field's mean at 0; None beyond the field (``place``)
    rating: float | None
    # The interval's bounds; None where open (low_open / high_open: an entrant above the
    # field has only its lower bound, "> +412") or with too few seeds (too_few_seeds)
    low: float | None
    high: float | None
    games: int
    seeds: int  # independent seeds behind the figure
    low_open: bool = False
    high_open: bool = False
    too_few_seeds: bool = False
    # rated: in the field; above (below): never finished behind (ahead of) an entrant of it;
    # apart: no pair with it
    place: Place = "rated"
    design_effect: float = 1.0  # of the field's fit (floored at 1), behind every bound

    @property
    def ranked_by(self) -> float:
        """What ranks it among entrants of its place: its rating, else (beyond the field)
        its one bound, else 0."""
        for value in (self.rating, self.low, self.high):
            if value is not None:
                return value
        return 0.0


@dataclass(frozen=True)
class FieldRating:
    """One entrant's figures from ``rate_field``, in nats, the field's mean at 0."""

    place: Place
    rating: float | None
    low: float | None
    high: float | None


@dataclass(frozen=True)
class Field:
    """``rate_field``'s answer: each entrant's figures, and the design effect behind them."""

    entrants: list[FieldRating]
    design_effect: float


def pair_wins(outcome: GameOutcome, index: dict[str, int]) -> list[tuple[int, int, float]]:
    """(ahead, behind, weight) for each pair of teams of different entrants in one game:
    weight 1, or a tie as half each way."""
    positions = finishing_positions(outcome)
    names = outcome.entrants_by_team
    pairs: list[tuple[int, int, float]] = []
    for a in range(3):
        for b in range(a + 1, 3):
            if names[a] == names[b]:
                continue
            i, j = index[names[a]], index[names[b]]
            if positions[a] < positions[b]:
                pairs.append((i, j, 1.0))
            elif positions[b] < positions[a]:
                pairs.append((j, i, 1.0))
            else:
                pairs += [(i, j, 0.5), (j, i, 0.5)]
    return pairs


def _information(
    wins: NDArray[np.float64], strengths: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The log-likelihood's gradient and its information (minus its Hessian)."""
    ahead = expit(strengths[:, None] - strengths[None, :])
    pairs = wins + wins.T
    gradient = (wins - pairs * ahead).sum(axis=1)
    weights = pairs * ahead * ahead.T
    information = np.diag(weights.sum(axis=1)) - weights
    return gradient, information


def _log_likelihood(wins: NDArray[np.float64], strengths: NDArray[np.float64]) -> float:
    return float((wins * log_expit(strengths[:, None] - strengths[None, :])).sum())


def _maximise(
    wins: NDArray[np.float64], start: NDArray[np.float64], fixed: int | None = None
) -> tuple[float, NDArray[np.float64]]:
    """The maximum log-likelihood, and where, over strengths that keep ``start``'s value
    at ``fixed`` (if any) and the sum of the others: Newton's method in the subspace,
    halving a step that would lower the likelihood (the log-likelihood is concave)."""
    free = np.array([i for i in range(len(start)) if i != fixed])
    strengths = start.astype(float)
    best = _log_likelihood(wins, strengths)
    if len(free) < 2:
        return best, strengths
    # A basis of the moves that keep the free strengths' sum: the likelihood sees only
    # differences, so without a fixed entrant this removes its one flat direction.
    basis = np.vstack([np.eye(len(free) - 1), -np.ones((1, len(free) - 1))])
    for _ in range(200):
        gradient, information = _information(wins, strengths)
        curvature = basis.T @ information[np.ix_(free, free)] @ basis
        direction = basis @ np.linalg.lstsq(curvature, basis.T @ gradient[free], rcond=None)[0]
        size = 1.0
        while True:
            trial = strengths.copy()
            trial[free] += size * direction
            value = _log_likelihood(wins, trial)
            if value >= best or size < 1e-8:
                break
            size /= 2.0
        moved = float(np.abs(size * direction).max())
        if value >= best:
            strengths, best = trial, value
        if moved < _TOLERANCE:
            break
    return best, strengths


def _field(wins: NDArray[np.float64]) -> tuple[NDArray[np.intp], NDArray[np.bool_]]:
    """The rated field (the largest strongly connected set of entrants: most entrants,
    then most pairs among them, then the first) and which entrant reaches which."""
    beats = wins > 0
    count, labels = connected_components(beats, directed=True, connection="strong")

    def size(label: int) -> tuple[int, float, int]:
        members = np.flatnonzero(labels == label)
        return (len(members), float(wins[np.ix_(members, members)].sum()), -label)

    core = max(range(count), key=size)
    reaches = np.isfinite(shortest_path(beats.astype(float), unweighted=True))
    return np.flatnonzero(labels == core), reaches


def _design_effect(
    per_seed: NDArray[np.float64], wins: NDArray[np.float64], strengths: NDArray[np.float64]
) -> float:
    """The fit's cluster-robust variance over its model variance, the seeds as clusters
    (n / (n - 1)), averaged over the entrants; at least 1."""
    seeds = per_seed.shape[0]
    _, information = _information(wins, strengths)
    inverse = np.linalg.pinv(information)
    ahead = expit(strengths[:, None] - strengths[None, :])
    pairs = per_seed + np.swapaxes(per_seed, 1, 2)
    scores = (per_seed - pairs * ahead).sum(axis=2)  # seeds × entrants
    meat = seeds / (seeds - 1) * scores.T @ scores
    robust = np.diag(inverse @ meat @ inverse)
    model = np.diag(inverse)
    return max(1.0, float(np.mean(robust / model)))


def _profile_bounds(
    wins: NDArray[np.float64], strengths: NDArray[np.float64], entrant: int, drop: float
) -> tuple[float | None, float | None]:
    """Where the profile log-likelihood of ``entrant``'s centred rating falls ``drop``
    below its maximum, on each side (None: not within ``_FARTHEST`` nats)."""
    size = len(strengths)
    top = _log_likelihood(wins, strengths)
    estimate = float(strengths[entrant])
    warm = [strengths.copy()]

    def shortfall(rating: float) -> float:
        # A centred rating x is the entrant at x n / (n - 1) with the others' sum 0.
        start = warm[0].copy()
        others = np.arange(size) != entrant
        start[others] -= start[others].mean()
        start[entrant] = rating * size / (size - 1)
        value, warm[0] = _maximise(wins, start, fixed=entrant)
        return top - value - drop

    _, information = _information(wins, strengths)
    step = max(0.5, 3.0 * math.sqrt(max(float(np.linalg.pinv(information)[entrant, entrant]), 0)))
    bounds: list[float | None] = []
    for sign in (-1.0, 1.0):
        far = estimate + sign * step
        bound = None
        while abs(far - estimate) <= _FARTHEST:
            if shortfall(far) > 0.0:
                low, high = sorted((estimate, far))
                bound = float(brentq(shortfall, low, high, xtol=1e-4))
                break
            far = estimate + 2.0 * (far - estimate)
        bounds.append(bound)
    return bounds[0], bounds[1]


def _beyond_bound(
    pairs: NDArray[np.float64], field: NDArray[np.float64], effect: float, tail: float
) -> float:
    """The rating (nats, the field's mean at 0) at which an entrant that finished ahead
    of (or, with ``field`` negated, behind) the field's entrants in all of its ``pairs``
    with them would have done so with chance ``tail``, its pairs over the design effect."""

    def excess(rating: float) -> float:
        return float((pairs / effect * log_expit(rating - field)).sum()) - math.log(tail)

    return float(brentq(excess, -_FARTHEST - 20.0, _FARTHEST + 20.0))


def rate_field(per_seed: NDArray[np.float64], confidence: float = 0.95) -> Field:
    """Every entrant's place, rating and bounds in nats (the rated field's mean at 0) from
    ``per_seed[k, i, j]``, how often i finished ahead of j on seed k (a tie half each way).

    No interval below ``MIN_SEEDS_FOR_INTERVAL`` seeds; no rating when no two entrants
    beat each other (the games order them strictly: every entrant ``apart``).
    """
    seeds, size, _ = per_seed.shape
    wins = per_seed.sum(axis=0)
    field, reaches = _field(wins)
    if len(field) < 2:
        return Field([FieldRating("apart", None, None, None) for _ in range(size)], 1.0)
    inner = wins[np.ix_(field, field)]
    _, fitted = _maximise(inner, np.zeros(len(field)))
    fitted -= fitted.mean()
    with_interval = seeds >= MIN_SEEDS_FOR_INTERVAL
    effect = (
        _design_effect(per_seed[:, field][:, :, field], inner, fitted) if with_interval else 1.0
    )
    t = float(student_t.ppf(0.5 + confidence / 2.0, seeds - 1)) if with_interval else 0.0
    tail = (1.0 - confidence) / 2.0
    out: list[FieldRating] = []
    member = {int(e): k for k, e in enumerate(field)}
    anchor = int(field[0])
    for entrant in range(size):
        if entrant in member:
            k = member[entrant]
            low = high = None
            if with_interval:
                low, high = _profile_bounds(inner, fitted, k, effect * t * t / 2.0)
            out.append(FieldRating("rated", float(fitted[k]), low, high))
            continue
        up, down = bool(reaches[entrant, anchor]), bool(reaches[anchor, entrant])
        ahead, behind = wins[entrant, field], wins[field, entrant]
        if up and not down and ahead.sum() > 0:
            bound = _beyond_bound(ahead, fitted, effect, tail) if with_interval else None
            out.append(FieldRating("above", None, bound, None))
        elif down and not up and behind.sum() > 0:
            bound = -_beyond_bound(behind, -fitted, effect, tail) if with_interval else None
            out.append(FieldRating("below", None, None, bound))
        else:
            out.append(FieldRating("apart", None, None, None))
    return Field(out, effect)


_ORDER: Final[dict[Place, int]] = {"above": 0, "rated": 1, "below": 2, "apart": 3}


def fit_ratings(games: Sequence[GameOutcome], confidence: float = 0.95) -> list[Rating]:
    """Every entrant's rating with its interval: entrants above the field first (by their
    bound), then the field by rating, then those below it (by bound); ties by name. Every
    game needs its seed (the seed is the unit of the intervals)."""
    if any(game.seed is None for game in games):
        raise ValueError("ratings are read over game seeds: a game without its seed")
    seeds_in = sorted({game.seed for game in games if game.seed is not None})
    names = sorted({name for game in games for name in game.entrants_by_team})
    if len(names) < 2:
        return []
    index = {name: i for i, name in enumerate(names)}
    position = {seed: k for k, seed in enumerate(seeds_in)}
    per_seed = np.zeros((len(seeds_in), len(names), len(names)))
    games_of = dict.fromkeys(names, 0)
    seeds_of: dict[str, set[int]] = {name: set() for name in names}
    for game in games:
        assert game.seed is not None
        for ahead, behind, weight in pair_wins(game, index):
            per_seed[position[game.seed], ahead, behind] += weight
        for name in set(game.entrants_by_team):
            games_of[name] += 1
            seeds_of[name].add(game.seed)
    few = len(seeds_in) < MIN_SEEDS_FOR_INTERVAL
    field = rate_field(per_seed, confidence)

    def elo(value: float | None) -> float | None:
        return None if value is None else value * ELO_PER_NAT

    ratings = [
        Rating(
            entrant=name,
            rating=elo(f.rating),
            low=elo(f.low),
            high=elo(f.high),
            games=games_of[name],
            seeds=len(seeds_of[name]),
            low_open=not few and f.low is None and f.place != "apart",
            high_open=not few and f.high is None and f.place != "apart",
            too_few_seeds=few,
            place=f.place,
            design_effect=field.design_effect,
        )
        for name, f in zip(names, field.entrants, strict=True)
    ]

    ratings.sort(key=lambda r: (_ORDER[r.place], -r.ranked_by, r.entrant))
    return ratings


def main(argv: Sequence[str] | None = None) -> int:
    from .byhand import games_from_json, parser, print_json, read_json

    args = parser("arena.stats.ratings", __doc__, "a JSON list of games").parse_args(argv)
    print_json(fit_ratings(games_from_json(read_json(args.file))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
