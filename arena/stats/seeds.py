"""Intervals that respect duplicate play: the game seed is the unit of independence (pure).

Every game played on one game seed shares its cards with the others of that seed, whatever
the seating and the triple (R3.1a), so those games are not independent: the seed is the
unit. A figure is a ratio of two sums over seeds (a win rate: wins over games; points over
deals), and its uncertainty is read from how the seeds' sums spread around it: the
cluster-robust (linearised) variance of the ratio, with n / (n - 1) over n seeds, and
Student's t on n - 1 degrees of freedom for the quantile, since that variance is itself
measured on the n seeds.

A rate between 0 and 1 (a win rate, a share of team pairs ahead) gets a binomial interval
on an *effective sample size*: its units (games, pairs) over their measured design effect,
the cluster-robust variance over the binomial one, floored at 1 (``effective_interval``).
The floor is what keeps the interval honest on few seeds: a seed's rate lives on a lattice
(k / 9 for a bot's nine places in a seed group), and on four or five seeds the seeds may
agree by chance, or miss the rare seed that the cards make lopsided; an interval read from
their spread alone (the seed bootstrap this module once held: its range is the seeds'
range) covered 0.69-0.89 in ``arena bench stats``'s worlds at 4-5 seeds. The binomial
interval is the union of Wilson's score interval and the exact (Clopper-Pearson) one, for
each alone fails where the other holds: Wilson's bound passes the truth where one win in a
thousand games is all there is, and the exact one, at the high coverage that t on three or
four degrees of freedom asks for, bends less than Wilson's towards 1/2 where a few seeds
all land near 1 by chance. Neither is ever a point. Where duplicate play makes the seeds
agree more than independent games would (a design effect below 1), the floor makes the
interval wider than it need be; docs/STATISTICS.md gives the figures.

A ratio without bounds (points per deal) gets the t interval on its cluster-robust standard
error (``ratio_interval``).

Run by hand, ``python -m arena.stats.seeds COUNTS.json`` prints a rate's interval and
design effect; the file is a JSON list of ``[seed, numerator, denominator]`` (for a win
rate: a seed's wins, draws counting half, and its games).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

from scipy.stats import beta as beta_law
from scipy.stats import t as student_t

__all__ = [
    "SeedRatio",
    "design_effect",
    "effective_interval",
    "exact_interval",
    "ratio_interval",
    "student_quantile",
    "wilson_interval",
]


class SeedRatio:
    """A ratio of two sums over games, kept per seed: wins over games, points over deals."""

    def __init__(self) -> None:
        self.numerators: dict[object, float] = {}
        self.denominators: dict[object, float] = {}

    def add(self, seed: object, numerator: float, denominator: float) -> None:
        self.numerators[seed] = self.numerators.get(seed, 0.0) + numerator
        self.denominators[seed] = self.denominators.get(seed, 0.0) + denominator

    @property
    def seeds(self) -> int:
        return len(self.denominators)

    @property
    def value(self) -> float:
        total = sum(self.denominators.values())
        return sum(self.numerators.values()) / total if total else 0.0

    def sums(self) -> tuple[list[float], list[float]]:
        """The numerators and denominators, one of each a seed, in the same order."""
        keys = list(self.denominators)
        return [self.numerators[k] for k in keys], [self.denominators[k] for k in keys]


def student_quantile(confidence: float, seeds: int) -> float:
    """Student's t at (1 + confidence) / 2 on ``seeds`` - 1 degrees of freedom: the
    quantile of an interval whose variance is measured on ``seeds`` seeds (the normal one
    below two seeds)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    if seeds < 2:
        return NormalDist().inv_cdf(0.5 + confidence / 2.0)
    return float(student_t.ppf(0.5 + confidence / 2.0, seeds - 1))


def _cluster_variance(numerators: Sequence[float], denominators: Sequence[float]) -> float:
    """The ratio's cluster-robust variance: its residuals y - r d per seed, n / (n - 1)."""
    seeds = len(denominators)
    total = float(sum(denominators))
    rate = float(sum(numerators)) / total
    squares = sum((y - rate * d) ** 2 for y, d in zip(numerators, denominators, strict=True))
    return seeds / (seeds - 1) * squares / (total * total)


