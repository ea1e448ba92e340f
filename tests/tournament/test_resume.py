"""Stopping a run (SIGINT, kill -9, a cancel at a bad moment) and resuming it.

The SIGINT and kill -9 tests drive the real ``arena run`` command in a child process and
watch its results file read-only, the way a user's second terminal would.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arena.engine import replay
from arena.seats.link import SeatLink
from arena.tournament.executor import InProcessExecutor
from arena.tournament.runner import RunConfig, RunProgress, RunSummary, TournamentRunner
from arena.tournament.schedule import RunKey, round_robin
from arena.tournament.store import ResultsStore

from .helpers import (
    arena_command,
    bot_processes_under,
    describe,
    find_game,
    game_ids,
    integrity_check,
    kill_bots,
    run_statuses,
    runs,
    sample,
    sample_path,
    samples_command,
    stored_game_count,
    stored_keys,
    wait_for_no_bots,
)

GAMES = 2
# Two entrants: two triples of three seatings, each playing GAMES games.
SCHEDULE = round_robin(2, GAMES)
EXPECTED = {(m.key, i) for m in SCHEDULE for i in range(GAMES)}
TOTAL = len(EXPECTED)


def _command(db: Path) -> list[str]:
    return [
        *arena_command(),
        "run",
        str(sample_path("random")),
        str(sample_path("greedy")),
        "--games",
        str(GAMES),
        "--jobs",
        "2",
        "--db",
        str(db),
    ]


@pytest.fixture(autouse=True)
def _no_stray_bots(tmp_path: Path) -> Iterator[None]:
    """Whatever a test asserts, it leaves no bot of its own running."""
    yield
    kill_bots(wait_for_no_bots(tmp_path, 3.0))


def _env() -> dict[str, str]:
    return {**os.environ, "COLUMNS": "200"}


class Arena:
    """``arena run`` in a child process; its output goes to files in the test's directory."""

    def __init__(self, root: Path, db: Path, name: str) -> None:
        self.out = root / f"{name}.out"
        self.err = root / f"{name}.err"
        with self.out.open("wb") as out, self.err.open("wb") as err:
            self.proc = subprocess.Popen(_command(db), cwd=root, stdout=out, stderr=err, env=_env())

    def output(self) -> str:
        return f"stdout:\n{self.out.read_text()}\nstderr:\n{self.err.read_text()}"

    def wait_for_games(self, db: Path, count: int, timeout: float = 60.0) -> int:
        deadline = time.monotonic() + timeout
        while (stored := stored_game_count(db)) < count:
            if self.proc.poll() is not None:
                pytest.fail(
                    f"arena exited ({self.proc.returncode}) with {stored} games stored, "
                    f"before {count}\n{self.output()}"
                )
            if time.monotonic() > deadline:
                pytest.fail(f"{stored} games stored after {timeout} s\n{self.output()}")
            time.sleep(0.02)
        return stored

    def ensure_dead(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def _finish_run(root: Path, db: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        _command(db), cwd=root, capture_output=True, text=True, env=_env(), timeout=150
    )


def _assert_complete(db: Path) -> None:
    keys = stored_keys(db)
    assert set(keys) == EXPECTED
    assert all(n == 1 for n in keys.values()), {k: n for k, n in keys.items() if n != 1}
    assert stored_game_count(db) == TOTAL
    assert run_statuses(db) == ["finished"]
    assert integrity_check(db) == ["ok"]
    _assert_one_key_dealt_every_game(db)


def _assert_one_key_dealt_every_game(db: Path) -> None:
    """The run is secret (no --seed): the games played before and after each stop were
    all dealt from the one key the run stored first (R3.1a), so game k is the same cards
    to the same seats in every seating, however often the run was resumed."""
    with ResultsStore.open(db) as store:
        (run,) = runs(store)
        assert run.seed is None
        run_key = RunKey(store.deal_key(run.id))
        deals: dict[int, list[Any]] = {}
        for game_id in game_ids(store, run.id):
            game = find_game(store, game_id)
            assert game is not None
            record = store.game_record(game_id)
            replay(record, run_key.game(game.game_index))  # raises unless the key's deals
            deals.setdefault(game.game_index, []).append(record["deals"][0]["hands"])
    assert all(len(hands) == 6 and all(h == hands[0] for h in hands) for hands in deals.values())


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_sigint_stops_the_run_cleanly_and_the_same_command_resumes_it(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    arena = Arena(tmp_path, db, "first")
    try:
        arena.wait_for_games(db, 2)
        arena.proc.send_signal(signal.SIGINT)
        try:
            code = arena.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            stored = stored_game_count(db)
            arena.ensure_dead()
            pytest.fail(
                f"arena still running 20 s after SIGINT ({stored} games stored)\n" + arena.output()
            )
    finally:
        arena.ensure_dead()
    assert code == 130, arena.output()
    assert "interrupted" in arena.err.read_text()
    assert "Traceback" not in arena.output()

    survivors = wait_for_no_bots(tmp_path, 3.0)
    kill_bots(survivors)
    assert not survivors, "bots outlived an interrupted run:\n" + describe(survivors)

    stored = stored_game_count(db)
    assert 2 <= stored <= TOTAL
    keys = stored_keys(db)
    assert set(keys) <= EXPECTED and all(n == 1 for n in keys.values())
    assert run_statuses(db) == ["interrupted"]
    assert integrity_check(db) == ["ok"]

    resumed = _finish_run(tmp_path, db)
    output = f"stdout:\n{resumed.stdout}\nstderr:\n{resumed.stderr}"
    assert resumed.returncode == 0, output
    assert f"{TOTAL - stored} games played, {stored} already stored" in resumed.stdout, output
    _assert_complete(db)
    survivors = wait_for_no_bots(tmp_path, 3.0)
    kill_bots(survivors)
    assert not survivors, describe(survivors)


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_kill_9_at_random_moments_loses_no_finished_game_and_resumes(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    rng = random.Random()
    moments = []
    leftovers: dict[int, list[str]] = {}
    for attempt, wanted in enumerate((1, 3)):
        # at least one game of this session is played before the kill
        threshold = max(wanted, stored_game_count(db) + 1)
        arena = Arena(tmp_path, db, f"killed{attempt}")
        try:
            arena.wait_for_games(db, threshold)
            delay = rng.uniform(0.0, 0.4)
            time.sleep(delay)
            arena.proc.kill()
            arena.proc.wait()
        finally:
            arena.ensure_dead()
        moments.append((threshold, round(delay, 3)))
        where = f"killed after >= {threshold} games + {delay:.3f} s (kills so far: {moments})"

        # The file opens, is sound, and holds whole games only, each once.
        assert integrity_check(db) == ["ok"], where
        with ResultsStore.open(db) as store:
            (run,) = runs(store)
            assert run.status == "running", where
            done = store.completed_games(run.id)
            assert done <= EXPECTED, where
            for game_id in game_ids(store, run.id):
                assert find_game(store, game_id) is not None
                assert store.game_record(game_id)["result"] is not None, where
        keys = stored_keys(db)
        assert all(n == 1 for n in keys.values()), where

        # Bots die with their arena (or when its socket goes away).
        survivors = wait_for_no_bots(tmp_path, 5.0)
        if survivors:
            leftovers[attempt] = describe(survivors).splitlines()
            kill_bots(survivors)

    resumed = _finish_run(tmp_path, db)
    output = f"stdout:\n{resumed.stdout}\nstderr:\n{resumed.stderr}"
    assert resumed.returncode == 0, output
    _assert_complete(db)
    assert not leftovers, f"bot processes still alive 5 s after kill -9 of the arena: {leftovers}"
    survivors = wait_for_no_bots(tmp_path, 3.0)
    kill_bots(survivors)
    assert not survivors, describe(survivors)


def _cancel_on_next_answer(
    link: SeatLink, task: asyncio.Future[Any], fired: list[int], done: Callable[[], int]
) -> None:
    """Cancel ``task`` as soon as the seat's next message has been put in its inbox."""
    original = link.inbox.put_nowait

    def put(item: bytes | None) -> None:
        original(item)
        if item is not None and not fired:
            fired.append(done())
            asyncio.get_running_loop().call_soon(task.cancel)

    link.inbox.put_nowait = put  # type: ignore[method-assign]


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_cancel_arriving_with_a_bot_answer_still_stops_the_run(tmp_path: Path) -> None:
    """SIGINT cancels the run's task; it must stop however the cancel meets the tables.

    The moment chosen is the narrowest one: right after a bot's answer has been put in its
    seat's inbox, before the table has read it. (On Python 3.11 ``asyncio.wait_for`` returns
    the result and drops the cancel at that moment; a run that loses it keeps playing and
    then waits forever for matches its cancelled launcher will never send.) The cancel is
    scheduled from the real inbox of the real match; nothing else is replaced. The run
    plays on an executor the test makes (one referee in this process, as ``executor_for``
    makes for one job), so that it can reach the matches under way.
    """
    # Over gRPC: the moment is a gRPC seat's inbox (a stdio seat reads its pipe itself).
    config = RunConfig(
        entrants=tuple(replace(sample(name), protocol="grpc") for name in ("random", "greedy")),
        games=3,
        seed=5,
        jobs=1,
        db_path=tmp_path / "arena.db",
    )
    fired: list[int] = []
    outcome: dict[str, object] = {}

    async def main() -> None:
        with ResultsStore.open(config.db_path) as store:
            started: list[asyncio.Task[RunSummary]] = []
            armed = False

            def arm(progress: RunProgress) -> None:
                nonlocal armed
                if armed or progress.done < 1 or not started:
                    return
                armed = True
                for match in executor.matches:
                    for link in match.links:
                        _cancel_on_next_answer(
                            link, started[0], fired, lambda: runner.progress.done
                        )

            executor = InProcessExecutor(config.jobs, config.settings.join_timeout_s)
            runner = TournamentRunner(config, store, tmp_path / "logs", arm, executor=executor)
            task = asyncio.ensure_future(runner.run())
            started.append(task)
            done, _ = await asyncio.wait([task], timeout=20)
            outcome["stopped"] = bool(done)
            outcome["games_at_cancel"] = fired[0] if fired else None
            outcome["games_when_checked"] = runner.progress.done
            if not done:  # the run lost the cancel: stop it for good before failing
                task.cancel()
                await asyncio.wait([task], timeout=20)
            outcome["cancelled"] = task.done() and task.cancelled()

    try:
        import uvloop

        uvloop.run(main())
    except ImportError:  # pragma: no cover
        asyncio.run(main())
    survivors = wait_for_no_bots(tmp_path, 3.0)
    kill_bots(survivors)

    assert fired, "no answer arrived after the first game: the cancel was never sent"
    assert outcome["stopped"], (
        f"the run was still playing 20 s after its task was cancelled: {outcome}"
    )
    assert outcome["cancelled"], outcome
    # The game in progress is abandoned, not stored.
    assert stored_game_count(config.db_path) == outcome["games_at_cancel"], outcome
    assert run_statuses(config.db_path) == ["interrupted"]
    assert not survivors, describe(survivors)
    assert not bot_processes_under(tmp_path)


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_the_same_run_started_twice_at_once_ends_cleanly(tmp_path: Path) -> None:
    """Two terminals, one command: "running the same command again resumes the run".

    Both processes read the same missing games and play them; whichever stores a game second
    must not crash with a traceback. Either it skips the game, or it refuses cleanly (a
    one-line error); in every case the file ends with each game exactly once.
    """
    db = tmp_path / "arena.db"
    command = samples_command(
        "run", ("greedy", "random"), "--games", "1", "--jobs", "1", "--db", str(db)
    )
    procs = [
        subprocess.Popen(
            command,
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
        )
        for _ in range(2)
    ]
    outputs = []
    try:
        for proc in procs:
            out, err = proc.communicate(timeout=120)
            outputs.append((proc.returncode, out, err))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    survivors = wait_for_no_bots(tmp_path, 3.0)
    kill_bots(survivors)

    problems = []
    for code, out, err in outputs:
        if "Traceback" in err or (code != 0 and "error:" not in err):
            problems.append(f"exit {code}\nstdout:\n{out}\nstderr:\n{err}")
    if survivors:
        problems.append("bots left behind:\n" + describe(survivors))
    assert not problems, "\n\n".join(problems)

    expected = {(m.key, 0) for m in round_robin(2, 1)}
    final = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, env=_env(), timeout=120
    )
    assert final.returncode == 0, final.stderr
    keys = stored_keys(db)
    assert set(keys) == expected
    assert all(n == 1 for n in keys.values())
    assert run_statuses(db) == ["finished"]
    # Both drew a key; the one stored first dealt every game, whichever process played it.
    _assert_one_key_dealt_every_game(db)
