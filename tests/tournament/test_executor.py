"""Match executors: referee processes play the games one referee plays, each stored once,
and speak to the coordinator in typed messages only; a match plays whole anywhere;
stopping a run leaves no referee or bot process behind."""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import os
import pickle
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.engine import GameKey
from arena.referee.match import MatchPlan
from arena.referee.result import GameResult
from arena.tournament.executor import play_match_collected
from arena.tournament.local import LocalProcessExecutor
from arena.tournament.messages import (
    GameFinished,
    GameMayStart,
    GameWanted,
    MatchFailed,
    MatchFinished,
    MatchLaunched,
    OpenTables,
    PlayMatch,
    ProtocolError,
    RefereeExited,
    Report,
    StopReferee,
    read_command,
    read_report,
    send,
)
from arena.tournament.runner import RunConfig, run_tournament
from arena.tournament.schedule import round_robin
from arena.tournament.store import ResultsStore
from arena.wire.loop import run as run_loop

from .helpers import (
    arena_command,
    assert_same_records,
    deal_clocks,
    describe,
    games_as_played,
    integrity_check,
    kill_bots,
    live_pids,
    overlapping,
    run_statuses,
    runs,
    same_start,
    sample,
    sample_path,
    samples_run,
    stored_game_count,
    stored_keys,
    stored_results,
    wait_for_no_bots,
)

GAMES = 2
SCHEDULE = round_robin(2, GAMES)  # two entrants: two triples of three seatings
EXPECTED = {(m.key, i) for m in SCHEDULE for i in range(GAMES)}


@pytest.fixture(autouse=True)
def _no_stray_bots(tmp_path: Path) -> Iterator[None]:
    """Whatever a test asserts, it leaves no bot of its own running."""
    yield
    kill_bots(wait_for_no_bots(tmp_path, 3.0))


def test_the_tables_are_shared_out_within_one_of_each_other() -> None:
    executor = LocalProcessExecutor(tables=5, processes=2)
    assert (executor.tables, executor.processes) == (5, 2)
    assert LocalProcessExecutor(tables=2, processes=4).processes == 2  # no idle process


def _records(db: Path) -> dict[tuple[str, int], dict[str, Any]]:
    with ResultsStore.open(db) as store:
        (run,) = runs(store)
        return {key: game["record"] for key, game in stored_results(store, run.id).items()}


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_referee_processes_play_the_games_one_referee_plays_never_a_deal_twice_at_once(
    tmp_path: Path,
) -> None:
    """Same seed, deterministic bots: the same games, card for card, each stored once; and
    on two tables, one referee or two referee processes, with every seating starting at
    the same game, no game overlaps one of its deal. A game's span is as its six bots
    lived it (the deal-clock bots' logs: first message to last answer, on the machine's
    one monotonic clock); games of different deals did run side by side."""
    entrants = deal_clocks(tmp_path / "bots")
    records = {}
    for referees in (1, 2):
        db = tmp_path / f"referees{referees}.db"
        config = RunConfig(entrants, GAMES, 4242, jobs=2, db_path=db, referees=referees)
        logs = tmp_path / f"logs{referees}"
        summary = run_tournament(config, logs, schedule=same_start(entrants, GAMES))
        assert (summary.played, summary.skipped) == (len(EXPECTED), 0)
        spans = games_as_played(logs)
        assert len(spans) == len(EXPECTED), sorted(spans)
        assert overlapping(spans, same_deal=True) == [], f"{referees} referee processes"
        assert overlapping(spans, same_deal=False), "the two tables never played at once"
        # This process referees the first; two referee processes, each busy, the second.
        assert len(summary.referee_cpu_seconds) == (0 if referees == 1 else 2)
        assert all(cpu > 0 for cpu in summary.referee_cpu_seconds)
        keys = stored_keys(config.db_path)
        assert set(keys) == EXPECTED and set(keys.values()) == {1}
        assert run_statuses(config.db_path) == ["finished"]
        records[referees] = _records(config.db_path)

    assert records[1].keys() == EXPECTED
    assert_same_records(records[1], records[2])


