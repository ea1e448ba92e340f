"""``arena compare NEW BASE`` end to end: real bot processes, a real results file.

Kept fast by a wide margin and loose error rates, so that the test decides in a few swap
pairs (greedy finishes ahead of lowest in nearly every pair): about 20 s on two cores.
"""

from __future__ import annotations

import dataclasses
import io
import json
import sqlite3
from pathlib import Path

import pytest
from rich.console import Console
from tournament.helpers import copy_bot

from arena.present.compare import CompareProgressLine, render_compare
from arena.stats.comparison import CompareOutcome
from arena.stats.sequential import Sprt, SprtState, Verdict

from .test_cli import GREEDY, RANDOM, REPO_ROOT, assert_clean_failure, assert_ok, invoke, show

LOWEST = str(REPO_ROOT / "sample_bots" / "lowest")
# Loose error rates: the bet against "even" needs a log-wealth of log(1 / 0.2) = 1.61, which six
# pairs that NEW wins outright give (2.9), where the floored ratio would need 15 pairs.
QUICK = ("--alpha", "0.2", "--beta", "0.2", "--batch", "6")
FAST = ("--decision-ms", "200", "--jobs", "2")

pytestmark = pytest.mark.timeout(180)


def _stored_games(db: Path) -> int:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    finally:
        conn.close()


@pytest.mark.slow
def test_greedy_is_better_than_lowest_and_the_same_command_reads_it_back(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    first = invoke("compare", GREEDY, LOWEST, "--db", str(db), *QUICK, *FAST)
    assert_ok(first)
    assert "NEW is better than BASE" in first.stdout, show(first)
    assert "greedy@" in first.stdout and "lowest@" in first.stdout, show(first)
    games = _stored_games(db)
    assert games % 2 == 0 and 2 <= games <= 36, show(first)

    again = invoke("compare", GREEDY, LOWEST, "--db", str(db), "--json", *QUICK, *FAST)
    assert_ok(again)
    verdict = json.loads(again.stdout)
    assert verdict["verdict"] == "better"
    assert verdict["played"] == 0  # resumed a finished comparison: nothing to play
    assert verdict["games"] == games == _stored_games(db)
    # Looked at after every pair: the verdict counts the pairs up to the one that decided;
    # any the batch played after it are stored, not counted.
    units = verdict["units"]
    assert verdict["design"] == "pairs" and units + verdict["units_past_decision"] == games // 2
    assert verdict["games_counted"] == 2 * units
    # Every pair lies above 1/2, where the ratio is floored: betting decides (sequential.py).
    assert verdict["decided_by"] == "bet", verdict
    assert verdict["bet_better"] >= verdict["bet_bound"] and verdict["llr"] < verdict["upper"]
    # The confidence sequence over the counted pairs, valid at the stop (its top below 1
    # once enough pairs fell short of a whole win: the deals are secret, so it varies).
    low, high = verdict["interval"]
    assert low < verdict["estimate"] <= high <= 1.0 and not verdict["too_few_seeds"]
    assert f"{units} swap pairs, {2 * units} games counted ({games} stored" in first.stdout
    assert "stopped: the bet against 'even' reached its bound" in first.stdout, show(first)

    # The comparison is a run of the database: the report reads it.
    report = invoke("report", verdict["run_id"], "--db", str(db), "--json")
    assert_ok(report)
    assert json.loads(report.stdout)["games"] == games


@pytest.mark.slow
def test_random_against_its_copy_is_never_better_at_a_small_cap(tmp_path: Path) -> None:
    copy = copy_bot("random", tmp_path / "random-copy", "random2")
    db = tmp_path / "arena.db"
    groups = ("--design", "groups")
    result = invoke(
        "compare", str(copy), RANDOM, "--db", str(db), "--max-games", "12", "--json", *groups, *FAST
    )
    verdict = json.loads(result.stdout)
    assert verdict["design"] == "groups", show(result)
    # Two groups cannot reach the default bounds (a group moves the ratio by 0.1 at most, and
    # a bet's log-wealth by log 2).
    assert verdict["verdict"] == "undecided", show(result)
    assert result.exit_code == 3, show(result)
    assert verdict["games"] == 12 == _stored_games(db)

    # A higher cap continues the same test: the two stored groups count.
    more = invoke(
        "compare", str(copy), RANDOM, "--db", str(db), "--max-games", "18", "--json", *groups, *FAST
    )
    continued = json.loads(more.stdout)
    assert continued["run_id"] == verdict["run_id"], show(more)
    assert (continued["units"], continued["games"], continued["played"]) == (3, 18, 6)
    assert continued["units_past_decision"] == 0  # undecided: every unit counts
    assert continued["verdict"] == "undecided" and more.exit_code == 3, show(more)


def _outcome(verdict: Verdict, groups: int = 32, bet: bool = False) -> CompareOutcome:
    test = Sprt()
    llr = {"better": 3.05, "not better": -3.1, "undecided": 0.4}[verdict]
    bets: dict[str, float] = {}
    if bet:  # decided by a bet: the ratio short of its bounds
        llr = 0.4
        bets = {"bet_better": 3.2, "bet_not_better": -9.5}
        if verdict == "not better":
            bets = {"bet_better": -9.5, "bet_not_better": 3.2}
    state = SprtState(groups, 0.956, llr, test.lower, test.upper, verdict, **bets)
    return CompareOutcome(
        run_id="14dce8615cf1",
        new="greedy@73d4cbb44931",
        base="lowest@1de296eda409",
        test=test,
        state=state,
        verdict=verdict,
        finished=True,
        interval=(0.94, 0.971),
        games=6 * groups,
        max_games=3000,
        played=6 * groups,
        design="groups",
        complete_units=groups,
    )


def _console() -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, width=80, color_system=None, soft_wrap=True), buffer


