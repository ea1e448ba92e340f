"""Tests of the SQLite results store, on real database files."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
import zlib
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import arena
from arena.engine import GameKey
from arena.referee.policy import Fault, FaultKind
from arena.referee.result import GameResult, SeatStats
from arena.stats import rates as stats
from arena.tournament.store import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    DuplicateGameError,
    ResultsStore,
    ResultsStoreError,
)
from arena.tournament.store.schema import _MIGRATION_FROM_1

from .helpers import entrants, find_game, old_store, runs, write_sql

RUN = "run-1"
KEY = bytes(range(32))  # a run's deal key (secret in real runs)


def make_game(
    index: int,
    winner: int | None = 0,
    scores: tuple[int, int, int] = (12, 7, 5),
    faults: tuple[Fault, ...] = (),
    record: dict[str, Any] | None = None,
) -> GameResult:
    seats = tuple(
        SeatStats(
            seat=seat,
            decisions=10 + seat,
            decision_seconds_total=0.5 + seat / 10,
            decision_seconds_max=0.1 + seat / 100,
            bids_made=seat % 2 + 1,
            bids_won=seat % 2,
            faults=sum(1 for f in faults if f.seat == seat),
        )
        for seat in range(6)
    )
    return GameResult(
        game_index=index,
        key=GameKey.from_seed(index),
        winner=winner,
        scores=scores,
        deals=6,
        deal_points=(scores, (0, 0, 0)),  # the team points are the scores, for the checks
        duration_s=1.25,
        record=record if record is not None else {"game": index, "deals": [[1, 2, 3]] * 4},
        seats=seats,
        faults=faults,
    )


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ResultsStore]:
    with ResultsStore.open(tmp_path / "results.db") as s:
        yield s


def _three_entrants(store: ResultsStore) -> tuple[int, int, int]:
    return (
        store.upsert_entrant("alpha", "1", ["python", "-m", "alpha"]),
        store.upsert_entrant("beta", "", ["./beta"]),
        store.upsert_entrant("gamma", "2.0", ["./gamma", "--fast"]),
    )


# -- opening -----------------------------------------------------------------------------------


def test_open_creates_parent_dirs_schema_and_wal(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "results.db"
    with ResultsStore.open(path) as s:
        assert runs(s) == []
        assert s.latest_run_id() is None
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()


def test_reopen_existing_store_keeps_data(tmp_path: Path) -> None:
    path = tmp_path / "results.db"
    with ResultsStore.open(path) as s:
        s.start_run(RUN, 7, {"games": 2}, KEY)
        ids = _three_entrants(s)
        s.ensure_match(RUN, "m0", ids)
        game_id = s.record_game(RUN, "m0", make_game(0))
    with ResultsStore.open(path) as s:
        assert s.latest_run_id() == RUN
        assert s.completed_games(RUN) == {("m0", 0)}
        assert s.game_record(game_id) == make_game(0).record
        assert s.upsert_entrant("alpha", "1", ["python", "-m", "alpha"]) == ids[0]


@pytest.mark.parametrize(
    "content",
    [b"this is a text file, not a database\n" * 20, os.urandom(8192)],
    ids=["text", "random-bytes"],
)
def test_open_non_database_file_is_refused(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "not-a-db.db"
    path.write_bytes(content)
    with pytest.raises(ResultsStoreError) as info:
        ResultsStore.open(path)
    message = str(info.value)
    assert "\n" not in message
    assert str(path) in message
    assert "not an SQLite database" in message
    assert path.read_bytes() == content  # left untouched


def test_open_foreign_sqlite_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    write_sql(path, "CREATE TABLE notes (body TEXT)")
    with pytest.raises(ResultsStoreError, match="not a Schmier Arena results store"):
        ResultsStore.open(path)
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    finally:
        conn.close()


def test_open_unknown_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "results.db"
    ResultsStore.open(path).close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version=99")
    conn.close()
    with pytest.raises(ResultsStoreError, match="schema version 99") as info:
        ResultsStore.open(path)
    assert "\n" not in str(info.value)


def test_open_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ResultsStoreError, match="is a directory"):
        ResultsStore.open(tmp_path)


# -- runs, entrants, matches -------------------------------------------------------------------


def test_start_run_is_idempotent_and_finish_run(store: ResultsStore) -> None:
    first = store.start_run(RUN, 42, {"games_per_match": 10}, KEY)
    assert first.status == "running"
    assert first.settings == {"games_per_match": 10}
    store.finish_run(RUN, "interrupted")
    interrupted = store.run(RUN)
    assert interrupted is not None
    assert interrupted.status == "interrupted"
    assert interrupted.finished_at is not None

    resumed = store.start_run(RUN, 42, {"games_per_match": 10}, KEY)
    assert resumed.created_at == first.created_at
    assert resumed.status == "running"
    assert resumed.finished_at is None

    store.finish_run(RUN, "finished")
    store.start_run("run-2", 1, {}, KEY)
    assert [r.id for r in runs(store)] == [RUN, "run-2"]
    assert [r.status for r in runs(store)] == ["finished", "running"]
    assert store.latest_run_id() == "run-2"

    with pytest.raises(KeyError):
        store.finish_run("nope", "finished")
    with pytest.raises(ValueError):
        store.finish_run(RUN, "running")  # type: ignore[arg-type]


def test_the_deal_key_is_stored_once_and_read_back_on_resume(store: ResultsStore) -> None:
    """The run's first key is kept: a resumed run (even one asking with another key) deals
    as before; a secret run stores no seed."""
    store.start_run(RUN, None, {}, KEY)
    resumed = store.start_run(RUN, None, {}, bytes(32))
    assert store.deal_key(RUN) == KEY and resumed.seed is None
    store.start_run("seeded", 7, {}, bytes(32))
    seeded = store.run("seeded")
    assert seeded is not None and seeded.seed == 7 and store.deal_key("seeded") == bytes(32)
    assert KEY.hex() not in repr(runs(store))
    with pytest.raises(KeyError):
        store.deal_key("nope")
    with pytest.raises(sqlite3.IntegrityError):
        store.start_run("weak", None, {}, bytes(8))  # below 128 bits: refused by the schema


# The seat_stats table as versions 1 to 4 created it (their schemas differ elsewhere).
SEAT_STATS_1_TO_4 = """\
CREATE TABLE seat_stats (game_id INTEGER NOT NULL REFERENCES games (id), seat INTEGER
       NOT NULL CHECK (seat BETWEEN 0 AND 5), team INTEGER NOT NULL CHECK (team = seat % 3),
       entrant_id INTEGER NOT NULL REFERENCES entrants (id), decisions INTEGER NOT NULL,
       decision_seconds_total REAL NOT NULL, decision_seconds_max REAL NOT NULL, bids_made
       INTEGER NOT NULL, bids_won INTEGER NOT NULL, points_won INTEGER NOT NULL, faults
       INTEGER NOT NULL, PRIMARY KEY (game_id, seat)) STRICT"""

# The schema of version 1, as the arena before deal keys wrote it (games: one seed each).
_SCHEMA_1 = (
    """CREATE TABLE runs (id TEXT PRIMARY KEY, created_at TEXT NOT NULL, finished_at TEXT,
       seed INTEGER NOT NULL, settings TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN
       ('running', 'finished', 'interrupted'))) STRICT""",
    """CREATE TABLE entrants (id INTEGER PRIMARY KEY, name TEXT NOT NULL, version TEXT NOT
       NULL, command TEXT NOT NULL, UNIQUE (name, version)) STRICT""",
    """CREATE TABLE matches (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL REFERENCES runs (id),
       match_key TEXT NOT NULL, entrant_team0 INTEGER NOT NULL REFERENCES entrants (id),
       entrant_team1 INTEGER NOT NULL REFERENCES entrants (id), entrant_team2 INTEGER NOT NULL
       REFERENCES entrants (id), started_at TEXT NOT NULL, finished_at TEXT,
       UNIQUE (run_id, match_key)) STRICT""",
    """CREATE TABLE games (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL REFERENCES runs (id),
       match_id INTEGER NOT NULL REFERENCES matches (id), game_index INTEGER NOT NULL,
       seed INTEGER NOT NULL, winner INTEGER CHECK (winner IS NULL OR winner BETWEEN 0 AND 2),
       score_team0 INTEGER NOT NULL, score_team1 INTEGER NOT NULL, score_team2 INTEGER NOT
       NULL, deals INTEGER NOT NULL, duration_s REAL NOT NULL, record BLOB NOT NULL,
       finished_at TEXT NOT NULL, UNIQUE (match_id, game_index)) STRICT""",
    "CREATE INDEX games_by_run ON games (run_id)",
    SEAT_STATS_1_TO_4,
    """CREATE TABLE faults (id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL REFERENCES games
       (id), seat INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 5), kind TEXT NOT NULL, reason
       TEXT NOT NULL, detail TEXT NOT NULL) STRICT""",
    "CREATE INDEX faults_by_game ON faults (game_id)",
)


# Version 2 wrote a fault's sent and fallback as one detail text (and no deal or request).
OLD_FAULTS = [
    (1, 0, "timeout", "no answer within 1000 ms plus the bank", "sent='' fallback='pass'"),
    (2, 3, "malformed", "not a BotMessage", "sent='ff00…' fallback='play 7C'"),
    (3, 4, "illegal", "R7.2: must follow", "sent=\"it's\" fallback='play 2C'"),
    (4, 1, "no_join", "the bot did not join", "not written by an arena"),
]
UPGRADED_FAULTS = (
    Fault(0, 0, 0, FaultKind.TIMEOUT, "no answer within 1000 ms plus the bank", "", "pass"),
    Fault(0, 0, 3, FaultKind.MALFORMED, "not a BotMessage", "ff00…", "play 7C"),
    Fault(0, 0, 4, FaultKind.ILLEGAL, "R7.2: must follow", "it's", "play 2C"),
    Fault(0, 0, 1, FaultKind.NO_JOIN, "the bot did not join", "not written by an arena"),
)


def test_a_version_2_store_gets_its_faults_field_by_field(tmp_path: Path) -> None:
    """Version 2 squashed a fault's sent and fallback into one detail text: opened, the
    store has them in columns of their own, and the rest of the file as it was."""
    path = tmp_path / "v2.db"
    conn = old_store(path, (*_SCHEMA_1, *_MIGRATION_FROM_1), 2)
    conn.execute(
        "INSERT INTO runs VALUES ('old', '2026-01-01', NULL, '{}', 'finished', 1, ?)", (KEY,)
    )
    conn.execute("INSERT INTO entrants VALUES (1, 'bot', '1', '[\"bot\"]')")
    conn.execute("INSERT INTO matches VALUES (1, 'old', 'm0', 1, 1, 1, '2026-01-01', NULL)")
    record = zlib.compress(json.dumps({"version": 1}).encode())
    conn.execute(
        "INSERT INTO games VALUES (1, 'old', 1, 0, 2, 1, 2, 21, 4, 1.5, ?, '2026-01-01')",
        (record,),
    )
    conn.executemany("INSERT INTO faults VALUES (?, 1, ?, ?, ?, ?)", OLD_FAULTS)
    conn.commit()
    conn.close()

    with ResultsStore.open(path) as s:
        game = find_game(s, 1)
        assert game is not None and game.faults == UPGRADED_FAULTS
        assert s.fault_counts("old") == {"illegal": 1, "malformed": 1, "no_join": 1, "timeout": 1}
        assert s.deal_key("old") == KEY
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        indexes = {row[1] for row in conn.execute("PRAGMA index_list(faults)")}
        assert indexes == {"faults_by_game"}
    finally:
        conn.close()


def test_a_version_1_store_is_upgraded_and_its_runs_stay_readable(tmp_path: Path) -> None:
    """A store written before deal keys: opened, it becomes the current version; its games,
    stats, faults and records are kept; its runs keep their seed and cannot be resumed
    (guessable deals)."""
    path = tmp_path / "old.db"
    conn = old_store(path, _SCHEMA_1, 1)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("INSERT INTO runs VALUES ('old', '2026-01-01', NULL, 1, '{}', 'finished')")
    conn.execute("INSERT INTO entrants VALUES (1, 'bot', '1', '[\"bot\"]')")
    conn.execute("INSERT INTO matches VALUES (1, 'old', 'm0', 1, 1, 1, '2026-01-01', NULL)")
    record = zlib.compress(json.dumps({"version": 1, "seed": 99}).encode())
    conn.execute(
        "INSERT INTO games VALUES (1, 'old', 1, 0, 99, 2, 1, 2, 21, 4, 1.5, ?, '2026-01-01')",
        (record,),
    )
    conn.executemany(
        "INSERT INTO seat_stats VALUES (1, ?, ?, 1, 3, 0.1, 0.05, 1, 0, ?, 0)",
        [(seat, seat % 3, (1, 2, 21)[seat % 3]) for seat in range(6)],
    )
    conn.executemany("INSERT INTO faults VALUES (?, 1, ?, ?, ?, ?)", OLD_FAULTS)
    conn.commit()
    conn.close()

    with ResultsStore.open(path) as s:
        (run,) = runs(s)
        assert (run.id, run.seed, run.status) == ("old", 1, "finished")
        game = find_game(s, 1)
        assert game is not None and (game.winner, game.scores) == (2, (1, 2, 21))
        assert game.faults == UPGRADED_FAULTS
        assert s.game_record(1) == {"version": 1, "seed": 99}
        assert len(s.entrant_game_rows("old")) == 3
        with pytest.raises(ResultsStoreError, match="older arena whose deals could be guessed"):
            s.deal_key("old")
        # New runs go into the upgraded file as into a new one.
        s.start_run(RUN, None, {}, KEY)
        s.ensure_match(RUN, "m0", (1, 1, 1))
        s.record_game(RUN, "m0", make_game(0))
        assert s.deal_key(RUN) == KEY
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 6
        columns = {row[1] for row in conn.execute("PRAGMA table_info(games)")}
        assert "seed" not in columns
        fault_columns = [row[1] for row in conn.execute("PRAGMA table_info(faults)")]
        assert "detail" not in fault_columns and "fallback" in fault_columns
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        conn.close()


def test_upsert_entrant(store: ResultsStore) -> None:
    a = store.upsert_entrant("alpha", "1", ["a"])
    assert store.upsert_entrant("alpha", "1", ["a", "--new-path"]) == a
    b = store.upsert_entrant("alpha", "2", ["a"])
    assert b != a
    (e1, e2) = entrants(store)
    assert (e1.id, e1.label, e1.command) == (a, "alpha@1", ["a", "--new-path"])
    assert (e2.id, e2.label) == (b, "alpha@2")
    with pytest.raises(TypeError):
        store.upsert_entrant("alpha", "3", "a --flag")


def test_ensure_match(store: ResultsStore) -> None:
    store.start_run(RUN, 1, {}, KEY)
    ids = _three_entrants(store)
    match_id = store.ensure_match(RUN, "triple=0:seating=0", ids)
    assert store.ensure_match(RUN, "triple=0:seating=0", ids) == match_id
    assert store.ensure_match(RUN, "triple=0:seating=1", (ids[1], ids[2], ids[0])) != match_id
    with pytest.raises(ResultsStoreError, match="stored with entrants"):
        store.ensure_match(RUN, "triple=0:seating=0", (ids[1], ids[2], ids[0]))
    with pytest.raises(KeyError):
        store.ensure_match("no-such-run", "m", ids)
    with pytest.raises(KeyError):
        store.ensure_match(RUN, "m", (ids[0], ids[1], 9999))
    store.finish_match(RUN, "triple=0:seating=0")
    with pytest.raises(KeyError):
        store.finish_match(RUN, "unknown")


# -- games -------------------------------------------------------------------------------------


def test_game_round_trip_with_stats_and_faults(store: ResultsStore) -> None:
    store.start_run(RUN, 1, {}, KEY)
    ids = _three_entrants(store)
    store.ensure_match(RUN, "m0", ids)
    faults = (
        Fault(3, 2, 4, FaultKind.TIMEOUT, "no answer within 2000 ms", "", "play 7H", 12, 7),
        Fault(
            3, 2, 1, FaultKind.ILLEGAL, "R7.2: seat 1 does not hold 7H", "play 7H", "pass", 13, 0
        ),
        Fault(3, 4, 4, FaultKind.MALFORMED, "not a BotMessage", "ff00", "play 2C", 20, 31),
        Fault(3, 0, 0, FaultKind.NO_JOIN, "the bot did not join before the deadline"),
    )
    game = make_game(3, winner=1, scores=(3, 21, 9), faults=faults)
    game_id = store.record_game(RUN, "m0", game)

    stored = find_game(store, game_id)
    assert stored is not None
    assert (stored.run_id, stored.match_key, stored.game_index) == (RUN, "m0", 3)
    assert (stored.winner, stored.scores) == (1, (3, 21, 9))
    assert (stored.deals, stored.duration_s) == (6, 1.25)
    assert stored.entrant_ids == ids
    assert stored.seats == game.seats
    assert stored.points_won == (3, 21, 9, 3, 21, 9)
    assert stored.faults == faults == tuple(store.game_faults(game_id))
    assert stored.finished_at
    assert store.game_record(game_id) == game.record
    assert find_game(store, game_id + 1) is None
    with pytest.raises(KeyError):
        store.game_record(game_id + 1)


def test_seat_rows_carry_team_and_entrant(store: ResultsStore, tmp_path: Path) -> None:
    store.start_run(RUN, 1, {}, KEY)
    ids = _three_entrants(store)
    store.ensure_match(RUN, "m0", ids)
    game_id = store.record_game(RUN, "m0", make_game(0))
    conn = sqlite3.connect(tmp_path / "results.db")
    try:
        rows = conn.execute(
            "SELECT seat, team, entrant_id FROM seat_stats WHERE game_id = ? ORDER BY seat",
            (game_id,),
        ).fetchall()
    finally:
        conn.close()
    assert rows == [(seat, seat % 3, ids[seat % 3]) for seat in range(6)]


def test_record_is_stored_compressed(store: ResultsStore, tmp_path: Path) -> None:
    store.start_run(RUN, 1, {}, KEY)
    store.ensure_match(RUN, "m0", _three_entrants(store))
    record = {
        "seed": 5,
        "players": ["alpha", "beta", "gamma"],
        "deals": [{"bids": [1, 2, 3], "tricks": [["7H", "8H", "9H", "TH", "JH", "QH"]] * 8}] * 20,
        "note": "é ünïcode ✓",
        "score": 1.5,
    }
    game_id = store.record_game(RUN, "m0", make_game(0, record=record))
    conn = sqlite3.connect(tmp_path / "results.db")
    try:
        (blob,) = conn.execute("SELECT record FROM games WHERE id = ?", (game_id,)).fetchone()
    finally:
        conn.close()
    assert isinstance(blob, bytes)
    plain = json.dumps(record).encode()
    assert len(blob) < len(plain) / 5
    assert json.loads(zlib.decompress(blob)) == record
    assert store.game_record(game_id) == record


def test_duplicate_game_is_refused_and_changes_nothing(store: ResultsStore) -> None:
    store.start_run(RUN, 1, {}, KEY)
    ids = _three_entrants(store)
    store.ensure_match(RUN, "m0", ids)
    store.ensure_match(RUN, "m1", ids)
    game_id = store.record_game(RUN, "m0", make_game(0))
    with pytest.raises(DuplicateGameError, match="already stored"):
        store.record_game(
            RUN, "m0", make_game(0, winner=2, faults=(Fault(0, 1, 0, FaultKind.FLOOD, "r"),))
        )
    # Same index in another match, or in another run, is a different game.
    store.record_game(RUN, "m1", make_game(0))
    store.start_run("run-2", 1, {}, KEY)
    store.ensure_match("run-2", "m0", ids)
    store.record_game("run-2", "m0", make_game(0))

    original = find_game(store, game_id)
    assert original is not None
    assert original.winner == 0
    assert original.faults == ()
    assert len(store.entrant_game_rows(RUN)) == 2 * 3  # 2 games x 3 teams, no leftovers


def test_record_game_validation_writes_nothing(store: ResultsStore) -> None:
    store.start_run(RUN, 1, {}, KEY)
    store.ensure_match(RUN, "m0", _three_entrants(store))
    good = make_game(0)
    bad_games = [
        replace(good, seats=good.seats[:5]),
        replace(good, winner=3),
        replace(good, game_index=-1),
        replace(good, faults=(Fault(0, 1, 6, FaultKind.FLOOD, "r"),)),
        replace(good, seats=(*good.seats[:5], SeatStats(seat=4))),
        replace(good, deal_points=((1, 2),)),  # type: ignore[arg-type]
        replace(good, record={"x": float("nan")}),
    ]
    for bad in bad_games:
        with pytest.raises(ValueError):
            store.record_game(RUN, "m0", bad)
    with pytest.raises(KeyError):
        store.record_game(RUN, "no-such-match", good)
    assert store.completed_games(RUN) == set()


def test_completed_games(store: ResultsStore) -> None:
    store.start_run(RUN, 1, {}, KEY)
    store.start_run("other", 1, {}, KEY)
    ids = _three_entrants(store)
    for key in ("triple=0:seating=0", "triple=0:seating=1"):
        store.ensure_match(RUN, key, ids)
    store.ensure_match("other", "triple=0:seating=0", ids)
    store.record_game(RUN, "triple=0:seating=0", make_game(0))
    store.record_game(RUN, "triple=0:seating=0", make_game(2))
    store.record_game(RUN, "triple=0:seating=1", make_game(1))
    store.record_game("other", "triple=0:seating=0", make_game(5))
    assert store.completed_games(RUN) == {
        ("triple=0:seating=0", 0),
        ("triple=0:seating=0", 2),
        ("triple=0:seating=1", 1),
    }
    assert store.completed_games("other") == {("triple=0:seating=0", 5)}
    assert store.completed_games("nothing") == set()


# -- report queries ----------------------------------------------------------------------------


def test_entrant_rows_and_standings_add_up_three_entrants(store: ResultsStore) -> None:
    store.start_run(RUN, 1, {}, KEY)
    a, b, c = _three_entrants(store)
    seatings = {"s0": (a, b, c), "s1": (b, c, a), "s2": (c, a, b)}
    for key, ids in seatings.items():
        store.ensure_match(RUN, key, ids)
    winners: list[int | None] = [0, 1, 2, None, 0, 0, None, 2, 1]
    for i, winner in enumerate(winners):
        key = f"s{i % 3}"
        store.record_game(RUN, key, make_game(i, winner=winner, scores=(i, 2 * i, 10)))

    rows = store.entrant_game_rows(RUN)
    assert len(rows) == 3 * len(winners)
    table = stats.standings(rows)
    assert {s.entrant for s in table} == {"alpha@1", "beta", "gamma@2.0"}
    for s in table:
        assert s.games == len(winners)
        assert s.games == s.wins + s.draws + s.losses
        assert s.draws == winners.count(None)
    decisive = sum(1 for w in winners if w is not None)
    assert sum(s.wins for s in table) == decisive

    # Per-team figures are summed over the team's two seats (see make_game).
    first = rows[0]  # game 0, team 0: seats 0 and 3
    assert first.entrant == "alpha@1"
    assert first.outcome == "win"
    assert first.points == 0
    assert first.deals == 6
    assert (first.bids_made, first.bids_won) == (1 + 2, 0 + 1)
    assert first.decisions == 10 + 13
    assert first.decision_seconds_total == pytest.approx(0.5 + 0.8)

    # Winner-by-entrant from the raw data, independently of the SQL grouping.
    expected_wins = {"alpha@1": 0, "beta": 0, "gamma@2.0": 0}
    names = {a: "alpha@1", b: "beta", c: "gamma@2.0"}
    for i, winner in enumerate(winners):
        if winner is not None:
            expected_wins[names[seatings[f"s{i % 3}"][winner]]] += 1
    assert {s.entrant: s.wins for s in table} == expected_wins


def test_entrant_rows_two_entrants_one_holding_two_teams(store: ResultsStore) -> None:
    store.start_run(RUN, 1, {}, KEY)
    a = store.upsert_entrant("alpha", "1", ["a"])
    b = store.upsert_entrant("beta", "1", ["b"])
    store.ensure_match(RUN, "aba", (a, b, a))
    faults = (
        Fault(0, 1, 0, FaultKind.TIMEOUT, "slow"),
        Fault(0, 1, 2, FaultKind.TIMEOUT, "slow"),
    )
    store.record_game(RUN, "aba", make_game(0, winner=2, scores=(4, 6, 9), faults=faults))
    store.record_game(RUN, "aba", make_game(1, winner=None, scores=(5, 5, 5)))

    rows = store.entrant_game_rows(RUN)
    assert [(r.entrant, r.outcome, r.points) for r in rows] == [
        ("alpha@1", "loss", 4),
        ("beta@1", "loss", 6),
        ("alpha@1", "win", 9),
        ("alpha@1", "draw", 5),
        ("beta@1", "draw", 5),
        ("alpha@1", "draw", 5),
    ]
    assert [r.faults for r in rows[:3]] == [1, 0, 1]
    table = {s.entrant: s for s in stats.standings(rows)}
    assert (table["alpha@1"].games, table["alpha@1"].wins, table["alpha@1"].draws) == (4, 1, 2)
    assert (table["beta@1"].games, table["beta@1"].losses, table["beta@1"].draws) == (2, 1, 1)

    outcomes = store.game_outcomes(RUN)
    assert outcomes == [
        stats.GameOutcome(("alpha@1", "beta@1", "alpha@1"), (4, 6, 9), 2, seed=0),
        stats.GameOutcome(("alpha@1", "beta@1", "alpha@1"), (5, 5, 5), None, seed=1),
    ]
    h2h = {(h.a, h.b): h for h in stats.head_to_head(outcomes)}
    alpha_beta = h2h[("alpha@1", "beta@1")]  # two alpha teams against beta's in each game
    assert (alpha_beta.pairs, alpha_beta.a_ahead, alpha_beta.ties) == (4, 1, 2)


# -- crash safety ------------------------------------------------------------------------------

_CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from arena.engine import GameKey
    from arena.referee.result import GameResult, SeatStats
    from arena.tournament.store import ResultsStore

    store = ResultsStore.open(Path(sys.argv[1]))
    store.start_run("crash", 1, {}, bytes(32))
    eid = store.upsert_entrant("bot", "1", ["bot"])
    store.ensure_match("crash", "m", (eid, eid, eid))
    # A record large enough that each commit spans several pages of the WAL.
    record = {"moves": [[i, "card-%d" % (i * 7919 % 1000)] for i in range(3000)]}
    seats = tuple(SeatStats(seat=s, decisions=s) for s in range(6))
    i = 0
    while True:
        game = GameResult(
            game_index=i, key=GameKey.from_seed(i), winner=i % 3, scores=(0, 1, 2), deals=1,
            deal_points=((0, 1, 2),), duration_s=0.0, record=record, seats=seats,
        )
        store.record_game("crash", "m", game)
        print(i, flush=True)
        i += 1
    """
)


