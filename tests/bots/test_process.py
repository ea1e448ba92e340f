"""Tests for arena.bots.process: launching, logging, limiting and stopping real bot processes."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.bots import (
    BotProcess,
    BotSpec,
    BotStartError,
    Limits,
    load_bot,
    start_bot,
)
from arena.bots.build import BotCache, BotOptions

from .helpers import alive_processes_in_group, wait_until_gone

StartFn = Callable[..., BotProcess]


def make_bot(directory: Path, code: str, *, build: str | None = None) -> BotSpec:
    """Write a directory bot running `code` via `python3 bot.py` and load it."""
    directory.mkdir(parents=True)
    manifest = 'name = "testbot"\ncommand = ["python3", "bot.py"]\n'
    if build is not None:
        manifest += f"build = {build}\n"
    (directory / "bot.toml").write_text(manifest)
    (directory / "bot.py").write_text(textwrap.dedent(code))
    return load_bot(directory)


@pytest.fixture
def start(tmp_path: Path) -> Iterator[StartFn]:
    """Start a bot with test defaults and make sure it is stopped afterwards."""
    started: list[BotProcess] = []

    def _start(
        spec: BotSpec,
        *,
        env: dict[str, str] | None = None,
        limits: Limits | None = None,
        workdir: Path | None = None,
    ) -> BotProcess:
        proc = start_bot(
            spec,
            env=env or {},
            workdir=workdir or tmp_path / "seat",
            log_path=tmp_path / "logs" / "seat.log",
            limits=limits or Limits(),
        )
        started.append(proc)
        return proc

    yield _start
    for proc in started:
        proc.stop(grace=0.1)


def wait_for(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.02)


def wait_exit(proc: BotProcess, timeout: float = 10.0) -> int:
    wait_for(lambda: proc.poll() is not None, timeout)
    code = proc.returncode
    assert code is not None
    return code


def test_env_reaches_the_bot_and_output_is_logged(tmp_path: Path, start: StartFn) -> None:
    spec = make_bot(
        tmp_path / "bot",
        """
        import os, sys
        print("token=" + os.environ["ARENA_TOKEN"])
        print("botdir=" + os.environ["ARENA_BOT_DIR"])
        print("unbuffered=" + os.environ["PYTHONUNBUFFERED"])
        print("on stderr", file=sys.stderr)
        """,
    )
    proc = start(spec, env={"ARENA_TOKEN": "s3cret-42", "ARENA_ADDRESS": "127.0.0.1:1"})
    assert wait_exit(proc) == 0
    proc.stop()
    log = proc.log_path.read_text()
    assert "token=s3cret-42" in log
    assert f"botdir={spec.directory}" in log
    assert "unbuffered=1" in log
    assert "on stderr" in log
    assert "token=s3cret-42" in proc.log_tail()


def test_workdir_is_cwd_and_created(tmp_path: Path, start: StartFn) -> None:
    spec = make_bot(
        tmp_path / "bot",
        """
        import os
        print("cwd=" + os.getcwd())
        open("scratch.txt", "w").write("x")
        """,
    )
    workdir = tmp_path / "match-1" / "seat-3"
    proc = start(spec, workdir=workdir)
    assert wait_exit(proc) == 0
    proc.stop()
    assert f"cwd={workdir.resolve()}" in proc.log_path.read_text()
    assert (workdir / "scratch.txt").exists()
    assert not (spec.directory / "scratch.txt").exists()


def test_log_is_capped_and_flooder_is_not_blocked(tmp_path: Path, start: StartFn) -> None:
    cap = 64 * 1024
    spec = make_bot(
        tmp_path / "bot",
        """
        import sys
        chunk = b"x" * (1024 * 1024)
        for _ in range(50):
            sys.stdout.buffer.write(chunk)
        sys.stdout.buffer.flush()
        """,
    )
    proc = start(spec, limits=Limits(log_bytes=cap))
    assert wait_exit(proc, timeout=20) == 0  # a blocked writer would never exit
    proc.stop()
    data = proc.log_path.read_bytes()
    assert len(data) <= cap + 200
    assert data.startswith(b"x" * cap)
    assert f"[arena] log truncated at {cap} bytes".encode() in data


@pytest.mark.slow
def test_stop_kills_bot_that_ignores_sigterm(tmp_path: Path, start: StartFn) -> None:
    spec = make_bot(
        tmp_path / "bot",
        """
        import signal, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        print("ready")
        time.sleep(60)
        """,
    )
    proc = start(spec)
    wait_for(lambda: "ready" in proc.log_tail())
    grace = 0.5
    started = time.monotonic()
    proc.stop(grace=grace)
    assert time.monotonic() - started < grace + 1
    assert proc.returncode == -signal.SIGKILL
    assert alive_processes_in_group(proc.pid) == []


@pytest.mark.slow
def test_stop_uses_sigterm_first(tmp_path: Path, start: StartFn) -> None:
    spec = make_bot(
        tmp_path / "bot",
        """
        import signal, sys, time
        def bye(signum, frame):
            print("got SIGTERM, saving state")
            sys.exit(0)
        signal.signal(signal.SIGTERM, bye)
        print("ready")
        time.sleep(60)
        """,
    )
    proc = start(spec)
    wait_for(lambda: "ready" in proc.log_tail())
    proc.stop(grace=5)
    assert proc.returncode == 0
    assert "got SIGTERM, saving state" in proc.log_tail()


@pytest.mark.slow
def test_stop_kills_lingering_children_of_exited_bot(tmp_path: Path, start: StartFn) -> None:
    spec = make_bot(
        tmp_path / "bot",
        """
        import subprocess, sys
        child = subprocess.Popen([sys.executable, "-c",
            "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
            "print('child up', flush=True); time.sleep(60)"])
        print("child", child.pid, flush=True)
        """,
    )
    proc = start(spec)
    assert wait_exit(proc) == 0
    wait_for(lambda: "child up" in proc.log_tail())
    child_pid = int(proc.log_tail().split("child ", 1)[1].split()[0])
    assert alive_processes_in_group(proc.pid) == [child_pid]

    proc.stop(grace=0.2)
    assert wait_until_gone(proc.pid, timeout=2) == []


@pytest.mark.slow
def test_stop_is_idempotent_and_quiet_after_exit(tmp_path: Path, start: StartFn) -> None:
    proc = start(make_bot(tmp_path / "bot", "raise SystemExit(3)\n"))
    assert wait_exit(proc) == 3
    proc.stop()
    proc.stop()
    assert proc.returncode == 3


def test_memory_limit_kills_greedy_bot(tmp_path: Path, start: StartFn) -> None:
    spec = make_bot(
        tmp_path / "bot",
        """
        data = bytearray(4 * 1024**3)
        print("allocated", len(data))
        """,
    )
    proc = start(spec, limits=Limits(memory_bytes=256 * 1024**2))
    code = wait_exit(proc)
    assert "allocated" not in proc.log_tail()
    if proc.cgroup is not None and proc.cgroup.limits_memory:
        # The bot's memory cgroup: the kernel kills it (tests/fairplay/test_limits.py).
        proc.stop()
        assert code == -signal.SIGKILL
        assert proc.oom_kills == 1
    else:  # RLIMIT_AS: the allocation fails
        assert code != 0
        assert "MemoryError" in proc.log_tail()


def test_rlimits_are_applied(tmp_path: Path, start: StartFn) -> None:
    spec = make_bot(
        tmp_path / "bot",
        """
        import resource
        print("nofile", resource.getrlimit(resource.RLIMIT_NOFILE))
        print("cpu", resource.getrlimit(resource.RLIMIT_CPU))
        """,
    )
    proc = start(spec, limits=Limits(open_files=64, cpu_seconds=30))
    assert wait_exit(proc) == 0
    log = proc.log_tail()
    assert "nofile (64, 64)" in log
    assert "cpu (30, 30)" in log


def test_context_manager_stops(tmp_path: Path, start: StartFn) -> None:
    spec = make_bot(tmp_path / "bot", "import time\ntime.sleep(60)\n")
    with start(spec) as proc:
        assert proc.returncode is None
    assert proc.returncode is not None
    assert alive_processes_in_group(proc.pid) == []


def test_wait_exit_is_async(tmp_path: Path, start: StartFn) -> None:
    proc = start(make_bot(tmp_path / "bot", "import time\ntime.sleep(0.3)\nraise SystemExit(5)\n"))

    async def main() -> tuple[int, int]:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        task = asyncio.create_task(ticker())
        code = await asyncio.wait_for(proc.wait_exit(), timeout=10)
        task.cancel()
        return code, ticks

    code, ticks = asyncio.run(main())
    assert code == 5
    assert ticks > 5  # the loop kept running while we waited


def test_build_output_is_found_at_launch(tmp_path: Path, start: StartFn) -> None:
    bot_dir = tmp_path / "bot"
    bot_dir.mkdir()
    (bot_dir / "bot.toml").write_text(
        'name = "gen"\ncommand = ["python3", "generated.py"]\n'
        """build = ["python3", "-c", "open('generated.py', 'w').write('print(42)')"]\n"""
    )
    spec = load_bot(bot_dir)
    assert spec.command[1] == "generated.py"  # not there yet
    built = BotCache(tmp_path / "cache").prepare(spec, BotOptions(sandbox=False))
    proc = start(built)
    assert wait_exit(proc) == 0
    assert "42" in proc.log_tail()


def test_unstartable_command_raises(tmp_path: Path, start: StartFn) -> None:
    spec = BotSpec(
        name="ghost",
        version="0" * 12,
        command=(str(tmp_path / "no-such-binary"),),
        directory=tmp_path,
        build=None,
    )
    with pytest.raises(BotStartError, match="cannot start bot 'ghost'"):
        start(spec)


def test_executable_file_bot_runs(tmp_path: Path, start: StartFn) -> None:
    script = tmp_path / "solo.py"
    script.write_text(f"#!{sys.executable}\nprint('solo here')\n")
    script.chmod(0o755)
    proc = start(load_bot(script))
    assert wait_exit(proc) == 0
    assert "solo here" in proc.log_tail()


def test_bot_dies_with_a_killed_arena(tmp_path: Path) -> None:
    """kill -9 of the arena must not leave its bots running (PR_SET_PDEATHSIG)."""
    bot = tmp_path / "sleeper"
    bot.write_text("#!/bin/sh\nexec sleep 60\n")
    bot.chmod(0o755)
    pid_file = tmp_path / "pid"
    arena_script = f"""
