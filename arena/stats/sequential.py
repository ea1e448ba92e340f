"""A sequential test of "NEW beats BASE": a generalised SPRT over duplicate units (pure).

One observation is one unit of ``compare``: a swap pair (a seating and its mirror) or a seed
group (all six seatings of {NEW, NEW, BASE} and {NEW, BASE, BASE}) played on one game seed,
so both bots held the same hands (R3.1a). Its statistic is the share of NEW-versus-BASE
team pairs in which NEW finished ahead, a tie counting half (``group_score``). Under equal
strength the seatings are symmetric, so its expectation is exactly 1/2, whatever the cards.
(The docstrings below say "groups" for units of either design.)

The test is the generalised SPRT that fishtest runs on game pairs (M. Van den Bergh,
"A generalized SPRT"): it compares H0, mean = 1/2, with H1, mean = 1/2 + margin, where under
each hypothesis the statistic's distribution is the maximum-likelihood fit to the observed
groups that has that mean. It stops when the log-likelihood ratio leaves
(log(beta / (1 - alpha)), log((1 - beta) / alpha)): above, NEW is better by the margin;
below, it is not better by the margin or more. It looks after every group (``Sprt.path``
gives its state after each, ``Sprt.decision`` the first that decides): Wald's bounds are
those of a test looked at after every observation, and ``arena bench stats`` measures its
error rates so looked at.

While every group lies on one side of a hypothesis' mean, that fit does not exist (all
its weight would sit on the observed values): pseudo-observations at 0 and 1 keep both
hypotheses reachable. They also cap the ratio at log(1 + 2 margin) per group, as if each
group were a coin flip (no comparison could end before about 31 groups, and duplicate
play's low spread was thrown away), so they are dropped once the groups lie on both sides
of 1/2 and of 1/2 + margin and at least ``MIN_GROUPS_WITHOUT_PRIOR`` are in.

While the pseudo-observations are still needed the ratio cannot weigh one-sided scores
(every group of greedy against lowest lies above 1/2), yet such scores are strong evidence.
Over that phase the test also bets (``betting_log_wealth``, testing by betting:
Waudby-Smith and Ramdas 2023): wealth that multiplies by 1 + lam (x - 1/2) at each group is
a nonnegative supermartingale when the mean is at most 1/2, so by Ville's inequality it
reaches 1 / alpha with chance at most alpha, however often it is looked at and whatever the
scores' distribution; mixing over bet sizes lam (a uniform prior) needs no guess of the
advantage. The same against 1/2 + margin, with 1 / beta, says "not better". Once the groups
lie on both sides the ratio alone decides. A run of groups won outright decides after 7.

**The interval beside a verdict.** A test that stops when its evidence is strong stops
where the mean score looks farthest from 1/2 more often than not, so an interval computed
as if the number of groups had been fixed beforehand covers too little there.
``confidence_sequence`` gives an interval that holds at any stopping time whatever the rule
(a confidence sequence: Waudby-Smith and Ramdas 2023): the means m against which the same
mixture of bets, on each side, has not reached 2 / (1 - confidence). It is wider than a
fixed-size interval, the price of being right however the test stopped.

Run by hand, ``python -m arena.stats.sequential SCORES.json`` prints where the test stands
on a JSON list of unit scores (each in [0, 1], in the order played); ``--margin``,
``--alpha`` and ``--beta`` set the test.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "MIN_GROUPS_WITHOUT_PRIOR",
    "Sprt",
    "SprtState",
    "Verdict",
    "betting_log_wealth",
    "confidence_sequence",
    "first_decision",
    "group_score",
    "gsprt_llr",
    "needs_prior",
]

Verdict = Literal["better", "not better", "undecided"]

# Pseudo-observations at 0 and 1, each this heavy: with them both hypotheses stay reachable
# while every observed group lies on one side (the MLE would put all mass there otherwise,
# and the ratio would be infinite after one group).
_PRIOR_WEIGHT: Final = 1e-3
# With fewer groups the empirical fit is too rough to stand on its own: over five score
# distributions (90-98 % of groups at exactly 1/2, and noisy ones) 16 kept the false
# positives at 0.000-0.052 and the power at 0.956-0.993.
MIN_GROUPS_WITHOUT_PRIOR: Final = 16
# Bet sizes mixed (uniform) by the bets: fine enough that the mixture is within a few
# hundredths of a nat of its integral for a hundred groups.
_BET_SIZES: Final = 256
# Halvings of a confidence sequence's bracket: to 1e-12 of a score.
_HALVINGS: Final = 40
# Steps of the constrained fit's solver at most (Newton's, or a halving of its bracket): far
# more than it takes to reach double precision.
_SOLVER_STEPS: Final = 200

Floats = NDArray[np.float64]


def _lattice(values: Sequence[float]) -> tuple[Floats, Floats]:
    """The distinct values (0 and 1 always among them) and, after each group, how many of
    the groups so far sit at each (groups × values)."""
    data = np.asarray(values, dtype=float)
    points, where = np.unique(np.concatenate([data, [0.0, 1.0]]), return_inverse=True)
    counts = np.zeros((len(data), len(points)))
    counts[np.arange(len(data)), where[: len(data)]] = 1.0
    return points, np.cumsum(counts, axis=0)


def _log_wealth(points: Floats, counts: Floats, mean: float, side: Literal[1, -1]) -> Floats:
    """The mixture of bets' log-wealth against ``mean`` for each row of ``counts``."""
    largest = 1.0 / mean if side == 1 else 1.0 / (1.0 - mean)
    # Every size below the largest that keeps each factor positive: (k + 1/2) / K of it.
    sizes = (np.arange(_BET_SIZES) + 0.5) / _BET_SIZES * largest
    logs = counts @ np.log1p(np.outer(side * (points - mean), sizes))  # rows × sizes
    top = logs.max(axis=-1)
    # The mixture's mean wealth, in logs (a log-sum-exp without scipy's per-call cost).
    wealth: Floats = top + np.log(np.exp(logs - top[:, None]).mean(axis=-1))
    return wealth


