"""Ratings from finishing order (arena/stats/ratings.py): the fit, the rated field, the
profile-likelihood intervals and the one-sided bound of an entrant beyond the field."""

from __future__ import annotations

import itertools
import math
import random

import choix
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar
from scipy.special import log_expit
from scipy.stats import t

from arena.stats.rates import MIN_SEEDS_FOR_INTERVAL, GameOutcome
from arena.stats.ratings import ELO_PER_NAT, fit_ratings, rate_field


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
    assert ratings["A"].rating == pytest.approx(step, abs=1e-6)  # no regularisation
    assert ratings["B"].rating == pytest.approx(0.0, abs=1e-6)
    assert ratings["C"].rating == pytest.approx(-step, abs=1e-6)
    assert all(r.games == 15 and r.seeds == 15 for r in ratings.values())
    for r in ratings.values():
        assert r.place == "rated"
        assert r.rating is not None and r.low is not None and r.high is not None
        assert r.low < r.rating < r.high
        assert (r.low_open, r.high_open, r.too_few_seeds) == (False, False, False)


def test_order_of_the_games_does_not_matter() -> None:
    orders = ["ABC", "BCA", "CAB", "ABC", "BAC", "CBA", "ACB", "ABC"]
    games = [_game(i % 4, o) for i, o in enumerate(orders)]
    forward = fit_ratings(games)
    backward = fit_ratings(list(reversed(games)))
    assert forward == backward


def _plackett_luce(strength: dict[str, float], seeds: int, seed: int) -> list[GameOutcome]:
    """Every triple of the entrants on ``seeds`` seeds, finishing in Plackett–Luce order."""
    rng = random.Random(seed)
    games = []
    for game_seed in range(seeds):
        for triple in itertools.combinations(sorted(strength), 3):
            rest, order = list(triple), []
            while rest:
                pick = rng.choices(rest, [math.exp(strength[n]) for n in rest])[0]
                order.append(pick)
                rest.remove(pick)
            scores = tuple(21 - 5 * order.index(name) for name in triple)
            outcome = GameOutcome(triple, scores, triple.index(order[0]), seed=game_seed)  # type: ignore[arg-type]
            games.append(outcome)
    return games


def test_many_entrants_are_ranked_by_strength() -> None:
    """Six entrants of known Plackett–Luce strengths, every triple on 40 seeds."""
    names = [f"bot{i}" for i in range(6)]
    strength = {name: 0.3 * i for i, name in enumerate(names)}
    ratings = fit_ratings(_plackett_luce(strength, 40, 3))
    assert [r.entrant for r in ratings] == list(reversed(names))
    mean = sum(strength.values()) / len(names)
    for r in ratings:
        true = (strength[r.entrant] - mean) * ELO_PER_NAT
        assert r.low is not None and r.high is not None
        assert r.low < true < r.high, (r, true)
        assert r.design_effect >= 1.0


def test_the_fit_is_choix_maximum_likelihood() -> None:
    """Unregularised, on pairs that connect every entrant both ways: choix's I-LSR."""
    rng = np.random.default_rng(7)
    per_seed = rng.integers(0, 4, size=(6, 5, 5)).astype(float)
    for matrix in per_seed:
        np.fill_diagonal(matrix, 0.0)
    wins = per_seed.sum(axis=0)
    theirs = choix.ilsr_pairwise_dense(wins, alpha=0.0, max_iter=2000, tol=1e-12)
    ours = [f.rating for f in rate_field(per_seed).entrants]
    assert ours == pytest.approx(theirs - theirs.mean(), abs=1e-6)


def _profile(wins: np.ndarray, entrant: int, rating: float) -> float:
    """The log-likelihood maximised with ``entrant``'s centred rating held at ``rating``,
    three entrants: the others' difference is the one free parameter (scipy's optimiser)."""
    others = [i for i in range(3) if i != entrant]

    def minus(gap: float) -> float:
        strengths = np.zeros(3)
        strengths[entrant] = rating * 1.5  # x n / (n - 1), the others' sum 0
        strengths[others[0]], strengths[others[1]] = gap / 2, -gap / 2
        return -float((wins * log_expit(strengths[:, None] - strengths[None, :])).sum())

    return -minimize_scalar(minus, bounds=(-30, 30), method="bounded").fun


def test_a_bound_is_where_the_profile_falls_by_the_design_effect_times_t_squared() -> None:
    games = [_game(seed, order) for seed in range(6) for order in ("ABC", "ACB", "BCA", "CAB")]
    games += [_game(seed, "BAC") for seed in range(3)]
    field = rate_field(_per_seed(games, "ABC"))
    wins = _per_seed(games, "ABC").sum(axis=0)
    top = _profile(wins, 0, field.entrants[0].rating or 0.0)
    drop = field.design_effect * float(t.ppf(0.975, 5)) ** 2 / 2
    for bound in (field.entrants[0].low, field.entrants[0].high):
        assert bound is not None
        assert top - _profile(wins, 0, bound) == pytest.approx(drop, rel=1e-3)


