"""The rule that tells a bot's missed join from the arena's own trouble (policy.arena_trouble),
and a match nobody joined under a CPU hog played again, never stored."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.bots import BotSpec, load_bot
from arena.referee import starved
from arena.referee.policy import JoinState, arena_trouble
from arena.referee.table import TableSettings
from arena.tournament.executor import InProcessExecutor
from arena.tournament.runner import RunConfig, run_tournament
from arena.tournament.schedule import SchedulePlan

J, X, S, N, M = (
    JoinState.JOINED,
    JoinState.EXITED,
    JoinState.SILENT,
    JoinState.NOT_STARTED,
    JoinState.MANUAL,
)


@pytest.mark.parametrize(
    ("seats", "arenas"),
    [
        ([J] * 6, False),
        ([X, J, J, X, J, J], False),  # a bot that crashes at start: its own fault
        ([S, J, J, S, J, J], False),  # too slow while its table-mates joined: its own
        # Nobody joined, whatever the processes did next (a bot refused as late exits):
        # the machine may have been too busy for any of them (issue 35, item 1).
        ([X] * 6, True),
        ([X, X, X, X, X, S], True),
        ([M, X, X, X, X, X], True),
        ([M] * 6, False),  # nothing judged
        ([S, X, X, S, X, X], True),  # nobody joined and some still ran: the machine
        ([S] * 6, True),
        ([J, J, J, J, J, N], True),  # the machine could not start a process
        ([M, S, S, S, S, S], True),  # a seat left for a person is not judged
        ([M, J, S, S, S, S], False),
    ],
)
def test_whose_trouble_a_missed_join_is(seats: list[JoinState], arenas: bool) -> None:
    reason = arena_trouble(seats, 10.0)
    assert (reason is not None) is arenas, reason
    if reason is not None:
        assert "could not start" in reason or "no seat joined within its 10 s" in reason
        if JoinState.EXITED in seats and N not in seats:
            assert "ended before joining): none got in" in reason, reason


# --- nobody joined under a CPU hog: replayed, never stored (issue 35, item 1) -------------

# A real-time busy loop on one CPU, until killed (at most a minute): SCHED_FIFO outranks
# every ordinary process there (the kernel leaves them 5 % at most), so bots moved onto
# that CPU cannot start, while the other CPUs, the referee's, stay as they were.
HOG = """
import os, sys, time
os.sched_setaffinity(0, {%d})
try:
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
except OSError:
    sys.exit(3)
print("hogging", flush=True)
end = time.monotonic() + 60
while time.monotonic() < end:
    pass
"""
PINNED = Path(__file__).resolve().parent / "bots" / "pinned"


def pinned_bots(root: Path) -> tuple[BotSpec, BotSpec]:
    specs = []
    for name in ("north", "south"):
        shutil.copytree(PINNED, root / name)
        manifest = root / name / "bot.toml"
        manifest.write_text(manifest.read_text().replace('"pinned"', f'"{name}"'))
        specs.append(load_bot(root / name))
    return specs[0], specs[1]


@contextlib.contextmanager
def threads_kept_off(cpu: int) -> Iterator[None]:
    """Every thread of this process (the referee's) on the other CPUs while it lasts."""
    tasks = [int(task) for task in os.listdir("/proc/self/task")]
    before = {task: os.sched_getaffinity(task) for task in tasks}
    for task, cpus in before.items():
        with contextlib.suppress(OSError):
            os.sched_setaffinity(task, cpus - {cpu})
    try:
        yield
    finally:
        for task, cpus in before.items():
            with contextlib.suppress(OSError):
                os.sched_setaffinity(task, cpus)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_match_nobody_joined_under_a_cpu_hog_is_replayed_and_never_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The incident of issue 35: under load every seat of a match missed its join, the
    bots exited when refused, and the match was stored as played with six ``no_join``
    faults. Here a CPU hog holds every seat of the run's first match off the CPU past its
    join deadline (the first start of each seat moves onto the hog's CPU): that match is
    the arena's trouble, played again once the hog is gone, and every game of the run is
    stored once, with no fault."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        pytest.skip("needs two CPUs: one for the hog, one for the referee")
    hog_cpu = cpus[-1]
    # The credit for time a seat was starved of the CPU (up to 30 s a join) would carry
    # the seats over a hog of a few seconds, as it should: it is capped while the hog
    # runs, so that a short hog is past the deadline as a long one is past the real cap.
    monkeypatch.setattr(starved, "MAX_CREDIT_S", 0.5)
    once = tmp_path / "once"
    once.mkdir()
    monkeypatch.setenv("TEST_PIN_CPU", str(hog_cpu))
    monkeypatch.setenv("TEST_PIN_ONCE", str(once))
    hog = subprocess.Popen([sys.executable, "-c", HOG % hog_cpu], stdout=subprocess.PIPE, text=True)
    executor = InProcessExecutor(1)

    def release() -> None:
        """The hog ends, and the credit is whole again, once every seat of the first
        match has missed its deadline: what the run plays next has a free machine."""
        while hog.poll() is None:
            first = executor.matches[:1]
            if first and first[0].links and all(link.expired for link in first[0].links):
                hog.kill()
            time.sleep(0.02)
        starved.MAX_CREDIT_S = 30.0

    config = RunConfig(
        entrants=pinned_bots(tmp_path / "bots"),
        games=1,
        seed=5,
        jobs=1,
        db_path=tmp_path / "r.db",
        # A short join deadline: the kernel leaves ordinary processes 5 % of the hog's CPU,
        # and in a longer one a seat could start on it (the referee tests' 3 s, which the
        # seats of the matches after the hog meet on a loaded machine too).
        settings=TableSettings(join_timeout_s=3.0),
        schedule=SchedulePlan("pairs"),
        sandbox=False,
        pass_env=("TEST_PIN_CPU", "TEST_PIN_ONCE"),
    )
    try:
        assert hog.stdout is not None
        if hog.stdout.readline().strip() != "hogging":
            pytest.skip("this machine allows no real-time scheduling: no hog to hold a CPU")
        threading.Thread(target=release, daemon=True).start()
        notices: list[str] = []
        with threads_kept_off(hog_cpu):
            summary = run_tournament(
                config, tmp_path / "logs", on_notice=notices.append, executor=executor
            )
    finally:
        hog.kill()
        hog.wait()
    said = " ".join(notices)
    assert "match t0-s0-0-0-1: no seat joined within its 3 s" in said, notices
    assert "not counted; playing it again with the same deals (attempt 2 of 3)" in said
    assert sorted(path.name for path in once.iterdir()) == [f"seat{s}" for s in range(6)]
    assert summary.played == 2  # the pair's two seatings, each once
    with sqlite3.connect(config.db_path) as conn:
        games = conn.execute("SELECT match_id, game_index FROM games").fetchall()
        faults = conn.execute("SELECT seat, kind, reason FROM faults").fetchall()
    assert len(games) == len(set(games)) == 2, games
    assert faults == [], faults
