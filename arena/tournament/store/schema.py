"""The results store's schema: its tables and indexes, its version, the codec of a game's
record, and the in-place upgrades of stores written by earlier arenas.

``prepare`` is the one way in: it checks that a file is a results store of a version this
code knows (or new), upgrades an old one step by step, each step in one transaction, and
creates the schema of a new one. docs/GAME_RECORD.md documents every table and column.
"""

from __future__ import annotations

import ast
import json
import math
import re
import sqlite3
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

__all__ = [
    "APPLICATION_ID",
    "DECISION_KINDS",
    "INSERT_DECISION_TIME",
    "SCHEMA_VERSION",
    "DecisionTime",
    "ResultsStoreError",
    "build_digests",
    "compress_record",
    "decision_times",
    "decompress_record",
    "prepare",
]

SCHEMA_VERSION: Final = 8
# Written to the SQLite header so that an unrelated database that happens to carry the same
# user_version is not mistaken for a results store. The bytes spell "SchA".
APPLICATION_ID: Final = 0x53636841

_ZLIB_LEVEL: Final = 6

# What a decision can be asked for: the engine's DecisionKind values (docs/GAME_RECORD.md,
# *Decisions*), spelled out here and in the CHECK of decision_times, whose DDL must not
# change when the engine does.
DECISION_KINDS: Final = ("bid", "trump", "discard", "play")

# One row per ``policy.Fault``, a column per field (its game index is its game's).
# decision_index is the index, in the "decisions" of deal deal_number of the game's
# record, of the decision the fault replaced with the fallback; NULL for a fault between
# decisions. It comes last, where the upgrade from version 3 adds it.
_DECISION_INDEX: Final = (
    "decision_index INTEGER CHECK (decision_index IS NULL OR decision_index >= 0)"
)
# The columns of version 3, which the upgrade from version 2 makes.
_FAULT_COLUMNS_V3: Final = """
        id          INTEGER PRIMARY KEY,
        game_id     INTEGER NOT NULL REFERENCES games (id),
        deal_number INTEGER NOT NULL,
        seat        INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 5),
        kind        TEXT NOT NULL,
        reason      TEXT NOT NULL,
        request_id  INTEGER NOT NULL,
        sent        TEXT NOT NULL,
        fallback    TEXT NOT NULL"""
_FAULTS_TABLE_V3: Final = f"CREATE TABLE faults ({_FAULT_COLUMNS_V3}\n    ) STRICT"
_FAULTS_TABLE: Final = (
    f"CREATE TABLE faults ({_FAULT_COLUMNS_V3},\n        {_DECISION_INDEX}\n    ) STRICT"
)
_FAULTS_INDEX: Final = "CREATE INDEX faults_by_game ON faults (game_id)"

# One row per decision of a stored game, as its record lists them: decision decision_index
# of the "decisions" of deal deal_number (the same pair a fault's row names), with the seat
# asked, what for, and the bot's time (NULL where nobody was asked). The reports draw
# decision-time distributions from it without opening a record. The key's order serves
# the only lookup, a game's decisions; WITHOUT ROWID keeps the rows in that order.
_DECISION_TIMES_TABLE: Final = """
    CREATE TABLE decision_times (
        game_id        INTEGER NOT NULL REFERENCES games (id),
        deal_number    INTEGER NOT NULL CHECK (deal_number >= 1),
        decision_index INTEGER NOT NULL CHECK (decision_index >= 0),
        seat           INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 5),
        kind           TEXT NOT NULL CHECK (kind IN ('bid', 'trump', 'discard', 'play')),
        seconds        REAL CHECK (seconds IS NULL OR seconds >= 0),
        PRIMARY KEY (game_id, deal_number, decision_index)
    ) STRICT, WITHOUT ROWID
    """
INSERT_DECISION_TIME: Final = """
    INSERT INTO decision_times (game_id, deal_number, decision_index, seat, kind, seconds)
    VALUES (?, ?, ?, ?, ?, ?)
    """

