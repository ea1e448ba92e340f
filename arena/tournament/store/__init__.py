"""SQLite results store of tournament runs: runs, entrants, matches, games, seat stats (with
the build each seat ran), faults and decision times.

One file holds any number of runs. A game is written in a single transaction together with its
per-seat statistics, its faults and its decision times, so after any crash the file holds whole
games only, and ``completed_games`` tells a resumed run exactly which games still have to be
played.

The store is three modules behind one handle, ``ResultsStore``: :mod:`.schema` (the tables, the
version and the upgrades of old stores, run when a file is opened), :mod:`.writes` (everything
that writes) and :mod:`.queries` (everything the report, compare, serve and the command line
read). docs/GAME_RECORD.md documents every table and column.

Threading: a ``ResultsStore`` wraps one ``sqlite3.Connection`` and must only be used from the
thread that opened it (sqlite3's default ``check_same_thread`` enforces this). Several processes
may open the same file; WAL mode lets readers (reports) run while a tournament is writing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, Self

from arena.referee.policy import Fault
from arena.referee.result import GameResult
from arena.stats import rates as stats

from . import queries, writes
from .queries import RunInfo, RunStatus, SeatTimes, StoredGame, entrant_label
from .schema import APPLICATION_ID, SCHEMA_VERSION, ResultsStoreError, prepare
from .writes import DuplicateGameError

__all__ = [
    "APPLICATION_ID",
    "SCHEMA_VERSION",
    "DuplicateGameError",
    "ResultsStore",
    "ResultsStoreError",
    "RunInfo",
    "RunStatus",
    "SeatTimes",
    "StoredGame",
    "entrant_label",
    "logs_beside",
]


def logs_beside(db_path: Path) -> Path:
    """Where the bot logs of the runs stored in ``db_path`` go: ``<stem>-logs`` beside it
    (``arena-results/arena-logs`` by default), one directory per run, then per match,
    ``seat<N>.log`` in it; a database of its own name never shares its logs' directory."""
    return db_path.with_name(f"{db_path.stem}-logs")


