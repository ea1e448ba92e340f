"""Each statistics module runs by hand on a JSON file and prints what the function returns."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.stats.byhand import games_from_json
from arena.stats.comparison import UnitTally, compare_outcome
from arena.stats.rates import head_to_head
from arena.stats.ratings import fit_ratings
from arena.stats.sequential import Sprt, confidence_sequence

# Two swap pairs of v2 against v1 and one of v1 against v3 (seeds 0..2).
GAMES = [
    {"seed": 0, "entrants_by_team": ["v2", "v2", "v1"], "scores": [21, 9, 14], "winner": 0},
    {"seed": 0, "entrants_by_team": ["v1", "v1", "v2"], "scores": [12, 21, 20], "winner": 1},
    {"seed": 1, "entrants_by_team": ["v2", "v1", "v2"], "scores": [21, 9, 14], "winner": 0},
    {"seed": 1, "entrants_by_team": ["v1", "v2", "v1"], "scores": [22, 9, 14], "winner": 0},
    {"seed": 2, "entrants_by_team": ["v3", "v3", "v1"], "scores": [8, 9, 21], "winner": 2},
    {"seed": 2, "entrants_by_team": ["v3", "v1", "v1"], "scores": [21, 21, 3], "winner": None},
]


def _run(module: str, path: Path, *args: str) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", f"arena.stats.{module}", str(path), *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(done.stdout)


@pytest.fixture
def games_file(tmp_path: Path) -> Path:
    path = tmp_path / "games.json"
    path.write_text(json.dumps(GAMES))
    return path


@pytest.mark.slow
def test_rates_print_the_head_to_head_table(games_file: Path) -> None:
    printed = _run("rates", games_file)
    table = head_to_head(games_from_json(GAMES))
    assert [(row["a"], row["b"], row["pairs"], row["rate"]) for row in printed] == [
        (row.a, row.b, row.pairs, row.rate) for row in table
    ]
    assert {(row["a"], row["b"]) for row in printed} >= {("v1", "v2"), ("v1", "v3")}


def test_ratings_print_every_entrant(games_file: Path) -> None:
    printed = _run("ratings", games_file)
    ratings = fit_ratings(games_from_json(GAMES))
    assert [row["entrant"] for row in printed] == [rating.entrant for rating in ratings]
    assert [row["rating"] for row in printed] == pytest.approx([r.rating for r in ratings])
    assert all(row["too_few_seeds"] for row in printed)  # 3 seeds: no interval


def test_sequential_prints_the_test_on_scores(tmp_path: Path) -> None:
    scores = [1.0, 0.75, 1.0, 0.5, 1.0] * 8
    path = tmp_path / "scores.json"
    path.write_text(json.dumps(scores))
    printed = _run("sequential", path, "--margin", "0.1")
    # Looked at after every unit: the verdict is the first that decides, with its interval.
    state = Sprt(margin=0.1).decision(scores)
    assert printed["state"]["units"] == state.units < 40
    assert printed["state"]["llr"] == pytest.approx(state.llr)
    assert printed["state"]["verdict"] == state.verdict == "better"
    assert printed["interval"] == pytest.approx(list(confidence_sequence(scores[: state.units])))


def test_seeds_prints_a_rate_over_seeds(tmp_path: Path) -> None:
    path = tmp_path / "counts.json"
    path.write_text(json.dumps([[0, 1, 2], [1, 2, 2], [2, 0, 2], [3, 1.5, 2]]))
    printed = _run("seeds", path)
    assert printed["seeds"] == 4
    assert printed["value"] == pytest.approx(4.5 / 8)
    low, high = printed["interval"]
    assert 0.0 <= low < 4.5 / 8 < high <= 1.0


def test_comparison_prints_where_the_test_stands(games_file: Path) -> None:
    printed = _run("comparison", games_file, "v2", "v1")
    tally = UnitTally("v2", "v1")
    for game in games_from_json(GAMES[:4]):
        tally.add(game)
    expected = compare_outcome("by-hand", tally, Sprt(), 3000).to_json()
    assert printed["units"] == expected["units"] == 2
    assert printed["estimate"] == pytest.approx(expected["estimate"])


@pytest.mark.slow
def test_a_file_that_holds_no_games_says_which_game_is_wrong(tmp_path: Path) -> None:
    path = tmp_path / "games.json"
    path.write_text(json.dumps([GAMES[0], {"seed": 1, "scores": [1, 2, 3]}]))
    done = subprocess.run(
        [sys.executable, "-m", "arena.stats.rates", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "game 1 of the file is not a game" in done.stderr
