"""Results schema 4: a fault tied to the decision it replaced, and the upgrade from 3."""

from __future__ import annotations

import json
import sqlite3
import zlib
from pathlib import Path

import pytest

from arena.referee.policy import Fault, FaultKind
from arena.tournament.store import SCHEMA_VERSION, ResultsStore

from .helpers import old_store
from .test_results import KEY, RUN, SEAT_STATS_1_TO_4, make_game

# The schema of version 3 as an arena of that version created it, word for word.
SCHEMA_3 = (
    """CREATE TABLE runs (id TEXT PRIMARY KEY, created_at TEXT NOT NULL, finished_at TEXT,
       settings TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('running', 'finished',
       'interrupted')), seed INTEGER, deal_key BLOB CHECK (deal_key IS NULL OR
       length(deal_key) >= 16)) STRICT""",
    """CREATE TABLE entrants (id INTEGER PRIMARY KEY, name TEXT NOT NULL, version TEXT NOT
       NULL, command TEXT NOT NULL, UNIQUE (name, version)) STRICT""",
    """CREATE TABLE matches (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL REFERENCES runs (id),
       match_key TEXT NOT NULL, entrant_team0 INTEGER NOT NULL REFERENCES entrants (id),
       entrant_team1 INTEGER NOT NULL REFERENCES entrants (id), entrant_team2 INTEGER NOT
       NULL REFERENCES entrants (id), started_at TEXT NOT NULL, finished_at TEXT, UNIQUE
       (run_id, match_key)) STRICT""",
    """CREATE TABLE games (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL REFERENCES runs (id),
       match_id INTEGER NOT NULL REFERENCES matches (id), game_index INTEGER NOT NULL, winner
       INTEGER CHECK (winner IS NULL OR winner BETWEEN 0 AND 2), score_team0 INTEGER NOT
       NULL, score_team1 INTEGER NOT NULL, score_team2 INTEGER NOT NULL, deals INTEGER NOT
       NULL, duration_s REAL NOT NULL, record BLOB NOT NULL, finished_at TEXT NOT NULL,
       UNIQUE (match_id, game_index)) STRICT""",
    "CREATE INDEX games_by_run ON games (run_id)",
    SEAT_STATS_1_TO_4,
    """CREATE TABLE faults (id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL REFERENCES games
       (id), deal_number INTEGER NOT NULL, seat INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 5),
       kind TEXT NOT NULL, reason TEXT NOT NULL, request_id INTEGER NOT NULL, sent TEXT NOT
       NULL, fallback TEXT NOT NULL) STRICT""",
    "CREATE INDEX faults_by_game ON faults (game_id)",
)
V3_FAULTS = [
    (1, 1, 2, 0, "timeout", "no answer within 1000 ms plus the bank", 4, "", "pass"),
    (2, 1, 3, 3, "illegal", "R7.2: must follow", 9, "play 2C", "play 7H"),
    (3, 1, 0, 1, "no_join", "the bot did not join before the deadline", 0, "", ""),
]
V2_RECORD = {"format": "schmier-game-record", "version": 2, "deals": []}


def version_3_store(path: Path) -> None:
    conn = old_store(path, SCHEMA_3, 3)
    conn.execute(
        "INSERT INTO runs VALUES ('old', '2026-01-01', NULL, '{}', 'finished', NULL, ?)", (KEY,)
    )
    conn.execute("INSERT INTO entrants VALUES (1, 'bot', '1', '[\"bot\"]')")
    conn.execute("INSERT INTO matches VALUES (1, 'old', 'm0', 1, 1, 1, '2026-01-01', NULL)")
    record = zlib.compress(json.dumps(V2_RECORD).encode())
    conn.execute(
        "INSERT INTO games VALUES (1, 'old', 1, 0, 2, 1, 2, 21, 4, 1.5, ?, '2026-01-01')",
        (record,),
    )
    conn.executemany(
        "INSERT INTO seat_stats VALUES (1, ?, ?, 1, 3, 0.1, 0.05, 1, 0, ?, ?)",
        [(seat, seat % 3, (1, 2, 21)[seat % 3], int(seat in (0, 1, 3))) for seat in range(6)],
    )
    conn.executemany("INSERT INTO faults VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", V3_FAULTS)
    conn.commit()
    conn.close()


def fault_columns(path: Path) -> list[tuple[str, str, int]]:
    conn = sqlite3.connect(path)
    try:
        return [(r[1], r[2], r[3]) for r in conn.execute("PRAGMA table_info(faults)")]
    finally:
        conn.close()


def test_a_version_3_store_is_upgraded_in_place_with_null_decision_indexes(
    tmp_path: Path,
) -> None:
    """Opened, a version 3 store is upgraded through 4: its faults keep every field and get no
    decision index (its records list no decisions to point at); new games store theirs."""
    path = tmp_path / "v3.db"
    version_3_store(path)
    with ResultsStore.open(path) as store:
        assert store.game_faults(1) == [
            Fault(
                0,
                2,
                0,
                FaultKind.TIMEOUT,
                "no answer within 1000 ms plus the bank",
                "",
                "pass",
                4,
                None,
            ),
            Fault(0, 3, 3, FaultKind.ILLEGAL, "R7.2: must follow", "play 2C", "play 7H", 9),
            Fault(0, 0, 1, FaultKind.NO_JOIN, "the bot did not join before the deadline"),
        ]
        assert store.game_record(1) == V2_RECORD
        assert store.fault_counts("old") == {"illegal": 1, "no_join": 1, "timeout": 1}
        store.start_run(RUN, None, {}, KEY)
        store.ensure_match(RUN, "m0", (1, 1, 1))
        fault = Fault(0, 1, 4, FaultKind.MALFORMED, "not a BotMessage", "ff", "pass", 3, 2)
        game_id = store.record_game(RUN, "m0", make_game(0, faults=(fault,)))
        assert store.game_faults(game_id) == [fault]
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 6
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        indexes = {row[1] for row in conn.execute("PRAGMA index_list(faults)")}
        assert indexes == {"faults_by_game"}
    finally:
        conn.close()
    # The upgraded table is the table a new store makes, column for column.
    with ResultsStore.open(tmp_path / "new.db"):
        pass
    assert fault_columns(path) == fault_columns(tmp_path / "new.db")
    assert fault_columns(path)[-1] == ("decision_index", "INTEGER", 0)


def test_a_decision_index_is_never_negative(tmp_path: Path) -> None:
    with ResultsStore.open(tmp_path / "results.db") as store:
        store.start_run(RUN, None, {}, KEY)
        entrant = store.upsert_entrant("bot", "1", ["bot"])
        store.ensure_match(RUN, "m0", (entrant, entrant, entrant))
        bad = Fault(0, 1, 4, FaultKind.MALFORMED, "not a BotMessage", "ff", "pass", 3, -1)
        with pytest.raises(sqlite3.IntegrityError, match="CHECK constraint"):
            store.record_game(RUN, "m0", make_game(0, faults=(bad,)))
        assert store.completed_games(RUN) == set()  # nothing of the game was kept
