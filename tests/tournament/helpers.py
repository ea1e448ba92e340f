"""Shared helpers for the tournament tests: sample bots, result files, leftover processes.

Reading a results file back game by game is for tests only: the arena itself reads runs,
standings and records (``ResultsStore``), never one game's rows.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
import os
import re
import shutil
import signal
import sqlite3
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bots.helpers import live_processes, wait_until_none

from arena.bots import BotSpec, load_bot
from arena.engine.record import first_difference, without_times
from arena.referee.policy import Fault, FaultKind
from arena.referee.result import SeatStats
from arena.tournament.runner import RunConfig
from arena.tournament.schedule import FixedSchedule, round_robin
from arena.tournament.store import APPLICATION_ID, ResultsStore, RunInfo, entrant_label

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLE_BOTS = REPO_ROOT / "sample_bots"
DEAL_CLOCK = Path(__file__).resolve().parent / "bots" / "deal_clock"
_DEAL_CLOCK_LINE = re.compile(r"^deal-clock (\S+) (\d) (\d+) (\d+) (\d+)$", re.MULTILINE)


def sample_path(name: str) -> Path:
    return SAMPLE_BOTS / name


def sample(name: str) -> BotSpec:
    """A sample bot, loaded from its directory (relative to the repository root)."""
    return load_bot(sample_path(name))


def copy_bot(name: str, destination: Path, new_name: str) -> Path:
    """A copy of sample bot ``name`` under another name: a distinct entrant."""
    shutil.copytree(
        sample_path(name), destination, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    manifest = destination / "bot.toml"
    text = manifest.read_text()
    assert f'name = "{name}"' in text
    manifest.write_text(text.replace(f'name = "{name}"', f'name = "{new_name}"'))
    return destination


def deal_clocks(root: Path) -> tuple[BotSpec, BotSpec]:
    """Two entrants (``bots/deal_clock`` under two names) that write in their logs when
    each game of their match was played (``games_as_played``)."""
    specs = []
    for name in ("deal_clock", "deal_clock_b"):
        destination = root / name
        shutil.copytree(DEAL_CLOCK, destination, ignore=shutil.ignore_patterns("__pycache__"))
        manifest = destination / "bot.toml"
        manifest.write_text(manifest.read_text().replace('"deal_clock"', f'"{name}"'))
        specs.append(load_bot(destination))
    return specs[0], specs[1]


def same_start(entrants: tuple[BotSpec, BotSpec], games: int) -> FixedSchedule:
    """Two entrants' round robin with every seating starting at game 0: without the deals'
    leases, two tables would play the same deal at once from their first game."""
    return FixedSchedule(
        entrants, [dataclasses.replace(m, rotation=0) for m in round_robin(2, games)]
    )


def games_as_played(log_root: Path) -> dict[tuple[str, int], tuple[int, int]]:
    """Each game of the deal-clock entrants' matches under ``log_root`` (LOGS/RUN/MATCH/):
    (match, game index) -> the span its six seats lived it, on the machine's monotonic
    clock in ns: from the first message of it that reached any of them to the last answer
    any of them gave in it."""
    spans: dict[tuple[str, int], tuple[int, int]] = {}
    for log in sorted(log_root.glob("*/*/seat*.log")):
        for match, _, index, first, last in _DEAL_CLOCK_LINE.findall(log.read_text()):
            start, end = spans.get((match, int(index)), (int(first), int(last)))
            spans[(match, int(index))] = (min(start, int(first)), max(end, int(last)))
    return spans


def overlapping(
    spans: Mapping[tuple[str, int], tuple[int, int]], same_deal: bool
) -> list[tuple[tuple[str, int], tuple[str, int]]]:
    """The pairs of games (of one deal: the same game index; or of different deals) whose
    spans overlap, i.e. that were played at the same time at two tables."""
    found = []
    for (a, (a_start, a_end)), (b, (b_start, b_end)) in itertools.combinations(
        sorted(spans.items()), 2
    ):
        if a[0] != b[0] and (a[1] == b[1]) == same_deal and a_start < b_end and b_start < a_end:
            found.append((a, b))
    return found


def arena_command() -> list[str]:
    """How to start the ``arena`` command line in a child process."""
    script = Path(sys.executable).parent / "arena"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from arena.cli import app; app()"]


def samples_run(db_path: Path, bots: Iterable[str], **settings: Any) -> RunConfig:
    """A run of the sample ``bots`` into ``db_path``: two games a seating on seed 4242 at two
    tables, where ``settings`` do not say otherwise."""
    chosen: dict[str, Any] = {"games": 2, "seed": 4242, "jobs": 2} | settings
    return RunConfig(entrants=tuple(sample(name) for name in bots), db_path=db_path, **chosen)


def samples_command(subcommand: str, bots: Iterable[str], *options: str) -> list[str]:
    """The command line of ``arena SUBCOMMAND`` on the sample ``bots``, then ``options``."""
    return [*arena_command(), subcommand, *(str(sample_path(bot)) for bot in bots), *options]


def connect_read_only(db: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10.0)


@dataclass(frozen=True)
class StoredGame:
    """A game as read back from a results file, without its (possibly large) record."""

    id: int
    run_id: str
    match_key: str
    game_index: int
    winner: int | None
    scores: tuple[int, int, int]
    deals: int
    duration_s: float
    finished_at: str
    entrant_ids: tuple[int, int, int]  # by team
    seats: tuple[SeatStats, ...]  # ordered by seat
    points_won: tuple[int, ...]  # by seat: the points of the seat's team
    faults: tuple[Fault, ...]  # in the order they were recorded
    forfeited: tuple[int, ...] = ()  # the teams that forfeited (F1), from its bits


@dataclass(frozen=True)
class StoredEntrant:
    id: int
    name: str
    version: str
    command: list[str]

    @property
    def label(self) -> str:
        return entrant_label(self.name, self.version)


def runs(store: ResultsStore) -> list[RunInfo]:
    """All runs of the store's file, oldest first."""
    conn = connect_read_only(store.path)
    try:
        ids = [str(r[0]) for r in conn.execute("SELECT id FROM runs ORDER BY created_at, rowid")]
    finally:
        conn.close()
    found = [store.run(run_id) for run_id in ids]
    assert all(run is not None for run in found)
    return [run for run in found if run is not None]


