"""Ratings from finishing order (arena/stats/ratings.py)."""

from __future__ import annotations

import itertools
import math
import random

import choix
import numpy as np
import pytest

from arena.stats.rates import MIN_SEEDS_FOR_INTERVAL, GameOutcome
from arena.stats.ratings import (
    ELO_PER_NAT,
    RATING_REPLICATES,
    REGULARISATION,
    fit_ratings,
    fit_strengths,
)
from arena.stats.resample import expanded_tail


def _game(seed: int, order: str) -> GameOutcome:
    """A game of teams A, B, C (in that team order) finishing in ``order``, e.g. "BAC"."""
    scores = tuple(21 - 5 * order.index(name) for name in "ABC")
    return GameOutcome(("A", "B", "C"), scores, "ABC".index(order[0]), seed=seed)  # type: ignore[arg-type]


def test_a_hand_checked_case() -> None:
    """15 games whose pairs are A over B 10-5, B over C 10-5, A over C 12-3.

    Bradley–Terry fits these exactly with odds A:B = 2 and B:C = 2 (so A:C = 4, and 12/15
    = 4/5): strengths ln 4, ln 2, 0, so ratings ±400·log10(2) = ±120.4 around B at 0.
    """
    orders = ["ABC"] * 7 + ["ACB"] * 3 + ["BAC"] * 2 + ["BCA"] + ["CBA"] * 2
    ratings = {r.entrant: r for r in fit_ratings([_game(i, o) for i, o in enumerate(orders)])}
    step = ELO_PER_NAT * math.log(2)
    assert step == pytest.approx(120.41, abs=0.01)
    assert ratings["A"].rating == pytest.approx(step, abs=1.5)  # the fit's light regularisation
    assert ratings["B"].rating == pytest.approx(0.0, abs=1.5)
    assert ratings["C"].rating == pytest.approx(-step, abs=1.5)
    assert all(r.games == 15 and r.seeds == 15 for r in ratings.values())
    for r in ratings.values():
        assert r.low is not None and r.high is not None
        assert r.low < r.rating < r.high
        assert (r.low_open, r.high_open, r.too_few_seeds) == (False, False, False)
        assert r.replicates == RATING_REPLICATES >= 2000


def test_order_of_the_games_does_not_matter() -> None:
    orders = ["ABC", "BCA", "CAB", "ABC", "BAC", "CBA", "ACB", "ABC"]
    games = [_game(i % 3, o) for i, o in enumerate(orders)]
    forward = fit_ratings(games)
    backward = fit_ratings(list(reversed(games)))
    assert [(r.entrant, round(r.rating, 9)) for r in forward] == [
        (r.entrant, round(r.rating, 9)) for r in backward
    ]


def test_many_entrants_are_ranked_by_strength() -> None:
    """Six entrants of known Plackett–Luce strengths, every triple on 40 seeds."""
    rng = random.Random(3)
    names = [f"bot{i}" for i in range(6)]
    strength = {name: 0.3 * i for i, name in enumerate(names)}
    games = []
    for seed in range(40):
        for triple in itertools.combinations(names, 3):
            rest, order = list(triple), []
            while rest:
                pick = rng.choices(rest, [math.exp(strength[n]) for n in rest])[0]
                order.append(pick)
                rest.remove(pick)
            scores = tuple(21 - 5 * order.index(name) for name in triple)
            games.append(GameOutcome(triple, scores, triple.index(order[0]), seed=seed))  # type: ignore[arg-type]
    ratings = fit_ratings(games, replicates=100)
    assert [r.entrant for r in ratings] == list(reversed(names))
    mean = sum(strength.values()) / len(names)
    for r in ratings:
        true = (strength[r.entrant] - mean) * ELO_PER_NAT
        assert r.low is not None and r.high is not None
        assert r.low - 10 < true < r.high + 10, (r, true)
        assert r.unbeaten_draws == r.winless_draws == 0


@pytest.mark.parametrize("entrants", [2, 3, 5, 8])
def test_the_batched_fit_is_chois_fit_on_every_matrix(entrants: int) -> None:
    """The stack of matrices fitted at once agrees with ``choix.ilsr_pairwise_dense`` on
    each, unbeaten entrants (where only the regularisation holds the fit) included."""
    rng = np.random.default_rng(entrants)
    stack = rng.integers(0, 9, size=(6, entrants, entrants)).astype(float)
    for matrix in stack:
        np.fill_diagonal(matrix, 0.0)
    stack[1, :, 0] = 0.0  # entrant 0 never finishes behind in draw 1
    stack[2, 1, :] = 0.0  # entrant 1 never finishes ahead in draw 2
    fitted = fit_strengths(stack)
    assert fitted.shape == (6, entrants)
    for matrix, ours in zip(stack, fitted, strict=True):
        theirs = choix.ilsr_pairwise_dense(matrix, alpha=REGULARISATION, max_iter=500)
        assert ours == pytest.approx((theirs - theirs.mean()) * ELO_PER_NAT, abs=1e-6)


def _strength_games(seeds: int, lose_every: int) -> list[GameOutcome]:
    """A beats B and C in every game but one game in ``lose_every`` seeds (where C wins);
    B and C share the rest."""
    games = []
    for seed in range(seeds):
        for k in range(6):
            if seed % lose_every == 0 and k == 0:
                games.append(_game(seed, "CAB"))
            else:
                games.append(_game(seed, "ABC" if k % 2 else "ACB"))
    return games


def test_a_bound_the_regularisation_would_set_is_open_and_the_draws_are_counted() -> None:
    """A lost a single game, on one seed of 20: about a third of the bootstrap's draws leave
    that seed out and A unbeaten, far more than the tail: the upper bound is open. Its
    lower bound and B's and C's intervals stand (each finishes ahead of the other)."""
    ratings = {r.entrant: r for r in fit_ratings(_strength_games(20, 100))}
    a = ratings["A"]
    share = a.unbeaten_draws / a.replicates
    assert 0.25 < share < 0.45  # (19/20)^20 = 0.36 of the draws leave seed 0 out
    assert share > expanded_tail(0.95, 20)
    assert a.high_open and a.high is None and not a.low_open
    assert a.low is not None and a.low < a.rating
    assert a.winless_draws == 0
    for name in "BC":
        r = ratings[name]
        assert not r.high_open and not r.low_open and r.low is not None and r.high is not None
        assert r.low < r.rating < r.high and r.unbeaten_draws == 0


def test_an_entrant_that_loses_on_many_seeds_has_both_bounds() -> None:
    ratings = {r.entrant: r for r in fit_ratings(_strength_games(20, 2))}
    a = ratings["A"]
    assert a.unbeaten_draws <= expanded_tail(0.95, 20) * a.replicates
    assert not a.high_open and a.low is not None and a.high is not None
    assert a.low < a.rating < a.high


def test_below_the_minimum_seeds_ratings_have_no_interval() -> None:
    games = [_game(seed, "ABC") for seed in range(MIN_SEEDS_FOR_INTERVAL - 1)]
    games += [_game(seed, "BCA") for seed in range(MIN_SEEDS_FOR_INTERVAL - 1)]
    for r in fit_ratings(games):
        assert r.too_few_seeds and r.low is None and r.high is None
