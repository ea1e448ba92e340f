"""The decision_times table: one row per decision of a stored game, written with it, and
filled once from the stored records when a version 4 store is upgraded in place."""

from __future__ import annotations

import json
import random
import sqlite3
import zlib
from pathlib import Path
from typing import Any

import pytest

from arena.engine import DecisionKind, GameKey
from arena.engine.randomplay import play_random_game
from arena.engine.record import DecisionNote, Fallback, to_record
from arena.referee.result import GameResult, SeatStats
from arena.tournament.store import SCHEMA_VERSION, ResultsStore, ResultsStoreError
from arena.tournament.store.schema import DECISION_KINDS, compress_record

from .helpers import old_store, write_sql
from .test_results import KEY, RUN, make_game
from .test_schema_4 import SCHEMA_3

# The schema of version 4 as an arena of that version created it: version 3's, with the
# faults' decision_index (a new store made it as the last column of the table).
_FAULTS_4 = """CREATE TABLE faults (id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL
   REFERENCES games (id), deal_number INTEGER NOT NULL, seat INTEGER NOT NULL CHECK (seat
   BETWEEN 0 AND 5), kind TEXT NOT NULL, reason TEXT NOT NULL, request_id INTEGER NOT NULL,
   sent TEXT NOT NULL, fallback TEXT NOT NULL, decision_index INTEGER CHECK (decision_index
   IS NULL OR decision_index >= 0)) STRICT"""
SCHEMA_4 = tuple(_FAULTS_4 if s.startswith("CREATE TABLE faults") else s for s in SCHEMA_3)
assert _FAULTS_4 in SCHEMA_4
Row = tuple[int, int, int, str, float | None]


def timed_record(seed: int) -> dict[str, Any]:
    """The record of a whole random game whose every decision has a time, but for an
    auto-played seat 5 after its 40th decision (null, with a fallback), as the referee
    writes it."""
    rng = random.Random(seed)
    game = play_random_game(seed, rng)
    notes = [DecisionNote(round(rng.uniform(0.0005, 0.2), 6)) for _ in range(game.decisions)]
    record = to_record(game, {"game": seed}, notes)
    gone = Fallback("closed", "the seat is auto-played for the rest of the match")
    asked = 0
    for deal in record["deals"]:
        for decision in deal["decisions"]:
            if decision["seat"] == 5:
                asked += 1
                if asked > 40:
                    decision["seconds"], decision["fallback"] = None, gone.to_json()
    return record


def rows_of(record: dict[str, Any]) -> list[Row]:
    """What the table must hold of a record, read from the record as documented."""
    return [
        (number, index, d["seat"], d["kind"], d["seconds"])
        for number, deal in enumerate(record["deals"], start=1)
        for index, d in enumerate(deal["decisions"])
    ]


def game_of(index: int, record: dict[str, Any]) -> GameResult:
    result = record["result"]
    return GameResult(
        game_index=index,
        key=GameKey.from_seed(index),
        winner=result["winner"],
        scores=tuple(result["scores"]),
        deals=result["deals"],
        deal_points=tuple(tuple(d["points_won"]) for d in record["deals"] if "points_won" in d),
        duration_s=2.5,
        record=record,
        seats=tuple(SeatStats(seat=s, decisions=1, decision_seconds_total=0.1) for s in range(6)),
    )


def stored_rows(path: Path, game_id: int) -> list[Row]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(
            """
            SELECT deal_number, decision_index, seat, kind, seconds FROM decision_times
            WHERE game_id = ? ORDER BY deal_number, decision_index
            """,
            (game_id,),
        ).fetchall()
    finally:
        conn.close()


def test_the_kinds_are_the_engines() -> None:
    assert set(DECISION_KINDS) == {kind.value for kind in DecisionKind}


def test_a_stored_game_has_a_row_per_decision_with_the_seconds_of_its_record(
    tmp_path: Path,
) -> None:
    path = tmp_path / "results.db"
    record = timed_record(3)
    with ResultsStore.open(path) as store:
        store.start_run(RUN, None, {}, KEY)
        entrant = store.upsert_entrant("bot", "1", ["bot"])
        store.ensure_match(RUN, "m0", (entrant, entrant, entrant))
        game_id = store.record_game(RUN, "m0", game_of(0, record))
        rows = stored_rows(path, game_id)
        assert rows == rows_of(record)
        assert len(rows) == sum(len(deal["decisions"]) for deal in record["deals"]) > 100
        # Some of each kind, and the auto-played seat's NULLs, are there as recorded.
        assert {row[3] for row in rows} == set(DECISION_KINDS)
        untimed = [row for row in rows if row[4] is None]
        assert untimed and {row[2] for row in untimed} == {5}
        assert store.untimed_games(RUN) == 0
        timed = sorted(row[4] for row in rows if row[4] is not None)
        assert sorted(store.decision_seconds(RUN)["bot@1"]) == timed


def test_a_game_without_decisions_has_no_rows_and_counts_as_untimed(tmp_path: Path) -> None:
    path = tmp_path / "results.db"
    with ResultsStore.open(path) as store:
        store.start_run(RUN, None, {}, KEY)
        entrant = store.upsert_entrant("bot", "1", ["bot"])
        store.ensure_match(RUN, "m0", (entrant, entrant, entrant))
        timed_id = store.record_game(RUN, "m0", game_of(0, timed_record(1)))
        bare_id = store.record_game(RUN, "m0", make_game(1))  # a record with no decisions
        assert stored_rows(path, bare_id) == []
        assert stored_rows(path, timed_id) != []
        assert store.untimed_games(RUN) == 1


