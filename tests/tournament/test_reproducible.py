"""The same run (same entrants, games and seed or stored key) gives the same games, however
many tables play it and however often it is resumed."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from arena.tournament.runner import run_tournament
from arena.tournament.store import ResultsStore

from .helpers import assert_same_records, samples_run, stored_results


def _results(db: Path, run_id: str) -> dict[tuple[str, int], dict[str, Any]]:
    with ResultsStore.open(db) as store:
        return stored_results(
            store,
            run_id,
            lambda game: {
                "points_won": list(game.points_won),
                "bids": [(s.bids_made, s.bids_won) for s in game.seats],
            },
        )


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_one_table_and_two_tables_play_identical_games(tmp_path: Path) -> None:
    runs = {}
    for jobs in (1, 2):
        config = samples_run(tmp_path / f"jobs{jobs}.db", ("random", "greedy"), jobs=jobs)
        summary = run_tournament(config, tmp_path / f"logs{jobs}")
        assert summary.played == 12
        runs[jobs] = (summary.run_id, _results(config.db_path, summary.run_id))

    (id1, one), (id2, two) = runs[1], runs[2]
    assert id1 == id2, "jobs is not part of what a run plays, so not of its id"
    assert len(one) == 12
    assert_same_records(_records(one), _records(two))
    for key in sorted(one):
        a, b = one[key], two[key]
        for field in ("winner", "scores", "deals", "points_won", "bids"):
            assert a[field] == b[field], f"{key}: {field} {a[field]!r} != {b[field]!r}"


def _records(results: dict[tuple[str, int], dict[str, Any]]) -> dict[tuple[str, int], Any]:
    return {key: game["record"] for key, game in results.items()}


def _forget_games(db: Path, run_id: str, game_index: int) -> int:
    """Delete game ``game_index`` of every match, as if the run had stopped before them."""
    conn = sqlite3.connect(db)
    try:
        with conn:
            ids = [
                r[0]
                for r in conn.execute(
                    "SELECT id FROM games WHERE run_id = ? AND game_index = ?", (run_id, game_index)
                )
            ]
            for table, column in (
                ("seat_stats", "game_id"),
                ("faults", "game_id"),
                ("decision_times", "game_id"),
                ("games", "id"),
            ):
                conn.executemany(f"DELETE FROM {table} WHERE {column} = ?", [(i,) for i in ids])
    finally:
        conn.close()
    return len(ids)


@pytest.mark.slow
@pytest.mark.timeout(180)
@pytest.mark.parametrize("seed", [None, 4242], ids=["secret", "seeded"])
def test_a_resumed_run_plays_the_games_an_uninterrupted_one_played(
    tmp_path: Path, seed: int | None
) -> None:
    """R3.1a: the games a resumed run plays are dealt from the key the run stored when it
    began, so they are the same cards to the same seats (and, with these deterministic
    bots, the same games) as the uninterrupted run played; with a secret key as well."""
    config = samples_run(tmp_path / "arena.db", ("random", "greedy"), seed=seed)
    first = run_tournament(config, tmp_path / "logs")
    uninterrupted = _results(config.db_path, first.run_id)
    assert _forget_games(config.db_path, first.run_id, 1) == 6

    again = run_tournament(config, tmp_path / "logs")
    assert again.run_id == first.run_id, "the same command finds the same run"
    assert (again.played, again.skipped) == (6, 6)
    resumed = _results(config.db_path, again.run_id)
    assert_same_records(_records(uninterrupted), _records(resumed))
