"""What the report, compare, serve and the command line read from a results store.

Each function takes the store's connection and only reads. Entrants are named by their
label (``entrant_label``), as standings show them.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any, Literal

from arena.referee.policy import Fault, FaultKind
from arena.stats import rates as stats

from .schema import ResultsStoreError, decompress_record

__all__ = [
    "RunInfo",
    "RunStatus",
    "SeatTimes",
    "StoredGame",
    "builds",
    "completed_games",
    "deal_key",
    "decision_seconds",
    "entrant_game_rows",
    "entrant_label",
    "fault_counts",
    "fault_counts_by_entrant",
    "game",
    "game_faults",
    "game_outcomes",
    "game_record",
    "games",
    "games_of_seed",
    "latest_run_id",
    "match_places",
    "missed_joins",
    "mixed_builds",
    "run",
    "seat_times",
    "untimed_games",
]

RunStatus = Literal["running", "finished", "interrupted"]


@dataclass(frozen=True)
class RunInfo:
    id: str
    created_at: str
    finished_at: str | None
    seed: int | None  # the explicit --seed; None for a run with a secret key
    settings: dict[str, Any]
    status: RunStatus


@dataclass(frozen=True)
class StoredGame:
    """One stored game: where it was played (its run, its seating, its game index) and how
    it ended. The record itself is read apart (``game_record``): it is large."""

    id: int
    run_id: str
    match_key: str  # the seating's key, also the name of its log directory
    # The game's index in its seating, the game seed it was dealt from: every seating of
    # the run plays it with the same cards (R3.1a).
    game_index: int
    entrants_by_team: tuple[str, str, str]
    scores: tuple[int, int, int]
    winner: int | None  # None for a draw, or where the teams that did not forfeit are level
    deals: int
    faults: int
    forfeited: tuple[int, ...] = ()  # the teams that forfeited (F1), each a loss


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


def deal_key(conn: sqlite3.Connection, run_id: str) -> bytes:
    """The secret every deal of the run follows from (this file is its only copy).

    ``ResultsStoreError`` for a run stored before deals had keys: its games were
    dealt the old, guessable way and cannot be resumed with the same cards.
    """
    row = conn.execute("SELECT deal_key FROM runs WHERE id = ?", (run_id,)).fetchone()
    if row is None:
        raise KeyError(f"unknown run {run_id!r}")
    if row[0] is None:
        raise ResultsStoreError(
            f"run {run_id} was stored by an older arena whose deals could be guessed; "
            "it cannot be resumed: start a new run"
        )
    return bytes(row[0])


def completed_games(conn: sqlite3.Connection, run_id: str) -> set[tuple[str, int]]:
    """(match_key, game_index) of every game of the run already stored: what not to replay."""
    rows = conn.execute(
        """
        SELECT m.match_key, g.game_index
        FROM games g JOIN matches m ON m.id = g.match_id
        WHERE g.run_id = ?
        """,
        (run_id,),
    ).fetchall()
    return {(str(key), int(index)) for key, index in rows}


def game_record(conn: sqlite3.Connection, game_id: int) -> dict[str, Any]:
    """The JSON game record of a stored game, decompressed; ``KeyError`` if there is none."""
    row = conn.execute("SELECT record FROM games WHERE id = ?", (game_id,)).fetchone()
    if row is None:
        raise KeyError(f"unknown game {game_id}")
    record = decompress_record(row[0])
    if not isinstance(record, dict):
        raise ResultsStoreError(f"game {game_id} has a record that is not a JSON object")
    return record


def game(conn: sqlite3.Connection, game_id: int) -> StoredGame:
    """A stored game; ``KeyError`` if there is none."""
    rows = _stored(conn, "g.id = ?", (game_id,))
    if not rows:
        raise KeyError(f"unknown game {game_id}")
    return rows[0]


def games_of_seed(conn: sqlite3.Connection, run_id: str, game_index: int) -> list[StoredGame]:
    """Every game of the run dealt from game seed ``game_index``: one per seating that
    played it (duplicate play, R3.1a), in the order they were stored."""
    return _stored(conn, "g.run_id = ? AND g.game_index = ?", (run_id, game_index))


def match_places(conn: sqlite3.Connection, run_id: str) -> list[StoredGame]:
    """The first stored game of each seating of the run, in the order they were stored."""
    firsts: dict[str, StoredGame] = {}
    for place in games(conn, run_id):
        firsts.setdefault(place.match_key, place)
    return list(firsts.values())


def _stored(conn: sqlite3.Connection, where: str, args: tuple[Any, ...]) -> list[StoredGame]:
    rows = conn.execute(
        f"""
        SELECT g.id, g.run_id, m.match_key, g.game_index,
               e0.name, e0.version, e1.name, e1.version, e2.name, e2.version,
               g.score_team0, g.score_team1, g.score_team2, g.winner, g.deals,
               (SELECT COUNT(*) FROM faults f WHERE f.game_id = g.id), g.forfeited
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
        StoredGame(
            id=r[0],
            run_id=r[1],
            match_key=r[2],
            game_index=r[3],
            entrants_by_team=(
                entrant_label(r[4], r[5]),
                entrant_label(r[6], r[7]),
                entrant_label(r[8], r[9]),
            ),
            scores=(r[10], r[11], r[12]),
            winner=r[13],
            deals=r[14],
            faults=r[15],
            forfeited=_teams(r[16]),
        )
        for r in rows
    ]


