"""The contest's own tables: contestants and their hashed tokens, versions, uploads, the
ladder's rounds and settings, in the results database beside the ladder's games.

The tables are the results store's own (``contest_*``, schema version 8): created and
upgraded by :func:`arena.tournament.store.schema.prepare` like every other table of the
file, so one file holds a contest whole, and ``arena report`` / ``arena replay`` read the
ladder's games there as any run's. A contest begun by an earlier arena kept these tables
in a second file, ``<db stem>-contest.db``: it is imported once, on the first open, and
renamed ``…-contest.db.imported``.

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
from typing import Any, Final, Literal, get_args

from arena.tournament.store.schema import ResultsStoreError, prepare
from arena.tournament.store.writes import transaction

ADMIN: Final = "admin"

# Why a version was taken out of the ladder, as a contestant reads it (Botzone's words).
Suspension = Literal["time", "memory", "crash", "no join"]
SUSPENSIONS: Final[tuple[Suspension, ...]] = get_args(Suspension)

_LEGACY_TABLES: Final = (
    ("meta", "contest_meta", "key, value"),
    ("contestants", "contest_contestants", "id, name, token_hash, banned, created_at"),
    (
        "versions",
        "contest_versions",
        "id, contestant_id, version, path, checks, uploaded_at, retired",
    ),
    (
        "uploads",
        "contest_uploads",
        "id, contestant_id, at, accepted, version, reason, reason AS status, log_tail",
    ),
    ("rounds", "contest_rounds", "id, entrants, games, first_game, started_at, finished_at"),
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
    suspended: Suspension | None = None
    suspended_reason: str = ""
    suspended_at: str | None = None

    @property
    def label(self) -> str:
        return f"{self.contestant}@{self.version}"

    @property
    def out(self) -> bool:
        """Retired or suspended: never laddered again (a new version is a new entrant)."""
        return self.retired or self.suspended is not None


@dataclass(frozen=True)
class Upload:
    at: str
    accepted: bool
    version: str | None
    reason: str  # the owner's one line
    status: str  # the public one: "accepted", or which check failed
    log_tail: str
    build_seconds: float


@dataclass(frozen=True)
class Round:
    id: int
    # A triple of entrant labels, or a pair (NEW, BASE): a contestant's latest two
    # versions, in the six seatings of a comparison's seed group
    entrants: tuple[str, ...]
    games: int
    first_game: int
    finished: bool
    ended: str | None = None  # why it ended before its games were played

    @property
    def comparison(self) -> bool:
        return len(self.entrants) == 2


def legacy_contest_path(db_path: Path) -> Path:
    """Where an earlier arena kept a contest's tables: a file beside the results database."""
    return db_path.with_name(f"{db_path.stem}-contest.db")


def registry_path(db_path: Path) -> Path:
    """The contest's bot registry beside the results database."""
    return db_path.with_name(f"{db_path.stem}-contest-registry")


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(32)


def now_iso() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def _since(seconds: float) -> str:
    moment = datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=seconds)
    return moment.isoformat(timespec="seconds")