# The teams that forfeited a game under the referee's rule F1 (arena.engine.forfeit), a
# bit each: bit t for team t, 0 for none. It comes last, where the upgrade from version 5
# adds it.
_FORFEITED: Final = "forfeited   INTEGER NOT NULL DEFAULT 0 CHECK (forfeited BETWEEN 0 AND 7)"

# STRICT tables make SQLite reject values of the wrong type instead of silently storing them.
_SCHEMA: Final[tuple[str, ...]] = (
    """
    CREATE TABLE runs (
        id          TEXT PRIMARY KEY,
        created_at  TEXT NOT NULL,
        finished_at TEXT,
        settings    TEXT NOT NULL,
        status      TEXT NOT NULL CHECK (status IN ('running', 'finished', 'interrupted')),
        seed        INTEGER,
        deal_key    BLOB CHECK (deal_key IS NULL OR length(deal_key) >= 16)
    ) STRICT
    """,
    """
    CREATE TABLE entrants (
        id      INTEGER PRIMARY KEY,
        name    TEXT NOT NULL,
        version TEXT NOT NULL,
        command TEXT NOT NULL,
        UNIQUE (name, version)
    ) STRICT
    """,
    """
    CREATE TABLE matches (
        id            INTEGER PRIMARY KEY,
        run_id        TEXT NOT NULL REFERENCES runs (id),
        match_key     TEXT NOT NULL,
        entrant_team0 INTEGER NOT NULL REFERENCES entrants (id),
        entrant_team1 INTEGER NOT NULL REFERENCES entrants (id),
        entrant_team2 INTEGER NOT NULL REFERENCES entrants (id),
        started_at    TEXT NOT NULL,
        finished_at   TEXT,
        UNIQUE (run_id, match_key)
    ) STRICT
    """,
    # UNIQUE (match_id, game_index) is the required UNIQUE (run_id, match_key, game_index):
    # matches are unique per (run_id, match_key), so match_id stands for that pair. run_id is
    # repeated here only so that per-run queries need no join.
    f"""
    CREATE TABLE games (
        id          INTEGER PRIMARY KEY,
        run_id      TEXT NOT NULL REFERENCES runs (id),
        match_id    INTEGER NOT NULL REFERENCES matches (id),
        game_index  INTEGER NOT NULL,
        winner      INTEGER CHECK (winner IS NULL OR winner BETWEEN 0 AND 2),
        score_team0 INTEGER NOT NULL,
        score_team1 INTEGER NOT NULL,
        score_team2 INTEGER NOT NULL,
        deals       INTEGER NOT NULL,
        duration_s  REAL NOT NULL,
        record      BLOB NOT NULL,
        finished_at TEXT NOT NULL,
        {_FORFEITED},
        UNIQUE (match_id, game_index)
    ) STRICT
    """,
    "CREATE INDEX games_by_run ON games (run_id)",
    """
    CREATE TABLE seat_stats (
        game_id                INTEGER NOT NULL REFERENCES games (id),
        seat                   INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 5),
        team                   INTEGER NOT NULL CHECK (team = seat % 3),
        entrant_id             INTEGER NOT NULL REFERENCES entrants (id),
        decisions              INTEGER NOT NULL,
        decision_seconds_total REAL NOT NULL,
        decision_seconds_max   REAL NOT NULL,
        bids_made              INTEGER NOT NULL,
        bids_won               INTEGER NOT NULL,
        points_won             INTEGER NOT NULL,
        faults                 INTEGER NOT NULL,
        build_digest           TEXT CHECK (build_digest IS NULL OR length(build_digest) = 12),
        PRIMARY KEY (game_id, seat)
    ) STRICT
    """,
    _FAULTS_TABLE,
    _FAULTS_INDEX,
    _DECISION_TIMES_TABLE,
)