def entrants(store: ResultsStore) -> list[StoredEntrant]:
    conn = connect_read_only(store.path)
    try:
        rows = conn.execute("SELECT id, name, version, command FROM entrants ORDER BY id")
        return [StoredEntrant(r[0], r[1], r[2], json.loads(r[3])) for r in rows]
    finally:
        conn.close()


def game_ids(store: ResultsStore, run_id: str) -> list[int]:
    """The ids of a run's games, in the order they were stored."""
    conn = connect_read_only(store.path)
    try:
        rows = conn.execute("SELECT id FROM games WHERE run_id = ? ORDER BY id", (run_id,))
        return [int(game_id) for (game_id,) in rows]
    finally:
        conn.close()


def find_game(store: ResultsStore, game_id: int) -> StoredGame | None:
    conn = connect_read_only(store.path)
    try:
        row = conn.execute(
            """
            SELECT g.id, g.run_id, m.match_key, g.game_index, g.winner,
                   g.score_team0, g.score_team1, g.score_team2, g.deals, g.duration_s,
                   g.finished_at, m.entrant_team0, m.entrant_team1, m.entrant_team2,
                   g.forfeited
            FROM games g JOIN matches m ON m.id = g.match_id
            WHERE g.id = ?
            """,
            (game_id,),
        ).fetchone()
        if row is None:
            return None
        seat_rows = conn.execute(
            """
            SELECT seat, decisions, decision_seconds_total, decision_seconds_max,
                   bids_made, bids_won, faults, points_won
            FROM seat_stats WHERE game_id = ? ORDER BY seat
            """,
            (game_id,),
        ).fetchall()
        faults = tuple(
            Fault(row[3], r[0], r[1], FaultKind(r[2]), *r[3:])
            for r in conn.execute(
                """
                SELECT deal_number, seat, kind, reason, sent, fallback, request_id,
                       decision_index
                FROM faults WHERE game_id = ? ORDER BY id
                """,
                (game_id,),
            )
        )
    finally:
        conn.close()
    return StoredGame(
        id=row[0],
        run_id=row[1],
        match_key=row[2],
        game_index=row[3],
        winner=row[4],
        scores=(row[5], row[6], row[7]),
        deals=row[8],
        duration_s=row[9],
        finished_at=row[10],
        entrant_ids=(row[11], row[12], row[13]),
        seats=tuple(SeatStats(*r[:7]) for r in seat_rows),
        points_won=tuple(r[7] for r in seat_rows),
        faults=faults,
        forfeited=tuple(team for team in range(3) if row[14] >> team & 1),
    )


