"""Benchmarks behind ``arena bench``: each prints figures, none asserts a time."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import Any, Generic, Protocol, TypeVar

Round = TypeVar("Round")
Round_co = TypeVar("Round_co", covariant=True)


def median_of(rounds: Sequence[Round], figure: Callable[[Round], float]) -> float:
    """The median of one figure over rounds: the machine is shared, and a round can be slow."""
    return statistics.median(figure(r) for r in rounds)


class _HasRounds(Protocol[Round_co]):
    @property
    def rounds(self) -> Sequence[Round_co]: ...


class median_over_rounds(Generic[Round]):
    """A read-only property of a benchmark's figures, like ``property``: ``median_of`` the
    figures' ``rounds`` of one figure of a round (``lambda r: r.games_per_second``)."""

    def __init__(self, figure: Callable[[Round], float]) -> None:
        self.figure = figure

    def __get__(self, figures: _HasRounds[Round], owner: Any = None) -> float:
        return median_of(figures.rounds, self.figure)
