"""Faults of the cluster lose nothing: a worker killed mid-match (its match is played again
elsewhere, dealt the same), a worker that joins late (it gets work), a coordinator killed
mid-run (the same command resumes): every scheduled game is stored exactly once."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from bots.helpers import wait_until_none
from tournament.helpers import sample_path, stored_game_count, stored_keys

from .conftest import match_logs, processes_naming, start_local_cluster
from .helpers import ENTRANTS, Coordinator, arena_run, assert_complete, run_command, shown

pytestmark = pytest.mark.timeout(300)

GAMES = 3  # games per match: long enough for a kill to land mid-match
TOTAL = 6 * GAMES


# Enough matches that the late worker, which takes seconds to start, still finds work.
LATE_RUN = ("--schedule", "sampled", "--matches", "18")
LATE_ENTRANTS = (*ENTRANTS, str(sample_path("random")))
LATE_TOTAL = 18 * GAMES


@pytest.mark.slow
def test_a_worker_killed_mid_match_and_a_late_joiner_lose_no_game(tmp_path: Path) -> None:
    cluster = start_local_cluster(tmp_path / "cluster", workers=2)
    db = tmp_path / "arena.db"
    command = run_command(
        db, GAMES, *LATE_RUN, "--cluster", cluster.address, entrants=LATE_ENTRANTS
    )
    arena = Coordinator(tmp_path, command, "run")
    try:
        doomed = cluster.workers[0]
        arena.wait_until(lambda: bool(match_logs(doomed)), f"a match on {doomed.name}")
        late = cluster.add_worker()  # joins a run under way
        cluster.wait_for_workers(3)
        stored_before = stored_game_count(db)
        stored = stored_keys(db) if db.exists() else Counter()
        # Matches it had started and not all of whose games are stored: cut short by the kill.
        cut_short = [
            m.name for m in match_logs(doomed) if sum(1 for k, _ in stored if k == m.name) < GAMES
        ]
        doomed.kill()
        # Its bots died with it (PR_SET_PDEATHSIG): none is left to hold a seat or a core.
        orphans = wait_until_none(lambda: processes_naming(doomed.directory), 10.0, 0.05)
        code = arena.finish()
    finally:
        arena.ensure_dead()
        cluster.stop()
    assert code == 0, arena.output() + cluster.logs()
    assert stored_before < LATE_TOTAL, "the run ended before the kill: nothing was tested"
    assert cut_short, "no match of the killed worker was under way: nothing was tested"
    assert not orphans, f"bots of the killed worker still run: {orphans}"
    assert_complete(db, GAMES, sampled=(3, 18))
    assert f"{LATE_TOTAL} games played, 0 already stored" in arena.out.read_text()
    assert match_logs(late), f"the late worker got no match\n{cluster.logs()}"


@pytest.mark.slow
def test_a_coordinator_killed_mid_run_is_resumed_by_the_same_command(tmp_path: Path) -> None:
    cluster = start_local_cluster(tmp_path / "cluster", workers=2)
    db = tmp_path / "arena.db"
    command = run_command(db, GAMES, "--cluster", cluster.address)
    try:
        first = Coordinator(tmp_path, command, "first")
        try:
            first.wait_until(lambda: stored_game_count(db) >= 1, "a stored game")
            first.proc.kill()
            first.proc.wait()
        finally:
            first.ensure_dead()
        stored = stored_game_count(db)
        resumed = arena_run(tmp_path, command)
    finally:
        cluster.stop()
    assert resumed.returncode == 0, shown(resumed) + cluster.logs()
    assert 1 <= stored < TOTAL, f"{stored} games stored at the kill: nothing was tested"
    assert f"{TOTAL - stored} games played, {stored} already stored" in resumed.stdout
    assert_complete(db, GAMES)