import time
from pathlib import Path
from arena.bots import Limits, load_bot, start_bot
process = start_bot(load_bot({str(bot)!r}), env={{}}, workdir=Path({str(tmp_path)!r}) / "w",
                    log_path=Path({str(tmp_path)!r}) / "log", limits=Limits())
Path({str(pid_file)!r}).write_text(str(process.pid))
time.sleep(60)
"""
    arena = subprocess.Popen([sys.executable, "-c", arena_script])
    try:
        deadline = time.monotonic() + 20
        while not pid_file.exists() or not pid_file.read_text():
            assert time.monotonic() < deadline, "the arena never started its bot"
            time.sleep(0.05)
        bot_pid = int(pid_file.read_text())
        assert _alive(bot_pid)
        arena.kill()
        arena.wait()
        deadline = time.monotonic() + 5
        while _alive(bot_pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(bot_pid), "the bot outlived its arena"
    finally:
        arena.kill()


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_processes_that_leave_the_group_are_still_ended(tmp_path: Path) -> None:
    """A child that calls setsid escapes the process group but not the bot's cgroup."""
    from arena.bots.cgroup import PidsCgroup

    if PidsCgroup.create(None) is None:
        pytest.fail("no writable pids cgroup on this machine; the arena then relies on killpg")
    pid_file = tmp_path / "escaped"
    bot = tmp_path / "escaper"
    bot.write_text(f"#!/bin/sh\nsetsid sh -c 'echo $$ > {pid_file}; exec sleep 300' &\nsleep 300\n")
    bot.chmod(0o755)
    process = start_bot(
        load_bot(bot), env={}, workdir=tmp_path / "w", log_path=tmp_path / "log", limits=Limits()
    )
    deadline = time.monotonic() + 10
    while not pid_file.exists() or not pid_file.read_text().strip():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    escaped = int(pid_file.read_text())
    assert escaped not in alive_processes_in_group(process.pid)  # it did leave the group
    process.stop(grace=0.5)
    deadline = time.monotonic() + 5
    while _alive(escaped) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(escaped)


