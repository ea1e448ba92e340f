"""SQLite results store of tournament runs: runs, entrants, matches, games, seat stats and faults.

One file holds any number of runs. A game is written in a single transaction together with its
per-seat statistics and its faults, so after any crash the file holds whole games only, and
``completed_games`` tells a resumed run exactly which games still have to be played.

Threading: a ``ResultsStore`` wraps one ``sqlite3.Connection`` and must only be used from the
thread that opened it (sqlite3's default ``check_same_thread`` enforces this). Several processes
may open the same file; WAL mode lets readers (reports) run while a tournament is writing.
"""

from __future__ import annotations

import ast
import json
import re
import sqlite3
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Literal, Self

from arena.referee.policy import Fault, FaultKind
from arena.referee.result import GameResult
from arena.stats import rates as stats

__all__ = [
    "APPLICATION_ID",
    "SCHEMA_VERSION",
    "DuplicateGameError",
    "GamePlace",
    "ResultsStore",
    "ResultsStoreError",
    "RunInfo",
    "RunStatus",
    "SeatTimes",
    "StoredGame",
    "entrant_label",
    "logs_beside",
]

SCHEMA_VERSION: Final = 4
# Written to the SQLite header so that an unrelated database that happens to carry the same
# user_version is not mistaken for a results store. The bytes spell "SchA".
APPLICATION_ID: Final = 0x53636841

RunStatus = Literal["running", "finished", "interrupted"]

_INT64_MIN: Final = -(2**63)
_INT64_MAX: Final = 2**63 - 1
_ZLIB_LEVEL: Final = 6

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
    """
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
        PRIMARY KEY (game_id, seat)
    ) STRICT
    """,
    _FAULTS_TABLE,
    _FAULTS_INDEX,
)


class ResultsStoreError(Exception):
    """The results file cannot be used, or a request contradicts what is already stored."""


class DuplicateGameError(ResultsStoreError):
    """A game with this (run, match key, game index) is already stored."""


@dataclass(frozen=True)
class RunInfo:
    id: str
    created_at: str
    finished_at: str | None
    seed: int | None  # the explicit --seed; None for a run with a secret key
    settings: dict[str, Any]
    status: RunStatus


@dataclass(frozen=True)
class GamePlace:
    """Where a stored game was played: its run, its seating and its game seed."""

    game_id: int
    run_id: str
    match_key: str  # the seating's key, also the name of its log directory
    game_index: int  # the game seed (R3.1a): the same deals at every seating of the run
    entrants_by_team: tuple[str, str, str]


@dataclass(frozen=True)
class StoredGame:
    """One stored game of a run as a list of games shows it."""

    id: int
    seed: int  # the game index: the game seed it was dealt from (R3.1a)
    entrants_by_team: tuple[str, str, str]
    scores: tuple[int, int, int]
    winner: int | None  # None for a draw
    deals: int
    faults: int


@dataclass(frozen=True)
class SeatTimes:
    """The decision times of one seat in one game (what seat_stats keeps of them)."""

    entrant: str
    decisions: int
    seconds_total: float
    seconds_max: float


def entrant_label(name: str, version: str) -> str:
    """The name an entrant goes by in standings: two versions of one bot must stay apart."""
    return f"{name}@{version}" if version else name


def logs_beside(db_path: Path) -> Path:
    """Where the bot logs of the runs stored in ``db_path`` go: ``<stem>-logs`` beside it
    (``arena-results/arena-logs`` by default), one directory per run, then per match,
    ``seat<N>.log`` in it; a database of its own name never shares its logs' directory."""
    return db_path.with_name(f"{db_path.stem}-logs")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _check_int64(what: str, value: int) -> None:
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise ValueError(f"{what} {value} does not fit in a signed 64-bit SQLite integer")


def _validate_game(game: GameResult) -> None:
    """Reject malformed results before anything is written (they would poison the standings)."""
    if game.game_index < 0:
        raise ValueError(f"game_index must be >= 0, got {game.game_index}")
    if game.winner is not None and game.winner not in (0, 1, 2):
        raise ValueError(f"winner must be a team 0..2 or None, got {game.winner!r}")
    if len(game.scores) != 3:
        raise ValueError(f"scores must have one entry per team, got {game.scores!r}")
    seats = sorted(s.seat for s in game.seats)
    if seats != list(range(6)):
        raise ValueError(f"seats must hold exactly one entry for each seat 0..5, got {seats}")
    for points in game.deal_points:
        if len(points) != 3:
            raise ValueError(f"deal points must have one entry per team, got {points!r}")
    for fault in game.faults:
        if fault.seat not in range(6):
            raise ValueError(f"fault seat must be 0..5, got {fault.seat}")


