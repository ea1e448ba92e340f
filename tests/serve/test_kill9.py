"""``kill -9`` of the server mid-ladder, then the same command again: no process left
behind, nothing lost, nothing twice, and the round that was cut off is finished with the
games it lacked."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pytest

from .conftest import ContestServer, descendants, still_alive, stored_games


def rounds(db: Path) -> list[tuple[int, list[str], int, int, bool]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT id, entrants, games, first_game, finished_at FROM contest_rounds ORDER BY id"
        ).fetchall()
    return [(r[0], json.loads(r[1]), r[2], r[3], r[4] is not None) for r in rows]


def wait_games(db: Path, at_least: int, timeout: float = 600.0) -> list[tuple[str, int]]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        games = stored_games(db) if db.exists() else []
        if len(games) >= at_least:
            return games
        time.sleep(0.5)
    raise AssertionError(f"fewer than {at_least} games after {timeout} s")


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_kill_9_mid_ladder_then_restart_loses_nothing_and_repeats_nothing(
    tmp_path: Path,
) -> None:
    db = tmp_path / "contest.db"
    server = ContestServer(db, ("random", "greedy", "lowest")).start()
    admin = server.admin_token
    before = wait_games(db, 2)  # a round (or one a table) of six seatings is under way
    assert server.process is not None
    children = descendants(server.process.pid)
    server.kill9()
    assert still_alive(children) == set(), "a bot outlived the server"
    before = stored_games(db)
    cut = [r for r in rounds(db) if not r[4]]
    assert cut, "the first round was not cut off: kill sooner"
    assert len(before) < 6 * len(rounds(db))

    server.start()
    assert server.admin_token is None and admin is not None  # the same contest, resumed
    server.admin_token = admin
    # The cut rounds resume first (a table each; new rounds may play beside them).
    cut_ids = {r[0] for r in cut}
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if all(r[4] for r in rounds(db) if r[0] in cut_ids):
            break
        time.sleep(0.5)
    assert server.stop() == 0
    after = stored_games(db)
    assert len(after) == len(set(after)), "a game was stored twice"
    assert set(before) <= set(after), "a game was lost"
    finished = {r[0]: r for r in rounds(db)}
    for round_id, _entrants, games, first, _done in cut:
        assert finished[round_id][4], f"round {round_id} was not finished after the restart"
        mine = [(k, i) for k, i in after if k.startswith(f"r{round_id}-")]
        assert len(mine) == 6 * games  # every seating's games, each once
        assert {i for _, i in mine} == set(range(first, first + games))
    # Every game of every round is one of the round's own seeds.
    for round_id, _entrants, games, first, _done in rounds(db):
        for key, index in after:
            if key.startswith(f"r{round_id}-"):
                assert first <= index < first + games
