"""Ratings for many entrants: a Bradley–Terry fit over finishing order (pure, no I/O).

A raw win rate depends on whom an entrant happened to meet; a rating does not. Each game
is broken into its pairs of teams held by different entrants: the team placed ahead beats
the other (a tie counts as half a win each way). choix fits the Bradley–Terry strengths to
all pairs of all games at once (I-LSR, maximum likelihood with a light regularisation so an
entrant that never lost still gets a finite strength), so the result depends neither on
the order the games finished in nor on ``--jobs``. Ratings are on the Elo scale, centred on
the field's mean: 400 more means ten times the odds of finishing ahead. Their intervals
come from the seed bootstrap (:mod:`.resample`): whole game seeds drawn with replacement,
the fit repeated on each draw.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import choix
import numpy as np
from numpy.typing import NDArray

from .resample import expanded_tail, seed_weights
from .stats import GameOutcome, SeededOutcome, finishing_positions

__all__ = ["ELO_PER_NAT", "Rating", "SeededOutcome", "fit_ratings", "pairwise_results"]

ELO_PER_NAT: Final = 400.0 / math.log(10.0)
REGULARISATION: Final = 0.01
RATING_REPLICATES: Final = 200


@dataclass(frozen=True)
class Rating:
    entrant: str
    rating: float  # Elo scale, the field's mean at 0
    low: float  # 95 % seed-bootstrap interval
    high: float
    games: int
    seeds: int  # independent seeds behind the figure


def pairwise_results(outcome: GameOutcome, index: dict[str, int]) -> list[tuple[int, int]]:
    """(winner, loser) index pairs of one game; a tie gives both orders (half each way)."""
    positions = finishing_positions(outcome)
    names = outcome.entrants_by_team
    pairs: list[tuple[int, int]] = []
    for a in range(3):
        for b in range(a + 1, 3):
            if names[a] == names[b]:
                continue
            i, j = index[names[a]], index[names[b]]
            if positions[a] < positions[b]:
                pairs.append((i, j))
            elif positions[b] < positions[a]:
                pairs.append((j, i))
            else:
                pairs += [(i, j), (j, i)]
    return pairs


def _fit(wins: NDArray[np.float64]) -> NDArray[np.float64]:
    """Fit to ``wins[i, j]``, how often i finished ahead of j (``pairwise_results``).

    The dense form of choix's I-LSR: the same chain as ``ilsr_pairwise`` over the list of
    pairs, built from the counts at once, so a bootstrap replicate (a weighted sum of the
    seeds' matrices) costs a matrix, not a list of every pair again.
    """
    strengths = choix.ilsr_pairwise_dense(wins, alpha=REGULARISATION, max_iter=500)
    centred: NDArray[np.float64] = (strengths - strengths.mean()) * ELO_PER_NAT
    return centred


def fit_ratings(
    games: Sequence[SeededOutcome], replicates: int = RATING_REPLICATES
) -> list[Rating]:
    """Every entrant's rating with its interval, best first (then by name)."""
    names = sorted({name for game in games for name in game.outcome.entrants_by_team})
    if len(names) < 2:
        return []
    index = {name: i for i, name in enumerate(names)}
    by_seed: dict[int, NDArray[np.float64]] = {}
    games_of = dict.fromkeys(names, 0)
    seeds_of: dict[str, set[int]] = {name: set() for name in names}
    for game in games:
        wins = by_seed.setdefault(game.seed, np.zeros((len(names), len(names))))
        for winner, loser in pairwise_results(game.outcome, index):
            wins[winner, loser] += 1.0
        for name in set(game.outcome.entrants_by_team):
            games_of[name] += 1
            seeds_of[name].add(game.seed)
    seeds = sorted(by_seed)
    per_seed = np.array([by_seed[seed] for seed in seeds])  # seeds × entrants × entrants
    point = _fit(per_seed.sum(axis=0))
    draws = np.array(
        [_fit(np.tensordot(row, per_seed, axes=1)) for row in seed_weights(len(seeds), replicates)]
    )
    tail = expanded_tail(0.95, len(seeds))  # as every other interval of the report
    low, high = np.quantile(draws, [tail, 1.0 - tail], axis=0)
    ratings = [
        Rating(
            entrant=name,
            rating=float(point[i]),
            low=float(low[i]),
            high=float(high[i]),
            games=games_of[name],
            seeds=len(seeds_of[name]),
        )
        for i, name in enumerate(names)
    ]
    ratings.sort(key=lambda r: (-r.rating, r.entrant))
    return ratings