# The contest's own tables (``arena serve``, arena.serve.contest; docs/CONTEST.md): its
# contestants and their hashed tokens, their versions, their uploads, the ladder's rounds
# and its settings. They live beside the ladder's games, so that one file holds a contest
# whole; a store that hosts no contest keeps them empty. (IF NOT EXISTS: the upgrade that
# adds them is a no-op on a store that has them, as a test's downgraded copy does.)
_CONTEST_TABLES: Final[tuple[str, ...]] = (
    "CREATE TABLE IF NOT EXISTS contest_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT",
    """
    CREATE TABLE IF NOT EXISTS contest_contestants (
        id         INTEGER PRIMARY KEY,
        name       TEXT NOT NULL UNIQUE,
        token_hash TEXT UNIQUE,        -- NULL: a house entrant (the organiser's own bots)
        banned     INTEGER NOT NULL DEFAULT 0 CHECK (banned IN (0, 1)),
        created_at TEXT NOT NULL
    ) STRICT
    """,
    """
    CREATE TABLE IF NOT EXISTS contest_versions (
        id               INTEGER PRIMARY KEY,
        contestant_id    INTEGER NOT NULL REFERENCES contest_contestants (id),
        version          TEXT NOT NULL,
        path             TEXT NOT NULL,  -- in the contest's registry, relative to its root
        checks           TEXT NOT NULL,  -- JSON: [[name, passed, detail], ...]
        uploaded_at      TEXT NOT NULL,
        retired          INTEGER NOT NULL DEFAULT 0 CHECK (retired IN (0, 1)),
        -- Taken out of the ladder for misbehaving: the status word (time, memory, crash,
        -- no join), the one line behind it (its owner's to read) and when.
        suspended        TEXT CHECK (suspended IN ('time', 'memory', 'crash', 'no join')),
        suspended_reason TEXT,
        suspended_at     TEXT,
        UNIQUE (contestant_id, version)
    ) STRICT
    """,
    """
    CREATE TABLE IF NOT EXISTS contest_uploads (
        id            INTEGER PRIMARY KEY,
        contestant_id INTEGER NOT NULL REFERENCES contest_contestants (id),
        at            TEXT NOT NULL,
        accepted      INTEGER NOT NULL CHECK (accepted IN (0, 1)),
        version       TEXT,
        reason        TEXT NOT NULL,  -- one line, its owner's to read
        status        TEXT NOT NULL,  -- what everyone sees: accepted, or the check failed
        log_tail      TEXT NOT NULL,  -- the build's or the validation seat's log
        build_seconds REAL NOT NULL DEFAULT 0 CHECK (build_seconds >= 0)
    ) STRICT
    """,
    "CREATE INDEX IF NOT EXISTS contest_uploads_by_contestant "
    "ON contest_uploads (contestant_id, at)",
    """
    CREATE TABLE IF NOT EXISTS contest_rounds (
        id          INTEGER PRIMARY KEY,
        entrants    TEXT NOT NULL,     -- JSON: a triple's entrant labels, or [NEW, BASE]
        games       INTEGER NOT NULL CHECK (games >= 1),  -- per seating
        first_game  INTEGER NOT NULL CHECK (first_game >= 0),  -- its seeds: first_game ...
        started_at  TEXT NOT NULL,
        finished_at TEXT,
        ended       TEXT               -- why it ended before its games were played, if so
    ) STRICT
    """,
)


class ResultsStoreError(Exception):
    """The results file cannot be used, or a request contradicts what is already stored."""


# -- the record column ---------------------------------------------------------------------------