def _teams(bits: int) -> tuple[int, ...]:
    """The teams of a ``games.forfeited`` column: bit t for team t."""
    return tuple(team for team in range(3) if bits >> team & 1)


def run(conn: sqlite3.Connection, run_id: str) -> RunInfo | None:
    row = conn.execute(
        "SELECT id, created_at, finished_at, seed, settings, status FROM runs WHERE id = ?",
        (run_id,),
    ).fetchone()
    return None if row is None else _run_info(row)


def latest_run_id(conn: sqlite3.Connection) -> str | None:
    row = conn.execute(
        "SELECT id FROM runs ORDER BY created_at DESC, rowid DESC LIMIT 1"
    ).fetchone()
    return None if row is None else str(row[0])


def entrant_game_rows(conn: sqlite3.Connection, run_id: str) -> list[stats.EntrantGameRow]:
    """One row per (game, team) of the run, for ``stats.standings``.

    Grouping by team rather than by entrant matters in two-entrant runs, where one entrant
    holds two teams of a game: it then gets two rows, one per team it played. Each row
    carries its game seed, the game index (R3.1a), for the intervals over seeds.
    """
    rows = conn.execute(
        """
        SELECT e.name, e.version, g.game_index, g.winner, s.team,
               MAX(s.points_won), g.deals, SUM(s.bids_made), SUM(s.bids_won),
               SUM(s.faults), SUM(s.decisions), SUM(s.decision_seconds_total),
               g.forfeited
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
        forfeited,
    ) in rows:
        outcome: stats.Outcome
        if team in _teams(forfeited):  # F1: a forfeit is a loss whoever else won
            outcome = "loss"
        elif winner is None:
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


def game_outcomes(conn: sqlite3.Connection, run_id: str) -> list[stats.GameOutcome]:
    """One entry per game of the run, with its game seed, the game index (R3.1a): for
    ``stats.head_to_head`` and ``ratings.fit_ratings``."""
    return [
        stats.GameOutcome(
            entrants_by_team=game.entrants_by_team,
            final_scores=game.scores,
            winner=game.winner,
            seed=game.game_index,
            forfeited=game.forfeited,
        )
        for game in games(conn, run_id)
    ]


def game_faults(conn: sqlite3.Connection, game_id: int) -> list[Fault]:
    """The faults stored with a game, in the order they were recorded.

    A fault that replaced a decision carries its deal number and ``decision_index``:
    the decision of the game record marked as its fallback (docs/GAME_RECORD.md).
    """
    rows = conn.execute(
        """
        SELECT g.game_index, f.deal_number, f.seat, f.kind, f.reason, f.sent,
               f.fallback, f.request_id, f.decision_index
        FROM faults f JOIN games g ON g.id = f.game_id
        WHERE f.game_id = ? ORDER BY f.id
        """,
        (game_id,),
    ).fetchall()
    return [Fault(r[0], r[1], r[2], FaultKind(r[3]), *r[4:]) for r in rows]


def fault_counts(conn: sqlite3.Connection, run_id: str) -> dict[str, int]:
    """How many faults of each kind the run's games recorded."""
    rows = conn.execute(
        """
        SELECT f.kind, COUNT(*) FROM faults f JOIN games g ON g.id = f.game_id
        WHERE g.run_id = ? GROUP BY f.kind ORDER BY f.kind
        """,
        (run_id,),
    ).fetchall()
    return {kind: count for kind, count in rows}


def games(conn: sqlite3.Connection, run_id: str) -> list[StoredGame]:
    """Every game of the run, in the order they were stored."""
    return _stored(conn, "g.run_id = ?", (run_id,))


def fault_counts_by_entrant(conn: sqlite3.Connection, run_id: str) -> dict[str, dict[str, int]]:
    """How many faults of each kind each entrant's seats made in the run's games."""
    rows = conn.execute(
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


def builds(conn: sqlite3.Connection, run_id: str) -> dict[str, dict[str, int]]:
    """Entrant label → the build digests its seats ran in the run's games, each with how
    many games ran it (games whose build was not recorded are left out). More than one
    digest for a label means its version ran different built files in one run."""
    rows = conn.execute(
        """
        SELECT e.name, e.version, s.build_digest, COUNT(DISTINCT s.game_id)
        FROM seat_stats s
        JOIN games g ON g.id = s.game_id
        JOIN entrants e ON e.id = s.entrant_id
        WHERE g.run_id = ? AND s.build_digest IS NOT NULL
        GROUP BY e.id, s.build_digest ORDER BY e.name, e.version, s.build_digest
        """,
        (run_id,),
    ).fetchall()
    found: dict[str, dict[str, int]] = {}
    for name, version, digest, count in rows:
        found.setdefault(entrant_label(name, version), {})[str(digest)] = int(count)
    return found


def mixed_builds(conn: sqlite3.Connection, run_id: str) -> dict[str, dict[str, int]]:
    """The entrants of the run that ran more than one build of their version (``builds``):
    their games do not all measure the same bot."""
    return {label: found for label, found in builds(conn, run_id).items() if len(found) > 1}


def missed_joins(conn: sqlite3.Connection, run_id: str) -> list[tuple[str, int, str]]:
    """(entrant label, seats that never joined, the latest such seat's reason) for each
    entrant of the run with a ``no_join`` fault, by label."""
    rows = conn.execute(
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


def seat_times(conn: sqlite3.Connection, run_id: str) -> list[SeatTimes]:
    """Each seat's decision times in each game of the run."""
    rows = conn.execute(
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


def untimed_games(conn: sqlite3.Connection, run_id: str) -> int:
    """How many games of the run time none of their decisions in ``decision_times``: games
    whose records list no decisions (stored before record version 3) and games whose
    decisions nobody was asked for (the engine alone, auto-played seats)."""
    row = conn.execute(
        """
        SELECT COUNT(*) FROM games g
        WHERE g.run_id = ? AND NOT EXISTS (
            SELECT 1 FROM decision_times d WHERE d.game_id = g.id AND d.seconds IS NOT NULL
        )
        """,
        (run_id,),
    ).fetchone()
    return int(row[0])


def decision_seconds(conn: sqlite3.Connection, run_id: str) -> dict[str, list[float]]:
    """Entrant label → the time of each of its timed decisions in the run's games, from
    ``decision_times`` (no record is opened); an entrant with no timed decision is absent."""
    rows = conn.execute(
        """
        SELECT e.name, e.version, d.seconds
        FROM games g
        JOIN decision_times d ON d.game_id = g.id
        JOIN seat_stats s ON s.game_id = d.game_id AND s.seat = d.seat
        JOIN entrants e ON e.id = s.entrant_id
        WHERE g.run_id = ? AND d.seconds IS NOT NULL
        ORDER BY d.game_id, d.deal_number, d.decision_index
        """,
        (run_id,),
    ).fetchall()
    seconds: dict[str, list[float]] = {}
    for name, version, value in rows:
        seconds.setdefault(entrant_label(name, version), []).append(value)
    return seconds


def _run_info(row: tuple[Any, ...]) -> RunInfo:
    return RunInfo(
        id=row[0],
        created_at=row[1],
        finished_at=row[2],
        seed=row[3],
        settings=json.loads(row[4]),
        status=row[5],
    )
