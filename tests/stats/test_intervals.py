"""No interval is ever a point: a run where one bot wins every game it can, played in
process, and a seeded simulation of such runs checking width and coverage."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from arena.bench.inprocess import load_python_bot, play_game_in_process
from arena.bots.samples import sample_bot
from arena.sdk.bot import Bot
from arena.stats.comparison import GROUP_SEATINGS
from arena.stats.rates import (
    MIN_SEEDS_FOR_INTERVAL,
    EntrantGameRow,
    GameOutcome,
    head_to_head,
    seed_rate_interval,
    standings,
)
from arena.stats.seeds import SeedRatio

# Test seeds on which greedy is ahead of lowest in all 12 pairs of the seed group (on seed
# 3 lowest's team finishes ahead of one greedy team once).
PERFECT_SEEDS = (1, 2, 4, 5, 6, 7, 8)


def _play(seeds: int) -> tuple[list[EntrantGameRow], list[GameOutcome]]:
    """Greedy (entrant 0) against lowest (1) in every seating of both triples, per seed."""
    classes: list[type[Bot]] = [
        type(load_python_bot(sample_bot("greedy"))),
        type(load_python_bot(sample_bot("lowest"))),
    ]
    names = ("greedy", "lowest")
    rows: list[EntrantGameRow] = []
    games: list[GameOutcome] = []
    for seed in PERFECT_SEEDS[:seeds]:
        for seating in GROUP_SEATINGS:
            bots = [classes[seating[seat % 3]]() for seat in range(6)]  # R1.2: team = seat % 3
            game = play_game_in_process(bots, seed)
            assert game.outcome is not None
            by_team = (names[seating[0]], names[seating[1]], names[seating[2]])
            outcome = GameOutcome(by_team, game.outcome.scores, game.outcome.winner)
            games.append(dataclasses.replace(outcome, seed=seed))
            for team, name in enumerate(by_team):
                won = outcome.winner == team
                result = "win" if won else "draw" if outcome.winner is None else "loss"
                rows.append(EntrantGameRow(name, result, 0, 1, 0, 0, 0, 0, 0.0, seed=seed))
    return rows, games


@pytest.mark.slow
def test_a_run_where_greedy_wins_every_game_it_can_has_no_point_interval() -> None:
    """Lowest never wins, greedy wins every game it can (one of its two teams where it holds
    two) and is ahead of lowest in every pair: every figure is the same on every seed, so
    the bootstrap has no spread; yet every interval has width and holds the estimate."""
    rows, games = _play(MIN_SEEDS_FOR_INTERVAL)
    table = {s.entrant: s for s in standings(rows)}
    greedy, lowest = table["greedy"], table["lowest"]
    assert lowest.win_rate == 0.0  # what makes the bootstrap collapse
    assert greedy.win_rate == pytest.approx(2 / 3)
    for s in (greedy, lowest):
        assert not s.too_few_seeds and s.ci_low is not None and s.ci_high is not None
        assert s.ci_low <= s.win_rate <= s.ci_high
        assert s.ci_high - s.ci_low > 0.05, s
    assert lowest.ci_low == 0.0 and lowest.ci_high > 0.05
    pairs = {(h.a, h.b): h for h in head_to_head(games)}
    ahead = pairs[("greedy", "lowest")]
    assert ahead.rate == 1.0
    assert ahead.ci_low is not None and ahead.ci_high == 1.0 and ahead.ci_low < 0.99
    # one seed fewer: too few seeds, no interval at all
    rows, games = _play(MIN_SEEDS_FOR_INTERVAL - 1)
    few = {s.entrant: s for s in standings(rows)}["greedy"]
    assert few.too_few_seeds and few.ci_low is None and few.ci_high is None
    assert all(h.too_few_seeds and h.ci_low is None for h in head_to_head(games))


@pytest.mark.parametrize(
    ("truth", "seeds"),
    [(0.98, 5), (0.98, 10), (0.9, 5), (0.03, 8), (1.0, 5), (2 / 3, 6)],
)
def test_simulated_runs_near_certain_outcomes_are_covered(truth: float, seeds: int) -> None:
    """Runs of ``seeds`` seeds of nine places each (one seed group's places of a bot);
    each seed has its own chance of a win around ``truth`` (the cards favour some seeds:
    a beta distribution with intra-seed correlation 0.3), so many runs win every game.
    The interval holds the truth in at least 0.92 of them and is never a point."""
    rng = np.random.default_rng([int(truth * 1000), seeds])
    runs, places, icc = 300, 9, 0.3
    covered = 0
    perfect = 0
    for _ in range(runs):
        if truth in (0.0, 1.0):
            chances = np.full(seeds, truth)
        else:
            a, b = truth * (1 - icc) / icc, (1 - truth) * (1 - icc) / icc
            chances = rng.beta(a, b, size=seeds)
        wins = rng.binomial(places, chances)
        perfect += bool(np.all(wins == places) or np.all(wins == 0))
        ratio = SeedRatio()
        for seed, won in enumerate(wins):
            ratio.add(seed, float(won), float(places))
        interval = seed_rate_interval(ratio)
        assert interval is not None
        low, high = interval
        assert high - low > 0.01, (wins, interval)
        assert low <= ratio.value <= high
        covered += low <= truth <= high
    assert covered / runs >= 0.92, (covered, perfect)
    if truth >= 0.98:
        assert perfect > runs // 3  # the case that collapsed the bootstrap is common here
