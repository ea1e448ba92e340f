"""Which triple the ladder plays next: new versions first, then the least certain, with
the entrants they have met least."""

from __future__ import annotations

import itertools
from collections import Counter

from arena.serve.ladder import NEW_VERSION_GAMES, choose_triple


def test_a_new_version_plays_first_with_those_it_met_least() -> None:
    entrants = ["a@1", "b@1", "c@1", "d@1", "new@1"]
    games = Counter({e: 100 for e in entrants[:4]})
    met: Counter[frozenset[str]] = Counter()
    for pair in itertools.combinations(entrants[:4], 2):
        met[frozenset(pair)] = 5
    met[frozenset(("new@1", "a@1"))] = 3
    triple = choose_triple(entrants, games, met, None, 10)
    assert triple is not None and "new@1" in triple and "a@1" not in triple


def test_the_pairs_stay_balanced_over_many_rounds() -> None:
    entrants = [f"e{i}@1" for i in range(6)]
    games: Counter[str] = Counter()
    met: Counter[frozenset[str]] = Counter()
    for n in range(40):
        triple = choose_triple(entrants, games, met, None, n)
        assert triple is not None and len(set(triple)) == 3
        for entrant in triple:
            games[entrant] += 6
        for pair in itertools.combinations(sorted(triple), 2):
            met[frozenset(pair)] += 1
    assert max(games.values()) - min(games.values()) <= 6 * 2
    assert max(met.values()) - min(met.values()) <= 3
    assert all(g >= NEW_VERSION_GAMES for g in games.values())


def test_two_entrants_alternate_who_holds_two_teams() -> None:
    assert choose_triple(["b@1", "a@1"], Counter(), Counter(), None, 0) == ("a@1", "a@1", "b@1")
    assert choose_triple(["b@1", "a@1"], Counter(), Counter(), None, 1) == ("a@1", "b@1", "b@1")
    assert choose_triple(["a@1"], Counter(), Counter(), None, 0) is None