@pytest.mark.slow
def test_process_limit_counts_only_the_bot(tmp_path: Path) -> None:
    """Limits.processes caps the bot's own processes (pids.max of its cgroup)."""
    from arena.bots.cgroup import PidsCgroup

    if PidsCgroup.create(None) is None:
        pytest.fail("no writable pids cgroup on this machine")
    bot = tmp_path / "forker"
    bot.write_text(
        "#!/usr/bin/env python3\n"
        "import os, time\n"
        "made = 0\n"
        "try:\n"
        "    for _ in range(50):\n"
        "        if os.fork() == 0:\n"
        "            time.sleep(30)\n"
        "            os._exit(0)\n"
        "        made += 1\n"
        "except OSError:\n"
        "    pass\n"
        "print('forked', made, flush=True)\n"
    )
    bot.chmod(0o755)
    process = start_bot(
        load_bot(bot),
        env={},
        workdir=tmp_path / "w",
        log_path=tmp_path / "log",
        limits=Limits(processes=10),
    )
    deadline = time.monotonic() + 20
    while "forked" not in (tmp_path / "log").read_text():
        assert time.monotonic() < deadline, (tmp_path / "log").read_text()
        time.sleep(0.05)
    process.stop(grace=0.2)
    made = int((tmp_path / "log").read_text().split("forked")[1].split()[0])
    assert made < 10