def _plan(
    match_id: str, bots: tuple[str, str, str], seeds: tuple[int, ...], log_dir: Path
) -> MatchPlan:
    """A match of the sample ``bots`` (by team), a game on each of ``seeds``."""
    return MatchPlan(
        match_id=match_id,
        entrants=tuple(sample(bot) for bot in bots),
        seeds=[GameKey.from_seed(seed) for seed in seeds],
        log_dir=log_dir,
    )


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_match_plays_whole_in_one_call_and_its_games_travel(tmp_path: Path) -> None:
    """``play_match_collected`` is what a cluster task runs: a plan in, games out, both
    through pickle; games in ``skip`` are not played, and no process outlives the call."""
    plan = _plan("t0-s0", ("greedy", "lowest", "greedy"), (11, 12, 13), tmp_path / "logs")
    travelled: MatchPlan = pickle.loads(pickle.dumps(plan))
    outcome, games = play_match_collected(travelled, frozenset({1}))

    assert [g.game_index for g in games] == [0, 2]
    assert outcome.match_id == "t0-s0" and outcome.games_played == 2
    assert outcome.launch_seconds > 0
    for game in games:
        back: GameResult = pickle.loads(pickle.dumps(game))
        assert back == game
        assert game.key.secret == plan.seeds[game.game_index].secret  # type: ignore[union-attr]
    assert not wait_for_no_bots(tmp_path, 3.0)


def _children(pid: int) -> dict[int, bytes]:
    """Live child processes of ``pid`` with their command lines."""
    found = {}
    for child in live_pids():
        try:
            stat = Path(f"/proc/{child}/stat").read_bytes()
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if int(stat[stat.rfind(b")") + 2 :].split()[1]) == pid:
            found[child] = cmdline
    return found


def _referee_pids(coordinator: int, count: int, timeout: float) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pids = [p for p, cmd in _children(coordinator).items() if b"serve_referee" in cmd]
        if len(pids) >= count:
            return sorted(pids)
        time.sleep(0.05)
    pytest.fail(f"no {count} referee processes under {coordinator}: {_children(coordinator)}")


def _wait_for_a_stored_game(db: Path, arena: subprocess.Popen[bytes]) -> None:
    """Until ``arena`` has stored a game in ``db`` (or ended), 120 s at the most."""
    deadline = time.monotonic() + 120
    while stored_game_count(db) < 1 and arena.poll() is None:
        assert time.monotonic() < deadline, "no game stored in 120 s"
        time.sleep(0.02)