@pytest.mark.parametrize(
    "broken",
    [{"seconds": -0.5}, {"kind": "shout"}, {"seat": 6}, {"seat": True}, {"seconds": "1"}],
    ids=["negative", "kind", "seat", "bool-seat", "text-seconds"],
)
def test_a_malformed_decision_is_refused_before_anything_is_written(
    tmp_path: Path, broken: dict[str, Any]
) -> None:
    record = timed_record(2)
    record["deals"][0]["decisions"][3].update(broken)
    with ResultsStore.open(tmp_path / "results.db") as store:
        store.start_run(RUN, None, {}, KEY)
        entrant = store.upsert_entrant("bot", "1", ["bot"])
        store.ensure_match(RUN, "m0", (entrant, entrant, entrant))
        with pytest.raises(ValueError, match="deal 1 decision 3 of the record"):
            store.record_game(RUN, "m0", game_of(0, record))
        assert store.completed_games(RUN) == set()


def version_4_store(path: Path, records: list[bytes]) -> None:
    """A store as a version 4 arena left it: one run, one seating, a game per record."""
    conn = old_store(path, SCHEMA_4, 4)
    conn.execute(
        "INSERT INTO runs VALUES ('old', '2026-01-01', NULL, '{}', 'finished', NULL, ?)", (KEY,)
    )
    conn.execute("INSERT INTO entrants VALUES (1, 'a', '1', '[\"a\"]')")
    conn.execute("INSERT INTO entrants VALUES (2, 'b', '', '[\"b\"]')")
    conn.execute("INSERT INTO matches VALUES (1, 'old', 'm0', 1, 2, 1, '2026-01-01', NULL)")
    for game_id, blob in enumerate(records, start=1):
        conn.execute(
            "INSERT INTO games VALUES (?, 'old', 1, ?, 0, 21, 4, 2, 9, 1.5, ?, '2026-01-01')",
            (game_id, game_id - 1, blob),
        )
        conn.executemany(
            "INSERT INTO seat_stats VALUES (?, ?, ?, ?, 3, 0.1, 0.05, 1, 0, 5, 0)",
            [(game_id, seat, seat % 3, (1, 2, 1)[seat % 3]) for seat in range(6)],
        )
    conn.commit()
    conn.close()


def test_a_version_4_store_is_upgraded_in_place_and_its_decision_times_filled_once(
    tmp_path: Path,
) -> None:
    """Opened, a version 4 store gets the table, filled from the records already stored: a
    timed record's decisions as they are, none for a record without decisions or one that
    cannot be read; the rest of the file as it was."""
    path = tmp_path / "v4.db"
    timed = [timed_record(5), timed_record(6)]
    version_4_store(
        path,
        [
            compress_record(timed[0]),
            compress_record({"format": "schmier-game-record", "version": 2, "deals": []}),
            b"not a zlib stream",
            compress_record(timed[1]),
        ],
    )
    with ResultsStore.open(path) as store:
        assert store.untimed_games("old") == 2
        assert store.game_record(1) == timed[0]
        seconds = store.decision_seconds("old")
    assert stored_rows(path, 1) == rows_of(timed[0])
    assert stored_rows(path, 2) == stored_rows(path, 3) == []
    assert stored_rows(path, 4) == rows_of(timed[1])
    # Seats 0, 3, 2 and 5 are entrant a's (teams 0 and 2), 1 and 4 entrant b's.
    expected: dict[str, list[float]] = {}
    for record in timed:
        for row in rows_of(record):
            if row[4] is not None:
                expected.setdefault("b" if row[2] % 3 == 1 else "a@1", []).append(row[4])
    assert {k: sorted(v) for k, v in seconds.items()} == {k: sorted(v) for k, v in expected.items()}

    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 6
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        count = conn.execute("SELECT COUNT(*) FROM decision_times").fetchone()[0]
    finally:
        conn.close()
    assert count == len(rows_of(timed[0])) + len(rows_of(timed[1]))
    # Opened again, nothing is filled twice.
    with ResultsStore.open(path):
        pass
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT COUNT(*) FROM decision_times").fetchone()[0] == count
    finally:
        conn.close()
    # The upgraded table is the table a new store makes, column for column.
    with ResultsStore.open(tmp_path / "new.db"):
        pass
    assert table_info(path) == table_info(tmp_path / "new.db")


def table_info(path: Path) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(path)
    try:
        return [
            *conn.execute("PRAGMA table_xinfo(decision_times)"),
            *conn.execute("SELECT sql FROM sqlite_schema WHERE name = 'decision_times'"),
        ]
    finally:
        conn.close()


def test_a_failed_upgrade_leaves_the_version_4_store_as_it_was(tmp_path: Path) -> None:
    """The upgrade is one transaction: when it cannot be completed, nothing of it stays."""
    path = tmp_path / "v4.db"
    record = timed_record(7)
    version_4_store(path, [compress_record(record)])
    write_sql(path, "CREATE TABLE decision_times (x INTEGER)")  # in the way of the upgrade
    with pytest.raises(ResultsStoreError, match="from schema version 4"):
        ResultsStore.open(path)
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 4
        columns = [row[1] for row in conn.execute("PRAGMA table_info(decision_times)")]
        assert columns == ["x"]
        (blob,) = conn.execute("SELECT record FROM games WHERE id = 1").fetchone()
    finally:
        conn.close()
    assert json.loads(zlib.decompress(blob)) == record
