"""Benchmarks behind ``arena bench``: each prints figures, none asserts a time."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import TypeVar

Round = TypeVar("Round")


def median_of(rounds: Sequence[Round], figure: Callable[[Round], float]) -> float:
    """The median of one figure over rounds: the machine is shared, and a round can be slow."""
    return statistics.median(figure(r) for r in rounds)
