"""Tests of arena.stats.rates against independently computed values."""

from __future__ import annotations

import math
import random
from statistics import NormalDist

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.stats.rates import (
    MIN_SEEDS_FOR_INTERVAL,
    EntrantGameRow,
    GameOutcome,
    HeadToHead,
    Standing,
    head_to_head,
    seed_rate_interval,
    standings,
    win_rate_interval,
)
from arena.stats.seeds import (
    SeedRatio,
    wilson_interval,
)

from .reference import rate_interval_by_hand

# -- Wilson interval ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wins", "games", "confidence", "expected"),
    [
        # Textbook values (e.g. Newcombe 1998; any online Wilson calculator).
        (50, 100, 0.95, (0.4038, 0.5962)),
        (0, 10, 0.95, (0.0, 0.2775)),
        (10, 10, 0.95, (0.7225, 1.0)),
        (1, 10, 0.95, (0.0179, 0.4042)),
        (81, 263, 0.95, (0.2553, 0.3662)),
        (50, 100, 0.99, (0.3753, 0.6247)),
    ],
)
def test_wilson_known_values(
    wins: int, games: int, confidence: float, expected: tuple[float, float]
) -> None:
    low, high = win_rate_interval(wins, games, confidence)
    assert low == pytest.approx(expected[0], abs=1e-4)
    assert high == pytest.approx(expected[1], abs=1e-4)


def test_wilson_extremes_are_exact() -> None:
    assert win_rate_interval(0, 10)[0] == 0.0
    assert win_rate_interval(10, 10)[1] == 1.0
    assert win_rate_interval(0, 0) == (0.0, 1.0)


def _score_test_root(k: float, n: int, z: float, lo: float, hi: float) -> float:
    """Bisection for p where (k - n p)^2 = z^2 n p (1 - p): the definition of the Wilson bounds."""

    def f(p: float) -> float:
        return (k - n * p) ** 2 - z * z * n * p * (1 - p)

    f_lo = f(lo)
    for _ in range(200):
        mid = (lo + hi) / 2
        if (f(mid) > 0) == (f_lo > 0):
            lo, f_lo = mid, f(mid)
        else:
            hi = mid
    return (lo + hi) / 2


@pytest.mark.parametrize(("wins", "games"), [(5.5, 10), (0.5, 3), (12.5, 40), (99.5, 100)])
def test_wilson_half_wins_solve_the_score_test(wins: float, games: int) -> None:
    # Independent of the closed form: the bounds are where the score statistic equals z.
    z = NormalDist().inv_cdf(0.975)
    p_hat = wins / games
    expected_low = _score_test_root(wins, games, z, 0.0, p_hat)
    expected_high = _score_test_root(wins, games, z, p_hat, 1.0)
    low, high = win_rate_interval(wins, games)
    assert low == pytest.approx(expected_low, abs=1e-9)
    assert high == pytest.approx(expected_high, abs=1e-9)


def test_wilson_half_win_lies_between_neighbours() -> None:
    low5, high5 = win_rate_interval(5, 10)
    low55, high55 = win_rate_interval(5.5, 10)
    low6, high6 = win_rate_interval(6, 10)
    assert low5 < low55 < low6
    assert high5 < high55 < high6


@pytest.mark.parametrize(
    ("wins", "games", "confidence"),
    [(0, 1, 0.95), (1, 1, 0.95), (3, 7, 0.95), (50, 100, 0.99), (81, 263, 0.9), (999, 1000, 0.95)],
)
def test_wilson_matches_scipy(wins: int, games: int, confidence: float) -> None:
    # scipy is a project dependency; imported here so that only this test needs it.
    from scipy.stats import binomtest

    ci = binomtest(wins, games).proportion_ci(confidence_level=confidence, method="wilson")
    low, high = win_rate_interval(wins, games, confidence)
    assert low == pytest.approx(ci.low, abs=1e-12)
    assert high == pytest.approx(ci.high, abs=1e-12)


