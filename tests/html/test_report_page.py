"""The HTML report (``arena run --html``, ``arena report --html``) in a real Chromium.

One real run (sample bots and a bot that plays cards it does not hold, so that there are
faults and upsets) is played through the command line into a temporary database; its page
is checked against the JSON report and the database: every entrant with its interval, the
heat map's cells, the faults, a replay file for every game that opens without error, no
network request, no horizontal overflow on a desktop or a phone. Entrant names are made
hostile in a copy of the database to check that they show literally.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from conftest import DESKTOP, PHONE, WIDER, PageLog
from hypothesis import given
from hypothesis import strategies as st
from playwright.sync_api import Page

from arena.present.html.report import (
    CLOSE_MARGIN,
    collect_page,
    instructive_games,
    render_report,
    replay_directory,
    write_report,
)
from arena.tournament.store import ResultsStore, StoredGame

REPO_ROOT = Path(__file__).resolve().parents[2]
ENTRANTS = (
    REPO_ROOT / "sample_bots" / "greedy",
    REPO_ROOT / "sample_bots" / "random",
    REPO_ROOT / "tests" / "hostile" / "bots" / "card_not_held",
)
HOSTILE = (
    '</script><img src=x onerror="window.pwned=1">',
    "<b>bold</b> & \"quoted\" 'single' <!--",
    "]]><svg onload=window.pwned=2>",
)

# Slow: every test reads a run played for the module: the whole suite only.
pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.slow,
]  # the run and its replays are set up in the first test


def invoke(*args: str) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` in a process of its own: playwright's driver holds this thread's
    event loop, and the command runs its own."""
    arena = Path(sys.executable).parent / "arena"
    command = (
        [str(arena)]
        if arena.exists()
        else [sys.executable, "-c", "from arena.cli import app; app()"]
    )
    return subprocess.run(
        [*command, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=540,
        check=False,
    )


def show(result: subprocess.CompletedProcess[str]) -> str:
    return f"exit code {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"


@dataclass(frozen=True)
class ReportRun:
    db: Path
    page: Path
    result: subprocess.CompletedProcess[str]
    report: dict[str, Any]  # ``arena report --json``


@pytest.fixture(scope="module")
def report_run(tmp_path_factory: pytest.TempPathFactory) -> ReportRun:
    root = tmp_path_factory.mktemp("report")
    db = root / "results" / "arena.db"
    page = root / "results" / "arena-report.html"  # --html's default: <db stem>-report.html
    # card_not_held's behaviour is in the zoo's zoolib beside it, which builds on the
    # referee tests' botlib: a bot runs from a copy of its own directory only, so the copy
    # played here holds both.
    zoo_bot = root / ENTRANTS[2].name
    shutil.copytree(ENTRANTS[2], zoo_bot, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ENTRANTS[2].parent / "zoolib.py", zoo_bot)
    shutil.copy(REPO_ROOT / "tests" / "referee" / "bots" / "botlib.py", zoo_bot)
    # Four seeds: the fewest for which the report gives intervals.
    result = invoke(
        "run",
        *map(str, (*ENTRANTS[:2], zoo_bot)),
        "--games",
        "4",
        "--decision-ms",
        "500",
        "--db",
        str(db),
        "--html",
    )
    assert result.returncode == 0, show(result)
    as_json = invoke("report", "--json", "--db", str(db))
    assert as_json.returncode == 0, show(as_json)
    return ReportRun(db, page, result, json.loads(as_json.stdout))


def open_page(page: Page, path: Path) -> str:
    url = path.resolve().as_uri()
    page.goto(url)
    return url


def no_horizontal_overflow(page: Page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


@pytest.mark.slow
def test_the_run_names_the_page_on_its_last_line(report_run: ReportRun) -> None:
    last = report_run.result.stdout.strip().splitlines()[-1]
    assert last.startswith(f"report page: {report_run.page} "), show(report_run.result)
    assert "replays of every game" in last
    assert report_run.page.is_file()
    assert replay_directory(report_run.page).is_dir()


@pytest.mark.slow
def test_every_entrant_shows_the_json_reports_interval(
    report_run: ReportRun, page: Page, page_log: PageLog
) -> None:
    url = open_page(page, report_run.page)
    standings = report_run.report["standings"]
    rows = page.locator("#standings tbody tr")
    assert rows.count() == len(standings) == len(ENTRANTS)
    for number, expected in enumerate(standings):
        row = rows.nth(number)
        assert row.locator("td.name").text_content() == expected["entrant"]
        assert float(row.get_attribute("data-win-rate") or "nan") == expected["win_rate"]
        assert float(row.get_attribute("data-ci-low") or "nan") == expected["ci_low"]
        assert float(row.get_attribute("data-ci-high") or "nan") == expected["ci_high"]
        low, high = 100 * expected["ci_low"], 100 * expected["ci_high"]
        assert row.locator("td.ci").text_content() == f"{low:.0f}–{high:.0f}"
        assert row.locator("td.rate").text_content() == f"{100 * expected['win_rate']:.1f}"
        assert row.locator("svg.bar").count() == 1
    ratings = report_run.report["ratings"]
    rating_rows = page.locator("#ratings tbody tr")
    assert rating_rows.count() == len(ratings) == len(ENTRANTS)
    for number, expected in enumerate(ratings):
        row = rating_rows.nth(number)
        assert row.get_attribute("data-entrant") == expected["entrant"]
        low, high = expected["low"], expected["high"]
        assert bound(row.get_attribute("data-low")) == low
        assert bound(row.get_attribute("data-high")) == high
        if low is not None and high is not None:
            interval = f"{low:+.0f} to {high:+.0f}"
        elif low is not None:  # open above: only the regularisation would bound it
            interval = f"> {low:+.0f}"
        elif high is not None:
            interval = f"< {high:+.0f}"
        else:
            interval = "unbounded"
        assert row.locator("td.ci").text_content() == interval
    assert page_log.errors == []
    assert page_log.requests_besides(url) == []


def bound(attribute: str | None) -> float | None:
    """An interval bound from the page: empty where the report has none."""
    return None if not attribute else float(attribute)


def test_the_heat_map_cells_are_the_head_to_head_scores(report_run: ReportRun, page: Page) -> None:
    open_page(page, report_run.page)
    cells = page.locator("#head-to-head td.heat")
    expected = {(h["a"], h["b"]): h for h in report_run.report["head_to_head"]}
    assert cells.count() == len(expected) == len(ENTRANTS) * (len(ENTRANTS) - 1)
    for number in range(cells.count()):
        cell = cells.nth(number)
        pair = expected[(cell.get_attribute("data-a"), cell.get_attribute("data-b"))]
        assert float(cell.get_attribute("data-rate") or "nan") == pair["rate"]
        assert int(cell.get_attribute("data-games") or "-1") == pair["games"]
        assert cell.text_content() == f"{100 * pair['rate']:.0f}"


def stored_faults(db: Path) -> dict[str, Counter[str]]:
    """Faults per entrant label and kind, read from the database by hand."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            """
            SELECT e.name || '@' || e.version, f.kind FROM faults f
            JOIN seat_stats s ON s.game_id = f.game_id AND s.seat = f.seat
            JOIN entrants e ON e.id = s.entrant_id
            """
        ).fetchall()
    finally:
        conn.close()
    faults: dict[str, Counter[str]] = {}
    for entrant, kind in rows:
        faults.setdefault(entrant, Counter())[kind] += 1
    return faults


def test_faults_per_entrant_and_kind_are_the_stored_faults(
    report_run: ReportRun, page: Page
) -> None:
    open_page(page, report_run.page)
    expected = stored_faults(report_run.db)
    assert expected, "the run was meant to have faults (card_not_held)"
    rows = page.locator("#faults tbody tr")
    assert rows.count() == len(ENTRANTS)
    for number in range(rows.count()):
        row = rows.nth(number)
        counts = expected.get(row.get_attribute("data-entrant") or "", Counter())
        cells = row.locator("td[data-kind]")
        shown = {
            cells.nth(i).get_attribute("data-kind"): int(cells.nth(i).text_content() or "")
            for i in range(cells.count())
        }
        assert shown == {kind: counts.get(kind, 0) for kind in report_run.report["faults_by_kind"]}
        assert int(row.locator("td.total").text_content() or "") == sum(counts.values())


def test_decision_times_have_a_distribution_per_entrant(report_run: ReportRun, page: Page) -> None:
    open_page(page, report_run.page)
    rows = page.locator("#times tbody tr")
    entrants = {s["entrant"] for s in report_run.report["standings"]}
    shown = {rows.nth(i).get_attribute("data-entrant") for i in range(rows.count())}
    assert shown == entrants
    for number in range(rows.count()):
        assert rows.nth(number).locator("svg.box").count() == 1
        assert float(rows.nth(number).get_attribute("data-median") or "nan") > 0.0


@pytest.mark.slow
def test_every_game_links_a_replay_that_loads_cleanly(
    report_run: ReportRun, page: Page, page_log: PageLog
) -> None:
    with ResultsStore.open(report_run.db, create=False) as store:
        game_ids = {game.id for game in store.games(report_run.report["run"]["id"])}
    open_page(page, report_run.page)
    links = page.locator("#game-rows a.replay")
    hrefs = [links.nth(i).get_attribute("href") or "" for i in range(links.count())]
    assert len(hrefs) == len(game_ids) == report_run.report["games"]
    replays = [report_run.page.parent / unquote(href) for href in hrefs]
    assert {int(path.stem) for path in replays} == game_ids
    assert all(path.is_file() for path in replays)
    # Each replay opened through its link loads alone: no error, no request of its own.
    for number, replay in enumerate(replays):
        open_page(page, report_run.page)
        page_log.requests.clear()
        page.locator("#game-rows a.replay").nth(number).click()
        page.wait_for_load_state("load")
        assert page.url == replay.resolve().as_uri()
        assert page_log.errors == [], (replay, page_log.errors)
        assert page_log.requests_besides(page.url) == [], page_log.requests


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_no_request_and_no_overflow_at_either_size(
    report_run: ReportRun,
    page: Page,
    page_log: PageLog,
    viewport: dict[str, int],
    artefacts: Path,
) -> None:
    url = open_page(page, report_run.page)
    policy = page.locator('meta[http-equiv="Content-Security-Policy"]').get_attribute("content")
    assert policy is not None and "default-src 'none'" in policy
    assert "script-src 'sha256-" in policy and "'unsafe-inline'; base" not in policy
    assert no_horizontal_overflow(page)
    assert page_log.errors == []
    assert page_log.requests_besides(url) == []
    size = f"{viewport['width']}x{viewport['height']}"
    page.screenshot(path=str(artefacts / f"report-{size}.png"), full_page=True)


def test_the_search_box_finds_any_game_by_id(report_run: ReportRun, page: Page) -> None:
    open_page(page, report_run.page)
    with ResultsStore.open(report_run.db, create=False) as store:
        game = store.games(report_run.report["run"]["id"])[-1]
    page.fill("#game-search", str(game.id))
    found = page.locator("#search-rows tr")
    assert page.locator("#game-rows").is_hidden()
    ids = [found.nth(i).get_attribute("data-game") for i in range(found.count())]
    assert str(game.id) in ids
    row = found.nth(ids.index(str(game.id)))
    assert row.locator("a.replay").get_attribute("href") is not None
    page.fill("#game-search", "")
    assert page.locator("#game-rows").is_visible()


@pytest.fixture(scope="module")
def hostile_db(report_run: ReportRun, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the run's database in which every entrant has a hostile name."""
    db = tmp_path_factory.mktemp("hostile") / "arena.db"
    shutil.copyfile(report_run.db, db)
    conn = sqlite3.connect(db)
    try:
        ids = [row[0] for row in conn.execute("SELECT id FROM entrants ORDER BY id")]
        for entrant_id, name in zip(ids, HOSTILE, strict=False):
            conn.execute("UPDATE entrants SET name = ? WHERE id = ?", (name, entrant_id))
        conn.commit()
    finally:
        conn.close()
    return db


@pytest.mark.slow
def test_hostile_entrant_names_render_literally(
    hostile_db: Path, page: Page, page_log: PageLog, tmp_path: Path
) -> None:
    path = tmp_path / "hostile #1.html"  # the links to its replays must be quoted
    result = invoke("report", "--db", str(hostile_db), "--html", str(path))
    assert result.returncode == 0, show(result)
    assert result.stdout.strip().splitlines()[-1].startswith(f"report page: {path} ")
    url = open_page(page, path)
    names = page.locator("#standings td.name").all_text_contents()
    assert {name.split("@")[0] for name in names} == set(HOSTILE)
    matrix = page.locator("#head-to-head tbody th").all_text_contents()
    assert {row.split(". ", 1)[1].split("@")[0] for row in matrix} == set(HOSTILE)
    assert page.locator("img").count() == 0
    assert page.locator("main svg:not(.bar):not(.box)").count() == 0
    assert page.evaluate("window.pwned") is None
    # The search rows are built by the script from the embedded JSON.
    page.fill("#game-search", "1")
    texts = " ".join(page.locator("#search-rows td").all_text_contents())
    assert HOSTILE[0] in texts
    assert page.locator("img").count() == 0
    assert page_log.errors == []
    assert page_log.requests_besides(url) == []
    page.fill("#game-search", "")
    page.locator("#game-rows a.replay").first.click()
    page.wait_for_load_state("load")
    assert page.url.startswith(replay_directory(path).resolve().as_uri() + "/")
    assert page_log.errors == []


@pytest.mark.slow
def test_a_large_run_gets_replays_of_its_instructive_games_only(
    report_run: ReportRun, page: Page, tmp_path: Path
) -> None:
    path = tmp_path / "large.html"
    with ResultsStore.open(report_run.db, create=False) as store:
        written = write_report(store, None, path, replay_all_up_to=3, instructive_limit=4)
        games = store.games(report_run.report["run"]["id"])
    assert written.games == len(games) and written.replays == 4
    assert len(list(written.replay_dir.glob("*.html"))) == 4
    open_page(page, path)
    shown = page.locator("#game-rows tr")
    assert shown.count() == 4
    for number in range(4):
        row = shown.nth(number)
        assert row.locator("td").last.text_content(), "every game shown says why"
        href = row.locator("a.replay").get_attribute("href") or ""
        assert (path.parent / href).is_file()
    without = next(g for g in games if not (written.replay_dir / f"{g.id}.html").exists())
    page.fill("#game-search", str(without.id))
    row = page.locator(f'#search-rows tr[data-game="{without.id}"]')
    assert "no replay file" in (row.text_content() or "")
    assert row.locator("a").count() == 0


stored_games = st.builds(
    StoredGame,
    id=st.integers(1, 10_000),
    run_id=st.just("run"),
    match_key=st.sampled_from(["t0-s0-0-1-2", "t0-s1-0-2-1"]),
    game_index=st.integers(0, 5),
    entrants_by_team=st.tuples(*[st.sampled_from("abcd")] * 3),
    scores=st.tuples(*[st.integers(-30, 40)] * 3),
    winner=st.one_of(st.none(), st.integers(0, 2)),
    deals=st.integers(1, 40),
    faults=st.integers(0, 3),
)


@given(
    games=st.lists(stored_games, max_size=40, unique_by=lambda g: g.id),
    limit=st.integers(0, 12),
    strength=st.fixed_dictionaries({name: st.floats(-500, 500) for name in "abcd"}),
)
def test_instructive_games_are_few_and_each_says_why(
    games: list[StoredGame], limit: int, strength: dict[str, float]
) -> None:
    chosen = instructive_games(games, strength, limit)
    by_id = {game.id: game for game in games}
    candidates = set()
    for game in games:
        winner = None if game.winner is None else game.entrants_by_team[game.winner]
        upset = winner is not None and any(
            strength[name] > strength[winner] for name in game.entrants_by_team
        )
        lead = (
            None
            if game.winner is None
            else game.scores[game.winner]
            - max(s for team, s in enumerate(game.scores) if team != game.winner)
        )
        close = lead is None or lead <= CLOSE_MARGIN
        if game.faults or upset or close:
            candidates.add(game.id)
        if game.id in chosen:
            reasons = set(chosen[game.id])
            assert ("faults" in reasons) == (game.faults > 0)
            assert ("upset" in reasons) == upset
            assert ("close" in reasons) == close
    assert len(chosen) == min(limit, len(candidates))
    assert set(chosen) <= candidates
    assert list(chosen) == sorted(chosen)
    # The most faulty game is never left out while there is room.
    faulty = [g for g in games if g.faults]
    if faulty and limit:
        assert max(faulty, key=lambda g: (g.faults, -g.id)).id in chosen
    assert all(by_id[game_id] for game_id in chosen)


@pytest.mark.slow
def test_the_games_list_filters_by_entrant(
    report_run: ReportRun, page: Page, page_log: PageLog, tmp_path: Path
) -> None:
    """Every game of a three-entrant run holds all three: a fourth entrant is put in team
    2's place in every other game of the page's list, so that a filter has games to hide."""
    with ResultsStore.open(report_run.db, create=False) as store:
        collected = collect_page(store, None)
    other = "other@0123456789ab"
    games = [
        replace(g, entrants_by_team=(*g.entrants_by_team[:2], other)) if g.id % 2 else g
        for g in collected.games
    ]
    listed = replace(collected, games=games, instructive={g.id: () for g in games})
    path = tmp_path / "filter.html"
    path.write_text(render_report(listed), encoding="utf-8")
    url = open_page(page, path)
    names = page.locator("#entrant-filter option").all_text_contents()
    assert names[0] == "every entrant"
    entrants = sorted({name for g in games for name in g.entrants_by_team})
    assert names[1:] == entrants
    rows = page.locator("#game-rows tr")

    def visible() -> set[int]:
        return {
            int(rows.nth(i).get_attribute("data-game") or "")
            for i in range(rows.count())
            if rows.nth(i).is_visible()
        }

    assert visible() == {g.id for g in games}
    for name in (other, entrants[0]):
        page.select_option("#entrant-filter", label=name)
        expected = {g.id for g in games if name in g.entrants_by_team}
        assert visible() == expected and 0 < len(expected) < len(games), name
        assert (
            page.locator("#filter-note")
            .inner_text()
            .startswith(f"{len(expected)} of {len(games)} listed games")
        )
    # A search finds only the chosen entrant's games too.
    page.fill("#game-search", "1")
    found = page.locator("#search-rows tr")
    ids = {int(found.nth(i).get_attribute("data-game") or "") for i in range(found.count())}
    assert ids and ids <= {g.id for g in games if entrants[0] in g.entrants_by_team}
    page.fill("#game-search", "")
    page.select_option("#entrant-filter", label="every entrant")
    assert visible() == {g.id for g in games}
    assert page_log.errors == []
    assert page_log.requests_besides(url) == []


@pytest.mark.parametrize("viewport", [PHONE], ids=["phone"])
def test_on_a_phone_the_decision_time_summary_reads_in_words(
    report_run: ReportRun, page: Page, viewport: dict[str, int]
) -> None:
    open_page(page, report_run.page)
    assert page.evaluate(WIDER) == []
    shape = page.evaluate(
        """() => [...document.querySelectorAll('#times .times-summary')].map((node) => {
             const box = node.getBoundingClientRect();
             return [box.width, box.height,
                     parseFloat(getComputedStyle(node).lineHeight), node.textContent];
           })"""
    )
    assert len(shape) == page.locator("#times tbody tr").count() > 0
    for width, height, line, text in shape:
        longest = max(text.split(), key=len)
        assert width >= 8 * len(longest) * 0.5, text  # room for its longest word
        assert height <= 4.5 * line, text  # a few lines, not one letter per line