def compress_record(record: Mapping[str, Any]) -> bytes:
    """A game record as the ``games.record`` column keeps it: compact UTF-8 JSON, zlib."""
    # allow_nan=False: NaN/Infinity are not JSON and other readers of the records would choke.
    text = json.dumps(record, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return zlib.compress(text.encode("utf-8"), _ZLIB_LEVEL)


def decompress_record(blob: bytes) -> Any:
    """The JSON value a ``games.record`` column holds (``zlib.error`` or ``ValueError`` if
    it holds none)."""
    return json.loads(zlib.decompress(blob).decode("utf-8"))


# (deal_number, decision_index, seat, kind, seconds): a decision_times row but its game id.
DecisionTime = tuple[int, int, int, str, float | None]


def decision_times(record: Mapping[str, Any]) -> list[DecisionTime]:
    """Every decision of a game record, in its order, as the ``decision_times`` table keeps
    it; none for a record before version 3, whose deals list no decisions.

    ``ValueError`` for a decision that is not of the documented form (docs/GAME_RECORD.md,
    *Decisions*), which the table would refuse or misread.
    """
    deals = record.get("deals")
    if not isinstance(deals, list):
        return []
    rows: list[DecisionTime] = []
    for number, deal in enumerate(deals, start=1):
        decisions = deal.get("decisions") if isinstance(deal, dict) else None
        if decisions is None:
            continue
        if not isinstance(decisions, list):
            raise ValueError(f"deal {number} of the record has decisions that are not a list")
        for index, decision in enumerate(decisions):
            seat, kind, seconds = _decision_time(decision, f"deal {number} decision {index}")
            rows.append((number, index, seat, kind, seconds))
    return rows


_DIGEST = re.compile(r"[0-9a-f]{12}")


def build_digests(record: Mapping[str, Any]) -> tuple[str | None, str | None, str | None]:
    """The build digest each team's bot ran, by team, as the record's ``meta.entrants``
    says (``build``); None where it says none (a record of an unprepared bot, or from
    before digests were recorded). ``ValueError`` for one that is not 12 hex digits."""
    meta = record.get("meta")
    entrants = meta.get("entrants") if isinstance(meta, dict) else None
    if not isinstance(entrants, list) or len(entrants) != 3:
        return (None, None, None)
    found: list[str | None] = []
    for team, entrant in enumerate(entrants):
        digest = entrant.get("build") if isinstance(entrant, dict) else None
        if digest is not None and not (isinstance(digest, str) and _DIGEST.fullmatch(digest)):
            raise ValueError(f"team {team}'s build digest {digest!r} is not 12 hex digits")
        found.append(digest)
    return (found[0], found[1], found[2])


def _decision_time(decision: Any, where: str) -> tuple[int, str, float | None]:
    if not isinstance(decision, dict):
        raise ValueError(f"{where} of the record is not an object")
    seat, kind, seconds = decision.get("seat"), decision.get("kind"), decision.get("seconds")
    if type(seat) is not int or not 0 <= seat <= 5:
        raise ValueError(f"{where} of the record has seat {seat!r}, not a seat 0..5")
    if kind not in DECISION_KINDS:
        raise ValueError(f"{where} of the record has kind {kind!r}, not one of {DECISION_KINDS}")
    if seconds is None:
        return seat, kind, None
    if type(seconds) not in (int, float) or not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"{where} of the record has seconds {seconds!r}, not null or >= 0")
    return seat, kind, float(seconds)


# -- opening: check, upgrade, create -------------------------------------------------------------


def prepare(conn: sqlite3.Connection, path: Path) -> None:
    """Check that ``path`` is a results store of a known version (or new), and set it up."""
    try:
        # Reading the header is the first access to the file: on anything that is not SQLite
        # it fails here, before a byte is written.
        application_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise ResultsStoreError(
            f"{path} is not a results store: it is not an SQLite database ({exc})"
        ) from exc
    if application_id not in (0, APPLICATION_ID) or (application_id == 0 and version != 0):
        raise ResultsStoreError(
            f"{path} is an SQLite database but not a Schmier Arena results store "
            f"(application_id={application_id}, user_version={version})"
        )
    if application_id == APPLICATION_ID:
        for old, step in _UPGRADES:
            if version == old:
                _migrate(conn, path, old, step)
                version = old + 1
        if version != SCHEMA_VERSION:
            raise ResultsStoreError(
                f"{path} has results schema version {version}, but this arena only knows "
                f"version {SCHEMA_VERSION}"
            )
    # Checked before switching to WAL, which would otherwise alter someone else's database.
    if application_id == 0 and _has_tables(conn):
        raise _foreign_database(path)

    try:
        # Durability: in WAL mode a COMMIT appends the transaction to the -wal file with write()
        # before returning. With synchronous=NORMAL that file is fsync'ed only at checkpoints, so
        # a killed process (kill -9, crash, OOM) loses nothing it had committed: the data is in
        # the OS page cache and the next open replays the WAL. Only an OS crash or power loss can
        # drop the last few commits (never corrupting the file); the resume logic then simply
        # replays those games, dealt as before from the run's key (committed before any of its
        # games, so never lost while they are kept). FULL would fsync on every commit to
        # cover power loss as well, which we do not need.
        mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
    except sqlite3.DatabaseError as exc:
        raise ResultsStoreError(f"cannot set up results store {path}: {exc}") from exc
    if str(mode).lower() != "wal":
        raise ResultsStoreError(
            f"results store {path} cannot use WAL journaling (got {mode!r}); "
            "is it on a file system without shared-memory support?"
        )
    if application_id == 0:
        _create_schema(conn, path)


