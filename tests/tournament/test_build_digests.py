"""The build each seat ran is stored with every game (schema 6), and a version whose games
ran two builds is shown in the report and refused by a comparison (issue 34, item 4)."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from arena.bots import BotSpec
from arena.present.display import render_report
from arena.present.html.report import collect_page
from arena.present.html.report import render_report as render_page
from arena.stats.comparison import CompareError
from arena.tournament.compare import CompareConfig, _refuse_mixed_builds
from arena.tournament.report import build_report
from arena.tournament.store import SCHEMA_VERSION, ResultsStore

from .helpers import write_sql
from .test_results import KEY, make_game

NEW, BASE = "aaaaaaaaaaaa", "bbbbbbbbbbbb"


def record(*builds: str | None) -> dict[str, Any]:
    entrants = []
    for team, build in enumerate(builds):
        entrant = {"name": f"bot{team}", "version": f"{team}" * 12}
        if build is not None:
            entrant["build"] = build
        entrants.append(entrant)
    return {"game": 0, "deals": [], "meta": {"entrants": entrants}}


def stored(path: Path, games: list[tuple[str | None, str | None, str | None]]) -> None:
    """A run ``r`` of entrants new@1, base@1, base@1 whose game ``i`` ran ``games[i]``."""
    with ResultsStore.open(path) as store:
        ids = (
            store.upsert_entrant("new", "1", ["./new"]),
            store.upsert_entrant("base", "1", ["./base"]),
        )
        store.start_run("r", None, {}, KEY)
        store.ensure_match("r", "m", (ids[0], ids[1], ids[1]))
        for index, builds in enumerate(games):
            store.record_game("r", "m", make_game(index, record=record(*builds)))


def test_each_seat_row_keeps_the_build_its_team_ran(tmp_path: Path) -> None:
    stored(tmp_path / "a.db", [(NEW, BASE, BASE), (NEW, None, BASE)])
    with sqlite3.connect(tmp_path / "a.db") as conn:
        rows = conn.execute(
            "SELECT game_id, seat, build_digest FROM seat_stats ORDER BY game_id, seat"
        ).fetchall()
    first, second = rows[:6], rows[6:]
    assert [digest for _, _, digest in first] == [NEW, BASE, BASE, NEW, BASE, BASE]
    assert [digest for _, _, digest in second] == [NEW, None, BASE, NEW, None, BASE]
    with ResultsStore.open(tmp_path / "a.db") as store:
        assert store.builds("r") == {"new@1": {NEW: 2}, "base@1": {BASE: 2}}
        assert store.mixed_builds("r") == {}


def test_a_malformed_build_digest_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    with ResultsStore.open(tmp_path / "a.db") as store:
        entrant = store.upsert_entrant("new", "1", ["./new"])
        store.start_run("r", None, {}, KEY)
        store.ensure_match("r", "m", (entrant, entrant, entrant))
        with pytest.raises(ValueError, match="not 12 hex digits"):
            store.record_game("r", "m", make_game(0, record=record("x'; DROP", NEW, NEW)))
        assert store.games("r") == []


def test_two_builds_of_one_version_show_in_the_report_and_on_its_page(tmp_path: Path) -> None:
    other = "cccccccccccc"
    stored(tmp_path / "a.db", [(NEW, BASE, BASE), (other, BASE, BASE), (other, BASE, BASE)])
    with ResultsStore.open(tmp_path / "a.db") as store:
        report = build_report(store, "r")
        page = render_page(collect_page(store, "r"))
    assert report.mixed_builds == {"new@1": {NEW: 1, other: 2}}
    assert report.to_json()["mixed_builds"] == {"new@1": {NEW: 1, other: 2}}
    console = Console(record=True, width=200)
    render_report(console, report)
    text = console.export_text()
    warning = f"warning: new@1 ran 2 different builds in this run ({NEW}: 1 games, {other}: 2"
    assert warning in text
    assert text.index(warning) < text.index("Standings")  # before the figures it spoils
    assert "ran 2 different builds" in page


def test_a_comparison_refuses_games_of_two_builds(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    stored(db, [(NEW, BASE, BASE)])
    spec = BotSpec("new", "1", ("./new",), tmp_path, None, build_digest=NEW)
    base = dataclasses.replace(spec, name="base", build_digest=BASE)
    config = CompareConfig(entrants=(spec, base), games=1, seed=None, jobs=1, db_path=db, name="r")
    with ResultsStore.open(db) as store:
        _refuse_mixed_builds(store, config)  # one build each, the one built here: played on
        other = dataclasses.replace(spec, build_digest="d" * 12)
        rebuilt = dataclasses.replace(config, entrants=(other, base))
        with pytest.raises(CompareError, match="new@1 ran different builds") as refused:
            _refuse_mixed_builds(store, rebuilt)
        assert f"{NEW} in 1 games; it is built as dddddddddddd here" in str(refused.value)


def test_a_version_5_store_gains_the_column_with_its_games_kept(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    stored(db, [(NEW, BASE, BASE)])
    write_sql(
        db,
        "ALTER TABLE seat_stats DROP COLUMN build_digest",
        "ALTER TABLE games DROP COLUMN forfeited",
        "PRAGMA user_version=5",
    )
    with ResultsStore.open(db) as store:
        assert len(store.games("r")) == 1
        assert store.builds("r") == {}  # not recorded then
        store.record_game("r", "m", make_game(1, record=record(NEW, BASE, BASE)))
        assert store.builds("r") == {"new@1": {NEW: 1}, "base@1": {BASE: 1}}
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        columns = [row[1] for row in conn.execute("PRAGMA table_info(seat_stats)")]
    assert columns[-1] == "build_digest"


def test_the_record_names_the_build(tmp_path: Path) -> None:
    """What the match writes into a record's meta, which the store reads the digest from."""
    from arena.referee.match import _entrant_meta

    spec = BotSpec("x", "1" * 12, ("./x",), tmp_path, None)
    assert _entrant_meta(spec) == {"name": "x", "version": "1" * 12}
    built = json.loads(json.dumps(_entrant_meta(dataclasses.replace(spec, build_digest=NEW))))
    assert built == {"name": "x", "version": "1" * 12, "build": NEW}