@pytest.mark.slow
def test_cpu_of_a_sandboxed_bot_and_its_children_is_counted(tmp_path: Path) -> None:
    """The kernel's per-child accounting loses a bot in the sandbox's PID namespace; its
    cgroup counts the CPU of all its processes (the tournament bench reads it)."""
    from arena.bots.cgroup import hierarchies
    from arena.bots.sandbox import Sandbox, runtime_paths, sandbox_problem

    if not any("cpuacct" in h.controllers or h.version == 2 for h in hierarchies()):
        pytest.skip("this machine lets the arena make no cgroup that counts CPU")
    if (problem := sandbox_problem()) is not None:
        pytest.fail(f"bubblewrap does not work here ({problem}); .ci/run installs it")
    spec = make_bot(
        tmp_path / "burner",
        """
        import os, time
        def burn(seconds):
            start = time.process_time()
            while time.process_time() - start < seconds:
                pass
        child = os.fork()
        burn(0.4)
        if child:
            os.waitpid(child, 0)
        """,
    )
    sandbox = Sandbox(bot_dir=spec.directory, socket=None, runtime=runtime_paths())
    process = start_bot(
        spec,
        env={},
        workdir=tmp_path / "seat",
        log_path=tmp_path / "seat.log",
        limits=Limits(),
        sandbox=sandbox,
    )
    assert wait_exit(process) == 0, process.log_tail()
    process.stop()
    assert process.cpu_seconds is not None
    assert 0.7 <= process.cpu_seconds < 5.0, process.cpu_seconds  # two processes × 0.4 s
