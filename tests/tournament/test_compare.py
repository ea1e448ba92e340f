"""The pure parts of ``arena compare`` (arena/tournament/compare.py): seed groups, their scores,
the stopping rule, and what makes a comparison the same run again."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from arena.tournament.compare import (
    GROUP_GAMES,
    GROUP_SEATINGS,
    CompareConfig,
    CompareError,
    GroupTally,
    check_config,
    compare_outcome,
    next_target,
    pair_placings,
)
from arena.tournament.sequential import Sprt
from arena.tournament.stats import GameOutcome, SeededOutcome

from .helpers import sample

NEW, BASE = "new@1", "base@1"
NAMES = (NEW, BASE)


def _game(seed: int, seating: tuple[int, int, int], scores: tuple[int, int, int]) -> SeededOutcome:
    """A game of one seating (entrant indices by team, 0 NEW, 1 BASE); the top score wins."""
    by_team = (NAMES[seating[0]], NAMES[seating[1]], NAMES[seating[2]])
    top = max(scores)
    winner = scores.index(top) if scores.count(top) == 1 else None
    return SeededOutcome(seed, GameOutcome(by_team, scores, winner))


def _group(seed: int, score_of_team: dict[str, int]) -> list[SeededOutcome]:
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


def test_pair_placings_compare_every_new_team_with_every_base_team() -> None:
    # NEW holds teams 0 and 2, BASE team 1: positions 0 (winner), 2, 1.
    game = GameOutcome((NEW, BASE, NEW), (10, 5, 7), 0)
    assert sorted(pair_placings(game, NEW, BASE)) == [(0, 2), (1, 2)]
    # NEW holds team 1 alone; BASE teams 0 and 2 tie behind it.
    game = GameOutcome((BASE, NEW, BASE), (3, 9, 3), 1)
    assert pair_placings(game, NEW, BASE) == [(0, 1), (0, 1)]


def test_a_group_counts_once_its_six_seatings_are_in() -> None:
    tally = GroupTally(NEW, BASE)
    games = _group(0, {NEW: 100, BASE: 0})
    assert [tally.add(g) for g in games[:-1]] == [None] * 5
    assert tally.scores() == []
    assert tally.add(games[-1]) == 1.0  # NEW ahead in every pair
    assert tally.scores() == [1.0]
    assert tally.games == 6


def test_a_seating_played_twice_on_a_seed_is_counted_once() -> None:
    tally = GroupTally(NEW, BASE)
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
    tally = GroupTally(NEW, BASE)
    for seating in GROUP_SEATINGS:
        tally.add(_game(7, seating, (30, 20, 10)))
    assert tally.scores() == [0.5]


def test_groups_are_scored_in_seed_order_whatever_order_their_games_arrive_in() -> None:
    tally = GroupTally(NEW, BASE)
    late, early = _group(5, {NEW: 100, BASE: 0}), _group(1, {NEW: 0, BASE: 100})
    for a, b in zip(late, early, strict=True):
        tally.add(a)
        tally.add(b)
    assert tally.scores() == [0.0, 1.0]


def test_a_game_of_other_entrants_is_refused() -> None:
    tally = GroupTally(NEW, BASE)
    with pytest.raises(CompareError):
        tally.add(SeededOutcome(0, GameOutcome((NEW, "other@1", NEW), (1, 2, 3), 2)))
    with pytest.raises(CompareError):
        GroupTally(NEW, NEW)


def test_each_batch_adds_seeds_up_to_the_cap() -> None:
    assert next_target(0, 4, 3000) == 4
    assert next_target(4, 4, 3000) == 8
    assert next_target(2, 4, 3000) == 6  # after an interruption: from the complete groups
    assert next_target(8, 4, 60) == 10  # the cap is 10 groups (60 games)
    assert next_target(10, 4, 60) is None
    assert next_target(0, 4, 5) is None  # not even one group fits
    with pytest.raises(CompareError):
        next_target(0, 0, 60)


def _tally(scores: list[float]) -> GroupTally:
    tally = GroupTally(NEW, BASE)
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
    assert outcome.state.llr >= outcome.state.upper
    # Every pair of all 40 groups went NEW's way: no spread, yet never a point. Wilson's on
    # the 480 pairs (a design effect of 1 where the seeds cannot show one), t on 39 degrees.
    assert outcome.interval is not None
    low, high = outcome.interval
    assert high == 1.0
    assert 0.98 < low < 0.995
    assert outcome.to_json()["interval"] == [low, high]
    assert outcome.groups == 40
    assert outcome.games == 240


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
    assert capped.interval is not None
    low, high = capped.interval
    assert low < 0.5 < high  # half the seeds each way: the bootstrap spans 1/2


def test_no_group_yet_is_no_information() -> None:
    outcome = compare_outcome("r", GroupTally(NEW, BASE), Sprt(), max_games=60)
    assert outcome.verdict == "undecided"
    assert not outcome.finished
    assert outcome.interval is None and outcome.too_few_seeds
    assert outcome.to_json()["groups"] == 0
    assert (outcome.to_json()["interval"], outcome.to_json()["too_few_seeds"]) == (None, True)


def test_below_the_minimum_seeds_the_score_has_no_interval_and_says_so() -> None:
    few = compare_outcome("r", _tally([1.0, 0.0, 0.0]), Sprt(), max_games=3000)
    assert few.interval is None and few.too_few_seeds
    enough = compare_outcome("r", _tally([1.0, 0.0, 0.0, 1.0]), Sprt(), max_games=3000)
    assert enough.interval is not None and not enough.too_few_seeds
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


def test_another_test_or_order_is_another_comparison(tmp_path: Path) -> None:
    config = _config(tmp_path)
    assert _config(tmp_path, test=Sprt(margin=0.1)).run_id != config.run_id
    swapped = _config(tmp_path, entrants=(sample("lowest"), sample("greedy")))
    assert swapped.run_id != config.run_id
    assert _config(tmp_path, name="mine").run_id == "mine"


def test_the_same_bot_twice_is_refused_with_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(CompareError, match="give the copy another name"):
        check_config(_config(tmp_path, entrants=(sample("random"), sample("random"))))
    with pytest.raises(CompareError, match="--max-games"):
        check_config(_config(tmp_path, max_games=5))
    check_config(_config(tmp_path))