def _command(db: Path) -> list[str]:
    return [
        *arena_command(),
        "run",
        str(sample_path("greedy")),
        str(sample_path("lowest")),
        *("--games", str(GAMES), "--jobs", "2", "--referees", "2", "--db", str(db)),
    ]


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_sigint_leaves_no_referee_or_bot_process_and_the_run_resumes(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    env = {**os.environ, "COLUMNS": "200"}
    out, err = tmp_path / "first.out", tmp_path / "first.err"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        arena = subprocess.Popen(
            _command(db),
            cwd=tmp_path,
            stdout=stdout,
            stderr=stderr,
            env=env,
            start_new_session=True,
        )
    try:
        referees = _referee_pids(arena.pid, 2, timeout=60)
        _wait_for_a_stored_game(db, arena)
        # As Ctrl-C in a terminal: to the arena and its referee processes at once.
        os.killpg(arena.pid, signal.SIGINT)
        code = arena.wait(timeout=30)
    finally:
        if arena.poll() is None:
            arena.kill()
            arena.wait()
    output = f"stdout:\n{out.read_text()}\nstderr:\n{err.read_text()}"
    assert code == 130, output
    assert "interrupted" in err.read_text() and "Traceback" not in output, output
    # The coordinator waited for its referee processes, which ended their bots first.
    alive = [pid for pid in referees if pid in live_pids()]
    assert not alive, "referee processes outlived the run:\n" + describe(alive)
    survivors = wait_for_no_bots(tmp_path, 3.0)
    assert not survivors, "bots outlived an interrupted run:\n" + describe(survivors)
    stored = stored_game_count(db)
    assert stored >= 1 and set(stored_keys(db).values()) == {1}
    assert run_statuses(db) == ["interrupted"]

    resumed = subprocess.run(
        _command(db), cwd=tmp_path, capture_output=True, text=True, env=env, timeout=200
    )
    output = f"stdout:\n{resumed.stdout}\nstderr:\n{resumed.stderr}"
    assert resumed.returncode == 0, output
    played = len(EXPECTED) - stored
    assert f"{played} games played, {stored} already stored" in resumed.stdout, output
    keys = stored_keys(db)
    assert set(keys) == EXPECTED and set(keys.values()) == {1}
    assert run_statuses(db) == ["finished"]
    assert integrity_check(db) == ["ok"]


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_kill_9_of_arena_run_ends_its_referee_processes_and_their_bots(tmp_path: Path) -> None:
    """A coordinator gone without a word (kill -9) closes its referee processes' pipes:
    each ends its matches, their bots with them, and exits; the run then resumes."""
    db = tmp_path / "arena.db"
    with (tmp_path / "killed.out").open("wb") as out:
        arena = subprocess.Popen(_command(db), cwd=tmp_path, stdout=out, stderr=out)
    try:
        referees = _referee_pids(arena.pid, 2, timeout=60)
        _wait_for_a_stored_game(db, arena)
        arena.kill()
        arena.wait()
    finally:
        if arena.poll() is None:
            arena.kill()
            arena.wait()
    deadline = time.monotonic() + 15  # REFEREE_STOP_GRACE_S is the most a stop may take
    while (alive := [pid for pid in referees if pid in live_pids()]) and (
        time.monotonic() < deadline
    ):
        time.sleep(0.05)
    survivors = wait_for_no_bots(tmp_path, 5.0)
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    assert not alive, "referee processes outlived their coordinator:\n" + describe(alive)
    assert not survivors, "bots outlived their referee:\n" + describe(survivors)

    resumed = subprocess.run(
        _command(db), cwd=tmp_path, capture_output=True, text=True, timeout=200
    )
    assert resumed.returncode == 0, f"{resumed.stdout}\n{resumed.stderr}"
    keys = stored_keys(db)
    assert set(keys) == EXPECTED and set(keys.values()) == {1}


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_referee_process_killed_mid_run_is_replaced_and_its_matches_played_again(
    tmp_path: Path,
) -> None:
    """A referee process that dies (kill -9) is the arena's trouble, not the bots': its
    matches are played again with the same deals on a fresh referee process, every game
    of the run is stored once, and nothing outlives the run."""
    db = tmp_path / "arena.db"
    config = samples_run(db, ("greedy", "lowest"), games=GAMES, seed=77, referees=2)
    killed: list[int] = []
    notices: list[str] = []

    def kill_one_referee() -> None:
        referees = _referee_pids(os.getpid(), 2, timeout=60)
        deadline = time.monotonic() + 120
        while stored_game_count(config.db_path) < 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(referees[0], signal.SIGKILL)
        killed.append(referees[0])

    killer = threading.Thread(target=kill_one_referee)
    killer.start()
    summary = run_tournament(config, tmp_path / "logs", on_notice=notices.append)
    killer.join()
    assert killed
    assert any(re.search(r"referee process \d+.* ended.*playing it again", n) for n in notices)
    keys = stored_keys(config.db_path)
    assert set(keys) == EXPECTED and set(keys.values()) == {1}  # each game once
    assert summary.played == len(EXPECTED)
    left = [pid for pid, cmd in _children(os.getpid()).items() if b"serve_referee" in cmd]
    assert not left, "a referee process outlived the run:\n" + describe(left)
    survivors = wait_for_no_bots(tmp_path, 5.0)
    assert not survivors, "bots outlived their referee:\n" + describe(survivors)


@pytest.mark.timeout(120)
def test_referee_processes_lead_their_own_sessions_and_end_when_told() -> None:
    """Ctrl-C at a terminal goes to its foreground group: the referee processes are out
    of it, so they stop only when the coordinator says (and tell their CPU as they go)."""

    async def start_and_stop() -> tuple[list[int], list[int], tuple[float, ...]]:
        executor = LocalProcessExecutor(tables=2, processes=2)
        async with executor:
            referees = _referee_pids(os.getpid(), 2, timeout=30)
            sessions = [os.getsid(pid) for pid in referees]
        return referees, sessions, executor.referee_cpu_seconds

    referees, sessions, cpu = run_loop(start_and_stop())
    assert sessions == referees, "each referee process leads a session of its own"
    assert os.getsid(0) not in sessions
    assert len(cpu) == 2 and all(seconds > 0 for seconds in cpu)
    assert not [pid for pid in referees if pid in live_pids()]


def test_a_pipe_carries_only_its_own_messages() -> None:
    """What is not a message of its pipe (a tagged tuple, a report down the command pipe)
    is refused as it is read; the messages themselves arrive equal."""
    received, sent = multiprocessing.Pipe(duplex=False)
    with received, sent:
        send(sent, StopReferee())
        assert read_command(received) == StopReferee()
        sent.send(("launched", 0, None))
        with pytest.raises(ProtocolError, match="tuple"):
            read_report(received)
        send(sent, MatchLaunched(3))
        with pytest.raises(ProtocolError, match="MatchLaunched"):
            read_command(received)
        send(sent, RefereeExited(1.5))
        assert read_report(received) == RefereeExited(1.5)


@contextlib.contextmanager
def _referee_process() -> Iterator[
    tuple[
        subprocess.Popen[bytes],
        multiprocessing.connection.Connection,
        multiprocessing.connection.Connection,
    ]
]:
    """A referee process started by hand (``serve_referee`` on two pipes), as the
    ``LocalProcessExecutor`` starts one; its commands' and its reports' ends. On leaving,
    the process is killed if it still runs and both ends are closed."""
    commands_out, commands_in = os.pipe()
    results_out, results_in = os.pipe()
    main = "from arena.tournament.local import serve_referee; serve_referee()"
    process = subprocess.Popen(
        [sys.executable, "-c", main, str(commands_out), str(results_in)],
        pass_fds=(commands_out, results_in),
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    os.close(commands_out)
    os.close(results_in)
    commands = multiprocessing.connection.Connection(commands_in, readable=False)
    results = multiprocessing.connection.Connection(results_out, writable=False)
    try:
        yield process, commands, results
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        commands.close()
        results.close()


def _next_report(results: multiprocessing.connection.Connection, timeout: float) -> Report:
    assert results.poll(timeout), f"no report from the referee process in {timeout} s"
    return read_report(results)


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_referee_process_reports_a_match_in_typed_messages(tmp_path: Path) -> None:
    """Told ``OpenTables`` then ``PlayMatch``, it reports the match's launch; before each
    game not skipped, in the plan's order, it asks for the game's deal and plays it only
    once granted; then its end; told ``StopReferee``, its own CPU, and exits cleanly."""
    plan = _plan("t0-s1", ("greedy", "lowest", "lowest"), (21, 22, 23), tmp_path / "logs")
    plan.order = (2, 0, 1)
    with _referee_process() as (process, commands, results):
        send(commands, OpenTables(tables=1, join_timeout=30.0))
        send(commands, PlayMatch(ticket=7, plan=plan, skip=frozenset({1})))
        reports = [_next_report(results, 60)]
        while not isinstance(reports[-1], MatchFinished | MatchFailed):
            if isinstance(wanted := reports[-1], GameWanted):
                # Not granted yet: the table waits, and says nothing more meanwhile.
                assert not results.poll(0.5), "a game started without its deal's lease"
                send(commands, GameMayStart(wanted.ticket, wanted.index))
            reports.append(_next_report(results, 60))
        send(commands, StopReferee())
        exited = _next_report(results, 30)
        code = process.wait(timeout=30)
    stderr = process.stderr.read().decode() if process.stderr else ""
    assert [type(r) for r in reports] == [
        MatchLaunched,
        GameWanted,
        GameFinished,
        GameWanted,
        GameFinished,
        MatchFinished,
    ], (reports, stderr)
    assert {r.ticket for r in reports if not isinstance(r, RefereeExited)} == {7}
    wanted = [r.index for r in reports if isinstance(r, GameWanted)]
    games = [r.result for r in reports if isinstance(r, GameFinished)]
    assert wanted == [g.game_index for g in games] == [2, 0]
    done = reports[-1]
    assert isinstance(done, MatchFinished)
    assert (done.outcome.match_id, done.outcome.games_played) == ("t0-s1", 2)
    assert isinstance(exited, RefereeExited) and exited.cpu_seconds > 0
    assert code == 0, stderr
    assert not wait_for_no_bots(tmp_path, 3.0)


@pytest.mark.timeout(60)
def test_a_referee_process_told_something_else_says_so_and_exits() -> None:
    """A first command that is not ``OpenTables`` (here: a tagged tuple, as the pipe
    carried before its messages were typed) is refused: one line, exit status 2, and
    its CPU still reported."""
    with _referee_process() as (process, commands, results):
        commands.send((2, 10.0))
        exited = _next_report(results, 30)
        code = process.wait(timeout=30)
    stderr = process.stderr.read().decode() if process.stderr else ""
    assert isinstance(exited, RefereeExited)
    assert code == 2, stderr
    assert "not a command to a referee process: tuple" in stderr
    assert "Traceback" not in stderr