def _create_schema(conn: sqlite3.Connection, path: Path) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        # Another process may have created the schema between our check and taking the lock.
        if conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID:
            conn.execute("ROLLBACK")
            return
        if _has_tables(conn):
            raise _foreign_database(path)
        for statement in (*_SCHEMA, *_CONTEST_TABLES):
            conn.execute(statement)
        # PRAGMA arguments cannot be bound parameters; both values are our own integers.
        conn.execute(f"PRAGMA application_id={APPLICATION_ID:d}")
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION:d}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


# Version 1 kept an integer seed per run (NOT NULL) and per game, from which the deals
# could be computed. Version 2 keeps each run's deal key and its explicit --seed (NULL
# for a secret run); the games keep no seed. A version 1 run keeps its seed and gets no
# key: its games stay readable, but it cannot be resumed (``deal_key``).
_MIGRATION_FROM_1: Final[tuple[str, ...]] = (
    "ALTER TABLE runs ADD COLUMN seed_v2 INTEGER",
    "UPDATE runs SET seed_v2 = seed",
    "ALTER TABLE runs DROP COLUMN seed",
    "ALTER TABLE runs RENAME COLUMN seed_v2 TO seed",
    "ALTER TABLE runs ADD COLUMN deal_key BLOB CHECK (deal_key IS NULL OR length(deal_key) >= 16)",
    "ALTER TABLE games DROP COLUMN seed",
)


def _migrate_from_1(conn: sqlite3.Connection) -> None:
    for statement in _MIGRATION_FROM_1:
        conn.execute(statement)


# Version 2 kept a fault's ``sent`` and ``fallback`` in one ``detail`` text written as
# ``sent='…' fallback='…'``; version 3 keeps them, the deal number and the request id in
# columns of their own. Version 2 did not keep the last two: its faults get 0 for both
# (0 is also what a fault between requests records). A detail not of that form is kept
# whole as ``sent``.
_DETAIL = re.compile(r"sent=(?P<sent>'.*'|\".*\") fallback=(?P<fallback>'.*'|\".*\")", re.DOTALL)


def _split_detail(detail: str) -> tuple[str, str]:
    """(sent, fallback) of a version 2 fault's ``detail``."""
    found = _DETAIL.fullmatch(detail)
    if found is None:
        return detail, ""
    try:
        sent, fallback = ast.literal_eval(found["sent"]), ast.literal_eval(found["fallback"])
    except (ValueError, SyntaxError):
        return detail, ""
    if not isinstance(sent, str) or not isinstance(fallback, str):
        return detail, ""
    return sent, fallback


