"""The sequential test of NEW against BASE (arena/stats/sequential.py)."""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.stats.seeds import effective_interval
from arena.stats.sequential import (
    Sprt,
    SprtState,
    betting_log_wealth,
    confidence_sequence,
    first_decision,
    group_score,
    gsprt_llr,
    needs_prior,
)


def test_group_score_counts_pairs_ahead_and_ties_as_half() -> None:
    assert group_score([(0, 1), (1, 0), (2, 2), (0, 2)]) == (1 + 0 + 0.5 + 1) / 4
    with pytest.raises(ValueError):
        group_score([])


def test_no_group_is_no_evidence() -> None:
    assert gsprt_llr([], 0.5, 0.55) == 0.0
    assert Sprt().state([]).verdict == "undecided"


def test_the_ratio_leans_towards_the_hypothesis_the_groups_are_near() -> None:
    assert gsprt_llr([0.5] * 40, 0.5, 0.55) < 0.0
    assert gsprt_llr([0.75, 0.5, 0.5833] * 20, 0.5, 0.55) > 0.0


def test_the_ratio_matches_its_normal_approximation_on_many_groups() -> None:
    """For many groups the generalised ratio is n (s1 - s0)(2 mean - s0 - s1) / (2 var).

    The approximation is the second-order term of the exact ratio: close where s0 and s1
    are a small fraction of a standard deviation from the mean, as here.
    """
    rng = random.Random(5)
    values = [sum(rng.random() < 0.52 for _ in range(12)) / 12 for _ in range(3000)]
    mean, var = statistics.fmean(values), statistics.pvariance(values)
    approximation = len(values) * 0.01 * (2 * mean - 1.01) / (2 * var)
    assert gsprt_llr(values, 0.5, 0.51) == pytest.approx(approximation, rel=0.03)


def test_the_bounds_are_walds() -> None:
    test = Sprt(margin=0.05, alpha=0.05, beta=0.1)
    assert test.upper == pytest.approx(2.8903718)  # log(0.9 / 0.05)
    assert test.lower == pytest.approx(-2.2512918)  # log(0.1 / 0.95)


@pytest.mark.parametrize(
    "margin, alpha, beta", [(0, 0.05, 0.05), (0.05, 0.5, 0.05), (0.6, 0.05, 0.05)]
)
def test_settings_out_of_range_are_refused(margin: float, alpha: float, beta: float) -> None:
    with pytest.raises(ValueError, match=r"between 0 and 0\.5"):
        Sprt(margin=margin, alpha=alpha, beta=beta)


def _verdicts(true_score: float, runs: int, seed: int) -> list[str]:
    """Runs of the test on groups of 12 pairs, each won with ``true_score``, looked at
    after every group (``Sprt.decision``)."""
    rng = random.Random(seed)
    test = Sprt(margin=0.05)
    return [
        _decided(test, lambda: sum(rng.random() < true_score for _ in range(12)) / 12)[0].verdict
        for _ in range(runs)
    ]


def _decided(
    test: Sprt, draw: Callable[[], float], most: int = 2000
) -> tuple[SprtState, list[float]]:
    """The test's decision on groups drawn one by one, looked at after every group, and the
    groups it counted: drawn 64 at a time and more, so that an early decision draws little."""
    values: list[float] = []
    while True:
        values += [draw() for _ in range(min(max(64, len(values)), most - len(values)))]
        state = test.decision(values)
        if state.verdict != "undecided" or len(values) >= most:
            return state, values[: state.units]


@pytest.mark.slow
def test_equal_strength_rarely_reads_better_and_the_margin_usually_does() -> None:
    """The error rates the test promises (alpha = beta = 0.05), looked at after every
    group, over 400 runs each (three standard errors of binomial noise allowed: 0.033)."""
    equal = _verdicts(0.5, 400, seed=1)
    assert "undecided" not in equal
    assert equal.count("better") / len(equal) <= 0.05 + 0.033
    better = _verdicts(0.55, 400, seed=2)
    assert better.count("not better") / len(better) <= 0.05 + 0.033


# -- without the floor: lumpy and noisy score distributions ------------------------------------

GRID = [k / 24 for k in range(25)]  # a group's score: 12 pairs, ties half


def _lumpy(share: float) -> list[float]:
    """``share`` of the groups at exactly 1/2 (the cards decide), the rest spread evenly."""
    weights = [(1 - share) / 24] * 25
    weights[12] = share
    return weights


