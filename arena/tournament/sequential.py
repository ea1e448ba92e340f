"""A sequential test of "NEW beats BASE": a generalised SPRT over duplicate seed groups (pure).

One observation is one seed group: every seating of {NEW, NEW, BASE} and {NEW, BASE, BASE}
played on the same game seed, so both bots held every hand of that seed (R3.1a). Its
statistic is the share of NEW-versus-BASE team pairs in which NEW finished ahead, a tie
counting half (``group_score``). Under equal strength the seatings are symmetric, so its
expectation is exactly 1/2, whatever the cards.

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
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

__all__ = [
    "MIN_GROUPS_WITHOUT_PRIOR",
    "Sprt",
    "SprtState",
    "Verdict",
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
        raise ValueError("a seed group holds at least one NEW-versus-BASE pair")
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
    """Where the test stands after ``groups`` seed groups."""

    groups: int
    estimate: float  # the mean group score so far
    llr: float
    lower: float  # at or below: not better
    upper: float  # at or above: better
    verdict: Verdict  # "undecided" while the ratio is between the bounds


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

    def state(self, values: Sequence[float]) -> SprtState:
        llr = gsprt_llr(values, 0.5, 0.5 + self.margin)
        verdict: Verdict = "undecided"
        if llr >= self.upper:
            verdict = "better"
        elif llr <= self.lower:
            verdict = "not better"
        return SprtState(
            groups=len(values),
            estimate=sum(values) / len(values) if values else 0.5,
            llr=llr,
            lower=self.lower,
            upper=self.upper,
            verdict=verdict,
        )
