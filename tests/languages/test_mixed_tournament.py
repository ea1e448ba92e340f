"""A tournament of Python, Node.js and C++ bots together: real processes, every game clean."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arena.bots import load_bot
from arena.bots.build import BotCache, BotOptions
from arena.bots.samples import sample_bots_dir
from arena.engine import replay
from arena.tournament.runner import RunConfig, run_tournament
from arena.tournament.store import ResultsStore


@pytest.mark.timeout(900)
def test_python_node_and_cpp_bots_play_a_clean_tournament(tmp_path: Path) -> None:
    # Built as the arena builds them (node's npm ci with the network the operator grants).
    options = BotOptions(build_network=True, build_timeout_s=840)
    specs = [
        BotCache().prepare(load_bot(sample_bots_dir() / n), options)
        for n in ("greedy", "node", "cpp")
    ]
    config = RunConfig(entrants=tuple(specs), games=1, seed=5, jobs=2, db_path=tmp_path / "a.db")
    summary = run_tournament(config, tmp_path / "logs")
    assert summary.played == 6  # one triple, six seatings, one game each
    with sqlite3.connect(tmp_path / "a.db") as db:
        assert db.execute("SELECT COUNT(*) FROM faults").fetchone()[0] == 0
        game_ids = [row[0] for row in db.execute("SELECT id FROM games")]
    assert len(game_ids) == 6
    with ResultsStore.open(tmp_path / "a.db", create=False) as store:
        for game_id in game_ids:
            record = store.game_record(game_id)
            assert replay(record).is_over
            names = {e["name"] for e in record["meta"]["entrants"]}
            assert names == {"greedy", "node", "cpp"}