def betting_log_wealth(values: Sequence[float], mean: float, side: Literal[1, -1]) -> float:
    """Log of the wealth of betting, group by group, against "the mean score is ``mean``".

    ``side`` 1 bets that the mean is above ``mean`` (wealth x (1 + lam (x - mean))), -1 that
    it is below (x (1 + lam (mean - x))); lam runs over (0, its largest value that keeps
    every factor nonnegative on [0, 1]), mixed uniformly. Under the hypothesis (a mean of at
    most ``mean`` for side 1, at least for -1) the wealth is a nonnegative supermartingale
    that starts at 1, so it ever reaches 1 / a with chance at most a (Ville).

    >>> round(betting_log_wealth([1.0] * 8, 0.5, 1), 2)  # eight groups won outright
    4.04
    >>> betting_log_wealth([], 0.5, 1)
    0.0
    """
    if not values:
        return 0.0
    if not 0.0 < mean < 1.0:
        raise ValueError(f"the mean bet against lies strictly between 0 and 1, not {mean}")
    points, counts = _lattice(values)
    return float(_log_wealth(points, counts[-1:], mean, side)[0])


def confidence_sequence(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """The mean score's interval that holds at any stopping time: every mean m against
    which neither side's mixture of bets has reached 2 / (1 - confidence).

    Each side's wealth is monotone in m (a bet lam = u / m on "above m" gains more as m
    falls), so each bound is found by bisection. No group: (0, 1).
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    if not values:
        return (0.0, 1.0)
    points, counts = _lattice(values)
    last = counts[-1:]
    bound = math.log(2.0 / (1.0 - confidence))
    mean = float(np.mean(values))

    def search(inside: float, outside: float, side: Literal[1, -1]) -> float:
        # ``inside`` is kept, ``outside`` may be rejected: the bound lies between.
        if float(_log_wealth(points, last, outside, side)[0]) < bound:
            return outside
        for _ in range(_HALVINGS):
            middle = (inside + outside) / 2.0
            if float(_log_wealth(points, last, middle, side)[0]) < bound:
                inside = middle
            else:
                outside = middle
        return inside

    # Ends held just inside (0, 1), where the bets are defined; a mean at the very end is
    # covered when its neighbour is.
    edge = 1e-9
    low = search(min(max(mean, edge), 1.0 - edge), edge, 1)
    high = search(max(min(mean, 1.0 - edge), edge), 1.0 - edge, -1)
    return (0.0 if low <= edge else low, 1.0 if high >= 1.0 - edge else high)


def group_score(placings: Iterable[tuple[int, int]]) -> float:
    """The share of NEW-versus-BASE team pairs NEW finished ahead in, ties counting half.

    ``placings`` holds, for every such pair of teams in the group's games, the finishing
    position of NEW's team and of BASE's team (0 is first).
    """
    pairs = 0
    score = 0.0
    for new_position, base_position in placings:
        pairs += 1
        if new_position < base_position:
            score += 1.0
        elif new_position == base_position:
            score += 0.5
    if pairs == 0:
        raise ValueError("a unit holds at least one NEW-versus-BASE pair")
    return score / pairs


def needs_prior(values: Sequence[float], s0: float, s1: float) -> bool:
    """Whether the pseudo-observations are still needed: too few groups, or a hypothesis'
    mean not strictly inside the observed values."""
    return len(values) < MIN_GROUPS_WITHOUT_PRIOR or not (min(values) < s0 and max(values) > s1)


def _needs_prior_path(values: Sequence[float], s0: float, s1: float) -> NDArray[np.bool_]:
    """``needs_prior`` of every prefix of ``values``."""
    data = np.asarray(values, dtype=float)
    seen = np.arange(1, len(data) + 1)
    both_sides = (np.minimum.accumulate(data) < s0) & (np.maximum.accumulate(data) > s1)
    return (seen < MIN_GROUPS_WITHOUT_PRIOR) | ~both_sides


def _constrained_log_likelihood(points: Floats, weights: Floats, mean: float) -> Floats:
    """Per row of ``weights`` (on ``points``), the log-likelihood per unit weight, up to a
    constant, of the best distribution on the weighted points with mean ``mean``.

    That distribution gives point v the weight p(v) / (1 + lam (v - mean)), where ``lam``
    solves sum p(v) (v - mean) / (1 + lam (v - mean)) = 0: a decreasing function of lam,
    found by Newton's method kept inside the bracket that keeps every weight positive
    (a step that would leave it halves the bracket instead). ``mean`` must lie strictly
    inside each row's weighted points.
    """
    shares = weights / weights.sum(axis=1, keepdims=True)
    shifts = np.broadcast_to(points - mean, shares.shape)
    held = shares > 0.0
    high_shift = np.where(held, shifts, -np.inf).max(axis=1)
    low_shift = np.where(held, shifts, np.inf).min(axis=1)
    if not (np.all(low_shift < 0.0) and np.all(high_shift > 0.0)):
        raise ValueError(f"the mean {mean} must lie strictly inside the observed values")
    low, high = -1.0 / high_shift, -1.0 / low_shift
    used = np.where(held, shifts, 0.0)
    lam = np.zeros(len(shares))
    for _ in range(_SOLVER_STEPS):
        ratio = used / (1.0 + lam[:, None] * used)
        slope = (shares * ratio).sum(axis=1)
        low = np.where(slope > 0.0, lam, low)
        high = np.where(slope > 0.0, high, lam)
        newton = lam + slope / (shares * ratio * ratio).sum(axis=1)
        inside = (newton > low) & (newton < high)
        moved = np.where(inside, newton, (low + high) / 2.0)
        # Done when no row's multiplier moves beyond rounding.
        if np.all(np.abs(moved - lam) <= 4e-16 * np.maximum(1.0, np.abs(lam))):
            break
        lam = moved
    result: Floats = -(shares * np.log1p(lam[:, None] * used)).sum(axis=1)
    return result


def _llr_rows(
    points: Floats, counts: Floats, prior: NDArray[np.bool_], s0: float, s1: float
) -> Floats:
    """The generalised log-likelihood ratio of each row of counts, with the
    pseudo-observations where ``prior``."""
    weights = counts.copy()
    ends = np.isin(points, (0.0, 1.0))
    weights[np.ix_(prior, ends)] += _PRIOR_WEIGHT
    total = weights.sum(axis=1)
    llr: Floats = total * (
        _constrained_log_likelihood(points, weights, s1)
        - _constrained_log_likelihood(points, weights, s0)
    )
    return llr


def gsprt_llr(values: Sequence[float], s0: float, s1: float, prior: bool | None = None) -> float:
    """The generalised log-likelihood ratio of mean ``s1`` against mean ``s0`` (s0 < s1).

    ``prior``: with the pseudo-observations; by default while ``needs_prior``.
    """
    if not values:
        return 0.0
    if prior is None:
        prior = needs_prior(values, s0, s1)
    points, counts = _lattice(values)
    return float(_llr_rows(points, counts[-1:], np.array([prior]), s0, s1)[0])


@dataclass(frozen=True)
class SprtState:
    """Where the test stands after ``units`` units (swap pairs or seed groups)."""

    units: int
    estimate: float  # the mean group score so far
    llr: float
    lower: float  # at or below: not better
    upper: float  # at or above: better
    verdict: Verdict  # "undecided" while the ratio is between the bounds (and no bet won)
    # While the ratio is floored (``needs_prior``): the log-wealth of betting against "even"
    # (at ``bet_bound`` or above: better) and against "ahead by the margin" (at
    # ``bet_bound_not_better``: not better); None once the ratio alone decides.
    bet_better: float | None = None
    bet_not_better: float | None = None
    bet_bound: float = math.log(20.0)
    bet_bound_not_better: float = math.log(20.0)

    @property
    def decided_by(self) -> Literal["ratio", "bet"] | None:
        """Which evidence reached its bound; None while undecided."""
        if self.verdict == "undecided":
            return None
        return "ratio" if self.llr >= self.upper or self.llr <= self.lower else "bet"


@dataclass(frozen=True)
class Sprt:
    """H0: NEW scores 1/2 against BASE; H1: it scores 1/2 + ``margin``."""

    margin: float = 0.05
    alpha: float = 0.05  # chance of "better" when the two are equally strong
    beta: float = 0.05  # chance of "not better" when NEW is better by the margin

    def __post_init__(self) -> None:
        if not 0.0 < self.margin < 0.5:
            raise ValueError(f"--margin is between 0 and 0.5 (exclusive), not {self.margin}")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < value < 0.5:
                raise ValueError(f"--{name} is between 0 and 0.5 (exclusive), not {value}")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1.0 - self.beta) / self.alpha)

    @property
    def bet_bound(self) -> float:
        """The log-wealth at which betting against "even" says better: 1 / alpha (Ville)."""
        return -math.log(self.alpha)

    @property
    def bet_bound_not_better(self) -> float:
        return -math.log(self.beta)

    def _empty(self) -> SprtState:
        return SprtState(
            units=0,
            estimate=0.5,
            llr=0.0,
            lower=self.lower,
            upper=self.upper,
            verdict="undecided",
            bet_bound=self.bet_bound,
            bet_bound_not_better=self.bet_bound_not_better,
        )

    def path(self, values: Sequence[float]) -> list[SprtState]:
        """The test's state after each group of ``values``, in order: what it sees when it
        looks after every group (its verdict is the first that decides, ``decision``)."""
        if not values:
            return []
        s0, s1 = 0.5, 0.5 + self.margin
        points, counts = _lattice(values)
        prior = _needs_prior_path(values, s0, s1)
        llr = _llr_rows(points, counts, prior, s0, s1)
        bet_better = np.full(len(values), np.nan)
        bet_not_better = np.full(len(values), np.nan)
        if prior.any():
            # The ratio is floored there; the bets are not (the module's docstring).
            bet_better[prior] = _log_wealth(points, counts[prior], s0, 1)
            bet_not_better[prior] = _log_wealth(points, counts[prior], s1, -1)
        estimates = np.cumsum(values) / np.arange(1, len(values) + 1)
        lower, upper = self.lower, self.upper
        bet_bound, bet_bound_not_better = self.bet_bound, self.bet_bound_not_better
        verdicts = np.full(len(values), "undecided", dtype=object)
        # In the order of ``state``'s rules: the ratio first, then the bets.
        verdicts[prior & (bet_not_better >= bet_bound_not_better)] = "not better"
        verdicts[prior & (bet_better >= bet_bound)] = "better"
        verdicts[llr <= lower] = "not better"
        verdicts[llr >= upper] = "better"
        return [
            SprtState(
                units=k + 1,
                estimate=float(estimates[k]),
                llr=float(llr[k]),
                lower=lower,
                upper=upper,
                verdict=verdicts[k],
                bet_better=float(bet_better[k]) if prior[k] else None,
                bet_not_better=float(bet_not_better[k]) if prior[k] else None,
                bet_bound=bet_bound,
                bet_bound_not_better=bet_bound_not_better,
            )
            for k in range(len(values))
        ]

    def state(self, values: Sequence[float]) -> SprtState:
        """Where the test stands on all of ``values`` (whatever it said before)."""
        return self.path(values)[-1] if values else self._empty()

    def decision(self, values: Sequence[float]) -> SprtState:
        """The test looked at after every group: its state at the first group that decides,
        or after the last while none has."""
        return first_decision(self.path(values)) or self.state(values)


def first_decision(path: Sequence[SprtState]) -> SprtState | None:
    """The first state of a path that decides (None: none has yet)."""
    return next((state for state in path if state.verdict != "undecided"), None)


def main(argv: Sequence[str] | None = None) -> int:
    from .byhand import parser, print_json, read_json

    command = parser("arena.stats.sequential", __doc__, "a JSON list of unit scores")
    default = Sprt()
    command.add_argument("--margin", type=float, default=default.margin)
    command.add_argument("--alpha", type=float, default=default.alpha)
    command.add_argument("--beta", type=float, default=default.beta)
    args = command.parse_args(argv)
    test = Sprt(margin=args.margin, alpha=args.alpha, beta=args.beta)
    scores = [float(score) for score in read_json(args.file)]
    decided = test.decision(scores)
    print_json({"state": decided, "interval": confidence_sequence(scores[: decided.units])})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