@pytest.mark.parametrize(
    ("wins", "games", "confidence"),
    [(-1, 10, 0.95), (11, 10, 0.95), (0, -1, 0.95), (5, 10, 0.0), (5, 10, 1.0)],
)
def test_wilson_rejects_nonsense(wins: float, games: int, confidence: float) -> None:
    with pytest.raises(ValueError):
        win_rate_interval(wins, games, confidence)


@st.composite
def _counts(draw: st.DrawFn) -> tuple[float, int]:
    games = draw(st.integers(min_value=1, max_value=100_000))
    half_wins = draw(st.integers(min_value=0, max_value=2 * games))
    return half_wins / 2, games


@given(_counts())
def test_wilson_properties(counts: tuple[float, int]) -> None:
    wins, games = counts
    p_hat = wins / games
    low95, high95 = win_rate_interval(wins, games, 0.95)
    low99, high99 = win_rate_interval(wins, games, 0.99)
    for low, high in ((low95, high95), (low99, high99)):
        assert 0.0 <= low <= p_hat <= high <= 1.0
    assert low99 <= low95
    assert high99 >= high95
    assert high99 - low99 > high95 - low95


# -- standings ---------------------------------------------------------------------------------


def _row(
    entrant: str,
    outcome: str,
    points: int,
    deals: int,
    bids_made: int = 0,
    bids_won: int = 0,
    faults: int = 0,
    decisions: int = 0,
    seconds: float = 0.0,
    seed: int | None = None,
) -> EntrantGameRow:
    return EntrantGameRow(
        entrant=entrant,
        outcome=outcome,  # type: ignore[arg-type]
        points=points,
        deals=deals,
        bids_made=bids_made,
        bids_won=bids_won,
        faults=faults,
        decisions=decisions,
        decision_seconds_total=seconds,
        seed=seed,
    )


HAND_ROWS = [
    _row("A", "win", 30, 10, 4, 3, 0, 100, 2.0),
    _row("B", "loss", 20, 10, 3, 1, 1, 100, 1.0),
    _row("C", "loss", 10, 10, 3, 2, 0, 100, 3.0),
    _row("A", "draw", 25, 12, 2, 2, 0, 120, 1.6),
    _row("B", "draw", 25, 12, 5, 3, 0, 120, 1.2),
    _row("C", "draw", 22, 12, 0, 0, 0, 120, 0.6),
    _row("A", "loss", 5, 8, 0, 0, 2, 80, 0.8),
    _row("B", "win", 40, 8, 2, 2, 0, 80, 0.8),
    _row("D", "loss", 15, 8),
    _row("A", "win", 33, 11, 1, 1, 0, 110, 1.1),
]


def test_standings_hand_computed() -> None:
    table = standings(HAND_ROWS)
    assert [s.entrant for s in table] == ["A", "B", "C", "D"]
    a, b, c, d = table

    assert (a.games, a.wins, a.draws, a.losses) == (4, 2, 1, 1)
    assert a.score == 2.5
    assert a.win_rate == 0.625
    assert a.points_per_deal == pytest.approx(93 / 41)
    assert (a.bids_made, a.bids_won, a.faults) == (7, 6, 2)
    assert a.bid_success_rate == pytest.approx(6 / 7)
    assert a.mean_decision_ms == pytest.approx(5500 / 410)
    # No seeds given: every row is a unit of its own.
    assert a.seeds == 4 == MIN_SEEDS_FOR_INTERVAL
    assert (a.ci_low, a.ci_high) == pytest.approx(
        rate_interval_by_hand([1, 0.5, 0, 1], [1] * 4), abs=1e-9
    )
    assert not a.too_few_seeds
    # Points per deal: the ratio's cluster-robust standard error, t on 3 degrees of freedom.
    ratio = 93 / 41
    residuals = [y - ratio * d for y, d in [(30, 10), (25, 12), (5, 8), (33, 11)]]
    error = math.sqrt(4 / 3 * sum(e * e for e in residuals)) / 41
    assert (a.points_per_deal_low, a.points_per_deal_high) == pytest.approx(
        (ratio - 3.182446 * error, ratio + 3.182446 * error)
    )

    assert (b.games, b.wins, b.draws, b.losses, b.score) == (3, 1, 1, 1, 1.5)
    assert b.win_rate == 0.5
    assert (b.ci_low, b.ci_high, b.too_few_seeds) == (None, None, True)  # three seeds
    assert b.points_per_deal == pytest.approx(85 / 30)
    assert b.bid_success_rate == pytest.approx(0.6)
    assert b.mean_decision_ms == pytest.approx(10.0)
    assert b.faults == 1

    assert (c.games, c.wins, c.draws, c.losses, c.score, c.win_rate) == (2, 0, 1, 1, 0.5, 0.25)
    assert c.points_per_deal == pytest.approx(32 / 22)
    assert c.bid_success_rate == pytest.approx(2 / 3)
    assert c.mean_decision_ms == pytest.approx(3600 / 220)

    # One seed cannot say how the figures vary from seed to seed: no interval.
    assert d == Standing(
        entrant="D",
        games=1,
        seeds=1,
        wins=0,
        draws=0,
        losses=1,
        score=0.0,
        win_rate=0.0,
        ci_low=None,
        ci_high=None,
        points_per_deal=15 / 8,
        points_per_deal_low=None,
        points_per_deal_high=None,
        bids_made=0,
        bids_won=0,
        bid_success_rate=None,
        faults=0,
        mean_decision_ms=None,
        too_few_seeds=True,
    )