class ContestStore:
    """One connection to the contest's tables; open with ``ContestStore.open(db_path)``."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    @classmethod
    def open(cls, db_path: Path) -> ContestStore:
        """The contest of results database ``db_path`` (created, or upgraded, as the
        results store is); a contest kept in an earlier arena's second file is imported."""
        try:
            db_path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                db_path, isolation_level=None, timeout=30.0, check_same_thread=False
            )
        except (OSError, sqlite3.Error) as error:
            raise ContestError(f"cannot open the contest in {db_path}: {error}") from None
        try:
            prepare(conn, db_path)
            _import_legacy(conn, db_path)
        except ResultsStoreError as error:
            conn.close()
            raise ContestError(str(error)) from None
        except BaseException:
            conn.close()
            raise
        return cls(conn)

    def close(self) -> None:
        self._conn.close()

    def _write(self) -> AbstractContextManager[sqlite3.Connection]:
        return transaction(self._conn)  # as the results store writes

    # -- state -----------------------------------------------------------------------------

    def get(self, key: str) -> str | None:
        row = self._conn.execute("SELECT value FROM contest_meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def put(self, key: str, value: str) -> None:
        with self._write() as conn:
            conn.execute(
                "INSERT INTO contest_meta (key, value) VALUES (?, ?) "
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
                    "INSERT INTO contest_contestants (name, token_hash, created_at) "
                    "VALUES (?, ?, ?)",
                    (name, None if token is None else hash_token(token), now_iso()),
                )
        except sqlite3.IntegrityError:
            raise ContestError(f"contestant {name!r} exists already") from None
        return token

    _CONTESTANT = "SELECT id, name, token_hash, banned, created_at FROM contest_contestants"

    def contestant_of(self, token: str) -> Contestant | None:
        """Whose token it is (None: nobody's)."""
        row = self._conn.execute(
            self._CONTESTANT + " WHERE token_hash = ?", (hash_token(token),)
        ).fetchone()
        return None if row is None else _contestant(row)

    def contestant(self, name: str) -> Contestant | None:
        row = self._conn.execute(self._CONTESTANT + " WHERE name = ?", (name,)).fetchone()
        return None if row is None else _contestant(row)

    def known(self, name: str) -> Contestant:
        """The contestant ``name``; ``ContestError`` when there is none."""
        contestant = self.contestant(name)
        if contestant is None:
            raise ContestError(f"no contestant {name!r}")
        return contestant

    def contestants(self) -> list[Contestant]:
        rows = self._conn.execute(self._CONTESTANT + " ORDER BY name").fetchall()
        return [_contestant(row) for row in rows]

    def ban(self, name: str, banned: bool = True) -> None:
        with self._write() as conn:
            cur = conn.execute(
                "UPDATE contest_contestants SET banned = ? WHERE name = ?", (int(banned), name)
            )
            if cur.rowcount == 0:
                raise ContestError(f"no contestant {name!r}")

    # -- versions and uploads --------------------------------------------------------------

    def add_version(
        self, name: str, version: str, path: str, checks: list[tuple[str, bool | None, str]]
    ) -> Version:
        """Enter a new version (newest: it replaces the contestant's previous one). A
        version entered before keeps its place and its state: uploading a retired or
        suspended version's bytes again does not bring it back."""
        contestant = self.known(name)
        with self._write() as conn:
            conn.execute(
                """
                INSERT INTO contest_versions (contestant_id, version, path, checks, uploaded_at)
                VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (contestant_id, version) DO NOTHING
                """,
                (contestant.id, version, path, json.dumps(checks), now_iso()),
            )
        found = self.version(name, version)
        assert found is not None
        return found

    _VERSION = (
        "SELECT v.id, c.name, v.version, v.path, v.checks, v.uploaded_at, v.retired, "
        "v.suspended, v.suspended_reason, v.suspended_at "
        "FROM contest_versions v JOIN contest_contestants c ON c.id = v.contestant_id"
    )

    def versions(self, name: str | None = None) -> list[Version]:
        """Versions in upload order (of one contestant, or all)."""
        query, args = self._VERSION, tuple[str, ...]()
        if name is not None:
            query, args = query + " WHERE c.name = ?", (name,)
        rows = self._conn.execute(query + " ORDER BY v.id", args).fetchall()
        return [_version(row) for row in rows]

    def version(self, name: str, version: str) -> Version | None:
        row = self._conn.execute(
            self._VERSION + " WHERE c.name = ? AND v.version = ?", (name, version)
        ).fetchone()
        return None if row is None else _version(row)

    def retire(self, name: str, version: str | None = None) -> int:
        """Retire one version (or every version) of ``name``; how many were retired."""
        contestant = self.known(name)
        with self._write() as conn:
            if version is None:
                cur = conn.execute(
                    "UPDATE contest_versions SET retired = 1 WHERE contestant_id = ?",
                    (contestant.id,),
                )
            else:
                cur = conn.execute(
                    "UPDATE contest_versions SET retired = 1 "
                    "WHERE contestant_id = ? AND version = ?",
                    (contestant.id, version),
                )
        if cur.rowcount == 0:
            raise ContestError(
                f"{name!r} has no version"
                if version is None
                else f"no version {version!r} of {name!r}"
            )
        return int(cur.rowcount)

    def suspend(self, label: str, status: Suspension, reason: str) -> bool:
        """Take the version ``label`` out of the ladder for misbehaving; whether it was in."""
        name, _, version = label.partition("@")
        with self._write() as conn:
            cur = conn.execute(
                """
                UPDATE contest_versions SET suspended = ?, suspended_reason = ?, suspended_at = ?
                WHERE suspended IS NULL AND version = ?
                  AND contestant_id = (SELECT id FROM contest_contestants WHERE name = ?)
                """,
                (status, reason, now_iso(), version, name),
            )
        return cur.rowcount > 0

    def reinstate(self, name: str, version: str) -> None:
        """The organiser lifts a suspension: the version plays again if it is the newest."""
        contestant = self.known(name)
        with self._write() as conn:
            cur = conn.execute(
                "UPDATE contest_versions SET suspended = NULL, suspended_reason = NULL, "
                "suspended_at = NULL WHERE contestant_id = ? AND version = ?",
                (contestant.id, version),
            )
        if cur.rowcount == 0:
            raise ContestError(f"no version {version!r} of {name!r}")

    def laddered(self) -> list[Version]:
        """Who plays: the newest version of every contestant not banned, if it is neither
        retired nor suspended (never an older one in its place)."""
        newest: dict[str, Version] = {}
        banned = {c.name for c in self.contestants() if c.banned}
        for version in self.versions():
            newest[version.contestant] = version
        return [v for name, v in sorted(newest.items()) if name not in banned and not v.out]

    def record_upload(
        self,
        name: str,
        accepted: bool,
        version: str | None,
        reason: str,
        status: str,
        log_tail: str,
        build_seconds: float = 0.0,
    ) -> None:
        contestant = self.known(name)
        with self._write() as conn:
            conn.execute(
                "INSERT INTO contest_uploads (contestant_id, at, accepted, version, reason, "
                "status, log_tail, build_seconds) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    contestant.id,
                    now_iso(),
                    int(accepted),
                    version,
                    reason,
                    status,
                    log_tail,
                    max(build_seconds, 0.0),
                ),
            )

    def uploads(self, name: str) -> list[Upload]:
        rows = self._conn.execute(
            "SELECT u.at, u.accepted, u.version, u.reason, u.status, u.log_tail, "
            "u.build_seconds FROM contest_uploads u JOIN contest_contestants c "
            "ON c.id = u.contestant_id WHERE c.name = ? ORDER BY u.id",
            (name,),
        ).fetchall()
        return [
            Upload(row[0], bool(row[1]), row[2], row[3], row[4], row[5], float(row[6]))
            for row in rows
        ]

    def uploads_since(self, name: str, seconds: float) -> tuple[int, float, str | None]:
        """``name``'s uploads in the last ``seconds``: how many, their build seconds, and
        the time of the oldest (when the first of them leaves the window)."""
        row = self._conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(u.build_seconds), 0), MIN(u.at) "
            "FROM contest_uploads u JOIN contest_contestants c ON c.id = u.contestant_id "
            "WHERE c.name = ? AND u.at >= ?",
            (name, _since(seconds)),
        ).fetchone()
        return int(row[0]), float(row[1]), row[2]

    # -- the ladder's rounds ---------------------------------------------------------------

    def start_round(self, entrants: tuple[str, ...], games: int) -> Round:
        """A new round of the ladder: its games are the next seeds of the ladder's run."""
        with self._write() as conn:
            first = self._next_seed(conn)
            cur = conn.execute(
                "INSERT INTO contest_rounds (entrants, games, first_game, started_at) "
                "VALUES (?, ?, ?, ?)",
                (json.dumps(list(entrants)), games, first, now_iso()),
            )
            assert cur.lastrowid is not None
            return Round(cur.lastrowid, entrants, games, first, False)

    @staticmethod
    def _next_seed(conn: sqlite3.Connection) -> int:
        row = conn.execute(
            "SELECT COALESCE(MAX(first_game + games), 0) FROM contest_rounds"
        ).fetchone()
        return int(row[0])

    def next_seed(self) -> int:
        """The game seed the next round will start at."""
        return self._next_seed(self._conn)

    def finish_round(self, round_id: int, ended: str | None = None) -> None:
        """The round is over: played, or ``ended`` early (why, in one line)."""
        with self._write() as conn:
            conn.execute(
                "UPDATE contest_rounds SET finished_at = ?, ended = ? "
                "WHERE id = ? AND finished_at IS NULL",
                (now_iso(), ended, round_id),
            )

    def rounds(self, unfinished_only: bool = False) -> list[Round]:
        where = " WHERE finished_at IS NULL" if unfinished_only else ""
        rows = self._conn.execute(
            "SELECT id, entrants, games, first_game, finished_at, ended "
            f"FROM contest_rounds{where} ORDER BY id"
        ).fetchall()
        return [
            Round(
                row[0],
                tuple(str(label) for label in json.loads(row[1])),
                row[2],
                row[3],
                row[4] is not None,
                row[5],
            )
            for row in rows
        ]


