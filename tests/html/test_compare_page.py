"""The comparison's page (``arena compare NEW BASE --html FILE``) in a real Chromium.

One real comparison of two sample bots (real processes, real gRPC, a real SQLite file),
three swap pairs of two games, is played through the command line with ``--json``; its page
must show the verdict in plain words, the score with its interval, the test's settings and
the log-likelihood ratio after each pair against its bounds, all equal to what the
command printed, and the ratio's path equal to the sequential test's own state after each
pair of the stored games; then the games with their replays.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import DESKTOP, PHONE, PageLog
from playwright.sync_api import Page

from arena.present.html.compare import VERDICT_TEXT
from arena.stats.comparison import UnitTally
from arena.stats.sequential import Sprt
from arena.tournament.store import ResultsStore

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLES = REPO_ROOT / "sample_bots"

# Slow: every test reads a comparison played for the module: the whole suite only.
pytestmark = [pytest.mark.timeout(600), pytest.mark.slow]


@dataclass(frozen=True)
class Comparison:
    db: Path
    page: Path
    printed: dict[str, Any]  # ``arena compare --json``
    stderr: str


@pytest.fixture(scope="module")
def comparison(tmp_path_factory: pytest.TempPathFactory) -> Comparison:
    root = tmp_path_factory.mktemp("compare")
    db, page = root / "arena.db", root / "compare.html"
    arena = Path(sys.executable).parent / "arena"
    # Three swap pairs, the test looking after each: undecided at the cap (three pairs cannot
    # reach the bounds, nor the bet: log-wealth 1.3 at most), a path of three.
    # A process of its own: playwright's driver holds this thread's event loop.
    result = subprocess.run(
        [
            str(arena),
            "compare",
            str(SAMPLES / "greedy"),
            str(SAMPLES / "lowest"),
            "--max-games",
            "6",
            "--batch",
            "1",
            "--decision-ms",
            "300",
            "--jobs",
            "2",
            "--db",
            str(db),
            "--json",
            "--html",
            str(page),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=560,
        check=False,
    )
    assert result.returncode in (0, 1, 3), result.stdout + result.stderr
    return Comparison(db, page, json.loads(result.stdout), result.stderr)


@pytest.mark.slow
def test_the_command_names_the_comparison_page(comparison: Comparison) -> None:
    line = " ".join(comparison.stderr.split())  # with --json, stdout stays JSON
    assert f"comparison page: {comparison.page} (replays of every game" in line
    assert comparison.page.is_file()


@pytest.mark.slow
def test_the_page_shows_the_verdict_score_interval_and_settings(
    comparison: Comparison, page: Page, page_log: PageLog
) -> None:
    printed = comparison.printed
    url = comparison.page.resolve().as_uri()
    page.goto(url)
    verdict = page.locator("#verdict")
    assert verdict.get_attribute("data-verdict") == printed["verdict"]
    line = page.locator("#verdict .verdict-line").inner_text()
    assert line == VERDICT_TEXT[printed["verdict"]]
    # Plain words: the verdict says what the evidence says, never a share it measured.
    assert "%" not in line and str(printed["margin"]) not in line

    def figure(name: str) -> float:
        return float(page.locator(f'[data-figure="{name}"]').get_attribute("data-value") or "")

    assert figure("score") == printed["estimate"]
    assert figure("margin") == printed["margin"]
    assert figure("alpha") == printed["alpha"]
    assert figure("beta") == printed["beta"]
    assert figure("llr") == printed["llr"]
    assert printed["design"] == "pairs"
    assert figure("units") == printed["units"] == 3
    assert figure("games") == printed["games"] == 6
    # Every pair so far on one side: the test bets too, and the page shows the bet.
    assert figure("bet") == printed["bet_better"]
    # The confidence sequence over the three pairs (valid at any stop, so from the first
    # pair on): the command's, drawn as a bar.
    table = page.locator("#figures table")
    low, high = printed["interval"]
    assert not printed["too_few_seeds"] and low < printed["estimate"] <= high
    assert [float(table.get_attribute(f"data-{end}") or "") for end in ("low", "high")] == [
        low,
        high,
    ]
    shown = page.locator('[data-figure="interval"] td.figure').inner_text()
    assert shown == f"{100 * low:.1f}–{100 * high:.1f} %"
    assert page.locator('[data-figure="interval"] svg.bar').count() == 1
    assert (
        "holds however and whenever the test stopped"
        in page.locator('[data-figure="interval"] td.what').inner_text()
    )
    assert page_log.errors == []
    assert page_log.requests_besides(url) == []


def test_the_chart_is_the_tests_ratio_after_each_unit(comparison: Comparison, page: Page) -> None:
    printed = comparison.printed
    page.goto(comparison.page.resolve().as_uri())
    chart = page.locator("#llr svg.llr")
    assert int(chart.get_attribute("data-units") or "") == printed["units"]
    bounds = {
        name: float(page.locator(f'[data-bound="{name}"]').get_attribute("data-value") or "")
        for name in ("lower", "upper")
    }
    assert bounds == {"lower": printed["lower"], "upper": printed["upper"]}
    points = page.locator("#llr circle.point")
    shown = [float(points.nth(i).get_attribute("data-llr") or "") for i in range(points.count())]
    # The sequential test on the first k stored pairs, for every k.
    test = Sprt(printed["margin"], printed["alpha"], printed["beta"])
    tally = UnitTally(printed["new"], printed["base"], printed["design"])
    with ResultsStore.open(comparison.db, create=False) as store:
        for game in store.game_outcomes(printed["run_id"]):
            tally.add(game)
    scores = tally.scores()
    assert shown == pytest.approx([state.llr for state in test.path(scores)])
    assert shown == pytest.approx([test.state(scores[:k]).llr for k in range(1, len(scores) + 1)])
    assert shown[-1] == printed["llr"]
    # Drawn in order from unit 0 (no evidence) on, between the bounds' lines.
    xs = [float(points.nth(i).get_attribute("cx") or "") for i in range(points.count())]
    assert xs == sorted(xs)
    assert page.locator("#llr polyline.path").count() == 1
    assert page.locator("#llr polyline.bet").count() == 1  # the bet, while one-sided


def test_the_games_link_their_replays(comparison: Comparison, page: Page) -> None:
    page.goto(comparison.page.resolve().as_uri())
    links = page.locator("#game-rows a.replay")
    hrefs = [links.nth(i).get_attribute("href") or "" for i in range(links.count())]
    assert len(hrefs) == comparison.printed["games"]
    assert all((comparison.page.parent / href).is_file() for href in hrefs)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_no_overflow_at_either_size(
    comparison: Comparison, page: Page, viewport: dict[str, int], artefacts: Path
) -> None:
    page.goto(comparison.page.resolve().as_uri())
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    size = f"{viewport['width']}x{viewport['height']}"
    page.screenshot(path=str(artefacts / f"compare-{size}.png"), full_page=True)
