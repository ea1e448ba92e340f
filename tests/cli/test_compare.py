"""``arena compare NEW BASE`` end to end: real bot processes, a real results file.

Kept fast by a wide margin and loose error rates, so that the test decides in a few seed
groups (greedy finishes ahead of lowest in nearly every pair): about 20 s on two cores.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from tournament.helpers import copy_bot

from .test_cli import GREEDY, RANDOM, REPO_ROOT, assert_clean_failure, assert_ok, invoke, show

LOWEST = str(REPO_ROOT / "sample_bots" / "lowest")
# log((1 - 0.2) / 0.2) = 1.39 over log(0.8 / 0.5) = 0.47 a group: three groups when NEW is
# ahead in every pair.
QUICK = ("--margin", "0.3", "--alpha", "0.2", "--beta", "0.2", "--batch", "3")
FAST = ("--decision-ms", "200", "--jobs", "2")

pytestmark = pytest.mark.timeout(180)


def _stored_games(db: Path) -> int:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    finally:
        conn.close()


def test_greedy_is_better_than_lowest_and_the_same_command_reads_it_back(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    first = invoke("compare", GREEDY, LOWEST, "--db", str(db), *QUICK, *FAST)
    assert_ok(first)
    assert "NEW is better than BASE" in first.stdout, show(first)
    assert "greedy@" in first.stdout and "lowest@" in first.stdout, show(first)
    games = _stored_games(db)
    assert games % 6 == 0 and 6 <= games <= 36, show(first)

    again = invoke("compare", GREEDY, LOWEST, "--db", str(db), "--json", *QUICK, *FAST)
    assert_ok(again)
    verdict = json.loads(again.stdout)
    assert verdict["verdict"] == "better"
    assert verdict["played"] == 0  # resumed a finished comparison: nothing to play
    assert verdict["games"] == games == _stored_games(db)
    assert verdict["groups"] == games // 6
    assert verdict["llr"] >= verdict["upper"]
    assert verdict["interval"][0] > 0.5
    assert f"{verdict['groups']} seed groups, {games} games" in first.stdout

    # The comparison is a run of the database: the report reads it.
    report = invoke("report", verdict["run_id"], "--db", str(db), "--json")
    assert_ok(report)
    assert json.loads(report.stdout)["games"] == games


def test_random_against_its_copy_is_never_better_at_a_small_cap(tmp_path: Path) -> None:
    copy = copy_bot("random", tmp_path / "random-copy", "random2")
    db = tmp_path / "arena.db"
    result = invoke(
        "compare", str(copy), RANDOM, "--db", str(db), "--max-games", "12", "--json", *FAST
    )
    verdict = json.loads(result.stdout)
    # Two groups cannot reach the default bounds (a group moves the ratio by 0.1 at most).
    assert verdict["verdict"] == "undecided", show(result)
    assert result.exit_code == 3, show(result)
    assert verdict["games"] == 12 == _stored_games(db)


def test_the_same_bot_as_new_and_base_is_refused(tmp_path: Path) -> None:
    result = invoke("compare", RANDOM, RANDOM, "--db", str(tmp_path / "a.db"))
    assert_clean_failure(result, "same bot", "give the copy another name")
    assert result.exit_code == 2


@pytest.mark.parametrize(
    ("option", "value", "phrase"),
    [
        ("--margin", "0.6", "--margin"),
        ("--alpha", "0", "--alpha"),
        ("--max-games", "5", "one seed group"),
    ],
)
def test_test_settings_out_of_range_are_refused(
    tmp_path: Path, option: str, value: str, phrase: str
) -> None:
    result = invoke("compare", GREEDY, LOWEST, "--db", str(tmp_path / "a.db"), option, value)
    assert_clean_failure(result, phrase)


def test_another_comparison_under_the_same_run_id_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    run = invoke("run", GREEDY, LOWEST, "--games", "1", "--db", str(db), *FAST)
    assert_ok(run)
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        (run_id,) = conn.execute("SELECT id FROM runs").fetchone()
    finally:
        conn.close()
    result = invoke("compare", GREEDY, LOWEST, "--db", str(db), "--run-id", run_id, *FAST)
    assert_clean_failure(result, "is not this comparison")