def _tilted(weights: list[float], mean: float) -> list[float]:
    """The weights times exp(theta x), normalised, with the given mean (bisection)."""
    low, high = -200.0, 200.0
    for _ in range(100):
        theta = (low + high) / 2
        tilted = [w * math.exp(theta * (x - 0.5)) for w, x in zip(weights, GRID, strict=True)]
        total = sum(tilted)
        if sum(w * x for w, x in zip(tilted, GRID, strict=True)) / total < mean:
            low = theta
        else:
            high = theta
    return [w / total for w in tilted]


def _looked_every_group(weights: list[float], runs: int, seed: int) -> list[tuple[str, int]]:
    """Tests on groups drawn from ``weights``, looked at after every group as arena compare."""
    rng = random.Random(seed)
    test = Sprt()
    results = []
    for _ in range(runs):
        state, _ = _decided(test, lambda: rng.choices(GRID, weights)[0])
        results.append((state.verdict, state.units))
    return results


@pytest.mark.parametrize("share", [0.9, 0.98])
def test_lumpy_scores_keep_the_error_rates_and_stop_before_the_old_floor(share: float) -> None:
    """Most groups at exactly 1/2: the pseudo-observations once made every group a coin
    flip, so no test ended before 31 groups. Without them, once groups lie on both sides:
    false positives at most alpha and power at least 1 - beta (120 runs each: binomial
    noise of 0.02 allowed), and tests that end before 31 groups."""
    null = _looked_every_group(_lumpy(share), 120, seed=3)
    margin = _looked_every_group(_tilted(_lumpy(share), 0.55), 120, seed=4)
    assert sum(v == "better" for v, _ in null) / 120 <= 0.05 + 0.02
    assert sum(v == "better" for v, _ in margin) / 120 >= 0.95 - 0.02
    assert min(groups for _, groups in null + margin) < 31


def test_the_pseudo_observations_go_once_both_sides_are_seen_on_16_groups() -> None:
    both_sides = [0.5] * 13 + [0.25, 0.75, 0.5]
    assert needs_prior(both_sides[:15], 0.5, 0.55)  # 15 groups: too few
    assert not needs_prior(both_sides, 0.5, 0.55)
    assert needs_prior([0.5] * 15 + [0.75], 0.5, 0.55)  # nothing below 1/2
    assert needs_prior([1.0] * 40, 0.5, 0.55)  # one-sided: the coin bound stays
    assert gsprt_llr(both_sides, 0.5, 0.55) == gsprt_llr(both_sides, 0.5, 0.55, prior=False)
    assert gsprt_llr(both_sides, 0.5, 0.55) != gsprt_llr(both_sides, 0.5, 0.55, prior=True)
    # With the prior every group of 1 adds log(1 + 2 margin) at most; without, far more.
    assert gsprt_llr([1.0] * 20, 0.5, 0.55) == pytest.approx(20 * math.log(1.1), rel=1e-3)


def test_one_sided_groups_are_decided_by_betting_long_before_the_floor() -> None:
    """Every group of greedy against lowest lies above 1/2: the floored ratio needed 31
    groups, the bet against "even" needs a handful (sequential.py's docstring)."""
    test = Sprt()
    ahead = test.state([11 / 12] * 8)
    assert ahead.verdict == "better" and ahead.decided_by == "bet"
    assert ahead.llr < ahead.upper and ahead.bet_better is not None
    assert ahead.bet_better >= ahead.bet_bound == pytest.approx(math.log(20))
    behind = test.state([1 / 12] * 8)
    assert behind.verdict == "not better" and behind.decided_by == "bet"
    assert test.state([11 / 12] * 4).verdict == "undecided"  # four groups are not enough
    # Once the groups lie on both sides of both means, the ratio alone decides.
    both = test.state([0.25, 0.75, 0.5, 0.6] * 5)
    assert both.bet_better is None and both.bet_not_better is None


@given(st.lists(st.sampled_from([k / 12 for k in range(13)]), min_size=1, max_size=30))
@settings(max_examples=60, deadline=None)
def test_a_bet_against_a_high_mean_is_the_mirror_of_one_against_a_low_mean(
    values: list[float],
) -> None:
    mirrored = [1.0 - v for v in values]
    assert betting_log_wealth(values, 0.55, -1) == pytest.approx(
        betting_log_wealth(mirrored, 0.45, 1), abs=1e-9
    )