def _per_seed(games: list[GameOutcome], names: str) -> np.ndarray:
    seeds = sorted({g.seed for g in games if g.seed is not None})
    per_seed = np.zeros((len(seeds), len(names), len(names)))
    for game in games:
        order = sorted(range(3), key=lambda team: -game.final_scores[team])
        for a, b in itertools.combinations(order, 2):
            ahead, behind = (
                names.index(game.entrants_by_team[a]),
                names.index(game.entrants_by_team[b]),
            )
            per_seed[seeds.index(game.seed), ahead, behind] += 1  # type: ignore[arg-type]
    return per_seed


def test_an_unbeaten_entrant_is_above_the_field_with_a_lower_bound_only() -> None:
    """A finishes first in every game: no finite rating would fit it. Its bound is where,
    were it that strong, it would have been unbeaten in its 60 pairs with chance 2.5 %
    (the field's two ratings equal: each pair won with the same chance); B and C are rated
    on their own pairs, their centre their own mean."""
    games = [_game(seed, "ABC" if k % 2 else "ACB") for seed in range(5) for k in range(6)]
    ratings = {r.entrant: r for r in fit_ratings(games)}
    a = ratings["A"]
    assert (a.place, a.rating, a.high, a.high_open, a.low_open) == (
        "above",
        None,
        None,
        True,
        False,
    )
    chance = 0.025 ** (1 / 60)  # of one pair, with the design effect 1 of these seeds
    assert a.design_effect == 1.0
    assert a.low == pytest.approx(ELO_PER_NAT * math.log(chance / (1 - chance)), rel=1e-6)
    for name in "BC":
        r = ratings[name]
        assert r.place == "rated" and r.rating == pytest.approx(0.0, abs=1e-9)
        assert r.low is not None and r.high is not None and r.low < 0 < r.high
    assert next(r.entrant for r in fit_ratings(games)) == "A"


def test_the_field_is_not_pulled_by_an_entrant_beyond_it() -> None:
    """The field's ratings and intervals are those of its own pairs: the unbeaten entrant's
    pairs with them (however many) move none of them, and their mean is 0."""
    base = [_game(seed, order) for seed in range(6) for order in ("ABC", "ACB", "CAB")]
    dominant = [GameOutcome(("D", "B", "C"), (21, 16, 11), 0, seed=seed) for seed in range(6)]
    dominant += [GameOutcome(("D", "C", "A"), (21, 16, 11), 0, seed=seed) for seed in range(6)]
    ratings = {r.entrant: r for r in fit_ratings(base + dominant)}
    assert ratings["D"].place == "above"
    alone = rate_field(_per_seed(base + dominant, "ABCD")[:, :3, :3]).entrants
    for name, own in zip("ABC", alone, strict=True):
        r = ratings[name]
        assert own.rating is not None and own.low is not None and own.high is not None
        assert (r.rating, r.low, r.high) == pytest.approx(
            (own.rating * ELO_PER_NAT, own.low * ELO_PER_NAT, own.high * ELO_PER_NAT)
        )
    assert sum(ratings[name].rating or 0.0 for name in "ABC") == pytest.approx(0.0, abs=1e-9)


def test_a_winless_entrant_is_below_the_field_with_an_upper_bound_only() -> None:
    games = [_game(seed, "BAC" if k % 2 else "ABC") for seed in range(5) for k in range(6)]
    ratings = {r.entrant: r for r in fit_ratings(games)}
    c = ratings["C"]
    assert (c.place, c.rating, c.low, c.low_open, c.high_open) == ("below", None, None, True, False)
    assert c.high is not None and c.high < 0
    assert [r.entrant for r in fit_ratings(games)][-1] == "C"


def test_entrants_ordered_strictly_by_their_games_get_no_rating() -> None:
    games = [_game(seed, "ABC") for seed in range(6)]
    for r in fit_ratings(games):
        assert r.place == "apart" and r.rating is None and r.low is None and r.high is None


def test_below_the_minimum_seeds_ratings_have_no_interval() -> None:
    games = [_game(seed, "ABC") for seed in range(MIN_SEEDS_FOR_INTERVAL - 1)]
    games += [_game(seed, "BCA") for seed in range(MIN_SEEDS_FOR_INTERVAL - 1)]
    for r in fit_ratings(games):
        assert r.too_few_seeds and r.low is None and r.high is None
        assert not r.low_open and not r.high_open


@given(
    st.lists(st.sampled_from(["ABC", "ACB", "BAC", "BCA", "CAB", "CBA"]), min_size=12, max_size=40)
)
@settings(max_examples=40, deadline=None)
def test_every_statement_holds_its_rating_and_the_field_is_centred(orders: list[str]) -> None:
    ratings = fit_ratings([_game(i % 6, order) for i, order in enumerate(orders)])
    rated = [r for r in ratings if r.place == "rated"]
    assert sum(r.rating for r in rated if r.rating is not None) == pytest.approx(0.0, abs=1e-6)
    for r in ratings:
        if r.place == "rated":
            assert r.rating is not None and r.low is not None and r.high is not None
            assert r.low < r.rating < r.high
        elif r.place == "above":
            assert r.low is not None and r.high is None
        elif r.place == "below":
            assert r.high is not None and r.low is None