def _contestant(row: tuple[Any, ...]) -> Contestant:
    return Contestant(
        id=row[0], name=row[1], house=row[2] is None, banned=bool(row[3]), created_at=row[4]
    )


def _version(row: tuple[Any, ...]) -> Version:
    suspended = row[7]
    return Version(
        id=row[0],
        contestant=row[1],
        version=row[2],
        path=row[3],
        checks=[(str(c[0]), c[1], str(c[2])) for c in json.loads(row[4])],
        uploaded_at=row[5],
        retired=bool(row[6]),
        suspended=suspended if suspended in SUSPENSIONS else None,
        suspended_reason=row[8] or "",
        suspended_at=row[9],
    )


def _import_legacy(conn: sqlite3.Connection, db_path: Path) -> None:
    """A contest an earlier arena kept in ``<stem>-contest.db``: its rows copied into the
    contest's tables (only while they are empty), in one transaction, then the old file
    renamed so that it is read once."""
    legacy = legacy_contest_path(db_path)
    if not legacy.is_file():
        return
    old = sqlite3.connect(f"file:{legacy}?mode=ro", uri=True)
    try:
        with transaction(conn):
            if conn.execute("SELECT COUNT(*) FROM contest_contestants").fetchone()[0] == 0:
                for table, new, columns in _LEGACY_TABLES:
                    rows = old.execute(f"SELECT {columns} FROM {table}").fetchall()
                    names = [c.split(" AS ")[-1] for c in columns.split(", ")]
                    marks = ", ".join("?" * len(names))
                    conn.executemany(
                        f"INSERT INTO {new} ({', '.join(names)}) VALUES ({marks})", rows
                    )
    finally:
        old.close()
    for suffix in ("", "-wal", "-shm"):
        part = legacy.with_name(legacy.name + suffix)
        if part.exists():
            part.rename(part.with_name(part.name + ".imported"))
