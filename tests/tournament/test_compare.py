"""The pure parts of ``arena compare`` (arena/stats/comparison.py): swap pairs and seed
groups, their scores, the stopping rule, and what makes a comparison the same run again."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest

from arena.stats.comparison import (
    GROUP_GAMES,
    GROUP_SEATINGS,
    CompareError,
    UnitTally,
    compare_outcome,
    next_target,
    pair_placings,
    units_to_decide,
)
from arena.stats.rates import GameOutcome
from arena.stats.sequential import Sprt, confidence_sequence
from arena.tournament.compare import CompareConfig, check_config, compare_schedule
from arena.tournament.schedule import round_robin, swap_pairs

from .helpers import sample

NEW, BASE = "new@1", "base@1"
NAMES = (NEW, BASE)


def _game(seed: int, seating: tuple[int, int, int], scores: tuple[int, int, int]) -> GameOutcome:
    """A game of one seating (entrant indices by team, 0 NEW, 1 BASE); the top score wins."""
    by_team = (NAMES[seating[0]], NAMES[seating[1]], NAMES[seating[2]])
    top = max(scores)
    winner = scores.index(top) if scores.count(top) == 1 else None
    return GameOutcome(by_team, scores, winner, seed=seed)


def _group(seed: int, score_of_team: dict[str, int]) -> list[GameOutcome]:
    """The six games of a seed where each entrant's teams score by entrant (and team, to
    break ties): the entrant with the higher score is ahead in every pair."""
    games = []
    for seating in GROUP_SEATINGS:
        a, b, c = (score_of_team[NAMES[e]] + team for team, e in enumerate(seating))
        games.append(_game(seed, seating, (a, b, c)))
    return games


def test_a_group_is_both_triples_in_every_seating() -> None:
    assert GROUP_GAMES == 6
    assert sorted(GROUP_SEATINGS) == [
        (0, 0, 1),
        (0, 1, 0),
        (0, 1, 1),
        (1, 0, 0),
        (1, 0, 1),
        (1, 1, 0),
    ]


def test_the_statistics_see_the_seatings_in_the_order_the_schedule_plays_them() -> None:
    """``arena.stats`` lists a group's seatings itself (it imports nothing of the tournament);
    swap pairs pair seating s with 5 - s in both."""
    assert tuple(match.entrants for match in round_robin(2, 1)) == GROUP_SEATINGS
    for match in swap_pairs(1):
        mirror = tuple(1 - entrant for entrant in match.entrants)
        assert mirror in GROUP_SEATINGS


def test_pair_placings_compare_every_new_team_with_every_base_team() -> None:
    # NEW holds teams 0 and 2, BASE team 1: positions 0 (winner), 2, 1.
    game = GameOutcome((NEW, BASE, NEW), (10, 5, 7), 0)
    assert sorted(pair_placings(game, NEW, BASE)) == [(0, 2), (1, 2)]
    # NEW holds team 1 alone; BASE teams 0 and 2 tie behind it.
    game = GameOutcome((BASE, NEW, BASE), (3, 9, 3), 1)
    assert pair_placings(game, NEW, BASE) == [(0, 1), (0, 1)]


def test_a_group_counts_once_its_six_seatings_are_in() -> None:
    tally = UnitTally(NEW, BASE, "groups")
    games = _group(0, {NEW: 100, BASE: 0})
    assert [tally.add(g) for g in games[:-1]] == [None] * 5
    assert tally.scores() == []
    assert tally.add(games[-1]) == 1.0  # NEW ahead in every pair
    assert tally.scores() == [1.0]
    assert tally.games == 6


def test_a_seating_played_twice_on_a_seed_is_counted_once() -> None:
    tally = UnitTally(NEW, BASE, "groups")
    games = _group(3, {NEW: 0, BASE: 100})
    for game in games[:3]:
        tally.add(game)
    assert tally.add(games[0]) is None
    assert tally.games == 3
    for game in games[3:]:
        tally.add(game)
    assert tally.scores() == [0.0]


def test_when_the_cards_alone_decide_the_group_scores_one_half() -> None:
    """Team 0 wins every game of the seed, whoever holds it: luck, not skill. Every seating
    puts each entrant on each team, so the luck cancels out and the group scores exactly 1/2
    (the duplicate design's point, R3.1a)."""
    tally = UnitTally(NEW, BASE, "groups")
    for seating in GROUP_SEATINGS:
        tally.add(_game(7, seating, (30, 20, 10)))
    assert tally.scores() == [0.5]


def test_groups_are_scored_in_seed_order_whatever_order_their_games_arrive_in() -> None:
    tally = UnitTally(NEW, BASE, "groups")
    late, early = _group(5, {NEW: 100, BASE: 0}), _group(1, {NEW: 0, BASE: 100})
    for a, b in zip(late, early, strict=True):
        tally.add(a)
        tally.add(b)
    assert tally.scores() == [0.0, 1.0]


def test_a_game_of_other_entrants_is_refused() -> None:
    tally = UnitTally(NEW, BASE, "groups")
    with pytest.raises(CompareError):
        tally.add(GameOutcome((NEW, "other@1", NEW), (1, 2, 3), 2, seed=0))
    with pytest.raises(CompareError):
        UnitTally(NEW, NEW)


def _pair(seed: int, score_of_team: dict[str, int]) -> list[GameOutcome]:
    """The two games of a seed's swap pair (``schedule.swap_pairs``: seating k mod 3 and
    its mirror), scored as ``_group``."""
    return [g for g in _group(seed, score_of_team) if g.entrants_by_team in _mirrors(seed)]


def _mirrors(seed: int) -> set[tuple[str, str, str]]:
    first = GROUP_SEATINGS[seed % 3]
    mirror = tuple(1 - e for e in first)
    return {tuple(NAMES[e] for e in first), tuple(NAMES[e] for e in mirror)}  # type: ignore[misc]


def test_swap_pairs_play_each_seed_in_one_seating_and_its_mirror_only() -> None:
    schedule = swap_pairs(9)
    assert [m.key for m in schedule] == [m.key for m in compare_schedule("groups").build(2, 9)]
    for seed in range(9):
        playing = [m.entrants for m in schedule if seed in m.indices]
        assert len(playing) == 2
        assert playing[1] == tuple(1 - e for e in playing[0])  # NEW and BASE swapped
    # Each seating plays a third of the seeds; the rest it skips, with the done ones.
    assert sum(len(m.indices) for m in schedule) == 18
    assert schedule[0].skipped({0}) == frozenset(range(9)) - {3, 6}


def test_a_swap_pair_counts_once_its_two_games_are_in() -> None:
    tally = UnitTally(NEW, BASE)  # swap pairs: the default design
    assert tally.design == "pairs"
    first, second = _pair(4, {NEW: 100, BASE: 0})
    assert tally.add(first) is None
    assert tally.add(second) == 1.0
    assert tally.games == 2


def test_the_cards_alone_make_a_swap_pair_score_one_half() -> None:
    """Team 0 wins both games: over the pair each entrant held team 0's cards once (R3.1a)."""
    tally = UnitTally(NEW, BASE)
    for seed in range(3):  # each of the three pairs of seatings
        for seating in GROUP_SEATINGS:
            names = tuple(NAMES[e] for e in seating)
            if names in _mirrors(seed):
                tally.add(_game(seed, seating, (30, 20, 10)))
    assert tally.scores() == [0.5, 0.5, 0.5]


def test_a_game_outside_its_seeds_pair_is_refused() -> None:
    tally = UnitTally(NEW, BASE)
    stray = next(g for g in _group(0, {NEW: 1, BASE: 0}) if g.entrants_by_team not in _mirrors(0))
    with pytest.raises(CompareError, match="swap pairs"):
        tally.add(stray)


def test_a_one_sided_comparison_is_decided_by_betting_in_a_few_pairs() -> None:
    tally = UnitTally(NEW, BASE)
    for seed in range(12):
        for game in _pair(seed, {NEW: 100, BASE: 0}):
            tally.add(game)
    outcome = compare_outcome("r", tally, Sprt(), max_games=3000)
    assert outcome.verdict == "better" and outcome.state.decided_by == "bet"
    assert outcome.state.llr < outcome.state.upper  # the floored ratio alone would play on
    # Looked at after every pair: the seventh decided; the five after it are not counted.
    assert (outcome.units, outcome.counted_games, outcome.games) == (7, 14, 24)
    assert (outcome.complete_units, outcome.past_decision) == (12, 5)
    data = outcome.to_json()
    assert (data["design"], data["units"], data["games_counted"], data["units_past_decision"]) == (
        "pairs",
        7,
        14,
        5,
    )


def test_each_batch_plays_about_what_the_test_will_need_up_to_the_cap() -> None:
    test = Sprt()
    # Before any unit: the fewest that could decide (a run of units all lost decides "not
    # better" after 6 groups, one all won "better" after 7).
    assert units_to_decide([], test, 12) == 6
    assert next_target([], test, 4, 3000, "groups") == 4  # never more than --batch
    assert next_target([], test, 12, 3000, "pairs") == 6
    # Nearly decided by the bet: one more unit could do it.
    assert next_target([1.0] * 6, test, 12, 3000, "pairs") == 7
    # Far from either bound: the whole batch.
    even = [0.5, 0.25, 0.75, 0.5] * 5
    assert next_target(even, test, 12, 3000, "pairs") == 32
    # The evidence halfway to its bound at this pace: as many again (here, at most 12).
    leaning = [0.75, 0.5, 0.75, 0.5, 0.25] * 8
    state = test.state(leaning)
    assert 0 < state.llr < state.upper and state.bet_better is None
    pace = math.ceil(40 * (state.upper - state.llr) / state.llr)
    assert 1 < pace < 200
    assert next_target(leaning, test, 200, 3000, "pairs") == 40 + pace
    # The cap, whole units only.
    assert next_target(even, test, 12, 60, "groups") is None
    assert next_target([0.5] * 8, test, 4, 60, "groups") == 10  # 10 groups of 6 games
    assert next_target([], test, 4, 5, "groups") is None  # not even one group fits
    with pytest.raises(CompareError):
        next_target([], test, 0, 60)


def _tally(scores: list[float]) -> UnitTally:
    tally = UnitTally(NEW, BASE, "groups")
    for seed, score in enumerate(scores):
        # A group scoring 1 or 0 (NEW ahead in all its pairs or none), by seed.
        winner = {NEW: 100, BASE: 0} if score == 1.0 else {NEW: 0, BASE: 100}
        for game in _group(seed, winner):
            tally.add(game)
    return tally


def test_the_test_decides_better_when_new_wins_every_group() -> None:
    outcome = compare_outcome("r", _tally([1.0] * 40), Sprt(), max_games=3000)
    assert outcome.verdict == "better"
    assert outcome.finished
    assert outcome.state.decided_by == "bet"
    # Looked at after every group: the seventh decided. The interval is the confidence
    # sequence over those seven, valid at a stop the data chose (never a point).
    assert (outcome.units, outcome.games) == (7, 240)
    assert outcome.interval == confidence_sequence([1.0] * 7)
    assert outcome.to_json()["interval"] == list(outcome.interval)
    low, high = outcome.interval
    assert high == 1.0 and 0.45 < low < 0.5


def test_the_test_decides_not_better_when_new_loses_every_group() -> None:
    outcome = compare_outcome("r", _tally([0.0] * 40), Sprt(), max_games=3000)
    assert outcome.verdict == "not better"
    assert outcome.finished


def test_at_the_cap_an_open_test_is_undecided() -> None:
    scores = [1.0, 0.0] * 5
    open_test = compare_outcome("r", _tally(scores), Sprt(), max_games=3000)
    assert open_test.verdict == "undecided"
    assert not open_test.finished
    capped = compare_outcome("r", _tally(scores), Sprt(), max_games=60)
    assert capped.verdict == "undecided"
    assert capped.finished
    assert capped.units == 10  # every unit counts while none decided
    assert capped.interval is not None
    low, high = capped.interval
    assert low < 0.5 < high  # half the seeds each way


def test_no_group_yet_is_no_information() -> None:
    outcome = compare_outcome("r", UnitTally(NEW, BASE, "groups"), Sprt(), max_games=60)
    assert outcome.verdict == "undecided"
    assert not outcome.finished
    assert outcome.interval is None and outcome.too_few_seeds
    assert outcome.to_json()["units"] == 0
    assert (outcome.to_json()["interval"], outcome.to_json()["too_few_seeds"]) == (None, True)


def test_the_confidence_sequence_holds_from_the_first_unit() -> None:
    """Valid at any number of units, so the score has one from the first (wide: it says
    how little three units show)."""
    few = compare_outcome("r", _tally([1.0, 0.0, 0.0]), Sprt(), max_games=3000)
    assert few.interval is not None and not few.too_few_seeds
    assert few.interval[0] < 0.1 and few.interval[1] > 0.9
    live = compare_outcome("r", _tally([1.0] * 8), Sprt(), max_games=3000, with_interval=False)
    assert live.interval is None and not live.too_few_seeds  # not computed, not too few


def _config(tmp_path: Path, **changes: object) -> CompareConfig:
    config = CompareConfig(
        entrants=(sample("greedy"), sample("lowest")),
        games=4,
        seed=None,
        jobs=1,
        db_path=tmp_path / "a.db",
    )
    return dataclasses.replace(config, **changes)  # type: ignore[arg-type]


def test_every_batch_of_a_comparison_is_the_same_run(tmp_path: Path) -> None:
    config = _config(tmp_path)
    assert _config(tmp_path, games=12).run_id == config.run_id
    assert _config(tmp_path, max_games=60, batch=2).run_id == config.run_id
    assert "games" not in config.identity()
    assert config.identity()["compare"]["new"] == config.labels[0]


def test_another_test_order_or_design_is_another_comparison(tmp_path: Path) -> None:
    config = _config(tmp_path)
    assert config.design == "pairs"
    groups = _config(tmp_path, schedule=compare_schedule("groups"))
    assert groups.design == "groups" and groups.run_id != config.run_id
    assert _config(tmp_path, test=Sprt(margin=0.1)).run_id != config.run_id
    swapped = _config(tmp_path, entrants=(sample("lowest"), sample("greedy")))
    assert swapped.run_id != config.run_id
    assert _config(tmp_path, name="mine").run_id == "mine"


def test_the_same_bot_twice_is_refused_with_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(CompareError, match="give the copy another name"):
        check_config(_config(tmp_path, entrants=(sample("random"), sample("random"))))
    with pytest.raises(CompareError, match="--max-games"):
        check_config(_config(tmp_path, max_games=1))  # not one swap pair
    check_config(_config(tmp_path))
