"""``arena run --cluster``: the same games as on this machine, with bots shipped to workers
that have no copy of them, built there once, and a build that fails there reported as a
local one is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tournament.helpers import (
    copy_bot,
    deal_clocks,
    games_as_played,
    overlapping,
    same_start,
    sample_path,
    samples_command,
    stored_keys,
)

from arena.bots import load_bot
from arena.tournament.cluster import DaskExecutor
from arena.tournament.runner import RunConfig, run_tournament

from .conftest import LocalCluster, match_logs, start_local_cluster
from .helpers import arena_run, assert_complete, run_command, shown, stored_games

pytestmark = pytest.mark.timeout(300)

GAMES = 2


@pytest.fixture(scope="module")
def shared_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """A scheduler and two workers of one table each, for the tests that kill nothing."""
    cluster = start_local_cluster(tmp_path_factory.mktemp("cluster"), workers=2)
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.mark.slow
def test_a_cluster_run_stores_the_games_a_local_run_stores(
    shared_cluster: LocalCluster, tmp_path: Path
) -> None:
    local = arena_run(tmp_path, run_command(tmp_path / "local.db", GAMES, "--seed", "7"))
    assert local.returncode == 0, shown(local)
    command = run_command(
        tmp_path / "cluster.db", GAMES, "--seed", "7", "--cluster", shared_cluster.address
    )
    on_cluster = arena_run(tmp_path, command)
    assert on_cluster.returncode == 0, shown(on_cluster) + shared_cluster.logs()
    assert "12 games played, 0 already stored" in on_cluster.stdout

    assert_complete(tmp_path / "cluster.db", GAMES)
    assert stored_games(tmp_path / "cluster.db") == stored_games(tmp_path / "local.db")
    # Both workers played, and the seats' logs came back where a local run leaves them.
    for worker in shared_cluster.workers:
        assert match_logs(worker), f"{worker.name} played no match\n{shared_cluster.logs()}"
    coordinator_logs = sorted((tmp_path / "cluster-logs").glob("*/*/seat0.log"))
    assert len(coordinator_logs) == 6


BUILD_COUNTING = '\nbuild = ["sh", "-c", "mkdir -p build && echo run >> build/runs"]\n'


@pytest.mark.slow
def test_a_bot_is_shipped_to_workers_that_have_no_copy_and_built_there_once(
    shared_cluster: LocalCluster, tmp_path: Path
) -> None:
    source = copy_bot("greedy", tmp_path / "src" / "shipped", "shipped")
    with (source / "bot.toml").open("a") as manifest:
        manifest.write(BUILD_COUNTING)
    version = load_bot(source).version
    for worker in shared_cluster.workers:
        assert not (worker.cache / version).exists()
        assert not list(worker.cwd.iterdir())

    entrants = (str(source), str(sample_path("lowest")))
    command = run_command(
        tmp_path / "arena.db", GAMES, "--cluster", shared_cluster.address, entrants=entrants
    )
    done = arena_run(tmp_path, command)
    assert done.returncode == 0, shown(done) + shared_cluster.logs()
    assert_complete(tmp_path / "arena.db", GAMES)

    built = [w.cache / version for w in shared_cluster.workers if (w.cache / version).exists()]
    assert built, "no worker holds the shipped bot\n" + shared_cluster.logs()
    for home in built:
        # Built once on each worker, however many matches it played there.
        assert (home / "bot" / "build" / "runs").read_text() == "run\n"
        assert (home / "bot" / "bot.py").read_bytes() == (source / "bot.py").read_bytes()
    assert not (source / "build").exists(), "the coordinator built it: it should not have to"


@pytest.mark.slow
def test_a_build_that_fails_on_a_worker_is_reported_like_a_local_one(
    shared_cluster: LocalCluster, tmp_path: Path
) -> None:
    source = copy_bot("greedy", tmp_path / "broken", "broken")
    with (source / "bot.toml").open("a") as manifest:
        manifest.write('\nbuild = ["sh", "-c", "echo no compiler here >&2; exit 7"]\n')
    entrants = (str(source), str(sample_path("lowest")))
    command = run_command(
        tmp_path / "arena.db", 1, "--cluster", shared_cluster.address, entrants=entrants
    )
    done = arena_run(tmp_path, command)
    assert done.returncode == 2, shown(done)
    assert "did not build" in done.stderr and "exit status 7" in done.stderr, shown(done)
    assert "no compiler here" in done.stderr, shown(done)  # the log's tail, as locally
    assert "Traceback" not in done.stderr, shown(done)


@pytest.mark.slow
def test_a_comparison_plays_its_batches_on_the_cluster(
    shared_cluster: LocalCluster, tmp_path: Path
) -> None:
    db = tmp_path / "arena.db"
    command = samples_command(
        "compare",
        ("greedy", "lowest"),
        "--max-games",
        "12",
        "--batch",
        "3",  # batches of at most three swap pairs, one run on the cluster
        "--seed",
        "3",
        "--db",
        str(db),
        "--cluster",
        shared_cluster.address,
    )
    done = arena_run(tmp_path, command)
    assert done.returncode in (0, 3), shown(done) + shared_cluster.logs()  # better, or capped
    # Six pairs cannot reach the bet's bound (log-wealth 2.9 at most): the cap stops it.
    counted = "6 swap pairs, 12 games counted (12 stored, 12 played now, cap 12)"
    assert counted in done.stdout, shown(done)
    keys = stored_keys(db)
    assert len(keys) == 12 and set(keys.values()) == {1}


@pytest.mark.slow
def test_no_two_games_of_one_deal_are_played_at_once_on_the_cluster(
    shared_cluster: LocalCluster, tmp_path: Path
) -> None:
    """The deals' leases stay with the coordinator, whichever worker plays: two workers'
    tables, every seating starting at the same game, and no game overlaps one of its deal
    (each game's span as its six bots lived it, from the logs the workers sent back)."""
    entrants = deal_clocks(tmp_path / "bots")
    config = RunConfig(
        entrants=entrants, games=GAMES, seed=None, jobs=2, db_path=tmp_path / "arena.db"
    )
    summary = run_tournament(
        config,
        tmp_path / "logs",
        executor=DaskExecutor(shared_cluster.address),
        schedule=same_start(entrants, GAMES),
    )
    assert summary.played == 6 * GAMES

    spans = games_as_played(tmp_path / "logs")
    assert len(spans) == 6 * GAMES, sorted(spans)
    assert overlapping(spans, same_deal=True) == []
    assert overlapping(spans, same_deal=False), "the two workers never played at once"