def wilson_interval(rate: float, units: float, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval for a rate observed over ``units`` independent units.

    ``units`` need not be whole (an effective sample size); ``units == 0`` says nothing.
    """
    return _wilson(rate, units, NormalDist().inv_cdf(0.5 + confidence / 2.0))


def _wilson(rate: float, units: float, z: float) -> tuple[float, float]:
    """Wilson's interval at the normal quantile ``z``."""
    if units <= 0.0:
        return (0.0, 1.0)
    z2 = z * z
    denom = 1.0 + z2 / units
    centre = (rate + z2 / (2.0 * units)) / denom
    half = z * math.sqrt(rate * (1.0 - rate) / units + z2 / (4.0 * units * units)) / denom
    low = max(0.0, centre - half)
    high = min(1.0, centre + half)
    # Mathematically the bounds touch 0 / 1 exactly at these rates; pin them so that
    # rounding can never produce an interval that excludes the point estimate.
    if rate <= 0.0:
        low = 0.0
    if rate >= 1.0:
        high = 1.0
    return (min(low, rate), max(high, rate))


def exact_interval(rate: float, units: float, confidence: float = 0.95) -> tuple[float, float]:
    """The exact binomial (Clopper-Pearson) interval of a rate observed over ``units``
    independent units; ``units`` need not be whole (an effective sample size: the beta
    laws' quantiles take any count), ``units == 0`` says nothing."""
    return _exact(rate, units, (1.0 - confidence) / 2.0)


def _exact(rate: float, units: float, tail: float) -> tuple[float, float]:
    """Clopper and Pearson's interval leaving ``tail`` out on each side."""
    if units <= 0.0:
        return (0.0, 1.0)
    successes = rate * units
    low = 0.0 if rate <= 0.0 else float(beta_law.ppf(tail, successes, units - successes + 1.0))
    high = (
        1.0 if rate >= 1.0 else float(beta_law.ppf(1.0 - tail, successes + 1.0, units - successes))
    )
    return (min(low, rate), max(high, rate))


def design_effect(
    numerators: Sequence[float], denominators: Sequence[float], floor: bool = True
) -> float:
    """How much wider the rate sum(numerators) / sum(denominators) varies over seeds than
    it would if each unit of the denominators (a game, a pair of teams) were independent.

    The ratio's cluster-robust variance over the binomial r (1 - r) / sum(d); floored at 1,
    since a few seeds that agree (by chance, or because duplicate play makes them) cannot
    show that they always will. 1 where either variance is nil or below two seeds.
    """
    total = float(sum(denominators))
    seeds = len(denominators)
    if seeds < 2 or total <= 0.0:
        return 1.0
    rate = float(sum(numerators)) / total
    binomial = rate * (1.0 - rate) / total
    if binomial <= 0.0:
        return 1.0
    effect = _cluster_variance(numerators, denominators) / binomial
    # ``floor=False`` for a study that reports how much the seeds agree (below 1: more).
    return max(1.0, effect) if floor else effect


def effective_interval(
    numerators: Sequence[float], denominators: Sequence[float], confidence: float = 0.95
) -> tuple[float, float]:
    """The interval of a rate sum(numerators) / sum(denominators) over seeds: on the units
    of the denominators over their ``design_effect`` (at least 1), the union of Wilson's and
    the exact binomial interval, at the coverage whose normal quantile is Student's t on
    seeds - 1 degrees of freedom (``student_quantile``). It has width wherever units do.
    """
    total = float(sum(denominators))
    seeds = len(denominators)
    if total <= 0.0 or seeds < 1:
        return (0.0, 1.0)
    rate = float(sum(numerators)) / total
    units = total / design_effect(numerators, denominators)
    quantile = student_quantile(confidence, seeds)
    score_low, score_high = _wilson(rate, units, quantile)
    # The tail the normal law leaves beyond t, read from the far side: no rounding to 0.
    exact_low, exact_high = _exact(rate, units, NormalDist().cdf(-quantile))
    return (min(score_low, exact_low), max(score_high, exact_high))


def ratio_interval(
    numerators: Sequence[float], denominators: Sequence[float], confidence: float = 0.95
) -> tuple[float, float]:
    """The t interval of an unbounded ratio sum(numerators) / sum(denominators) (points
    per deal) on its cluster-robust standard error, t on seeds - 1 degrees of freedom.

    One entry per seed. With fewer than two seeds, or no denominator, it says nothing:
    ``(-inf, inf)``.
    """
    if len(numerators) != len(denominators):
        raise ValueError("one numerator and one denominator per seed")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    seeds = len(denominators)
    if seeds < 2 or sum(denominators) <= 0.0:
        return (-math.inf, math.inf)
    value = float(sum(numerators)) / float(sum(denominators))
    half = student_quantile(confidence, seeds) * math.sqrt(
        _cluster_variance(numerators, denominators)
    )
    return (value - half, value + half)


def main(argv: Sequence[str] | None = None) -> int:
    from .byhand import parser, print_json, read_json

    args = parser(
        "arena.stats.seeds", __doc__, "a JSON list of [seed, numerator, denominator]"
    ).parse_args(argv)
    ratio = SeedRatio()
    for seed, numerator, denominator in read_json(args.file):
        ratio.add(seed, float(numerator), float(denominator))
    numerators, denominators = ratio.sums()
    print_json(
        {
            "seeds": ratio.seeds,
            "value": ratio.value,
            "interval": effective_interval(numerators, denominators),
            "design_effect": design_effect(numerators, denominators, floor=False),
        }
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