def _compress_record(record: Mapping[str, Any]) -> bytes:
    # allow_nan=False: NaN/Infinity are not JSON and other readers of the records would choke.
    text = json.dumps(record, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return zlib.compress(text.encode("utf-8"), _ZLIB_LEVEL)


class ResultsStore:
    """Handle on one results database file; open it with ``ResultsStore.open(path)``."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self.path = path

    # -- opening and closing -------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path, *, create: bool = True) -> ResultsStore:
        """Open (creating it and its parent directories if needed) the results store at ``path``.

        With ``create=False`` (for commands that only read) a missing or empty file is an
        error and nothing is written.

        Raises ``ResultsStoreError`` if the file is not an SQLite database, is some other SQLite
        database, or has a schema version this code does not know.
        """
        path = Path(path)
        if not create and (not path.is_file() or path.stat().st_size == 0):
            raise ResultsStoreError(f"no results database at {path}")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ResultsStoreError(
                f"cannot create the directory of results store {path}: {exc}"
            ) from exc
        if path.is_dir():
            raise ResultsStoreError(f"{path} is a directory, not a results store file")
        try:
            # isolation_level=None: transactions are begun explicitly (see _write), so that the
            # sqlite3 module never opens or commits one behind our back.
            conn = sqlite3.connect(path, isolation_level=None, timeout=30.0)
        except sqlite3.Error as exc:
            raise ResultsStoreError(f"cannot open results store {path}: {exc}") from exc
        try:
            _prepare(conn, path)
        except BaseException:
            conn.close()
            raise
        return cls(conn, path)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, committed on normal exit and rolled back on any exception."""
        conn = self._conn
        # IMMEDIATE takes the write lock up front: a deferred transaction that first reads and
        # then writes can fail with SQLITE_BUSY (without waiting) if another process wrote since.
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    # -- writing -------------------------------------------------------------------------------

    def upsert_entrant(self, name: str, version: str, command: Sequence[str]) -> int:
        """Id of entrant (name, version), creating it; its command is updated to ``command``."""
        if isinstance(command, str):
            # A bare string is a Sequence[str] too and would be stored one character per item.
            raise TypeError("command must be an argument list, not a string")
        with self._write() as conn:
            row = conn.execute(
                """
                INSERT INTO entrants (name, version, command) VALUES (?, ?, ?)
                ON CONFLICT (name, version) DO UPDATE SET command = excluded.command
                RETURNING id
                """,
                (name, version, json.dumps(list(command))),
            ).fetchone()
        return int(row[0])

    def start_run(
        self, run_id: str, seed: int | None, settings: Mapping[str, Any], deal_key: bytes
    ) -> RunInfo:
        """Create run ``run_id`` with its deal key, or mark an existing one as running again.

        On resume created_at, seed, settings and the deal key are kept as first stored (so
        a resumed run deals as before); the returned ``RunInfo`` carries them so that the
        caller can refuse to resume with different ones, and ``deal_key`` reads the key.
        """
        if seed is not None:
            _check_int64("seed", seed)
        settings_json = json.dumps(dict(settings), sort_keys=True, allow_nan=False)
        with self._write() as conn:
            conn.execute(
                """
                INSERT INTO runs (id, created_at, finished_at, seed, deal_key, settings, status)
                VALUES (?, ?, NULL, ?, ?, ?, 'running')
                ON CONFLICT (id) DO UPDATE SET status = 'running', finished_at = NULL
                """,
                (run_id, _now(), seed, deal_key, settings_json),
            )
        info = self.run(run_id)
        assert info is not None
        return info

    def deal_key(self, run_id: str) -> bytes:
        """The secret every deal of the run follows from (this file is its only copy).

        ``ResultsStoreError`` for a run stored before deals had keys: its games were
        dealt the old, guessable way and cannot be resumed with the same cards.
        """
        row = self._conn.execute("SELECT deal_key FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise KeyError(f"unknown run {run_id!r}")
        if row[0] is None:
            raise ResultsStoreError(
                f"run {run_id} was stored by an older arena whose deals could be guessed; "
                "it cannot be resumed: start a new run"
            )
        return bytes(row[0])

    def finish_run(self, run_id: str, status: Literal["finished", "interrupted"]) -> None:
        if status not in ("finished", "interrupted"):
            raise ValueError(f"a run finishes as 'finished' or 'interrupted', not {status!r}")
        with self._write() as conn:
            cur = conn.execute(
                "UPDATE runs SET status = ?, finished_at = ? WHERE id = ?",
                (status, _now(), run_id),
            )
            if cur.rowcount == 0:
                raise KeyError(f"unknown run {run_id!r}")

    def ensure_match(self, run_id: str, match_key: str, entrant_ids: tuple[int, int, int]) -> int:
        """Id of match ``match_key`` of the run, creating it with these entrants (by team).

        An existing match with other entrants is an error: resuming with a different line-up
        would mix two different matches under one key.
        """
        if len(entrant_ids) != 3:
            raise ValueError(f"a match has one entrant per team, got {entrant_ids!r}")
        with self._write() as conn:
            if conn.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone() is None:
                raise KeyError(f"unknown run {run_id!r}")
            row = conn.execute(
                """
                SELECT id, entrant_team0, entrant_team1, entrant_team2
                FROM matches WHERE run_id = ? AND match_key = ?
                """,
                (run_id, match_key),
            ).fetchone()
            if row is not None:
                stored = (row[1], row[2], row[3])
                if stored != tuple(entrant_ids):
                    raise ResultsStoreError(
                        f"match {match_key!r} of run {run_id!r} is stored with entrants "
                        f"{stored}, not {tuple(entrant_ids)}"
                    )
                return int(row[0])
            try:
                cur = conn.execute(
                    """
                    INSERT INTO matches (run_id, match_key, entrant_team0, entrant_team1,
                                         entrant_team2, started_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                    (run_id, match_key, *entrant_ids, _now()),
                )
            except sqlite3.IntegrityError as exc:
                raise KeyError(f"unknown entrant among {tuple(entrant_ids)}") from exc
            assert cur.lastrowid is not None
            return cur.lastrowid

    def finish_match(self, run_id: str, match_key: str) -> None:
        with self._write() as conn:
            cur = conn.execute(
                "UPDATE matches SET finished_at = ? WHERE run_id = ? AND match_key = ?",
                (_now(), run_id, match_key),
            )
            if cur.rowcount == 0:
                raise KeyError(f"unknown match {match_key!r} of run {run_id!r}")

    def record_game(self, run_id: str, match_key: str, game: GameResult) -> int:
        """Store a finished game with its seat stats and faults; returns the game's id.

        All rows go in one transaction that is committed when this returns, so a game is either
        fully stored or not at all. Raises ``DuplicateGameError`` if the game is already stored.
        """
        _validate_game(game)
        team_points = game.team_points
        blob = _compress_record(game.record)
        finished_at = game.finished_at if game.finished_at is not None else _now()
        with self._write() as conn:
            match = conn.execute(
                """
                SELECT id, entrant_team0, entrant_team1, entrant_team2
                FROM matches WHERE run_id = ? AND match_key = ?
                """,
                (run_id, match_key),
            ).fetchone()
            if match is None:
                raise KeyError(f"unknown match {match_key!r} of run {run_id!r}")
            match_id, team_entrants = match[0], (match[1], match[2], match[3])
            try:
                cur = conn.execute(
                    """
                    INSERT INTO games (run_id, match_id, game_index, winner,
                                       score_team0, score_team1, score_team2,
                                       deals, duration_s, record, finished_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    (
                        run_id,
                        match_id,
                        game.game_index,
                        game.winner,
                        *game.scores,
                        game.deals,
                        game.duration_s,
                        blob,
                        finished_at,
                    ),
                )
            except sqlite3.IntegrityError as exc:
                if exc.sqlite_errorname == "SQLITE_CONSTRAINT_UNIQUE":
                    raise DuplicateGameError(
                        f"game {game.game_index} of match {match_key!r} of run {run_id!r} "
                        "is already stored"
                    ) from exc
                raise
            game_id = cur.lastrowid
            assert game_id is not None
            conn.executemany(
                """
                INSERT INTO seat_stats (game_id, seat, team, entrant_id, decisions,
                                        decision_seconds_total, decision_seconds_max,
                                        bids_made, bids_won, points_won, faults)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    (
                        game_id,
                        s.seat,
                        s.seat % 3,
                        team_entrants[s.seat % 3],
                        s.decisions,
                        s.decision_seconds_total,
                        s.decision_seconds_max,
                        s.bids_made,
                        s.bids_won,
                        team_points[s.seat % 3],  # points are won by teams: both seats get them
                        s.faults,
                    )
                    for s in sorted(game.seats, key=lambda s: s.seat)
                ],
            )
            conn.executemany(
                """
                INSERT INTO faults (game_id, deal_number, seat, kind, reason,
                                    request_id, sent, fallback, decision_index)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    (
                        game_id,
                        f.deal_number,
                        f.seat,
                        f.kind.value,
                        f.reason,
                        f.request_id,
                        f.sent,
                        f.fallback,
                        f.decision_index,
                    )
                    for f in game.faults
                ],
            )
        return game_id

    # -- reading -------------------------------------------------------------------------------

    def completed_games(self, run_id: str) -> set[tuple[str, int]]:
        """(match_key, game_index) of every game of the run already stored: what not to replay."""
        rows = self._conn.execute(
            """
            SELECT m.match_key, g.game_index
            FROM games g JOIN matches m ON m.id = g.match_id
            WHERE g.run_id = ?
            """,
            (run_id,),
        ).fetchall()
        return {(str(key), int(index)) for key, index in rows}

    def game_record(self, game_id: int) -> dict[str, Any]:
        """The JSON game record of a stored game, decompressed; ``KeyError`` if there is none."""
        row = self._conn.execute("SELECT record FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise KeyError(f"unknown game {game_id}")
        record = json.loads(zlib.decompress(row[0]).decode("utf-8"))
        if not isinstance(record, dict):
            raise ResultsStoreError(f"game {game_id} has a record that is not a JSON object")
        return record

    def game_place(self, game_id: int) -> GamePlace:
        """Run, seating and game seed of a stored game; ``KeyError`` if there is none."""
        rows = self._places("g.id = ?", (game_id,))
        if not rows:
            raise KeyError(f"unknown game {game_id}")
        return rows[0]

    def games_of_seed(self, run_id: str, game_index: int) -> list[GamePlace]:
        """Every game of the run dealt from game seed ``game_index``: one per seating that
        played it (duplicate play, R3.1a), in the order they were stored."""
        return self._places("g.run_id = ? AND g.game_index = ?", (run_id, game_index))

    def match_places(self, run_id: str) -> list[GamePlace]:
        """The first stored game of each seating of the run, in the order they were stored."""
        firsts: dict[str, GamePlace] = {}
        for place in self._places("g.run_id = ?", (run_id,)):
            firsts.setdefault(place.match_key, place)
        return list(firsts.values())

    def _places(self, where: str, args: tuple[Any, ...]) -> list[GamePlace]:
        rows = self._conn.execute(
            f"""
            SELECT g.id, g.run_id, m.match_key, g.game_index,
                   e0.name, e0.version, e1.name, e1.version, e2.name, e2.version
            FROM games g
            JOIN matches m ON m.id = g.match_id
            JOIN entrants e0 ON e0.id = m.entrant_team0
            JOIN entrants e1 ON e1.id = m.entrant_team1
            JOIN entrants e2 ON e2.id = m.entrant_team2
            WHERE {where}
            ORDER BY g.id
            """,
            args,
        ).fetchall()
        return [
            GamePlace(
                game_id=r[0],
                run_id=r[1],
                match_key=r[2],
                game_index=r[3],
                entrants_by_team=(
                    entrant_label(r[4], r[5]),
                    entrant_label(r[6], r[7]),
                    entrant_label(r[8], r[9]),
                ),
            )
            for r in rows
        ]

    def run(self, run_id: str) -> RunInfo | None:
        row = self._conn.execute(
            "SELECT id, created_at, finished_at, seed, settings, status FROM runs WHERE id = ?",
            (run_id,),
        ).fetchone()
        return None if row is None else _run_info(row)

    def latest_run_id(self) -> str | None:
        row = self._conn.execute(
            "SELECT id FROM runs ORDER BY created_at DESC, rowid DESC LIMIT 1"
        ).fetchone()
        return None if row is None else str(row[0])

    def entrant_game_rows(self, run_id: str) -> list[stats.EntrantGameRow]:
        """One row per (game, team) of the run, for ``stats.standings``.

        Grouping by team rather than by entrant matters in two-entrant runs, where one entrant
        holds two teams of a game: it then gets two rows, one per team it played. Each row
        carries its game seed, the game index (R3.1a), for the seed bootstrap.
        """
        rows = self._conn.execute(
            """
            SELECT e.name, e.version, g.game_index, g.winner, s.team,
                   MAX(s.points_won), g.deals, SUM(s.bids_made), SUM(s.bids_won),
                   SUM(s.faults), SUM(s.decisions), SUM(s.decision_seconds_total)
            FROM games g
            JOIN seat_stats s ON s.game_id = g.id
            JOIN entrants e ON e.id = s.entrant_id
            WHERE g.run_id = ?
            GROUP BY g.id, s.team
            ORDER BY g.id, s.team
            """,
            (run_id,),
        ).fetchall()
        result: list[stats.EntrantGameRow] = []
        for (
            name,
            version,
            seed,
            winner,
            team,
            points,
            deals,
            made,
            won,
            faults,
            decisions,
            secs,
        ) in rows:
            outcome: stats.Outcome
            if winner is None:
                outcome = "draw"
            elif winner == team:
                outcome = "win"
            else:
                outcome = "loss"
            result.append(
                stats.EntrantGameRow(
                    entrant=entrant_label(name, version),
                    outcome=outcome,
                    points=points,
                    deals=deals,
                    bids_made=made,
                    bids_won=won,
                    faults=faults,
                    decisions=decisions,
                    decision_seconds_total=secs,
                    seed=seed,
                )
            )
        return result

    def game_outcomes(self, run_id: str) -> list[stats.GameOutcome]:
        """One entry per game of the run."""
        return [seeded.outcome for seeded in self.seeded_outcomes(run_id)]

    def seeded_outcomes(self, run_id: str) -> list[stats.SeededOutcome]:
        """One entry per game of the run with its game seed, the game index (R3.1a): for
        ``stats.head_to_head`` and ``ratings.fit_ratings``."""
        return [
            stats.SeededOutcome(
                seed=game.seed,
                outcome=stats.GameOutcome(
                    entrants_by_team=game.entrants_by_team,
                    final_scores=game.scores,
                    winner=game.winner,
                ),
            )
            for game in self.games(run_id)
        ]

    def game_faults(self, game_id: int) -> list[Fault]:
        """The faults stored with a game, in the order they were recorded.

        A fault that replaced a decision carries its deal number and ``decision_index``:
        the decision of the game record marked as its fallback (docs/GAME_RECORD.md).
        """
        rows = self._conn.execute(
            """
            SELECT g.game_index, f.deal_number, f.seat, f.kind, f.reason, f.sent,
                   f.fallback, f.request_id, f.decision_index
            FROM faults f JOIN games g ON g.id = f.game_id
            WHERE f.game_id = ? ORDER BY f.id
            """,
            (game_id,),
        ).fetchall()
        return [Fault(r[0], r[1], r[2], FaultKind(r[3]), *r[4:]) for r in rows]

    def fault_counts(self, run_id: str) -> dict[str, int]:
        """How many faults of each kind the run's games recorded."""
        rows = self._conn.execute(
            """
            SELECT f.kind, COUNT(*) FROM faults f JOIN games g ON g.id = f.game_id
            WHERE g.run_id = ? GROUP BY f.kind ORDER BY f.kind
            """,
            (run_id,),
        ).fetchall()
        return {kind: count for kind, count in rows}

    def games(self, run_id: str) -> list[StoredGame]:
        """Every game of the run, in the order they were stored."""
        rows = self._conn.execute(
            """
            SELECT g.id, g.game_index, e0.name, e0.version, e1.name, e1.version,
                   e2.name, e2.version, g.score_team0, g.score_team1, g.score_team2,
                   g.winner, g.deals,
                   (SELECT COUNT(*) FROM faults f WHERE f.game_id = g.id)
            FROM games g
            JOIN matches m ON m.id = g.match_id
            JOIN entrants e0 ON e0.id = m.entrant_team0
            JOIN entrants e1 ON e1.id = m.entrant_team1
            JOIN entrants e2 ON e2.id = m.entrant_team2
            WHERE g.run_id = ?
            ORDER BY g.id
            """,
            (run_id,),
        ).fetchall()
        return [
            StoredGame(
                id=r[0],
                seed=r[1],
                entrants_by_team=(
                    entrant_label(r[2], r[3]),
                    entrant_label(r[4], r[5]),
                    entrant_label(r[6], r[7]),
                ),
                scores=(r[8], r[9], r[10]),
                winner=r[11],
                deals=r[12],
                faults=r[13],
            )
            for r in rows
        ]

    def fault_counts_by_entrant(self, run_id: str) -> dict[str, dict[str, int]]:
        """How many faults of each kind each entrant's seats made in the run's games."""
        rows = self._conn.execute(
            """
            SELECT e.name, e.version, f.kind, COUNT(*)
            FROM faults f
            JOIN games g ON g.id = f.game_id
            JOIN seat_stats s ON s.game_id = f.game_id AND s.seat = f.seat
            JOIN entrants e ON e.id = s.entrant_id
            WHERE g.run_id = ?
            GROUP BY e.id, f.kind ORDER BY e.name, e.version, f.kind
            """,
            (run_id,),
        ).fetchall()
        counts: dict[str, dict[str, int]] = {}
        for name, version, kind, count in rows:
            counts.setdefault(entrant_label(name, version), {})[kind] = count
        return counts

    def missed_joins(self, run_id: str) -> list[tuple[str, int, str]]:
        """(entrant label, seats that never joined, the latest such seat's reason) for each
        entrant of the run with a ``no_join`` fault, by label."""
        rows = self._conn.execute(
            """
            SELECT e.name, e.version, COUNT(*),
                   (SELECT f2.reason FROM faults f2
                    JOIN games g2 ON g2.id = f2.game_id
                    JOIN seat_stats s2 ON s2.game_id = f2.game_id AND s2.seat = f2.seat
                    WHERE g2.run_id = ? AND s2.entrant_id = e.id AND f2.kind = 'no_join'
                    ORDER BY f2.id DESC LIMIT 1)
            FROM faults f
            JOIN games g ON g.id = f.game_id
            JOIN seat_stats s ON s.game_id = f.game_id AND s.seat = f.seat
            JOIN entrants e ON e.id = s.entrant_id
            WHERE g.run_id = ? AND f.kind = 'no_join'
            GROUP BY e.id ORDER BY e.name, e.version
            """,
            (run_id, run_id),
        ).fetchall()
        return [(entrant_label(n, v), int(count), str(reason)) for n, v, count, reason in rows]

    def seat_times(self, run_id: str) -> list[SeatTimes]:
        """Each seat's decision times in each game of the run."""
        rows = self._conn.execute(
            """
            SELECT e.name, e.version, s.decisions, s.decision_seconds_total,
                   s.decision_seconds_max
            FROM seat_stats s
            JOIN games g ON g.id = s.game_id
            JOIN entrants e ON e.id = s.entrant_id
            WHERE g.run_id = ?
            ORDER BY s.game_id, s.seat
            """,
            (run_id,),
        ).fetchall()
        return [SeatTimes(entrant_label(n, v), d, total, top) for n, v, d, total, top in rows]


def _run_info(row: tuple[Any, ...]) -> RunInfo:
    return RunInfo(
        id=row[0],
        created_at=row[1],
        finished_at=row[2],
        seed=row[3],
        settings=json.loads(row[4]),
        status=row[5],
    )


def _prepare(conn: sqlite3.Connection, path: Path) -> None:
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
    if application_id == APPLICATION_ID and version == 1:
        _migrate(conn, path, 1, _migrate_from_1)
        version = 2
    if application_id == APPLICATION_ID and version == 2:
        _migrate(conn, path, 2, _migrate_from_2)
        version = 3
    if application_id == APPLICATION_ID and version == 3:
        _migrate(conn, path, 3, _migrate_from_3)
        version = 4
    if application_id == APPLICATION_ID and version != SCHEMA_VERSION:
        raise ResultsStoreError(
            f"{path} has results schema version {version}, but this arena only knows version "
            f"{SCHEMA_VERSION}"
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
        for statement in _SCHEMA:
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