@given(
    st.lists(st.sampled_from([k / 12 for k in range(13)]), min_size=1, max_size=20),
    st.integers(0, 12),
)
@settings(max_examples=60, deadline=None)
def test_a_higher_score_never_lowers_the_wealth_of_betting_on_better(
    values: list[float], raised: int
) -> None:
    index = raised % len(values)
    higher = [*values]
    higher[index] = min(1.0, higher[index] + 1 / 12)
    assert betting_log_wealth(higher, 0.5, 1) >= betting_log_wealth(values, 0.5, 1) - 1e-12


def test_betting_at_equal_strength_says_better_at_most_alpha_of_the_time() -> None:
    """Ville's inequality: a nonnegative martingale from 1 reaches 20 with chance at most
    1/20, however long it runs. 400 paths of 60 coin-flip groups (the worst case on [0, 1]
    for a mean of 1/2), looked at every 4 groups as arena compare; binomial noise of 0.02
    allowed."""
    rng = random.Random(11)
    crossed = 0
    for _ in range(400):
        values: list[float] = []
        for _ in range(15):
            values += [float(rng.random() < 0.5) for _ in range(4)]
            if betting_log_wealth(values, 0.5, 1) >= math.log(20):
                crossed += 1
                break
    assert crossed / 400 <= 0.05 + 0.02


def test_the_path_is_the_state_after_each_group() -> None:
    rng = random.Random(8)
    values = [rng.choice(GRID) for _ in range(40)]
    test = Sprt()
    path = test.path(values)
    assert [state.units for state in path] == list(range(1, 41))
    for count in (1, 7, 16, 17, 40):
        state = test.state(values[:count])
        assert path[count - 1].verdict == state.verdict
        assert path[count - 1].llr == pytest.approx(state.llr, abs=1e-12)
    assert test.path([]) == [] and test.state([]).units == 0


def test_the_decision_is_the_first_group_that_decides_whatever_follows() -> None:
    """A run of groups won outright decides after 7 (the bet); what comes after is not
    counted, even a run of losses that would have turned the ratio."""
    test = Sprt()
    decided = test.decision([1.0] * 7 + [0.0] * 60)
    assert (decided.verdict, decided.units, decided.decided_by) == ("better", 7, "bet")
    assert test.state([1.0] * 6).verdict == "undecided"
    assert first_decision(test.path([0.5, 0.75] * 3)) is None
    assert test.decision([0.5, 0.75] * 3).units == 6  # undecided: the last state


def test_the_confidence_sequence_holds_the_mean_and_knows_the_units_are_few() -> None:
    assert confidence_sequence([]) == (0.0, 1.0)
    low, high = confidence_sequence([1.0] * 7)
    assert high == 1.0 and 0.45 < low < 0.5  # seven groups: the bet won, barely
    low, high = confidence_sequence([1.0] * 30)
    assert 0.8 < low < 1.0 == high
    low, high = confidence_sequence([0.5] * 200)
    assert 0.4 < low < 0.5 < high < 0.6


@given(st.lists(st.sampled_from(GRID), min_size=1, max_size=60))
@settings(max_examples=25, deadline=None)
def test_the_confidence_sequence_holds_its_estimate(values: list[float]) -> None:
    low, high = confidence_sequence(values)
    mean = sum(values) / len(values)
    assert 0.0 <= low <= mean <= high <= 1.0
    assert high - low > 0.01


@pytest.mark.slow
def test_the_confidence_sequence_covers_where_the_test_stops() -> None:
    """At the unit where the test stops (chosen by the data), 200 tests on groups at the
    margin: the sequence holds the mean in 0.95 or more of them; the fixed-size interval of
    the same units (the rates' own, ``seeds.effective_interval``) holds it less often."""
    rng = random.Random(13)
    weights = _tilted([math.comb(24, k) / 2**24 for k in range(25)], 0.55)
    mean = sum(w * x for w, x in zip(weights, GRID, strict=True))
    test = Sprt()
    covered = fixed = 0
    for _ in range(200):
        _, counted = _decided(test, lambda: rng.choices(GRID, weights)[0])
        low, high = confidence_sequence(counted)
        covered += low <= mean <= high
        low, high = effective_interval([24 * x for x in counted], [24.0] * len(counted))
        fixed += low <= mean <= high
    assert covered / 200 >= 0.95
    assert fixed < covered
