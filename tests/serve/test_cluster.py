"""``arena serve --cluster``: the ladder's matches played on Dask workers, every game
stored once on the server, as ``arena run --cluster`` stores them."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from cluster.conftest import match_logs

from arena.bench.cluster import start_local_cluster

from .conftest import ContestServer, stored_games


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_the_ladder_plays_on_a_cluster(tmp_path: Path) -> None:
    cluster = start_local_cluster(tmp_path / "cluster", workers=1, tables=2)
    try:
        db = tmp_path / "contest.db"
        server = ContestServer(
            db, ("random", "greedy", "lowest"), "--cluster", cluster.address
        ).start()
        try:
            deadline = time.monotonic() + 600
            while len(stored_games(db)) < 6 and time.monotonic() < deadline:
                time.sleep(1.0)
            board = server.get("/api/leaderboard").json()
        finally:
            assert server.stop() == 0
        games = stored_games(db)
        assert len(games) >= 6, cluster.logs() + "\n".join(server.errors)
        assert len(games) == len(set(games))
        assert sorted(e["contestant"] for e in board["entrants"]) == ["greedy", "lowest", "random"]
        # The matches ran on the worker: its seats' logs are there.
        assert match_logs(cluster.workers[0]), cluster.logs()
    finally:
        cluster.stop()
