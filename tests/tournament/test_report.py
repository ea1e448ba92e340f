"""A stored run's report (arena/tournament/report.py) and its rendering at 80 columns
(arena/present/display.py), on hand-filled results files."""

from __future__ import annotations

import dataclasses
import io
import itertools
import json
import random
from collections.abc import Iterator

import pytest
from rich.console import Console

from arena.present.display import render_report
from arena.referee.result import GameResult, SeatStats
from arena.stats.rates import MIN_SEEDS_FOR_INTERVAL
from arena.tournament.report import RunReport, build_report
from arena.tournament.store import ResultsStore

from .test_results import KEY, RUN, make_game

SEEDS = 4
# Long enough that an entrant's label cannot fit its column at 80 columns.
LONG_NAMES = ("a_rather_long_contest_entry_alpha", "a_rather_long_contest_entry_beta", "gamma")
NARROW_HEADERS = ("entrant", "rating", "games", "seeds", "win %", "95% CI", "vs par", "pts/deal")
WIDE_HEADERS = ("wins", "draws", "losses", "bids won", "faults", "ms/dec", "A ahead", "B ahead")


def _game(index: int, winner: int | None, scores: tuple[int, int, int]) -> GameResult:
    seats = tuple(
        SeatStats(
            seat=seat,
            decisions=20,
            decision_seconds_total=0.04 * (seat + 1),
            decision_seconds_max=0.01,
            bids_made=seat % 2,
            bids_won=seat % 2 if index % 2 else 0,
            faults=0,
        )
        for seat in range(6)
    )
    game = make_game(index, winner, scores, record={"game": index})
    return dataclasses.replace(game, deals=5, deal_points=(scores,), duration_s=1.0, seats=seats)


def _fill(
    store: ResultsStore, names: tuple[str, ...], seed: int = 1, game_seeds: int = SEEDS
) -> None:
    """Every seating of ``names`` (three or two entrants) on game seeds 0..game_seeds-1."""
    rng = random.Random(seed)
    store.start_run(RUN, None, {}, KEY)
    ids = [store.upsert_entrant(name, "0123456789ab", ["./bot"]) for name in names]
    seats = (ids * 3)[:3] if len(ids) == 3 else [ids[0], ids[1], ids[0]]
    for number, seating in enumerate(sorted(set(itertools.permutations(seats)))):
        key = f"seating={number}"
        store.ensure_match(RUN, key, seating)
        for index in range(game_seeds):
            scores = (rng.randint(0, 40), rng.randint(0, 40), rng.randint(0, 40))
            winner = max(range(3), key=lambda team: scores[team]) if rng.random() < 0.9 else None
            store.record_game(RUN, key, _game(index, winner, scores))


@pytest.fixture(scope="module")
def three(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunReport]:
    with ResultsStore.open(tmp_path_factory.mktemp("report") / "three.db") as store:
        _fill(store, LONG_NAMES)
        yield build_report(store)


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunReport]:
    with ResultsStore.open(tmp_path_factory.mktemp("report") / "two.db") as store:
        _fill(store, ("alpha", "beta"))
        yield build_report(store)


def test_figures_stand_on_game_seeds(three: RunReport) -> None:
    assert (three.games, three.seeds) == (6 * SEEDS, SEEDS)
    for s in three.standings:
        assert (s.games, s.seeds) == (6 * SEEDS, SEEDS)
        assert 0.0 <= s.ci_low <= s.win_rate <= s.ci_high <= 1.0
        assert s.points_per_deal_low is not None and s.points_per_deal_high is not None
        assert s.points_per_deal_low <= s.points_per_deal <= s.points_per_deal_high
    for h in three.head_to_head:
        assert (h.games, h.seeds) == (6 * SEEDS, SEEDS)


def test_three_entrants_are_rated_two_are_not(three: RunReport, two: RunReport) -> None:
    assert len(three.ratings) == 3
    assert [r.rating for r in three.ratings] == sorted(
        (r.rating for r in three.ratings), reverse=True
    )
    for r in three.ratings:
        assert (r.games, r.seeds) == (6 * SEEDS, SEEDS)
        assert r.low <= r.rating <= r.high
    assert sum(r.rating for r in three.ratings) == pytest.approx(0.0, abs=1e-6)
    assert two.ratings == []


def test_json_carries_seeds_intervals_and_ratings(three: RunReport, two: RunReport) -> None:
    data = json.loads(json.dumps(three.to_json(), allow_nan=False))
    assert data["seeds"] == SEEDS
    assert data["intervals"]["method"].startswith("over game seeds")
    assert data["intervals"]["rating_method"].startswith("profile likelihood")
    assert data["intervals"]["min_seeds"] == MIN_SEEDS_FOR_INTERVAL <= SEEDS
    assert data["stopped_by_test"] is False
    assert {r["entrant"] for r in data["ratings"]} == {s["entrant"] for s in data["standings"]}
    for r in data["ratings"]:
        assert set(r) == {
            "entrant",
            "rating",
            "low",
            "high",
            "games",
            "seeds",
            "low_open",
            "high_open",
            "too_few_seeds",
            "place",
            "design_effect",
        }
        assert r["place"] == "rated" and r["design_effect"] >= 1.0
    for s in data["standings"]:
        assert s["seeds"] == SEEDS
        assert {"ci_low", "ci_high", "points_per_deal_low", "points_per_deal_high"} <= set(s)
        assert s["too_few_seeds"] is False and s["ci_low"] < s["ci_high"]
        assert {"wins", "draws", "bids_made", "faults", "mean_decision_ms"} <= set(s)
    for h in data["head_to_head"]:
        assert h["seeds"] == SEEDS
        assert h["too_few_seeds"] is False and h["ci_low"] < h["ci_high"]
    assert json.loads(json.dumps(two.to_json()))["ratings"] == []


