"""Ratings for many entrants: a Bradley–Terry fit over finishing order (pure, no I/O).

A raw win rate depends on whom an entrant happened to meet; a rating does not. Each game
is broken into its pairs of teams held by different entrants: the team placed ahead beats
the other (a tie counts as half a win each way). The Bradley–Terry strengths are fitted to
all pairs of all games at once (choix's I-LSR, maximum likelihood with a light
regularisation so an entrant that never lost still gets a finite strength), so the result
depends neither on the order the games finished in nor on ``--jobs``. Ratings are on the
Elo scale, centred on the field's mean: 400 more means ten times the odds of finishing
ahead. Their intervals come from the seed bootstrap (:mod:`.resample`): whole game seeds
drawn with replacement, the fit repeated on each of ``RATING_REPLICATES`` draws, all draws
at once (``fit_strengths``: the I-LSR iteration on a stack of matrices).

A draw in which an entrant never loses (or never wins) has no maximum-likelihood fit: its
strength would be infinite, and only the regularisation puts it anywhere (at 0.01 or 0.001
the same data gave an upper bound of +1240 or +1640). Such draws are counted per entrant;
where they are more than the interval's tail, the bound on that side is open — the data
put no limit there — and is None (``high_open``: the text says "> +484"). The other bound
stays: a finite stand-in for an infinite strength only lowers it, so it errs on the safe
side. Below ``MIN_SEEDS_FOR_INTERVAL`` seeds there is no interval ("too few seeds").

Run by hand, ``python -m arena.stats.ratings GAMES.json`` prints every entrant's rating
with its interval (the games' format: :mod:`arena.stats.byhand`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, cast

import numpy as np
from numpy.typing import NDArray

from .rates import MIN_SEEDS_FOR_INTERVAL, GameOutcome, finishing_positions
from .resample import expanded_tail, seed_weights

__all__ = [
    "ELO_PER_NAT",
    "RATING_REPLICATES",
    "Rating",
    "fit_ratings",
    "fit_strengths",
    "pairwise_results",
]

ELO_PER_NAT: Final = 400.0 / math.log(10.0)
REGULARISATION: Final = 0.01
RATING_REPLICATES: Final = 2000
_TOLERANCE: Final = 1e-8  # choix's: the L1 change of the log-strengths (per entrant) that ends it
_MAX_ITERATIONS: Final = 500


@dataclass(frozen=True)
class Rating:
    entrant: str
    rating: float  # Elo scale, the field's mean at 0
    # 95 % seed-bootstrap interval; None where open (low_open / high_open: no bound on that
    # side, the text's "> +484") or with too few seeds (both None, too_few_seeds)
    low: float | None
    high: float | None
    games: int
    seeds: int  # independent seeds behind the figure
    low_open: bool = False
    high_open: bool = False
    too_few_seeds: bool = False
    replicates: int = 0  # bootstrap draws behind the interval
    unbeaten_draws: int = 0  # draws in which the entrant never lost (or was not drawn)
    winless_draws: int = 0  # draws in which it never won (or was not drawn)


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


def fit_strengths(wins: NDArray[np.float64]) -> NDArray[np.float64]:
    """Elo-scale ratings, centred, fitted to each of a stack of ``wins[..., i, j]`` matrices
    (how often i finished ahead of j, from ``pairwise_results``).

    choix's ``ilsr_pairwise_dense`` (the same chain, regularisation and stopping rule; the
    tests check they agree), run on every matrix of the stack at once: one batched linear
    solve per iteration for all the bootstrap's draws instead of a loop of fits.
    """
    stack = wins.reshape((-1, *wins.shape[-2:]))
    draws, n, _ = stack.shape
    losses = np.swapaxes(stack, 1, 2)  # losses[b, i, j]: how often i finished behind j
    params = np.zeros((draws, n))
    ones = np.ones(n)
    target = np.zeros(n)
    target[-1] = float(n)
    active = np.arange(draws)
    for _ in range(_MAX_ITERATIONS):
        weights = np.exp(params[active])
        weights *= n / weights.sum(axis=1, keepdims=True)  # as choix: mean strength 1
        rates = REGULARISATION + losses[active] / (weights[:, :, None] + weights[:, None, :])
        rates[:, np.arange(n), np.arange(n)] = 0.0
        generator = rates - np.einsum("bij,j->bi", rates, ones)[:, :, None] * np.eye(n)
        # The stationary distribution: pi Q = 0 with sum(pi) = n (one balance equation
        # replaced by the normalisation, as choix's statdist).
        system = np.swapaxes(generator, 1, 2).copy()
        system[:, -1, :] = 1.0
        right = np.broadcast_to(target[:, None], (len(active), n, 1))
        stationary = np.linalg.solve(system, right)[:, :, 0]
        logs = np.log(np.clip(stationary, 1e-300, None))
        logs -= logs.mean(axis=1, keepdims=True)
        moved = np.abs(logs - params[active]).sum(axis=1)
        params[active] = logs
        active = active[moved > _TOLERANCE * n]
        if len(active) == 0:
            break
    centred: NDArray[np.float64] = (params - params.mean(axis=1, keepdims=True)) * ELO_PER_NAT
    return centred.reshape((*wins.shape[:-2], n))


def fit_ratings(games: Sequence[GameOutcome], replicates: int = RATING_REPLICATES) -> list[Rating]:
    """Every entrant's rating with its interval, best first (then by name); every game
    needs its seed (the bootstrap resamples seeds)."""
    if any(game.seed is None for game in games):
        raise ValueError("ratings resample game seeds: a game without its seed")
    names = sorted({name for game in games for name in game.entrants_by_team})
    if len(names) < 2:
        return []
    index = {name: i for i, name in enumerate(names)}
    by_seed: dict[int, NDArray[np.float64]] = {}
    games_of = dict.fromkeys(names, 0)
    seeds_of: dict[str, set[int]] = {name: set() for name in names}
    for game in games:
        seed = cast(int, game.seed)
        wins = by_seed.setdefault(seed, np.zeros((len(names), len(names))))
        for winner, loser in pairwise_results(game, index):
            wins[winner, loser] += 1.0
        for name in set(game.entrants_by_team):
            games_of[name] += 1
            seeds_of[name].add(seed)
    seeds = sorted(by_seed)
    per_seed = np.array([by_seed[seed] for seed in seeds])  # seeds × entrants × entrants
    point = fit_strengths(per_seed.sum(axis=0))
    if len(seeds) < MIN_SEEDS_FOR_INTERVAL:
        ratings = [
            Rating(
                name,
                float(point[i]),
                None,
                None,
                games_of[name],
                len(seeds_of[name]),
                too_few_seeds=True,
            )
            for i, name in enumerate(names)
        ]
    else:
        ratings = _with_intervals(names, point, per_seed, replicates, games_of, seeds_of)
    ratings.sort(key=lambda r: (-r.rating, r.entrant))
    return ratings


def _with_intervals(
    names: list[str],
    point: NDArray[np.float64],
    per_seed: NDArray[np.float64],
    replicates: int,
    games_of: dict[str, int],
    seeds_of: dict[str, set[int]],
) -> list[Rating]:
    weights = seed_weights(len(per_seed), replicates)
    drawn = np.tensordot(weights, per_seed, axes=1)  # replicates × entrants × entrants
    fits = fit_strengths(drawn)
    unbeaten = (drawn.sum(axis=1) == 0).sum(axis=0)  # column sums: times each finished behind
    winless = (drawn.sum(axis=2) == 0).sum(axis=0)
    tail = expanded_tail(0.95, len(per_seed))  # as every other interval of the report
    low, high = np.quantile(fits, [tail, 1.0 - tail], axis=0)
    ratings = []
    for i, name in enumerate(names):
        # Open where the draws without a fit reach into the tail the bound is read from.
        high_open = bool(unbeaten[i] > tail * replicates)
        low_open = bool(winless[i] > tail * replicates)
        ratings.append(
            Rating(
                entrant=name,
                rating=float(point[i]),
                low=None if low_open else min(float(low[i]), float(point[i])),
                high=None if high_open else max(float(high[i]), float(point[i])),
                games=games_of[name],
                seeds=len(seeds_of[name]),
                low_open=low_open,
                high_open=high_open,
                replicates=replicates,
                unbeaten_draws=int(unbeaten[i]),
                winless_draws=int(winless[i]),
            )
        )
    return ratings


def main(argv: Sequence[str] | None = None) -> int:
    from .byhand import games_from_json, parser, print_json, read_json

    args = parser("arena.stats.ratings", __doc__, "a JSON list of games").parse_args(argv)
    print_json(fit_ratings(games_from_json(read_json(args.file))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
