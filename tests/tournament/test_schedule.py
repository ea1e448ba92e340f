"""The round-robin schedule: triples, seatings, shared seeds (duplicate play), stable keys."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.tournament.schedule import (
    ScheduleError,
    game_seed,
    round_robin,
    schedule_size,
    seatings,
    triples,
)

pytestmark = pytest.mark.timeout(60)


def as_multisets(found: list[tuple[int, int, int]]) -> Counter[tuple[int, ...]]:
    return Counter(tuple(sorted(t)) for t in found)


def test_two_entrants_make_two_triples_each_holding_one_twice() -> None:
    # {A, A, B} and {A, B, B}: with two entrants each must fill two teams in turn.
    assert as_multisets(triples(2)) == Counter({(0, 0, 1): 1, (0, 1, 1): 1})


def test_three_entrants_make_one_triple() -> None:
    assert as_multisets(triples(3)) == Counter({(0, 1, 2): 1})


def test_four_entrants_make_every_set_of_three() -> None:
    found = triples(4)
    assert len(found) == 4
    assert all(len(set(t)) == 3 for t in found)
    assert as_multisets(found) == Counter(itertools.combinations(range(4), 3))


@pytest.mark.parametrize("count", [0, 1])
def test_fewer_than_two_entrants_is_a_schedule_error(count: int) -> None:
    with pytest.raises(ScheduleError):
        triples(count)
    with pytest.raises(ScheduleError):
        round_robin(count, 2, 1)


def test_no_games_is_a_schedule_error() -> None:
    with pytest.raises(ScheduleError):
        round_robin(3, 0, 1)


def test_three_different_entrants_have_six_seatings() -> None:
    found = seatings((0, 1, 2))
    assert len(found) == 6
    assert len(set(found)) == 6
    assert set(found) == set(itertools.permutations((0, 1, 2)))


@pytest.mark.parametrize("triple", [(0, 0, 1), (0, 1, 1), (3, 5, 5)])
def test_a_triple_with_a_repeated_entrant_has_three_seatings(
    triple: tuple[int, int, int],
) -> None:
    found = seatings(triple)
    assert len(found) == 3
    assert len(set(found)) == 3
    # each seating is an arrangement of the same three entrants
    assert all(sorted(s) == sorted(triple) for s in found)
    # the entrant that plays once sits on each of the three teams once
    single = next(e for e in triple if triple.count(e) == 1)
    assert sorted(s.index(single) for s in found) == [0, 1, 2]


@pytest.mark.parametrize("count", [2, 3, 4, 5])
def test_every_seating_of_a_triple_plays_the_same_seeds(count: int) -> None:
    schedule = round_robin(count, 4, seed=17)
    by_triple: dict[int, set[tuple[int, ...]]] = {}
    for match in schedule:
        by_triple.setdefault(match.triple, set()).add(match.seeds)
    for triple, seed_sets in by_triple.items():
        assert len(seed_sets) == 1, f"triple {triple} plays different seeds: {seed_sets}"
    expected = tuple(game_seed(17, k) for k in range(4))
    assert all(m.seeds == expected for m in schedule)


@pytest.mark.parametrize("count", [2, 3, 4, 5, 6])
def test_the_schedule_holds_every_seating_of_every_triple_once(count: int) -> None:
    schedule = round_robin(count, 3, seed=2)
    all_triples = triples(count)
    expected = [(t, s) for t, triple in enumerate(all_triples) for s in seatings(triple)]
    assert [(m.triple, m.entrants) for m in schedule] == expected
    for match in schedule:
        assert sorted(match.entrants) == sorted(all_triples[match.triple])
        assert seatings(all_triples[match.triple])[match.seating] == match.entrants
    assert schedule_size(schedule) == 3 * len(expected)


def test_schedule_sizes_of_small_fields() -> None:
    assert len(round_robin(2, 1, 1)) == 6  # two triples x three seatings
    assert len(round_robin(3, 1, 1)) == 6  # one triple x six seatings
    assert len(round_robin(4, 1, 1)) == 24  # four triples x six seatings
    assert schedule_size(round_robin(4, 5, 1)) == 120


@pytest.mark.parametrize("count", [2, 3, 4, 6])
def test_match_keys_are_unique_and_stable_across_calls(count: int) -> None:
    first = round_robin(count, 3, seed=9)
    keys = [m.key for m in first]
    assert len(set(keys)) == len(keys)
    again = round_robin(count, 3, seed=9)
    assert [m.key for m in again] == keys
    assert again == first


def test_game_seed_is_a_function_of_run_seed_and_game_index_only() -> None:
    # The same game index has the same seed whatever the entrants and the number of games.
    small = round_robin(2, 2, seed=5)
    large = round_robin(6, 7, seed=5)
    assert small[0].seeds == large[-1].seeds[:2]
    assert game_seed(5, 3) == game_seed(5, 3)
    assert large[0].seeds[3] == game_seed(5, 3)
    # ... and changes with either of the two.
    assert game_seed(5, 3) != game_seed(5, 4)
    assert game_seed(5, 3) != game_seed(6, 3)
    assert len({game_seed(5, k) for k in range(200)}) == 200


@given(
    run_seed=st.integers(min_value=-(2**63), max_value=2**63 - 1),
    index=st.integers(min_value=0, max_value=10_000),
)
def test_game_seed_is_deterministic_and_fits_a_signed_64_bit_integer(
    run_seed: int, index: int
) -> None:
    seed = game_seed(run_seed, index)
    assert seed == game_seed(run_seed, index)
    # stored in an SQLite INTEGER column (signed 64 bits)
    assert 0 <= seed < 2**63