@pytest.mark.timeout(60)
def test_no_recorded_game_is_lost_when_the_writer_is_killed(tmp_path: Path) -> None:
    path = tmp_path / "crash.db"
    project_root = Path(arena.__file__).resolve().parents[1]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(project_root), env.get("PYTHONPATH")) if p)
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    assert child.stdout is not None
    seen = 0
    deadline = time.monotonic() + 30
    while seen < 40 and time.monotonic() < deadline:
        line = child.stdout.readline()
        if not line:
            break
        seen += 1
    # Kill right away: the child is then most likely in the middle of its next transaction.
    os.kill(child.pid, signal.SIGKILL)
    rest, err = child.communicate(timeout=10)
    assert child.returncode == -signal.SIGKILL, err
    assert seen == 40, f"child printed only {seen} games: {err}"
    printed = set(range(seen))
    # Lines written before the kill are still in the pipe; a cut-off last line is ignored.
    printed |= {int(x) for x in rest.split("\n")[:-1]}

    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        incomplete = conn.execute(
            "SELECT count(*) FROM games g WHERE (SELECT count(*) FROM seat_stats s "
            "WHERE s.game_id = g.id) != 6"
        ).fetchone()[0]
        assert incomplete == 0
    finally:
        conn.close()
    with ResultsStore.open(path) as store:
        stored = {index for key, index in store.completed_games("crash")}
    assert printed <= stored
    # At most one game was committed but not yet announced when the kill landed.
    assert stored == set(range(len(stored)))
    assert len(stored) - len(printed) in (0, 1)
