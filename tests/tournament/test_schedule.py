"""The round-robin schedule: triples, seatings, shared game keys (duplicate play), stable keys,
the order each seating plays its games in, and the fixed schedule the runner asks."""

from __future__ import annotations

import hashlib
import hmac
import itertools
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import GameKey
from arena.tournament.runner import RunConfig
from arena.tournament.schedule import (
    AUTO_FULL_LIMIT,
    DONE,
    FixedSchedule,
    RunKey,
    ScheduleError,
    SchedulePlan,
    choose_schedule,
    full_size,
    round_robin,
    sampled,
    sampled_triples,
    schedule_size,
    seatings,
    spread,
    swap_pairs,
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
        round_robin(count, 2)


def test_no_games_is_a_schedule_error() -> None:
    with pytest.raises(ScheduleError):
        round_robin(3, 0)


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
def test_every_match_plays_the_same_games(count: int) -> None:
    """Duplicate play (R3.1a): every seating plays games 0..n-1, and game k of a run is
    dealt from ``RunKey.game(k)`` whichever seating plays it."""
    schedule = round_robin(count, 4)
    assert {m.games for m in schedule} == {4}


@pytest.mark.parametrize("count", [2, 3, 4, 5, 6])
def test_the_schedule_holds_every_seating_of_every_triple_once(count: int) -> None:
    schedule = round_robin(count, 3)
    all_triples = triples(count)
    expected = [s for triple in all_triples for s in seatings(triple)]
    assert [m.entrants for m in schedule] == expected
    assert schedule_size(schedule) == 3 * len(expected)


@settings(max_examples=200)
@given(games=st.integers(1, 40), count=st.integers(2, 5), design=st.sampled_from(["rr", "pairs"]))
def test_each_seating_plays_each_of_its_games_once_starting_where_spread_says(
    games: int, count: int, design: str
) -> None:
    schedule = round_robin(count, games) if design == "rr" else swap_pairs(games)
    for position, match in enumerate(schedule):
        assert sorted(match.order) == list(match.indices)
        if match.order:
            assert match.order[0] == match.indices[spread(position, len(match.indices))]
            start = match.order.index(match.indices[0])
            assert list(match.order[start:] + match.order[:start]) == list(match.indices)


@settings(max_examples=300)
@given(count=st.integers(1, 300), first=st.integers(0, 10_000))
def test_a_few_consecutive_seatings_start_at_distinct_games(count: int, first: int) -> None:
    """Whatever the tables (up to a third of the games), the seatings played at once
    start at different games: their tables seldom wait for the same deal."""
    window = max(1, count // 3)
    starts = [spread(position, count) for position in range(first, first + window)]
    assert len(set(starts)) == window
    assert all(0 <= start < count for start in starts)


def test_a_fixed_schedule_hands_out_its_matches_in_order_then_done() -> None:
    matches = round_robin(2, 2)
    schedule = FixedSchedule((), matches)
    assert schedule.total_games == 12 and schedule.withdrawn() == ()
    assert [schedule.next_match() for _ in matches] == matches
    assert schedule.next_match() is DONE and schedule.next_match() is DONE
    trouble = RuntimeError("the machine cannot start bots")
    with pytest.raises(RuntimeError, match="cannot start"):
        schedule.given_up(matches[0], trouble)


def test_schedule_sizes_of_small_fields() -> None:
    assert len(round_robin(2, 1)) == 6  # two triples x three seatings
    assert len(round_robin(3, 1)) == 6  # one triple x six seatings
    assert len(round_robin(4, 1)) == 24  # four triples x six seatings
    assert schedule_size(round_robin(4, 5)) == 120


@pytest.mark.parametrize("count", [2, 3, 4, 6])
def test_match_keys_are_unique_and_stable_across_calls(count: int) -> None:
    first = round_robin(count, 3)
    keys = [m.key for m in first]
    assert len(set(keys)) == len(keys)
    again = round_robin(count, 3)
    assert [m.key for m in again] == keys
    assert again == first


def test_a_game_key_is_a_function_of_the_run_key_and_the_game_index_only() -> None:
    """R3.1a: the same run key and index, the same game key (and deals); another run key
    or another index, another game key."""
    run = RunKey(bytes(range(32)))
    assert run.game(3) == RunKey(bytes(range(32))).game(3)
    assert run.game(3).deal(1) == RunKey(bytes(range(32))).game(3).deal(1)
    assert run.game(3) != run.game(4)
    assert run.game(3) != RunKey(bytes(range(1, 33))).game(3)
    assert len({run.game(k) for k in range(200)}) == 200


@given(seed=st.integers(min_value=-(2**63), max_value=2**63 - 1), index=st.integers(0, 10_000))
def test_an_explicit_seed_reproduces_its_run_key(seed: int, index: int) -> None:
    """--seed N: the same N, the same run key, so the same run replays exactly."""
    assert RunKey.from_seed(seed).game(index) == RunKey.from_seed(seed).game(index)
    assert RunKey.from_seed(seed) != RunKey.from_seed(seed + 1)


def test_a_new_run_key_is_256_random_bits_and_never_printed() -> None:
    keys = {RunKey.generate().secret for _ in range(100)}
    assert len(keys) == 100 and all(len(k) == 32 for k in keys)
    key = RunKey.generate()
    assert repr(key) == "RunKey(<secret>)" and key.secret.hex() not in repr(key.game(0))
    assert isinstance(key.game(0), GameKey)
    with pytest.raises(ValueError, match="at least 16 bytes"):
        RunKey(bytes(8))


def test_the_key_derivations_are_the_documented_ones() -> None:
    """docs/GAME_RECORD.md (Where the cards come from) spells these out; a stored run's
    deals stay reproducible from its key only while they hold."""
    secret = bytes(range(32))
    message = b"schmier-arena/game:" + (3).to_bytes(8, "big")
    assert RunKey(secret).game(3) == GameKey(hmac.new(secret, message, "sha256").digest())
    seeded = hashlib.sha256(b"schmier-arena/run-seed:-12").digest()
    assert RunKey.from_seed(-12) == RunKey(seeded)


def _meetings(found: list[tuple[int, int, int]], n: int) -> tuple[list[int], list[int]]:
    met = Counter(pair for t in found for pair in itertools.combinations(sorted(t), 2))
    played = Counter(x for t in found for x in t)
    return [met[p] for p in itertools.combinations(range(n), 2)], [played[x] for x in range(n)]


@pytest.mark.parametrize(
    "n, count",
    [(7, 7), (9, 12), (12, 20), (12, 40), (12, 100), (20, 60), (30, 100), (30, 250)],
)
def test_sampled_triples_meet_every_pair_as_evenly_as_can_be(n: int, count: int) -> None:
    """Pairs meet ⌊3·count/pairs⌋ or one time more; entrants play ⌊3·count/n⌋ or one more.

    (7, 7) and (9, 12) are the Fano and the affine plane: every pair exactly once.
    """
    found = sampled_triples(n, count)
    assert len(found) == count
    assert all(len(set(t)) == 3 and all(0 <= x < n for x in t) for t in found)
    met, played = _meetings(found, n)
    assert max(met) - min(met) <= 1, Counter(met)
    assert max(played) - min(played) <= 1, Counter(played)
    if (n, count) in ((7, 7), (9, 12)):
        assert set(met) == {1}


@pytest.mark.slow
@settings(deadline=None, max_examples=40)  # an uneven case searches 1,000 swaps
@given(st.integers(3, 16), st.integers(1, 60))
def test_sampled_triples_are_never_far_from_even(n: int, count: int) -> None:
    """Where no even design exists (four entrants, two triples) a pair meets twice more."""
    found = sampled_triples(n, count)
    met, played = _meetings(found, n)
    assert max(met) - min(met) <= 2
    assert max(played) - min(played) <= 2
    assert sampled_triples(n, count) == found  # the same sizes, the same schedule


def test_a_sampled_schedule_seats_each_entrant_on_each_team_equally() -> None:
    schedule = sampled(12, 120, games=3)
    assert len(schedule) == 120 and len({m.key for m in schedule}) == 120
    on_team = Counter((e, team) for m in schedule for team, e in enumerate(m.entrants))
    plays = Counter(e for m in schedule for e in set(m.entrants))
    for entrant in range(12):
        teams = {on_team[entrant, team] for team in range(3)}
        assert teams == {plays[entrant] // 3}  # a triple's six seatings: twice per team
    with pytest.raises(ScheduleError):
        sampled(2, 12, games=1)


# --- which schedule a run plays (arena run --schedule full|sampled|auto --matches M) ---------


@pytest.mark.parametrize("count", [2, 3, 4, 7, 8, 12])
def test_full_size_counts_the_round_robin_without_building_it(count: int) -> None:
    assert full_size(count) == len(round_robin(count, 1))


def test_auto_plays_the_full_round_robin_up_to_the_limit_and_a_sample_above() -> None:
    assert full_size(7) <= AUTO_FULL_LIMIT < full_size(8)
    assert choose_schedule(7) == SchedulePlan("full")
    eight = choose_schedule(8)
    # 30 matches per entrant: at 8 entrants as many as the limit, so the size grows smoothly
    assert eight == SchedulePlan("sampled", 240)
    assert choose_schedule(30) == SchedulePlan("sampled", 900)  # not 24,360
    assert choose_schedule(11) == SchedulePlan("sampled", 330)
    assert choose_schedule(13) == SchedulePlan("sampled", 390)
    assert "over 240" in eight.reason and "30 per entrant" in eight.reason


def test_a_sample_plays_whole_triples_so_matches_round_up_to_six() -> None:
    plan = choose_schedule(12, "sampled", 31)
    assert plan == SchedulePlan("sampled", 36)
    assert len(plan.build(12, games=2)) == 36
    assert choose_schedule(12, "auto", 36) == plan  # the same run as --matches 36
    assert choose_schedule(5, "sampled") == SchedulePlan("sampled", 150)


def test_full_plays_every_match_and_auto_below_the_limit_says_matches_is_unused() -> None:
    assert choose_schedule(12, "full") == SchedulePlan("full")
    assert len(choose_schedule(12, "full").build(12, games=1)) == full_size(12)
    small = choose_schedule(4, "auto", 12)
    assert small == SchedulePlan("full")
    assert "--matches 12" in small.reason  # said, not silently dropped


@pytest.mark.parametrize(
    ("count", "choice", "matches", "phrase"),
    [
        (12, "full", 36, "--matches"),
        (2, "sampled", None, "three entrants"),
        (12, "sampled", 0, "at least 1"),
        (12, "auto", -6, "at least 1"),
    ],
)
def test_impossible_schedules_are_schedule_errors(
    count: int, choice: str, matches: int | None, phrase: str
) -> None:
    with pytest.raises(ScheduleError, match=phrase):
        choose_schedule(count, choice, matches)  # type: ignore[arg-type]


def test_the_schedule_line_says_which_and_why() -> None:
    assert choose_schedule(3).describe(3) == (
        f"schedule: full round robin, 6 matches (auto: the full one is at most {AUTO_FULL_LIMIT})"
    )
    assert choose_schedule(12).describe(12) == (
        "schedule: sampled, 360 of the full round robin's 1,320 matches "
        "(auto: the full one is over 240; 30 per entrant, in whole triples of six seatings)"
    )


def test_a_sampled_run_records_its_schedule_and_a_full_one_keeps_its_identity() -> None:
    """The schedule is part of a sampled run's identity (a resume plays the same sample);
    a full round robin's identity is what it was before schedules could be chosen, so
    runs stored then are still resumed."""
    base = RunConfig(entrants=(), games=2, seed=1, jobs=1, db_path=Path("arena.db"))
    assert "schedule" not in base.identity()
    assert base == replace(base, schedule=choose_schedule(3))  # the reason is no part of it
    sampled_run = replace(base, schedule=choose_schedule(12, "sampled", 36))
    assert sampled_run.identity()["schedule"] == {"kind": "sampled", "matches": 36}
    assert len({base.run_id, sampled_run.run_id}) == 2
    other_size = replace(base, schedule=choose_schedule(12, "sampled", 42))
    assert other_size.run_id != sampled_run.run_id
