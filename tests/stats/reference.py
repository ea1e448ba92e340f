"""Reference values for the statistics tests, computed the long way from their definitions."""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

from scipy.stats import beta, t


def rate_interval_by_hand(
    numerators: Sequence[float], denominators: Sequence[float], confidence: float = 0.95
) -> tuple[float, float]:
    """The rate interval of docs/STATISTICS.md: the design effect (cluster-robust variance
    of the ratio over the binomial one, at least 1), the units over it, the coverage of
    Student's t on seeds - 1 degrees of freedom, and the union of Wilson's score interval
    (solved from its quadratic) and Clopper and Pearson's (beta quantiles)."""
    seeds = len(numerators)
    total = sum(denominators)
    rate = sum(numerators) / total
    robust = (
        seeds
        / (seeds - 1)
        * sum((y - rate * d) ** 2 for y, d in zip(numerators, denominators, strict=True))
    )
    binomial = rate * (1 - rate) * total
    effect = max(1.0, robust / binomial) if binomial > 0 else 1.0
    units = total / effect
    z = float(t.ppf(0.5 + confidence / 2, seeds - 1))
    # Wilson: (p - rate)^2 = z^2 p (1 - p) / units, the two roots in p.
    a = 1 + z * z / units
    b = -(2 * rate + z * z / units)
    c = rate * rate
    root = math.sqrt(max(0.0, b * b - 4 * a * c))
    wilson = ((-b - root) / (2 * a), (-b + root) / (2 * a))
    successes = rate * units
    tail = NormalDist().cdf(-z)  # the normal law's tail beyond t
    exact_low = 0.0 if rate == 0 else float(beta.ppf(tail, successes, units - successes + 1))
    exact_high = 1.0 if rate == 1 else float(beta.ppf(1 - tail, successes + 1, units - successes))
    return (max(0.0, min(wilson[0], exact_low)), min(1.0, max(wilson[1], exact_high)))