def _render(report: RunReport, width: int, wide: bool = False) -> str:
    buffer = io.StringIO()
    # as the command line's console: soft_wrap, no colours when writing to a file
    console = Console(file=buffer, width=width, soft_wrap=True, color_system=None)
    render_report(console, report, wide)
    return buffer.getvalue()


def test_below_the_minimum_seeds_a_figure_says_too_few_seeds(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    with ResultsStore.open(tmp_path_factory.mktemp("report") / "few.db") as store:
        _fill(store, ("alpha", "beta", "gamma"), game_seeds=MIN_SEEDS_FOR_INTERVAL - 1)
        few = build_report(store)
    data = json.loads(json.dumps(few.to_json(), allow_nan=False))
    for figure in data["standings"] + data["head_to_head"]:
        assert figure["too_few_seeds"] is True
        assert figure["ci_low"] is None and figure["ci_high"] is None
    text = _render(few, 120)
    standings = text[text.index("Standings by win rate") : text.index("Head to head")]
    head_to_head = text[text.index("Head to head") :]
    assert standings.count("too few seeds") == 3, text
    assert head_to_head.count("too few seeds") == 3, text


def test_an_interval_that_whole_percents_would_print_as_a_point_gets_more_digits(
    three: RunReport,
) -> None:
    narrow = dataclasses.replace(three.standings[0], win_rate=0.9998, ci_low=0.9996, ci_high=1.0)
    text = _render(dataclasses.replace(three, standings=[narrow]), 120)
    assert "99.96–100.00" in text and "100–100" not in text, text


def test_an_entrant_beyond_the_field_prints_its_one_bound_and_where_it_is(
    three: RunReport,
) -> None:
    top, middle, bottom = three.ratings
    ratings = [
        dataclasses.replace(top, rating=None, low=484.2, high=None, high_open=True, place="above"),
        dataclasses.replace(middle, low=None, high=None, too_few_seeds=True),
        dataclasses.replace(
            bottom, rating=None, low=None, high=-300.4, low_open=True, place="below"
        ),
    ]
    text = _render(dataclasses.replace(three, ratings=ratings), 80)
    cells = {cell.strip() for line in text.splitlines() for cell in line.split("│")}
    assert {"above", "> +484", "below", "< -300", "too few seeds"} <= cells, text
    assert "above: never behind any rated entrant" in text
    assert "below: never ahead of any rated entrant" in text
    assert "mean 0: the rated entrants'" in text
    assert "bootstrap" not in text
    assert max(len(line) for line in text.splitlines()) <= 80, text


def _header_cells(text: str) -> set[str]:
    return {cell.strip() for line in text.splitlines() if "┃" in line for cell in line.split("┃")}


def test_at_80_columns_every_header_and_figure_is_whole(three: RunReport) -> None:
    text = _render(three, 80)
    assert "…" not in text, text
    assert max(len(line) for line in text.splitlines()) <= 80, text
    assert set(NARROW_HEADERS) <= _header_cells(text), text
    assert not set(WIDE_HEADERS) & _header_cells(text), text
    cells = {cell.strip() for line in text.splitlines() for cell in line.split("│")}
    for s in three.standings:
        assert f"{100 * s.win_rate:.1f}" in cells, text
        assert f"{100 * s.ci_low:.0f}–{100 * s.ci_high:.0f}" in cells, text
        assert f"{s.points_per_deal:.2f}" in cells, text
    for r in three.ratings:
        assert f"{r.rating:+.0f}" in cells, text
        assert f"{r.low:+.0f} to {r.high:+.0f}" in cells, text
    # the long labels fold onto further lines of their column rather than being cut
    standings = text[text.index("Standings by win rate") : text.index("Head to head")]
    column = "".join(
        line.split("│")[1].strip() for line in standings.splitlines() if line.count("│") > 1
    )
    for name in LONG_NAMES:
        assert f"{name}@0123456789ab" in column, text


def test_the_ranking_is_by_rating_when_there_are_ratings(three: RunReport, two: RunReport) -> None:
    text = _render(three, 80)
    assert text.index("Ranking by rating") < text.index("Standings by win rate")
    assert "the ranking is by rating" in text
    assert "Ranking by rating" not in _render(two, 80)
    assert "the ranking is by rating" not in _render(two, 80)


def test_wide_adds_the_secondary_columns_whole_at_any_width(three: RunReport) -> None:
    for width in (80, 200):
        text = _render(three, width, wide=True)
        assert "…" not in text, text
        assert set(NARROW_HEADERS) | set(WIDE_HEADERS) <= _header_cells(text), text
        for name in LONG_NAMES:
            assert f"{name}@0123456789ab" in text, text
