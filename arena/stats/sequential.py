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
below, it is not better by the margin or more.

While every group lies on one side of a hypothesis' mean, that fit does not exist (all
its weight would sit on the observed values): pseudo-observations at 0 and 1 keep both
hypotheses reachable. They also cap the ratio at log(1 + 2 margin) per group, as if each
group were a coin flip (no comparison could end before about 31 groups, and duplicate
play's low spread was thrown away), so they are dropped once the groups lie on both sides
of 1/2 and of 1/2 + margin and at least ``MIN_GROUPS_WITHOUT_PRIOR`` are in. ``arena bench
stats`` and the tests check the errors on lumpy and noisy score distributions.

While the pseudo-observations are still needed the ratio cannot weigh one-sided scores
(every group of greedy against lowest lies above 1/2: 31 groups at least), yet such scores
are strong evidence: a mean of 1/2 on [0, 1] makes sixteen groups all at 5/6 or more a
chance below 0.6^16 (Markov). Over that phase the test also bets (``betting_log_wealth``,
testing by betting: Waudby-Smith and Ramdas 2023): wealth that multiplies by 1 + lam (x -
1/2) at each group is a nonnegative supermartingale when the mean is at most 1/2, so by
Ville's inequality it reaches 1 / alpha with chance at most alpha, however often it is
looked at and whatever the scores' distribution; mixing over bet sizes lam (a uniform
prior) needs no guess of the advantage. The same against 1/2 + margin, with 1 / beta,
says "not better". Once the groups lie on both sides the ratio alone decides, as before.

Run by hand, ``python -m arena.stats.sequential SCORES.json`` prints where the test stands
on a JSON list of unit scores (each in [0, 1], in the order played); ``--margin``,
``--alpha`` and ``--beta`` set the test.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

import numpy as np

__all__ = [
    "MIN_GROUPS_WITHOUT_PRIOR",
    "Sprt",
    "SprtState",
    "Verdict",
    "betting_log_wealth",
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


# Bet sizes mixed (uniform) by ``betting_log_wealth``: fine enough that the mixture is within
# a few hundredths of a nat of its integral for a hundred groups.
_BET_SIZES: Final = 256


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
    largest = 1.0 / mean if side == 1 else 1.0 / (1.0 - mean)
    counts = Counter(values)
    shifts = side * (np.fromiter(counts, dtype=float) - mean)
    weights = np.fromiter(counts.values(), dtype=float)
    lams = (np.arange(_BET_SIZES) + 0.5) / _BET_SIZES * largest
    factors = 1.0 + np.outer(lams, shifts)
    with np.errstate(divide="ignore"):  # a factor of 0 is a bet lost whole: log-wealth -inf
        logs = np.log(np.maximum(factors, 0.0)) @ weights
    top = float(logs.max())
    if top == -math.inf:
        return -math.inf
    return top + math.log(float(np.exp(logs - top).mean()))


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


def _distribution(values: Sequence[float], prior: bool = True) -> list[tuple[float, float]]:
    """The observed values with their weights, and the two pseudo-observations (``prior``)."""
    weights: dict[float, float] = dict(Counter(values))
    if prior:
        for end in (0.0, 1.0):
            weights[end] = weights.get(end, 0.0) + _PRIOR_WEIGHT
    return sorted(weights.items())


def needs_prior(values: Sequence[float], s0: float, s1: float) -> bool:
    """Whether the pseudo-observations are still needed: too few groups, or a hypothesis'
    mean not strictly inside the observed values."""
    return len(values) < MIN_GROUPS_WITHOUT_PRIOR or not (min(values) < s0 and max(values) > s1)


def _constrained_log_likelihood(distribution: list[tuple[float, float]], mean: float) -> float:
    """Log-likelihood (per unit weight, up to a constant) of the best fit with this mean.

    The best distribution on the observed values with mean ``mean`` gives value v the
    weight p(v) / (1 + lam (v - mean)); ``lam`` solves sum p(v) (v - mean) / (1 + lam (v -
    mean)) = 0, a decreasing function of ``lam``, found by bisection within the bounds that
    keep every weight positive.
    """
    total = sum(weight for _, weight in distribution)
    shifted = [(value - mean, weight / total) for value, weight in distribution]
    low_shift = min(s for s, _ in shifted)
    high_shift = max(s for s, _ in shifted)
    if not low_shift < 0.0 < high_shift:
        raise ValueError(f"the mean {mean} must lie strictly inside the observed values")
    lam_low = -1.0 / high_shift
    lam_high = -1.0 / low_shift

    def slope(lam: float) -> float:
        return sum(p * s / (1.0 + lam * s) for s, p in shifted)

    lo, hi = lam_low, lam_high
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if mid in (lo, hi):
            break
        if slope(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    lam = (lo + hi) / 2.0
    return -sum(p * math.log(1.0 + lam * s) for s, p in shifted)


def gsprt_llr(values: Sequence[float], s0: float, s1: float, prior: bool | None = None) -> float:
    """The generalised log-likelihood ratio of mean ``s1`` against mean ``s0`` (s0 < s1).

    ``prior``: with the pseudo-observations; by default while ``needs_prior``.
    """
    if not values:
        return 0.0
    if prior is None:
        prior = needs_prior(values, s0, s1)
    distribution = _distribution(values, prior)
    weight = sum(w for _, w in distribution)
    return weight * (
        _constrained_log_likelihood(distribution, s1)
        - _constrained_log_likelihood(distribution, s0)
    )


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

    def state(self, values: Sequence[float]) -> SprtState:
        s0, s1 = 0.5, 0.5 + self.margin
        llr = gsprt_llr(values, s0, s1)
        verdict: Verdict = "undecided"
        bet_better = bet_not_better = None
        if values and needs_prior(values, s0, s1):
            # The ratio is floored here; the bets are not (the module's docstring).
            bet_better = betting_log_wealth(values, s0, 1)
            bet_not_better = betting_log_wealth(values, s1, -1)
        if llr >= self.upper:
            verdict = "better"
        elif llr <= self.lower:
            verdict = "not better"
        elif bet_better is not None and bet_better >= self.bet_bound:
            verdict = "better"
        elif bet_not_better is not None and bet_not_better >= self.bet_bound_not_better:
            verdict = "not better"
        return SprtState(
            units=len(values),
            estimate=sum(values) / len(values) if values else 0.5,
            llr=llr,
            lower=self.lower,
            upper=self.upper,
            verdict=verdict,
            bet_better=bet_better,
            bet_not_better=bet_not_better,
            bet_bound=self.bet_bound,
            bet_bound_not_better=self.bet_bound_not_better,
        )


def main(argv: Sequence[str] | None = None) -> int:
    from .byhand import parser, print_json, read_json

    command = parser("arena.stats.sequential", __doc__, "a JSON list of unit scores")
    default = Sprt()
    command.add_argument("--margin", type=float, default=default.margin)
    command.add_argument("--alpha", type=float, default=default.alpha)
    command.add_argument("--beta", type=float, default=default.beta)
    args = command.parse_args(argv)
    test = Sprt(margin=args.margin, alpha=args.alpha, beta=args.beta)
    print_json(test.state([float(score) for score in read_json(args.file)]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
