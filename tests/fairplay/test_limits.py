"""Limits that hold for the whole bot, and nothing outlives a dead arena (issue #9, item 5).

With real bot processes, real gRPC and the machine's real cgroups:

- a bot whose four worker processes each try to hold 150 MiB, under a 256 MiB limit: the
  limit holds for all of them together (a per-process RLIMIT_AS would let each have its
  150 MiB), the bot's seat records the fault and no other seat does;
- a bot that leaves a setsid daemon behind, in an ``arena play`` killed with ``kill -9``:
  under the sandbox the daemon dies with it; unsandboxed it outlives it, and the next
  arena to start kills it and says so in one line;
- the ledger for bots without a cgroup: the process groups a dead arena recorded are
  killed, those of a live arena or of a reused pid are not.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.bots import Limits, load_bot
from arena.bots.cgroup import BotCgroup, start_time
from arena.bots.reaper import reap, runtime_dir
from arena.bots.samples import sample_bots_dir
from arena.referee.match import Match, MatchPlan, Referee
from arena.referee.policy import FaultKind
from arena.referee.table import Table, TableSettings

REPO = Path(__file__).resolve().parents[2]
BOTS = Path(__file__).resolve().parent / "bots"
SAMPLES = sample_bots_dir()
ARENA = [sys.executable, "-c", "from arena.cli import app; app()"]
_MiB = 1024 * 1024
LIMIT = 256 * _MiB
# The memory controller charges pages in per-CPU batches (MEMCG_CHARGE_BATCH, at most 64
# pages of 4 KiB), so its recorded peak can pass the limit by up to one batch.
_CHARGE_BATCH_BYTES = 64 * 4096
# The bot's seats: team 0. Random and greedy play teams 1 and 2.
BOT_SEATS = (0, 3)
REAPED = re.compile(
    r"^arena: reaped (\d+) process(?:es)? left by an arena that died \(pids? ([\d, ]+)\)$",
    re.MULTILINE,
)


def memory_cgroup_or_fail() -> None:
    group = BotCgroup.create(None, LIMIT)
    if group is None or not group.limits_memory:
        pytest.fail("no writable memory cgroup on this machine (root and cgroup v1 or v2 needed)")
    group.remove()


def play_match(plan: MatchPlan) -> tuple[Match, Table]:
    async def main() -> tuple[Match, Table]:
        async with Referee() as referee:
            match = Match(referee, plan)
            match.launch()
            table = await asyncio.wait_for(match.play(), 120)
            return match, table

    return asyncio.run(main())


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_memory_limit_holds_for_all_the_bots_processes_together(tmp_path: Path) -> None:
    memory_cgroup_or_fail()
    plan = MatchPlan(
        match_id="lim-children",
        entrants=(
            load_bot(BOTS / "lim_children"),
            load_bot(SAMPLES / "random"),
            load_bot(SAMPLES / "greedy"),
        ),
        seeds=[1],
        log_dir=tmp_path,
        settings=TableSettings(decision_ms=10_000, overage_ms=10_000),
        limits=Limits(memory_bytes=LIMIT),
        sandbox=False,
    )
    match, table = play_match(plan)
    for seat in BOT_SEATS:
        process = match.processes[seat]
        assert process is not None
        log = (tmp_path / f"seat{seat}.log").read_text()
        workers = json.loads((tmp_path / f"seat{seat}" / "workers.json").read_text())
        seat_dir = tmp_path / f"seat{seat}"
        # Empty where the kernel killed the worker as it wrote.
        held = [int((seat_dir / f"worker{i}.held").read_text() or 0) for i in range(4)]
        # Each worker alone fits in the limit (a per-process RLIMIT_AS would let all four
        # have their 150 MiB); together they do not. More than one worker allocated, but at
        # most one held its 150 MiB when the bot let go: the others were killed.
        assert sum(held) > 150, held
        survivors = [i for i, code in enumerate(workers["exit"]) if code == 0]
        assert len(survivors) <= 1, workers
        assert all(workers["holding"][i] for i in survivors), workers
        killed = [code for code in workers["exit"] if code != 0]
        assert killed == [-signal.SIGKILL] * len(killed), workers
        # The kernel's own count of the bot's memory: near the limit, and over it by no more
        # than the pages the kernel charges in one batch (a CI run peaked one page over).
        assert process.memory_peak_bytes is not None
        assert 150 * _MiB < process.memory_peak_bytes <= LIMIT + _CHARGE_BATCH_BYTES, (
            process.memory_peak_bytes
        )
        assert process.oom_kills >= len(killed), log
        # Without its workers the bot cannot play on: its seat's fault, as its process ended.
        assert "cannot play on" in log, log
        assert process.returncode == 3
        kinds = [f.kind for f in table.faults if f.seat == seat]
        assert kinds == [FaultKind.CLOSED], table.faults
    # The other seats record nothing.
    assert [f for f in table.faults if f.seat not in BOT_SEATS] == []


# --- a daemon after kill -9 of the arena ----------------------------------------------------


def marked(marker: str) -> list[int]:
    """Live daemons whose command line carries ``marker`` (their bots' lacks ``.daemon``)."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            cmdline = Path(entry.path, "cmdline").read_bytes()
            state = Path(entry.path, "stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if f"{marker}.daemon".encode() in cmdline.split(b"\0") and state not in (b"Z", b"X"):
            found.append(int(entry.name))
    return sorted(found)


def wait_for(predicate: object, timeout: float, what: str) -> None:
    assert callable(predicate)
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.fixture
def marker() -> Iterator[str]:
    """A mark for this test's daemons; whatever carries it is killed at the end."""
    mark = f"lim-daemon-{uuid.uuid4().hex}"
    yield mark
    for pid in marked(mark):
        os.kill(pid, signal.SIGKILL)


def daemon_bot(tmp_path: Path, marker: str) -> Path:
    """A copy of ``lim_daemon`` whose daemon's command line ends with ``marker``."""
    bot = tmp_path / "lim_daemon"
    shutil.copytree(BOTS / "lim_daemon", bot)
    (bot / "bot.toml").write_text(
        f'name = "lim_daemon"\ncommand = ["python3", "lim_daemon_bot.py", "{marker}"]\n'
    )
    return bot


def arena_play(out: Path, bot: str, *flags: str) -> list[str]:
    return [
        *ARENA,
        "play",
        bot,
        str(SAMPLES / "random"),
        str(SAMPLES / "greedy"),
        "--out",
        str(out),
        "--no-build",
        *flags,
    ]


def start_and_kill_arena(tmp_path: Path, marker: str, *flags: str) -> int:
    """``arena play`` with the daemon bot until both its seats left a daemon; then kill -9."""
    arena = subprocess.Popen(
        arena_play(tmp_path / "first", str(daemon_bot(tmp_path, marker)), *flags),
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_for(lambda: len(marked(marker)) == 2 or arena.poll() is not None, 60, "daemons")
        assert arena.poll() is None, "the arena ended before the kill"
        arena.kill()  # SIGKILL: no clean-up of any kind
    finally:
        arena.kill()
        arena.wait()
    return arena.pid


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_unsandboxed_daemon_is_reaped_by_the_next_arena(tmp_path: Path, marker: str) -> None:
    dead_arena = start_and_kill_arena(tmp_path, marker, "--no-sandbox")
    daemons = marked(marker)
    assert len(daemons) == 2
    # It did outlive the arena, and works on: its heartbeat advances.
    wait_for(lambda: len(list((tmp_path / "first").rglob("daemon.beat"))) == 2, 5, "beats")
    beats = sorted((tmp_path / "first").rglob("daemon.beat"))  # in each seat's directory
    before = [b.read_text() for b in beats]
    time.sleep(0.3)
    assert marked(marker) == daemons
    assert all(b.read_text() != old for b, old in zip(beats, before, strict=True))

    second = subprocess.run(
        arena_play(tmp_path / "second", str(SAMPLES / "random"), "--no-sandbox"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert second.returncode == 0, second.stderr
    assert marked(marker) == []
    lines = REAPED.findall(second.stderr)
    assert len(lines) == 1, second.stderr  # said in one line
    (count, owners) = lines[0]
    assert int(count) >= 2
    assert str(dead_arena) in owners.split(", ")


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_sandboxed_daemon_dies_with_the_arena(tmp_path: Path, marker: str) -> None:
    if shutil.which("bwrap") is None:
        pytest.fail("bubblewrap (bwrap) is not installed; .ci/run installs it")
    start_and_kill_arena(tmp_path, marker, "--sandbox")
    # bwrap dies with the arena (--die-with-parent), and with it the bot's PID namespace.
    wait_for(lambda: marked(marker) == [], 2.0, "the sandboxed daemons to die")


# --- the ledger, for bots without a cgroup --------------------------------------------------


def bot_like_group() -> tuple[subprocess.Popen[bytes], list[int]]:
    """A session leader with two children in its group, as a bot started by the arena."""
    leader = subprocess.Popen(
        ["sh", "-c", "sleep 300 & sleep 300 & echo $! && wait"],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    assert leader.stdout is not None
    leader.stdout.readline()  # both children started
    children: list[int] = []
    deadline = time.monotonic() + 5
    while len(children) < 2:
        assert time.monotonic() < deadline
        children = [
            int(p)
            for p in Path(f"/proc/{leader.pid}/task/{leader.pid}/children").read_text().split()
        ]
    return leader, children


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


def dead_owner() -> str:
    """An owner tag for an arena that is no more: no process has its start time."""
    gone = subprocess.Popen(["true"])
    gone.wait()
    return f"{gone.pid}-1"


def write_ledger(owner: str, lines: list[str]) -> Path:
    directory = runtime_dir()
    assert directory is not None
    path = directory / f"arena-{owner}.pgids"
    path.write_text("".join(line + "\n" for line in lines))
    return path


def test_ledger_of_a_dead_arena_kills_its_bots_groups(tmp_path: Path) -> None:
    leader, children = bot_like_group()
    started = start_time(leader.pid)
    # The bot died with its arena (PR_SET_PDEATHSIG); its children did not.
    leader.kill()
    leader.wait()
    assert all(alive(c) for c in children)
    owner = dead_owner()
    ledger = write_ledger(owner, [f"{leader.pid} {started}"])
    try:
        line = reap()
        assert line is not None and REAPED.match(line), line
        assert owner.split("-")[0] in REAPED.findall(line)[0][1].split(", ")
        wait_for(lambda: not any(alive(c) for c in children), 2, "the children to die")
        assert not ledger.exists()
    finally:
        for pid in children:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        ledger.unlink(missing_ok=True)


def test_ledger_spares_live_arenas_and_reused_pids() -> None:
    leader, children = bot_like_group()
    started = start_time(leader.pid)
    assert started is not None
    live_owner = f"{os.getpid()}-{start_time(os.getpid())}"  # this process: alive
    mine = write_ledger(live_owner, [f"{leader.pid} {started}"])
    # The pid of a dead arena's bot, now leading another group: its start time differs.
    reused = write_ledger(dead_owner(), [f"{leader.pid} {started - 1}"])
    try:
        reap()
        assert alive(leader.pid)
        assert all(alive(c) for c in children)
        assert mine.exists()  # a live arena's ledger is its own
        assert not reused.exists()  # a dead one's goes, even with nothing to kill
    finally:
        mine.unlink(missing_ok=True)
        reused.unlink(missing_ok=True)
        os.killpg(leader.pid, signal.SIGKILL)
        leader.wait()


# Where the machine offers no writable cgroup (here: hidden from the arena, as on a machine
# without them), the ledger is what the next arena goes by.
NO_CGROUP_ARENA = """
import sys, time
from pathlib import Path
import arena.bots.cgroup
arena.bots.cgroup.hierarchies = lambda: ()  # a machine without writable cgroups
from arena.bots import Limits, load_bot, start_bot
work = Path(sys.argv[2])
bot = start_bot(load_bot(Path(sys.argv[1])), env={}, workdir=work, log_path=work / "log",
                limits=Limits())
print(bot.pid, flush=True)
time.sleep(300)
"""


def forking_bot(tmp_path: Path) -> Path:
    """A bot that leaves two children in its process group, then waits for them."""
    bot = tmp_path / "forker"
    bot.write_text("#!/bin/sh\nsleep 300 &\nsleep 300 &\nwait\n")
    bot.chmod(0o755)
    return bot


def test_without_cgroups_the_ledger_lets_the_next_arena_reap(tmp_path: Path) -> None:
    arena = subprocess.Popen(
        [sys.executable, "-c", NO_CGROUP_ARENA, str(forking_bot(tmp_path)), str(tmp_path / "w")],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    children: list[int] = []
    try:
        assert arena.stdout is not None
        bot = int(arena.stdout.readline())
        listed = Path(f"/proc/{bot}/task/{bot}/children")
        wait_for(lambda: len(listed.read_text().split()) == 2, 5, "the bot's children")
        children = [int(p) for p in listed.read_text().split()]
        directory = runtime_dir()
        assert directory is not None
        ledger = directory / f"arena-{arena.pid}-{start_time(arena.pid)}.pgids"
        assert ledger.read_text() == f"{bot} {start_time(bot)}\n"
        arena.kill()
        arena.wait()
        # The bot died with its arena; its children, in its process group, did not.
        wait_for(lambda: not alive(bot), 5, "the bot to die with its arena")
        assert all(alive(c) for c in children)
        line = reap()
        assert line is not None and REAPED.match(line), line
        assert str(arena.pid) in REAPED.findall(line)[0][1].split(", ")
        wait_for(lambda: not any(alive(c) for c in children), 2, "the children to die")
        assert not ledger.exists()
    finally:
        arena.kill()
        arena.wait()
        for pid in children:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_without_cgroups_a_clean_stop_leaves_no_ledger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import arena.bots.cgroup

    monkeypatch.setattr(arena.bots.cgroup, "hierarchies", lambda: ())
    from arena.bots import start_bot

    directory = runtime_dir()
    assert directory is not None
    ledger = directory / f"arena-{os.getpid()}-{start_time(os.getpid())}.pgids"
    bot = start_bot(
        load_bot(forking_bot(tmp_path)),
        env={},
        workdir=tmp_path / "w",
        log_path=tmp_path / "log",
        limits=Limits(),
    )
    assert bot.cgroup is None
    assert f"{bot.pid} " in ledger.read_text()
    bot.stop(grace=0.2)
    assert not ledger.exists()
