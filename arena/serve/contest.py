"""The contest's own tables: contestants and their hashed tokens, versions, uploads, the
ladder's rounds and state, in a second SQLite file beside the results database.

A second file, not new tables in the results database: the results store's schema is
versioned and migrated by :mod:`arena.tournament.store`, which refuses a database with
tables it does not know, and ``arena report`` / ``arena replay`` read the ladder's games
there as any run's. What is only the contest's lives here (``<db stem>-contest.db``).

Tokens are 256 random bits, shown once and stored only as their SHA-256: with that much
entropy a hash needs no salt or stretching, and the file gives no one a token.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import secrets
import sqlite3
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from arena.tournament.store.writes import transaction

SCHEMA_VERSION: Final = 1
ADMIN: Final = "admin"

_SCHEMA: Final = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT",
    """
    CREATE TABLE contestants (
        id         INTEGER PRIMARY KEY,
        name       TEXT NOT NULL UNIQUE,
        token_hash TEXT UNIQUE,        -- NULL: a house entrant (the organiser's sample bots)
        banned     INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL
    ) STRICT
    """,
    """
    CREATE TABLE versions (
        id            INTEGER PRIMARY KEY,
        contestant_id INTEGER NOT NULL REFERENCES contestants (id),
        version       TEXT NOT NULL,
        path          TEXT NOT NULL,   -- in the registry, relative to its root
        checks        TEXT NOT NULL,   -- JSON: [[name, passed, detail], ...]
        uploaded_at   TEXT NOT NULL,
        retired       INTEGER NOT NULL DEFAULT 0,
        UNIQUE (contestant_id, version)
    ) STRICT
    """,
    """
    CREATE TABLE uploads (
        id            INTEGER PRIMARY KEY,
        contestant_id INTEGER NOT NULL REFERENCES contestants (id),
        at            TEXT NOT NULL,
        accepted      INTEGER NOT NULL,
        version       TEXT,
        reason        TEXT NOT NULL,   -- one line
        log_tail      TEXT NOT NULL    -- the build's or the validation seat's log
    ) STRICT
    """,
    """
    CREATE TABLE rounds (
        id          INTEGER PRIMARY KEY,
        entrants    TEXT NOT NULL,     -- JSON: a triple's entrant labels, or [NEW, BASE]
        games       INTEGER NOT NULL,  -- per seating
        first_game  INTEGER NOT NULL,  -- its games are the run's seeds first_game ...
        started_at  TEXT NOT NULL,
        finished_at TEXT
    ) STRICT
    """,
)


class ContestError(ValueError):
    """A request the contest refuses (an unknown or banned contestant, a taken name)."""


@dataclass(frozen=True)
class Contestant:
    id: int
    name: str
    house: bool
    banned: bool
    created_at: str


@dataclass(frozen=True)
class Version:
    id: int
    contestant: str
    version: str
    path: str
    checks: list[tuple[str, bool | None, str]]
    uploaded_at: str
    retired: bool

    @property
    def label(self) -> str:
        return f"{self.contestant}@{self.version}"


@dataclass(frozen=True)
class Upload:
    at: str
    accepted: bool
    version: str | None
    reason: str
    log_tail: str


@dataclass(frozen=True)
class Round:
    id: int
    # A triple of entrant labels, or a pair (NEW, BASE): a contestant's latest two
    # versions, in the six seatings of a comparison's seed group
    entrants: tuple[str, ...]
    games: int
    first_game: int
    finished: bool


def contest_path(db_path: Path) -> Path:
    """The contest's file beside the results database."""
    return db_path.with_name(f"{db_path.stem}-contest.db")


def registry_path(db_path: Path) -> Path:
    """The contest's bot registry beside the results database."""
    return db_path.with_name(f"{db_path.stem}-contest-registry")


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(32)


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


class ContestStore:
    """One connection to the contest's file; open with ``ContestStore.open(db_path)``."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    @classmethod
    def open(cls, db_path: Path) -> ContestStore:
        path = contest_path(db_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, isolation_level=None, timeout=30.0, check_same_thread=False)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA foreign_keys = ON")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == 0:
            conn.execute("BEGIN IMMEDIATE")
            if conn.execute("PRAGMA user_version").fetchone()[0] == 0:
                for statement in _SCHEMA:
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        elif version != SCHEMA_VERSION:
            conn.close()
            raise ContestError(f"{path} has contest schema {version}, not {SCHEMA_VERSION}")
        return cls(conn)

    def close(self) -> None:
        self._conn.close()

    def _write(self) -> AbstractContextManager[sqlite3.Connection]:
        return transaction(self._conn)  # as the results store writes

    # -- state -----------------------------------------------------------------------------

    def get(self, key: str) -> str | None:
        row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def put(self, key: str, value: str) -> None:
        with self._write() as conn:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    @property
    def paused(self) -> bool:
        return self.get("paused") == "1"

    def set_paused(self, paused: bool) -> None:
        self.put("paused", "1" if paused else "0")

    # -- tokens ----------------------------------------------------------------------------

    def new_admin_token(self) -> str:
        """A new organiser's token (the previous one stops working); shown once."""
        token = new_token()
        self.put("admin_token_hash", hash_token(token))
        return token

    def is_admin(self, token: str) -> bool:
        stored = self.get("admin_token_hash")
        return stored is not None and secrets.compare_digest(stored, hash_token(token))

    def add_contestant(self, name: str, house: bool = False) -> str | None:
        """Add ``name``; its token (shown once), or None for a house entrant."""
        token = None if house else new_token()
        try:
            with self._write() as conn:
                conn.execute(
                    "INSERT INTO contestants (name, token_hash, created_at) VALUES (?, ?, ?)",
                    (name, None if token is None else hash_token(token), _now()),
                )
        except sqlite3.IntegrityError:
            raise ContestError(f"contestant {name!r} exists already") from None
        return token

    def contestant_of(self, token: str) -> Contestant | None:
        """Whose token it is (None: nobody's)."""
        row = self._conn.execute(
            "SELECT id, name, token_hash, banned, created_at FROM contestants WHERE token_hash = ?",
            (hash_token(token),),
        ).fetchone()
        return None if row is None else _contestant(row)

    def contestant(self, name: str) -> Contestant | None:
        row = self._conn.execute(
            "SELECT id, name, token_hash, banned, created_at FROM contestants WHERE name = ?",
            (name,),
        ).fetchone()
        return None if row is None else _contestant(row)

    def _known(self, name: str) -> Contestant:
        """The contestant ``name``; ``ContestError`` when there is none."""
        contestant = self.contestant(name)
        if contestant is None:
            raise ContestError(f"no contestant {name!r}")
        return contestant

    def contestants(self) -> list[Contestant]:
        rows = self._conn.execute(
            "SELECT id, name, token_hash, banned, created_at FROM contestants ORDER BY name"
        ).fetchall()
        return [_contestant(row) for row in rows]

    def ban(self, name: str, banned: bool = True) -> None:
        with self._write() as conn:
            cur = conn.execute(
                "UPDATE contestants SET banned = ? WHERE name = ?", (int(banned), name)
            )
            if cur.rowcount == 0:
                raise ContestError(f"no contestant {name!r}")

    # -- versions and uploads --------------------------------------------------------------

    def add_version(
        self, name: str, version: str, path: str, checks: list[tuple[str, bool | None, str]]
    ) -> Version:
        contestant = self._known(name)
        with self._write() as conn:
            conn.execute(
                """
                INSERT INTO versions (contestant_id, version, path, checks, uploaded_at)
                VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (contestant_id, version) DO UPDATE SET
                    retired = 0, uploaded_at = excluded.uploaded_at
                """,
                (contestant.id, version, path, json.dumps(checks), _now()),
            )
        found = [v for v in self.versions(name) if v.version == version]
        return found[0]

    def versions(self, name: str | None = None) -> list[Version]:
        """Versions in upload order (of one contestant, or all)."""
        query = (
            "SELECT v.id, c.name, v.version, v.path, v.checks, v.uploaded_at, v.retired "
            "FROM versions v JOIN contestants c ON c.id = v.contestant_id"
        )
        args: tuple[Any, ...] = ()
        if name is not None:
            query += " WHERE c.name = ?"
            args = (name,)
        rows = self._conn.execute(query + " ORDER BY v.uploaded_at, v.id", args).fetchall()
        return [
            Version(
                id=row[0],
                contestant=row[1],
                version=row[2],
                path=row[3],
                checks=[(str(c[0]), c[1], str(c[2])) for c in json.loads(row[4])],
                uploaded_at=row[5],
                retired=bool(row[6]),
            )
            for row in rows
        ]

    def retire(self, name: str, version: str | None = None) -> int:
        """Retire one version (or every version) of ``name``; how many were retired."""
        contestant = self._known(name)
        with self._write() as conn:
            if version is None:
                cur = conn.execute(
                    "UPDATE versions SET retired = 1 WHERE contestant_id = ?", (contestant.id,)
                )
            else:
                cur = conn.execute(
                    "UPDATE versions SET retired = 1 WHERE contestant_id = ? AND version = ?",
                    (contestant.id, version),
                )
        if cur.rowcount == 0:
            raise ContestError(f"no version {version!r} of {name!r}")
        return int(cur.rowcount)

    def laddered(self) -> list[Version]:
        """Who plays: the newest version of every contestant not banned, if not retired."""
        newest: dict[str, Version] = {}
        banned = {c.name for c in self.contestants() if c.banned}
        for version in self.versions():
            newest[version.contestant] = version
        return [v for name, v in sorted(newest.items()) if name not in banned and not v.retired]

    def record_upload(
        self, name: str, accepted: bool, version: str | None, reason: str, log_tail: str
    ) -> None:
        contestant = self._known(name)
        with self._write() as conn:
            conn.execute(
                "INSERT INTO uploads (contestant_id, at, accepted, version, reason, log_tail) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (contestant.id, _now(), int(accepted), version, reason, log_tail),
            )

    def uploads(self, name: str) -> list[Upload]:
        rows = self._conn.execute(
            "SELECT u.at, u.accepted, u.version, u.reason, u.log_tail FROM uploads u "
            "JOIN contestants c ON c.id = u.contestant_id WHERE c.name = ? ORDER BY u.id",
            (name,),
        ).fetchall()
        return [Upload(row[0], bool(row[1]), row[2], row[3], row[4]) for row in rows]

    # -- the ladder's rounds ---------------------------------------------------------------

    def start_round(self, entrants: tuple[str, ...], games: int) -> Round:
        """A new round of the ladder: its games are the next seeds of the ladder's run."""
        with self._write() as conn:
            row = conn.execute("SELECT COALESCE(MAX(first_game + games), 0) FROM rounds").fetchone()
            first = int(row[0])
            cur = conn.execute(
                "INSERT INTO rounds (entrants, games, first_game, started_at) VALUES (?, ?, ?, ?)",
                (json.dumps(list(entrants)), games, first, _now()),
            )
            assert cur.lastrowid is not None
            return Round(cur.lastrowid, entrants, games, first, False)

    def finish_round(self, round_id: int) -> None:
        with self._write() as conn:
            conn.execute("UPDATE rounds SET finished_at = ? WHERE id = ?", (_now(), round_id))

    def rounds(self, unfinished_only: bool = False) -> list[Round]:
        where = " WHERE finished_at IS NULL" if unfinished_only else ""
        rows = self._conn.execute(
            f"SELECT id, entrants, games, first_game, finished_at FROM rounds{where} ORDER BY id"
        ).fetchall()
        result = []
        for row in rows:
            entrants = tuple(str(label) for label in json.loads(row[1]))
            result.append(Round(row[0], entrants, row[2], row[3], row[4] is not None))
        return result


def _contestant(row: tuple[Any, ...]) -> Contestant:
    return Contestant(
        id=row[0], name=row[1], house=row[2] is None, banned=bool(row[3]), created_at=row[4]
    )