@pytest.mark.parametrize(
    ("verdict", "bet"),
    [
        ("better", False),
        ("not better", False),
        ("undecided", False),
        ("better", True),
        ("not better", True),
    ],
)
def test_the_verdict_fits_80_columns_with_its_figures(verdict: Verdict, bet: bool) -> None:
    console, buffer = _console()
    render_compare(console, _outcome(verdict, bet=bet), "arena report 14dce8615cf1")
    text = buffer.getvalue()
    assert all(len(line) <= 80 for line in text.splitlines()), text
    assert "…" not in text
    for figure in ("95.6%", "94.0%–97.1%", "32 seeds", "192 games", "-2.94", "+2.94"):
        assert figure in text, text
    # The line names the evidence that stopped the test (issue 35, 8: not always the ratio).
    assert ("stopped: the bet against" in text) == bet, text
    assert ("stopped: the log-likelihood ratio reached its" in text) == (
        not bet and verdict != "undecided"
    ), text
    assert "valid at the stop" in text
    first = text.splitlines()[0]
    assert first.startswith(
        {"better": "NEW is better", "not better": "NEW is not better"}.get(verdict, "undecided")
    )


def test_units_played_after_the_decision_are_said_and_not_counted() -> None:
    console, buffer = _console()
    outcome = dataclasses.replace(_outcome("better", groups=7), games=72, complete_units=12)
    render_compare(console, outcome, "arena report 14dce8615cf1")
    text = buffer.getvalue()
    assert "7 seed groups, 42 games counted (72 stored" in text, text
    assert "5 more seed groups played after it: stored, not counted" in text, text
    assert all(len(line) <= 80 for line in text.splitlines()), text


def test_the_live_line_shows_the_ratio_between_its_bounds_in_80_columns() -> None:
    console, buffer = _console()
    with CompareProgressLine(console) as line:
        line.update(_outcome("undecided", groups=7))
    last = buffer.getvalue().rstrip().splitlines()[-1]
    assert len(last) <= 80 and "…" not in last, last
    assert "42/3000 games" in last and "7 groups" in last, last
    assert "LLR +0.40 in (-2.94, +2.94)" in last, last


def test_the_same_bot_as_new_and_base_is_refused(tmp_path: Path) -> None:
    result = invoke("compare", RANDOM, RANDOM, "--db", str(tmp_path / "a.db"))
    assert_clean_failure(result, "same bot", "give the copy another name")
    assert result.exit_code == 2


@pytest.mark.parametrize(
    ("option", "value", "phrase"),
    [
        ("--margin", "0.6", "--margin"),
        ("--alpha", "0", "--alpha"),
        ("--max-games", "1", "allow one unit"),
        ("--design", "triples", "--design is pairs or groups"),
    ],
)
def test_test_settings_out_of_range_are_refused(
    tmp_path: Path, option: str, value: str, phrase: str
) -> None:
    result = invoke("compare", GREEDY, LOWEST, "--db", str(tmp_path / "a.db"), option, value)
    assert_clean_failure(result, phrase)


@pytest.mark.slow
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
