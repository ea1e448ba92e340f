"""The contest's tables, in the results database: tokens stored hashed, who plays (never a
retired or suspended version, not even when its bytes come again), rounds numbered by
seeds, uploads counted over a day, and an earlier arena's contest file imported once."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arena.serve.contest import ContestError, ContestStore, hash_token, legacy_contest_path
from arena.tournament.store import SCHEMA_VERSION, ResultsStore


def test_tokens_are_kept_only_as_hashes(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    store = ContestStore.open(db)
    token = store.add_contestant("alice")
    admin = store.new_admin_token()
    assert token is not None and store.add_contestant("house", house=True) is None
    who = store.contestant_of(token)
    assert who is not None and who.name == "alice" and not who.house
    assert store.contestant_of(admin) is None and store.contestant_of("x") is None
    assert store.is_admin(admin) and not store.is_admin(token)
    assert store.new_admin_token() != admin and not store.is_admin(admin)
    with pytest.raises(ContestError, match="exists already"):
        store.add_contestant("alice")
    store.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith(db.name))
    assert token.encode() not in raw and hash_token(token).encode() in raw


def test_the_contest_lives_in_the_results_database(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    ContestStore.open(db).close()
    assert not legacy_contest_path(db).exists()
    with ResultsStore.open(db) as results:  # the same file, a results store as any
        assert results.path == db
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_schema WHERE type='table'")}
    assert {"contest_contestants", "contest_versions", "contest_rounds", "games"} <= tables


def test_the_newest_version_plays_unless_retired_suspended_or_banned(tmp_path: Path) -> None:
    store = ContestStore.open(tmp_path / "arena.db")
    for name in ("alice", "bob"):
        store.add_contestant(name)
    store.add_version("alice", "aaaaaaaaaaa1", "alice/aaaaaaaaaaa1/bot", [])
    store.add_version("alice", "aaaaaaaaaaa2", "alice/aaaaaaaaaaa2/bot", [])
    store.add_version("bob", "bbbbbbbbbbb1", "bob/bbbbbbbbbbb1/bot", [])
    assert [v.label for v in store.laddered()] == ["alice@aaaaaaaaaaa2", "bob@bbbbbbbbbbb1"]
    store.retire("alice", "aaaaaaaaaaa2")
    assert [v.label for v in store.laddered()] == ["bob@bbbbbbbbbbb1"]  # not the older one
    # The same bytes again do not bring a retired version back.
    again = store.add_version("alice", "aaaaaaaaaaa2", "alice/aaaaaaaaaaa2/bot", [])
    assert again.retired and [v.label for v in store.laddered()] == ["bob@bbbbbbbbbbb1"]
    assert store.suspend("bob@bbbbbbbbbbb1", "crash", "3 of its last 4 games: closed")
    assert not store.suspend("bob@bbbbbbbbbbb1", "time", "again")  # suspended once
    bob = store.version("bob", "bbbbbbbbbbb1")
    assert bob is not None and bob.suspended == "crash" and bob.out
    assert "closed" in bob.suspended_reason and bob.suspended_at
    assert store.laddered() == []
    store.reinstate("bob", "bbbbbbbbbbb1")
    assert [v.label for v in store.laddered()] == ["bob@bbbbbbbbbbb1"]
    store.ban("bob")
    assert store.laddered() == []
    with pytest.raises(ContestError):
        store.retire("carol")
    with pytest.raises(ContestError):
        store.reinstate("bob", "nope")
    store.close()


def test_rounds_take_the_next_seeds_and_say_why_they_ended(tmp_path: Path) -> None:
    store = ContestStore.open(tmp_path / "arena.db")
    first = store.start_round(("a@1", "b@1", "c@1"), 2)
    second = store.start_round(("a@2", "a@1"), 3)
    assert (first.first_game, second.first_game) == (0, 2)
    assert second.comparison and not first.comparison
    assert store.next_seed() == 5
    assert store.start_round(("a@1", "b@1", "c@1"), 1).first_game == 5
    store.finish_round(first.id)
    store.finish_round(second.id, "a@2 left the ladder")
    store.finish_round(second.id, "again")  # finished once
    assert [r.id for r in store.rounds(unfinished_only=True)] == [second.id + 1]
    assert store.rounds()[1].entrants == ("a@2", "a@1")
    assert store.rounds()[1].ended == "a@2 left the ladder" and store.rounds()[0].ended is None
    store.close()


def test_uploads_are_counted_over_the_last_day(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    store = ContestStore.open(db)
    store.add_contestant("alice")
    store.record_upload("alice", False, None, "refused: x", "refused: not a bot", "", 0.0)
    store.record_upload("alice", True, "v1", "accepted", "accepted", "log", 42.5)
    count, seconds, oldest = store.uploads_since("alice", 24 * 3600)
    assert (count, seconds) == (2, 42.5) and oldest is not None
    with sqlite3.connect(db) as conn:  # the first one, two days ago
        conn.execute("UPDATE contest_uploads SET at = '2020-01-01T00:00:00+00:00' WHERE id = 1")
    assert store.uploads_since("alice", 24 * 3600)[:2] == (1, 42.5)
    assert [u.status for u in store.uploads("alice")] == ["refused: not a bot", "accepted"]
    store.close()


def test_an_earlier_arenas_contest_file_is_imported_once(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    legacy = legacy_contest_path(db)
    with sqlite3.connect(legacy) as old:
        old.executescript(
            """
            CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE contestants (id INTEGER PRIMARY KEY, name TEXT, token_hash TEXT,
                banned INTEGER, created_at TEXT);
            CREATE TABLE versions (id INTEGER PRIMARY KEY, contestant_id INTEGER, version TEXT,
                path TEXT, checks TEXT, uploaded_at TEXT, retired INTEGER);
            CREATE TABLE uploads (id INTEGER PRIMARY KEY, contestant_id INTEGER, at TEXT,
                accepted INTEGER, version TEXT, reason TEXT, log_tail TEXT);
            CREATE TABLE rounds (id INTEGER PRIMARY KEY, entrants TEXT, games INTEGER,
                first_game INTEGER, started_at TEXT, finished_at TEXT);
            INSERT INTO meta VALUES ('run_id', 'r1'), ('paused', '1');
            INSERT INTO contestants VALUES (1, 'alice', 'h', 0, '2026-01-01');
            INSERT INTO versions VALUES (1, 1, 'v1', 'alice/v1/bot', '[]', '2026-01-01', 1);
            INSERT INTO uploads VALUES (1, 1, '2026-01-01', 1, 'v1', 'accepted', 'log');
            INSERT INTO rounds VALUES (1, '["alice@v1", "x@1", "y@1"]', 1, 0, '2026-01-01', NULL);
            """
        )
    store = ContestStore.open(db)
    assert store.get("run_id") == "r1" and store.paused
    alice = store.version("alice", "v1")
    assert alice is not None and alice.retired
    assert [u.reason for u in store.uploads("alice")] == ["accepted"]
    assert store.rounds()[0].entrants == ("alice@v1", "x@1", "y@1")
    store.close()
    assert not legacy.exists() and legacy.with_name(legacy.name + ".imported").exists()
    again = ContestStore.open(db)  # nothing to import, nothing doubled
    assert len(again.contestants()) == 1
    again.close()