def test_standings_tie_breaks_by_games_then_name() -> None:
    rows = [
        _row("zed", "win", 0, 1),
        _row("zed", "loss", 0, 1),
        _row("amy", "win", 0, 1),
        _row("amy", "loss", 0, 1),
        _row("bob", "draw", 0, 1),
        _row("bob", "draw", 0, 1),
        _row("bob", "draw", 0, 1),
        _row("bob", "win", 0, 1),
        _row("bob", "loss", 0, 1),
        _row("bob", "draw", 0, 1),
    ]
    assert [s.entrant for s in standings(rows)] == ["bob", "amy", "zed"]


def test_standings_empty_and_zero_deals() -> None:
    assert standings([]) == []
    (only,) = standings([_row("x", "draw", 0, 0)])
    assert only.points_per_deal == 0.0
    assert only.win_rate == 0.5
    (no_deals,) = standings([_row("x", "draw", 0, 0, seed=0), _row("x", "win", 0, 0, seed=1)])
    assert (no_deals.points_per_deal_low, no_deals.points_per_deal_high) == (None, None)


def _width(interval: tuple[float, float]) -> float:
    return interval[1] - interval[0]


def test_standings_when_all_games_of_a_seed_agree_the_interval_is_wider_than_wilson() -> None:
    """Ten seeds of six games each, every game of a seed with the same result (as when the
    cards decide, R3.1a): ten independent results, not sixty, and the interval says so."""
    rows = [
        _row("A", "win" if seed < 5 else "loss", 10 + seed, 5, seed=seed)
        for seed in range(10)
        for _ in range(6)
    ]
    (a,) = standings(rows)
    assert (a.games, a.seeds, a.win_rate) == (60, 10, 0.5)
    assert a.ci_low is not None and a.ci_high is not None
    wilson = win_rate_interval(30, 60)
    assert _width((a.ci_low, a.ci_high)) > 2 * _width(wilson)
    # the binomial interval on the ten seeds (a design effect of six games a seed)
    assert (a.ci_low, a.ci_high) == pytest.approx(
        rate_interval_by_hand([6.0] * 5 + [0.0] * 5, [6.0] * 10)
    )
    assert a.points_per_deal == pytest.approx(sum(10 + s for s in range(10)) * 6 / 300)
    assert a.points_per_deal_low is not None and a.points_per_deal_high is not None
    assert a.points_per_deal_low < a.points_per_deal < a.points_per_deal_high