def _migrate_from_2(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE faults RENAME TO faults_v2")
    conn.execute("DROP INDEX faults_by_game")
    conn.execute(_FAULTS_TABLE_V3)
    conn.execute(_FAULTS_INDEX)
    rows = conn.execute("SELECT id, game_id, seat, kind, reason, detail FROM faults_v2")
    conn.executemany(
        """
        INSERT INTO faults (id, game_id, deal_number, seat, kind, reason,
                            request_id, sent, fallback)
        VALUES (?, ?, 0, ?, ?, ?, 0, ?, ?)
        """,
        [(*row[:5], *_split_detail(row[5])) for row in rows.fetchall()],
    )
    conn.execute("DROP TABLE faults_v2")


# Version 4 ties a fault to the decision it replaced (decision_index). The faults of a
# version 3 store get NULL: their games' records (version 2) list no decisions to point
# at, and a fault kept no more than its deal and request id, which do not tell which.
def _migrate_from_3(conn: sqlite3.Connection) -> None:
    conn.execute(f"ALTER TABLE faults ADD COLUMN {_DECISION_INDEX}")


# Version 5 keeps every decision's time in decision_times, which the upgrade fills once
# from the records already stored: each record is opened here and never again for its
# times. A record that lists no decisions (before version 3) gets no rows; so does one
# that cannot be read or whose decisions are not of the documented form, rather than
# leaving the store unopenable: its game then counts as untimed, as it did before.
def _migrate_from_4(conn: sqlite3.Connection) -> None:
    conn.execute(_DECISION_TIMES_TABLE)
    # The ids first, then one record at a time: the whole column may not fit in memory.
    game_ids = [row[0] for row in conn.execute("SELECT id FROM games ORDER BY id").fetchall()]
    for game_id in game_ids:
        (blob,) = conn.execute("SELECT record FROM games WHERE id = ?", (game_id,)).fetchone()
        try:
            record = decompress_record(blob)
            times = decision_times(record) if isinstance(record, dict) else []
        except (zlib.error, ValueError):
            continue
        conn.executemany(INSERT_DECISION_TIME, [(game_id, *time) for time in times])


# Version 6 keeps, for each seat of a game, the build digest of the files it ran (the hash
# of its bot's built copy, which its private copy was checked against). Games stored
# before it get NULL: what they ran was not recorded.
def _migrate_from_5(conn: sqlite3.Connection) -> None:
    conn.execute(
        "ALTER TABLE seat_stats ADD COLUMN build_digest TEXT "
        "CHECK (build_digest IS NULL OR length(build_digest) = 12)"
    )


# Version 7 keeps the teams that forfeited each game (F1). No game stored before could
# end so: every one gets 0.
def _migrate_from_6(conn: sqlite3.Connection) -> None:
    conn.execute(f"ALTER TABLE games ADD COLUMN {_FORFEITED}")


# Version 8 adds the contest's tables (``arena serve``), empty: a contest of an earlier
# arena kept them in a file of its own, which arena.serve.contest imports once.
def _migrate_from_7(conn: sqlite3.Connection) -> None:
    for statement in _CONTEST_TABLES:
        conn.execute(statement)


# Each step upgrades a store of its version to the next; they run in this order.
_UPGRADES: Final[tuple[tuple[int, Callable[[sqlite3.Connection], None]], ...]] = (
    (1, _migrate_from_1),
    (2, _migrate_from_2),
    (3, _migrate_from_3),
    (4, _migrate_from_4),
    (5, _migrate_from_5),
    (6, _migrate_from_6),
    (7, _migrate_from_7),
)


def _migrate(
    conn: sqlite3.Connection,
    path: Path,
    version: int,
    step: Callable[[sqlite3.Connection], None],
) -> None:
    """Upgrade the store from ``version`` to the next, in one transaction."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        # Another process may have migrated the file between our check and taking the lock.
        if conn.execute("PRAGMA user_version").fetchone()[0] == version:
            step(conn)
            # PRAGMA arguments cannot be bound parameters; the value is our own integer.
            conn.execute(f"PRAGMA user_version={version + 1:d}")
        conn.execute("COMMIT")
    except sqlite3.DatabaseError as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise ResultsStoreError(
            f"cannot upgrade results store {path} from schema version {version}: {exc}"
        ) from exc
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _has_tables(conn: sqlite3.Connection) -> bool:
    return bool(conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0])


def _foreign_database(path: Path) -> ResultsStoreError:
    return ResultsStoreError(
        f"{path} is an SQLite database but not a Schmier Arena results store "
        "(it already holds other tables)"
    )