def stored_results(
    store: ResultsStore, run_id: str, more: Callable[[StoredGame], dict[str, Any]] | None = None
) -> dict[tuple[str, int], dict[str, Any]]:
    """Each of a run's stored games by (match key, game index): its winner, scores, deals and
    record (less timings), and what ``more`` reads from the game besides."""
    found = {}
    for game_id in game_ids(store, run_id):
        game = find_game(store, game_id)
        assert game is not None
        found[(game.match_key, game.game_index)] = {
            "winner": game.winner,
            "scores": game.scores,
            "deals": game.deals,
            "record": without_times(store.game_record(game_id)),
            **(more(game) if more else {}),
        }
    return found


def assert_same_records(
    expected: Mapping[tuple[str, int], dict[str, Any]],
    actual: Mapping[tuple[str, int], dict[str, Any]],
) -> None:
    """The same games, by (match key, game index), with the same records card for card."""
    assert expected.keys() == actual.keys()
    for key in sorted(expected):
        difference = first_difference(expected[key], actual[key])
        assert difference is None, f"{key}: the records differ at {difference}"


def stored_game_count(db: Path) -> int:
    """Games in a results file that a run may be writing to (0 if it is not there yet)."""
    if not db.exists():
        return 0
    try:
        conn = connect_read_only(db)
        try:
            return int(conn.execute("SELECT count(*) FROM games").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0  # not created yet, or the schema is being written


def stored_keys(db: Path) -> Counter[tuple[str, int]]:
    """How many times each (match key, game index) is stored, over every run of the file."""
    conn = connect_read_only(db)
    try:
        rows = conn.execute(
            "SELECT m.match_key, g.game_index FROM games g JOIN matches m ON m.id = g.match_id"
        ).fetchall()
    finally:
        conn.close()
    return Counter((str(key), int(index)) for key, index in rows)


def integrity_check(db: Path) -> list[str]:
    """``PRAGMA integrity_check`` of a file no process is writing to (['ok'] if sound)."""
    conn = sqlite3.connect(db, timeout=10.0)
    try:
        return [str(row[0]) for row in conn.execute("PRAGMA integrity_check").fetchall()]
    finally:
        conn.close()


def run_statuses(db: Path) -> list[str]:
    conn = connect_read_only(db)
    try:
        return [str(row[0]) for row in conn.execute("SELECT status FROM runs ORDER BY rowid")]
    finally:
        conn.close()


def old_store(path: Path, statements: Iterable[str], version: int) -> sqlite3.Connection:
    """A results file as an older arena began it: its schema's ``statements``, the arena's
    application id and schema ``version``; open, for the caller to fill, commit and close."""
    conn = sqlite3.connect(path)
    for statement in statements:
        conn.execute(statement)
    conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version={version}")
    return conn


def write_sql(path: Path, *statements: str) -> None:
    """Runs ``statements`` on the file at ``path`` (no store open on it) and commits them."""
    conn = sqlite3.connect(path)
    try:
        for statement in statements:
            conn.execute(statement)
        conn.commit()
    finally:
        conn.close()


def live_pids() -> list[int]:
    """Every live process but this one (zombies left out, as ``live_processes`` says)."""
    return [pid for pid in live_processes() if pid != os.getpid()]


def cwd_under(pid: int, root: Path) -> bool:
    """Whether ``pid`` works in ``root`` or below it (False if it is gone or not ours)."""
    try:
        cwd = Path(os.readlink(f"/proc/{pid}/cwd"))
    except OSError:
        return False
    root = root.resolve()
    return cwd == root or root in cwd.parents


def bot_processes_under(root: Path) -> list[int]:
    """Live bot processes whose working directory lies under ``root``.

    The arena starts every bot in a per-seat directory below its log directory, which the
    tests put in ``tmp_path``; this finds exactly the bots of a test even when other test
    sessions run the same sample bots at the same time.
    """
    found = []
    for pid in live_pids():
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue  # gone, or not ours
        if b"bot.py" in cmdline and cwd_under(pid, root):
            found.append(pid)
    return sorted(found)


def wait_for_no_bots(root: Path, timeout: float) -> list[int]:
    """Poll until no bot process of ``root`` is alive or ``timeout`` passes; the survivors."""
    return wait_until_none(lambda: bot_processes_under(root), timeout, interval=0.05)


def describe(pids: list[int]) -> str:
    lines = []
    for pid in pids:
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            cmd, cwd = "?", "?"
        lines.append(f"pid {pid}: {cmd} (cwd {cwd})")
    return "\n".join(lines)


def kill_bots(pids: list[int]) -> None:
    """Clean-up after a failed assertion: end the leftover bots of this test, by pid."""
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