class ResultsStore:
    """Handle on one results database file; open it with ``ResultsStore.open(path)``.

    Each method writes or reads through :mod:`.writes` or :mod:`.queries`, whose functions
    say what they do in detail.
    """

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self.path = path

    # -- opening and closing -------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path, *, create: bool = True) -> ResultsStore:
        """Open (creating it and its parent directories if needed) the results store at ``path``,
        upgrading in place one written by an earlier arena.

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
            # isolation_level=None: transactions are begun explicitly (writes.transaction), so
            # that the sqlite3 module never opens or commits one behind our back.
            conn = sqlite3.connect(path, isolation_level=None, timeout=30.0)
        except sqlite3.Error as exc:
            raise ResultsStoreError(f"cannot open results store {path}: {exc}") from exc
        try:
            prepare(conn, path)
        except BaseException:
            conn.close()
            raise
        return cls(conn, path)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- writing -------------------------------------------------------------------------------

    def upsert_entrant(self, name: str, version: str, command: Sequence[str]) -> int:
        """Id of entrant (name, version), creating it; its command is updated to ``command``."""
        return writes.upsert_entrant(self._conn, name, version, command)

    def start_run(
        self, run_id: str, seed: int | None, settings: Mapping[str, Any], deal_key: bytes
    ) -> RunInfo:
        """Create run ``run_id`` with its deal key, or mark an existing one as running again.

        On resume created_at, seed, settings and the deal key are kept as first stored (so
        a resumed run deals as before); the returned ``RunInfo`` carries them so that the
        caller can refuse to resume with different ones, and ``deal_key`` reads the key.
        """
        writes.start_run(self._conn, run_id, seed, settings, deal_key)
        info = self.run(run_id)
        assert info is not None
        return info

    def finish_run(self, run_id: str, status: Literal["finished", "interrupted"]) -> None:
        writes.finish_run(self._conn, run_id, status)

    def ensure_match(self, run_id: str, match_key: str, entrant_ids: tuple[int, int, int]) -> int:
        """Id of match ``match_key`` of the run, creating it with these entrants (by team);
        ``ResultsStoreError`` if it is stored with other entrants."""
        return writes.ensure_match(self._conn, run_id, match_key, entrant_ids)

    def finish_match(self, run_id: str, match_key: str) -> None:
        writes.finish_match(self._conn, run_id, match_key)

    def record_game(self, run_id: str, match_key: str, game: GameResult) -> int:
        """Store a finished game with its seat stats, faults and decision times, in one
        transaction; returns the game's id. ``DuplicateGameError`` if it is already stored."""
        return writes.record_game(self._conn, run_id, match_key, game)

    # -- reading -------------------------------------------------------------------------------

    def run(self, run_id: str) -> RunInfo | None:
        return queries.run(self._conn, run_id)

    def latest_run_id(self) -> str | None:
        return queries.latest_run_id(self._conn)

    def deal_key(self, run_id: str) -> bytes:
        """The secret every deal of the run follows from (this file is its only copy);
        ``ResultsStoreError`` for a run stored before deals had keys."""
        return queries.deal_key(self._conn, run_id)

    def completed_games(self, run_id: str) -> set[tuple[str, int]]:
        """(match_key, game_index) of every game of the run already stored: what not to replay."""
        return queries.completed_games(self._conn, run_id)

    def game_record(self, game_id: int) -> dict[str, Any]:
        """The JSON game record of a stored game, decompressed; ``KeyError`` if there is none."""
        return queries.game_record(self._conn, game_id)

    def game(self, game_id: int) -> StoredGame:
        """Run, seating and game seed of a stored game; ``KeyError`` if there is none."""
        return queries.game(self._conn, game_id)

    def games_of_seed(self, run_id: str, game_index: int) -> list[StoredGame]:
        """Every game of the run dealt from game seed ``game_index``, one per seating."""
        return queries.games_of_seed(self._conn, run_id, game_index)

    def match_places(self, run_id: str) -> list[StoredGame]:
        """The first stored game of each seating of the run, in the order they were stored."""
        return queries.match_places(self._conn, run_id)

    def games(self, run_id: str) -> list[StoredGame]:
        """Every game of the run, in the order they were stored."""
        return queries.games(self._conn, run_id)

    def entrant_game_rows(self, run_id: str) -> list[stats.EntrantGameRow]:
        """One row per (game, team) of the run, for ``stats.standings``."""
        return queries.entrant_game_rows(self._conn, run_id)

    def game_outcomes(self, run_id: str) -> list[stats.GameOutcome]:
        """One entry per game of the run with its game seed, the game index (R3.1a)."""
        return queries.game_outcomes(self._conn, run_id)

    def game_faults(self, game_id: int) -> list[Fault]:
        """The faults stored with a game, in the order they were recorded."""
        return queries.game_faults(self._conn, game_id)

    def fault_counts(self, run_id: str) -> dict[str, int]:
        """How many faults of each kind the run's games recorded."""
        return queries.fault_counts(self._conn, run_id)

    def fault_counts_by_entrant(self, run_id: str) -> dict[str, dict[str, int]]:
        """How many faults of each kind each entrant's seats made in the run's games."""
        return queries.fault_counts_by_entrant(self._conn, run_id)

    def builds(self, run_id: str) -> dict[str, dict[str, int]]:
        """Entrant label → build digest → games of the run its seats ran it in."""
        return queries.builds(self._conn, run_id)

    def mixed_builds(self, run_id: str) -> dict[str, dict[str, int]]:
        """The entrants of the run that ran more than one build of their version."""
        return queries.mixed_builds(self._conn, run_id)

    def missed_joins(self, run_id: str) -> list[tuple[str, int, str]]:
        """(entrant label, seats that never joined, the latest such seat's reason) for each
        entrant of the run with a ``no_join`` fault, by label."""
        return queries.missed_joins(self._conn, run_id)

    def seat_times(self, run_id: str) -> list[SeatTimes]:
        """Each seat's decision times in each game of the run (seat_stats)."""
        return queries.seat_times(self._conn, run_id)

    def untimed_games(self, run_id: str) -> int:
        """How many games of the run time none of their decisions (decision_times)."""
        return queries.untimed_games(self._conn, run_id)

    def decision_seconds(self, run_id: str) -> dict[str, list[float]]:
        """Entrant label → the time of each of its timed decisions in the run's games."""
        return queries.decision_seconds(self._conn, run_id)