def test_standings_when_seeds_are_independent_coin_flips_the_interval_is_close_to_wilson() -> None:
    rng = random.Random(11)
    rows = [_row("A", rng.choice(["win", "loss"]), 0, 1, seed=seed) for seed in range(600)]
    (a,) = standings(rows)
    wilson = win_rate_interval(a.score, a.games)
    assert a.seeds == 600
    assert a.ci_low is not None and a.ci_high is not None
    assert _width((a.ci_low, a.ci_high)) == pytest.approx(_width(wilson), rel=0.1)
    assert a.ci_low == pytest.approx(wilson[0], abs=0.01)
    assert a.ci_high == pytest.approx(wilson[1], abs=0.01)


def test_standings_rows_of_one_game_share_its_seed() -> None:
    """Two entrants: one holds two teams of each game, and both rows are of the game's seed."""
    rows = [
        _row(name, outcome, 0, 1, seed=seed)
        for seed in range(4)
        for name, outcome in [("A", "win"), ("A", "loss"), ("B", "loss")]
    ]
    table = {s.entrant: s for s in standings(rows)}
    assert (table["A"].games, table["A"].seeds) == (8, 4)
    assert (table["B"].games, table["B"].seeds) == (4, 4)
    # Every seed gives A one win in two games: no spread over seeds. The interval is the
    # binomial one on the eight games (design effect floored at 1), with t on 3 degrees.
    a = table["A"]
    assert (a.ci_low, a.ci_high) == pytest.approx(rate_interval_by_hand([1.0] * 4, [2.0] * 4))
    assert a.ci_high - a.ci_low > 0.5  # eight games are few, and t on 3 degrees says so
    # B lost every game: the interval reaches 0, and above it
    assert table["B"].ci_low == 0.0
    assert table["B"].ci_high == pytest.approx(rate_interval_by_hand([0.0] * 4, [1.0] * 4)[1])


def test_row_rejects_unknown_outcome() -> None:
    with pytest.raises(ValueError):
        _row("x", "won", 0, 1)


# -- head to head ------------------------------------------------------------------------------


HAND_GAMES = [
    # A wins; C second on score; B last.
    GameOutcome(("A", "B", "C"), (100, 80, 90), 0),
    # Draw: A and B share the top score, C below.
    GameOutcome(("A", "B", "C"), (50, 50, 40), None),
    # B wins with the lowest score; A and C tie behind.
    GameOutcome(("B", "A", "C"), (70, 120, 120), 0),
    # Two entrants: A holds teams 0 and 2 and wins with team 2.
    GameOutcome(("A", "B", "A"), (30, 60, 90), 2),
    # Self-play: no pair.
    GameOutcome(("A", "A", "A"), (10, 20, 30), 2),
]


def test_head_to_head_hand_computed() -> None:
    """Every (A team, B team) pair of a game counts: two where one of them holds two teams."""
    table = {(h.a, h.b): h for h in head_to_head(HAND_GAMES)}
    assert list(table) == [("A", "B"), ("A", "C"), ("B", "A"), ("B", "C"), ("C", "A"), ("C", "B")]
    expected = {  # games, pairs, ahead, ties, rate
        ("A", "B"): (4, 5, 2, 1, 0.5),
        ("B", "A"): (4, 5, 2, 1, 0.5),
        ("A", "C"): (3, 3, 2, 1, 2.5 / 3),
        ("C", "A"): (3, 3, 0, 1, 0.5 / 3),
        ("B", "C"): (3, 3, 2, 0, 2 / 3),
        ("C", "B"): (3, 3, 1, 0, 1 / 3),
    }
    for pair, (games, pairs, ahead, ties, rate) in expected.items():
        h = table[pair]
        assert (h.games, h.pairs, h.a_ahead, h.ties) == (games, pairs, ahead, ties), pair
        assert h.rate == pytest.approx(rate)
        assert h.seeds == games  # no seeds given: each game is a group of its own
        mirror = table[(pair[1], pair[0])]
        if h.seeds < MIN_SEEDS_FOR_INTERVAL:
            assert (h.ci_low, h.ci_high, h.too_few_seeds) == (None, None, True)
            continue
        assert mirror.ci_low is not None and mirror.ci_high is not None
        assert (h.ci_low, h.ci_high) == pytest.approx((1 - mirror.ci_high, 1 - mirror.ci_low))
    assert table[("A", "B")].b_ahead == 2
    a_b = table[("A", "B")]
    # Game by game, A's share of the pairs: ahead, tie, behind, then one of two pairs.
    ratio = SeedRatio()
    for game, (ahead, pairs) in enumerate([(1, 1), (0.5, 1), (0, 1), (1, 2)]):
        ratio.add(game, ahead, pairs)
    assert (a_b.ci_low, a_b.ci_high) == seed_rate_interval(ratio)
    assert (a_b.ci_low, a_b.ci_high) == pytest.approx(
        rate_interval_by_hand([1, 0.5, 0, 1], [1, 1, 1, 2])
    )


