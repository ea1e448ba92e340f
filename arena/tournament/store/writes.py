"""Everything that writes to a results store: entrants, runs, matches, and each finished
game with its seat statistics, faults and decision times.

Each function takes the store's connection and writes in one transaction of its own
(``transaction``), so after any crash the file holds whole games only.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, Final, Literal

from arena.referee.result import GameResult

from .schema import (
    INSERT_DECISION_TIME,
    ResultsStoreError,
    build_digests,
    compress_record,
    decision_times,
)

__all__ = [
    "DuplicateGameError",
    "ensure_match",
    "finish_match",
    "finish_run",
    "record_game",
    "start_run",
    "transaction",
    "upsert_entrant",
]

_INT64_MIN: Final = -(2**63)
_INT64_MAX: Final = 2**63 - 1


class DuplicateGameError(ResultsStoreError):
    """A game with this (run, match key, game index) is already stored."""


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction, committed on normal exit and rolled back on any exception.

    The connection must have been opened with ``isolation_level=None``, so that the sqlite3
    module never opens or commits a transaction behind our back.
    """
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


def upsert_entrant(
    conn: sqlite3.Connection, name: str, version: str, command: Sequence[str]
) -> int:
    """Id of entrant (name, version), creating it; its command is updated to ``command``."""
    if isinstance(command, str):
        # A bare string is a Sequence[str] too and would be stored one character per item.
        raise TypeError("command must be an argument list, not a string")
    with transaction(conn):
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
    conn: sqlite3.Connection,
    run_id: str,
    seed: int | None,
    settings: Mapping[str, Any],
    deal_key: bytes,
) -> None:
    """Create run ``run_id`` with its deal key, or mark an existing one as running again.

    On resume created_at, seed, settings and the deal key are kept as first stored (so a
    resumed run deals as before).
    """
    if seed is not None:
        _check_int64("seed", seed)
    settings_json = json.dumps(dict(settings), sort_keys=True, allow_nan=False)
    with transaction(conn):
        conn.execute(
            """
            INSERT INTO runs (id, created_at, finished_at, seed, deal_key, settings, status)
            VALUES (?, ?, NULL, ?, ?, ?, 'running')
            ON CONFLICT (id) DO UPDATE SET status = 'running', finished_at = NULL
            """,
            (run_id, _now(), seed, deal_key, settings_json),
        )


def finish_run(
    conn: sqlite3.Connection, run_id: str, status: Literal["finished", "interrupted"]
) -> None:
    if status not in ("finished", "interrupted"):
        raise ValueError(f"a run finishes as 'finished' or 'interrupted', not {status!r}")
    with transaction(conn):
        cur = conn.execute(
            "UPDATE runs SET status = ?, finished_at = ? WHERE id = ?",
            (status, _now(), run_id),
        )
        if cur.rowcount == 0:
            raise KeyError(f"unknown run {run_id!r}")


def ensure_match(
    conn: sqlite3.Connection, run_id: str, match_key: str, entrant_ids: tuple[int, int, int]
) -> int:
    """Id of match ``match_key`` of the run, creating it with these entrants (by team).

    An existing match with other entrants is an error: resuming with a different line-up
    would mix two different matches under one key.
    """
    if len(entrant_ids) != 3:
        raise ValueError(f"a match has one entrant per team, got {entrant_ids!r}")
    with transaction(conn):
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


def finish_match(conn: sqlite3.Connection, run_id: str, match_key: str) -> None:
    with transaction(conn):
        cur = conn.execute(
            "UPDATE matches SET finished_at = ? WHERE run_id = ? AND match_key = ?",
            (_now(), run_id, match_key),
        )
        if cur.rowcount == 0:
            raise KeyError(f"unknown match {match_key!r} of run {run_id!r}")


def record_game(conn: sqlite3.Connection, run_id: str, match_key: str, game: GameResult) -> int:
    """Store a finished game with its seat stats, faults and decision times; returns the
    game's id.

    All rows go in one transaction that is committed when this returns, so a game is either
    fully stored or not at all. Raises ``DuplicateGameError`` if the game is already stored,
    ``ValueError`` (before writing anything) for a malformed result.
    """
    _validate_game(game)
    builds = build_digests(game.record)  # ValueError for a malformed one
    times = decision_times(game.record)  # ValueError for a malformed decision
    team_points = game.team_points
    blob = compress_record(game.record)
    finished_at = game.finished_at if game.finished_at is not None else _now()
    with transaction(conn):
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
                                   deals, duration_s, record, finished_at, forfeited)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
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
                    sum(1 << team for team in set(game.forfeited)),
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
                                    bids_made, bids_won, points_won, faults, build_digest)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
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
                    builds[s.seat % 3],
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
        conn.executemany(INSERT_DECISION_TIME, [(game_id, *time) for time in times])
    return game_id


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
    if not set(game.forfeited) <= {0, 1, 2} or game.winner in game.forfeited:
        raise ValueError(f"forfeited must be teams 0..2 but the winner, got {game.forfeited!r}")
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
