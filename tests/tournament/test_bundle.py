"""What the pages read of a stored game: a real run of a sample bot against a hostile one.

One run per module, real processes over gRPC into a real SQLite file: the ``random``
sample bot and the ``markup`` bot of tests/fairplay, which answers its first cards with
markup and escapes (so the referee plays fallbacks in its place) and writes them to its
log. Two entrants make two triples in three seatings each; two games per seating, so
each game seed is played at six seatings.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena.bots import load_bot
from arena.engine import replay
from arena.referee.table import TableSettings
from arena.tournament.bundle import LOG_TAIL_LINES, game_bundle, run_game_ids
from arena.tournament.runner import RunConfig, run_tournament
from arena.tournament.store import ResultsStore, entrant_label

from .helpers import REPO_ROOT, sample
from .test_results import KEY, RUN, make_game

# Slow: every test reads a run played for the module: the whole suite only.
pytestmark = [pytest.mark.timeout(420), pytest.mark.slow]

MARKUP = REPO_ROOT / "tests" / "fairplay" / "bots" / "markup"
LOG_LINE = "log: \x1b[31m[bold red]red[/] \x1b]0;pwned\x07 \u202eevil\r\x08 [/]"
GAMES = 2
SEATINGS_PER_SEED = 6  # {A,A,B} and {A,B,B}, three seatings each


@dataclass(frozen=True)
class Run:
    db_path: Path
    log_root: Path
    run_id: str


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    root = tmp_path_factory.mktemp("bundle")
    config = RunConfig(
        entrants=(sample("random"), load_bot(MARKUP)),
        games=GAMES,
        seed=None,
        jobs=2,
        db_path=root / "results.db",
        # Generous for a loaded machine: nothing here is about time.
        settings=TableSettings(decision_ms=1000, overage_ms=5000, join_timeout_s=30),
        sandbox=False,  # not about the sandbox (tests/fairplay), and faster without
    )
    summary = run_tournament(config, root / "logs")
    yield Run(config.db_path, root / "logs", summary.run_id)


@pytest.fixture
def store(run: Run) -> Iterator[ResultsStore]:
    with ResultsStore.open(run.db_path, create=False) as opened:
        yield opened


def stored_games(path: Path, run_id: str) -> list[tuple[Any, ...]]:
    """(id, game index, match key, entrant label per team) of each game, by plain SQL."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            """
            SELECT g.id, g.game_index, m.match_key,
                   e0.name, e0.version, e1.name, e1.version, e2.name, e2.version
            FROM games g JOIN matches m ON m.id = g.match_id
            JOIN entrants e0 ON e0.id = m.entrant_team0
            JOIN entrants e1 ON e1.id = m.entrant_team1
            JOIN entrants e2 ON e2.id = m.entrant_team2
            WHERE g.run_id = ? ORDER BY g.id
            """,
            (run_id,),
        ).fetchall()
    finally:
        conn.close()
    return [(*row[:3], *(entrant_label(row[i], row[i + 1]) for i in (3, 5, 7))) for row in rows]


def decisions(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [d for deal in record["deals"] for d in deal["decisions"]]


@pytest.mark.slow
def test_each_fault_row_points_at_the_decision_marked_as_its_fallback(
    run: Run, store: ResultsStore
) -> None:
    games = stored_games(run.db_path, run.run_id)
    assert len(games) == SEATINGS_PER_SEED * GAMES
    tied = 0
    for game_id, *_ in games:
        record = store.game_record(game_id)
        replay(record)  # version 3, decisions checked against the engine
        faults = store.game_faults(game_id)
        for fault in faults:
            assert fault.decision_index is not None, fault  # each replaced a card
            decision = record["deals"][fault.deal_number - 1]["decisions"][fault.decision_index]
            assert decision["seat"] == fault.seat
            assert decision["fallback"] == {
                "fault": fault.kind.value,
                "reason": fault.reason,
                "sent": fault.sent,
            }
            tied += 1
        # No seat went away, so every marked decision is a fault's, and only the
        # markup bot's seats have any.
        marked = [d for d in decisions(record) if d["fallback"] is not None]
        assert len(marked) == len(faults)
        assert all(d["seconds"] is not None for d in decisions(record))
    assert tied > 0


def test_the_bundle_of_every_game(run: Run, store: ResultsStore) -> None:
    games = stored_games(run.db_path, run.run_id)
    assert run_game_ids(store, run.run_id) == [row[0] for row in games]
    (markup,) = {label for row in games for label in row[3:] if label.startswith("markup")}
    for game_id, game_index, match_key, *teams in games:
        bundle = game_bundle(store, game_id, run.log_root)
        assert (bundle.game_id, bundle.run_id, bundle.seed_index) == (
            game_id,
            run.run_id,
            game_index,
        )
        assert bundle.record == store.game_record(game_id)
        assert bundle.faults == tuple(store.game_faults(game_id))
        # R1.2: seat s plays for team s % 3.
        assert bundle.labels == tuple(teams[seat % 3] for seat in range(6))
        # Duplicate play (R3.1a): the other seatings of the seed, dealt the same cards.
        expected = [row for row in games if row[1] == game_index and row[0] != game_id]
        assert [s.game_id for s in bundle.siblings] == [row[0] for row in expected]
        assert len(bundle.siblings) == SEATINGS_PER_SEED - 1
        for sibling, row in zip(bundle.siblings, expected, strict=True):
            assert sibling.labels == tuple(row[3 + seat % 3] for seat in range(6))
            assert sibling.record == store.game_record(sibling.game_id)
            assert sibling.record["deals"][0]["hands"] == bundle.record["deals"][0]["hands"]
        for seat, tail in enumerate(bundle.log_tails):
            log = run.log_root / run.run_id / match_key / f"seat{seat}.log"
            lines = log.read_bytes().decode("utf-8", "replace").split("\n")
            assert tail == tuple(lines[:-1][-LOG_TAIL_LINES:])
            assert tail == ((LOG_LINE, LOG_LINE) if bundle.labels[seat] == markup else ())


def test_without_logs_the_tails_are_empty_and_an_unknown_game_is_a_key_error(
    run: Run, store: ResultsStore, tmp_path: Path
) -> None:
    game_id = run_game_ids(store, run.run_id)[0]
    assert game_bundle(store, game_id, tmp_path).log_tails == ((),) * 6
    with pytest.raises(KeyError):
        game_bundle(store, max(run_game_ids(store, run.run_id)) + 1)


def test_a_long_log_gives_its_last_whole_lines(tmp_path: Path) -> None:
    """Of a log longer than the tail read, the last LOG_TAIL_LINES lines, none cut short;
    a carriage return is the bot's text, not a line end."""
    with ResultsStore.open(tmp_path / "results.db") as store:
        store.start_run(RUN, None, {}, KEY)
        entrant = store.upsert_entrant("bot", "1", ["bot"])
        store.ensure_match(RUN, "m0", (entrant, entrant, entrant))
        game_id = store.record_game(RUN, "m0", make_game(0))
        logs = tmp_path / "logs" / RUN / "m0"
        logs.mkdir(parents=True)
        lines = [f"line {i} " + "x" * (i % 300) + "\r" for i in range(2000)]
        (logs / "seat4.log").write_text("\n".join(lines) + "\n")
        (logs / "seat5.log").write_text("one line, no newline at the end")
        bundle = game_bundle(store, game_id)  # logs beside the database, as arena run keeps them
    assert bundle.log_tails[4] == tuple(lines[-LOG_TAIL_LINES:])
    assert bundle.log_tails[5] == ("one line, no newline at the end",)
    assert bundle.log_tails[:4] == ((),) * 4
    assert bundle.labels == ("bot@1",) * 6 and bundle.siblings == () and bundle.faults == ()