def test_head_to_head_over_seeds() -> None:
    """A ahead of B in every game of seeds 0-3, behind in every game of seeds 4-7."""
    games = [
        GameOutcome(("A", "B", "C"), (10, 5, 0), 0 if seed < 4 else 1, seed=seed)
        for seed in range(8)
        for _ in range(6)
    ]
    table = {(h.a, h.b): h for h in head_to_head(games)}
    a_b = table[("A", "B")]
    assert (a_b.games, a_b.seeds, a_b.a_ahead, a_b.rate) == (48, 8, 24, 0.5)
    assert a_b.ci_low is not None and a_b.ci_high is not None
    assert _width((a_b.ci_low, a_b.ci_high)) > 2 * _width(win_rate_interval(24, 48))
    # eight seeds, not 48 pairs: the binomial interval on eight units
    assert (a_b.ci_low, a_b.ci_high) == pytest.approx(
        rate_interval_by_hand([6.0] * 4 + [0.0] * 4, [6.0] * 8)
    )
    # A and B are ahead of C in every game: one value on every seed, no spread. Never a
    # point: the binomial interval on the 48 pairs with t on 7 degrees of freedom (Wilson's
    # bound is the lower of the two there).
    a_c, c_a = table[("A", "C")], table[("C", "A")]
    assert a_c.ci_high == 1.0 and c_a.ci_low == 0.0
    expected_low = wilson_interval(1.0, 48.0, 0.98195)[0]  # 2 Phi(t(7, 0.975)) - 1
    assert a_c.ci_low == pytest.approx(expected_low, abs=1e-4)
    assert c_a.ci_high == pytest.approx(1 - expected_low, abs=1e-4)
    assert 0.85 < expected_low < 0.95


def test_game_outcome_rejects_bad_winner() -> None:
    with pytest.raises(ValueError):
        GameOutcome(("A", "B", "C"), (1, 2, 3), 3)


_names = st.sampled_from(["A", "B", "C", "D"])
_games = st.builds(
    GameOutcome,
    st.tuples(_names, _names, _names),
    st.tuples(*(st.integers(-50, 50) for _ in range(3))),
    st.one_of(st.none(), st.integers(0, 2)),
)


@given(st.lists(_games, max_size=30))
def test_head_to_head_is_consistent(games: list[GameOutcome]) -> None:
    table: dict[tuple[str, str], HeadToHead] = {(h.a, h.b): h for h in head_to_head(games)}
    for (a, b), h in table.items():
        mirror = table[(b, a)]
        assert h.games == mirror.games > 0
        assert h.pairs == mirror.pairs >= h.games
        assert h.ties == mirror.ties
        assert h.a_ahead == mirror.b_ahead
        assert h.rate + mirror.rate == pytest.approx(1.0)
        if h.too_few_seeds:
            assert h.ci_low is None and h.ci_high is None and h.seeds < MIN_SEEDS_FOR_INTERVAL
            continue
        assert h.ci_low is not None and h.ci_high is not None
        assert 0.0 <= h.ci_low <= h.rate <= h.ci_high <= 1.0
        assert h.ci_low < h.ci_high  # never a point
        shared = sum(1 for g in games if a in g.entrants_by_team and b in g.entrants_by_team)
        assert h.games == shared
    assert not math.isnan(sum(h.rate for h in table.values()))
