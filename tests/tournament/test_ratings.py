"""Ratings from finishing order (arena/tournament/ratings.py)."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from arena.tournament.ratings import ELO_PER_NAT, SeededOutcome, fit_ratings
from arena.tournament.stats import GameOutcome


def _game(seed: int, order: str) -> SeededOutcome:
    """A game of teams A, B, C (in that team order) finishing in ``order``, e.g. "BAC"."""
    scores = tuple(21 - 5 * order.index(name) for name in "ABC")
    return SeededOutcome(seed, GameOutcome(("A", "B", "C"), scores, "ABC".index(order[0])))  # type: ignore[arg-type]


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
    assert all(r.low < r.rating < r.high for r in ratings.values())


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
            games.append(SeededOutcome(seed, GameOutcome(triple, scores, triple.index(order[0]))))  # type: ignore[arg-type]
    ratings = fit_ratings(games, replicates=100)
    assert [r.entrant for r in ratings] == list(reversed(names))
    mean = sum(strength.values()) / len(names)
    for r in ratings:
        true = (strength[r.entrant] - mean) * ELO_PER_NAT
        assert r.low - 10 < true < r.high + 10, (r, true)
