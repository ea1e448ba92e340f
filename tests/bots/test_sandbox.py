"""The sandbox (the default): a bot in bubblewrap plays normally but reaches no network, no
other files and nothing of the arena's environment; without bubblewrap the run goes on
unsandboxed and says so. The attacks themselves are in tests/fairplay."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.bots import load_bot
from arena.bots.process import bot_environment
from arena.bots.samples import sample_bots_dir
from arena.bots.sandbox import (
    PROC_SHOWN,
    PROC_SYS_SHOWN,
    WORKDIR,
    Sandbox,
    contract_dir,
    sandbox_problem,
    sandboxed,
)
from arena.cli import app
from arena.engine import replay
from arena.tournament.play import play_one_game

HERE = Path(__file__).resolve().parent
SAMPLE_BOTS = sample_bots_dir()


@pytest.fixture
def bubblewrap() -> None:
    problem = sandbox_problem()
    if problem is not None:
        pytest.fail(f"{problem} (.ci/run installs bubblewrap)")


def probe_report(log: Path) -> dict[str, object]:
    lines = [line for line in log.read_text().splitlines() if line.startswith("PROBE ")]
    assert len(lines) == 1, log.read_text()
    found: dict[str, object] = json.loads(lines[0].removeprefix("PROBE "))
    return found


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.usefixtures("bubblewrap")
def test_a_default_game_sandboxes_bots_from_network_files_and_other_bots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    other = SAMPLE_BOTS / "random"
    # Passed as the operator passes variables (--pass-env): they reach the sandbox.
    monkeypatch.setenv("PROBE_PORT", str(listener.getsockname()[1]))
    monkeypatch.setenv("PROBE_OTHER_BOT", str(other))
    specs = [load_bot(HERE / "sandbox_probe"), load_bot(other), load_bot(SAMPLE_BOTS / "greedy")]
    result = play_one_game(specs, 3, tmp_path, pass_env=("PROBE_PORT", "PROBE_OTHER_BOT"))
    listener.close()
    assert result.report.faults == (), result.report.faults
    replay(result.report.record)
    for seat in (0, 3):
        found = probe_report(result.log_dir / f"seat{seat}.log")
        assert found["tcp"].startswith("refused"), found  # type: ignore[union-attr]
        assert found["cwd"] == str(WORKDIR), found
        assert found["siblings"] == [WORKDIR.name], found  # no partner's working dir
        assert str(found["other_bot"]).startswith("refused"), found  # others' code hidden
        assert str(found["write_outside"]).startswith("refused"), found
        assert "sys" not in found["root"], found  # type: ignore[operator]
    assert not (HERE.parents[1] / "arena" / "planted").exists()
    assert not (result.log_dir / "seat0").exists()  # the working dir was never on disk


@pytest.fixture
def no_bubblewrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A PATH without bwrap, and the probe's cached answer forgotten before and after."""
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    sandbox_problem.cache_clear()
    yield
    sandbox_problem.cache_clear()


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.usefixtures("no_bubblewrap")
def test_without_bubblewrap_the_game_goes_on_unsandboxed_and_says_so(tmp_path: Path) -> None:
    assert sandbox_problem() is not None
    out = tmp_path / "out"
    bots = [str(SAMPLE_BOTS / name) for name in ("random", "greedy", "lowest")]
    outcome = CliRunner().invoke(app, ["play", *bots, "--out", str(out)], env={"COLUMNS": "200"})
    assert outcome.exit_code == 0, outcome.output
    warnings = [line for line in outcome.stderr.splitlines() if "trusted code" in line]
    assert len(warnings) == 1, outcome.stderr
    assert "bubblewrap" in warnings[0], warnings
    assert "fault:" not in outcome.stdout, outcome.stdout
    assert len(list(out.glob("logs/*/seat0"))) == 1  # unsandboxed: a working dir on disk


@pytest.mark.usefixtures("bubblewrap")
def test_private_paths_inside_a_bound_directory_are_hidden(tmp_path: Path) -> None:
    """A user who runs the arena from inside their bot's directory keeps its results
    there: the database and the logs must stay out of the bot's sight all the same."""
    bot_dir = tmp_path / "mybot"
    (bot_dir / "arena-results" / "logs").mkdir(parents=True)
    (bot_dir / "arena-results" / "logs" / "seat0.log").write_text("another seat's log")
    (bot_dir / "arena.db").write_text("SQLite format 3 and every seed")
    (bot_dir / "bot.py").write_text("# the bot's own code\n")
    sandbox = Sandbox(
        bot_dir=bot_dir,
        socket=None,
        hidden=(bot_dir / "arena-results", bot_dir / "arena.db", tmp_path / "elsewhere"),
    )
    script = (
        f"ls -A {bot_dir}/arena-results; cat {bot_dir}/arena.db; cat {bot_dir}/bot.py; "
        f"touch {bot_dir}/arena-results/x 2>&1 || true; ls -d {tmp_path}/elsewhere 2>&1"
    )
    args = sandboxed(["/bin/sh", "-c", script], sandbox)
    assert str(tmp_path / "elsewhere") not in args  # not bound: nothing to hide, no name shown
    done = subprocess.run(args, capture_output=True, text=True, timeout=30, check=False)
    lines = done.stdout.splitlines()
    assert lines[0] == "# the bot's own code", done  # no log listed, nothing of the database
    assert "Read-only file system" in lines[1], done  # the hiding tmpfs takes no writes
    assert "No such file" in lines[2], done


def test_the_environment_is_an_allowlist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bot.toml").write_text('name = "b"\ncommand = ["./b"]\n')
    monkeypatch.setenv("JAVA_HOME", "/opt/java")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "the arena's own")
    monkeypatch.setenv("GRPC_VERBOSITY", "DEBUG")  # the arena's gRPC tuning, not the bot's
    seat = {"ARENA_TOKEN": "t", "ARENA_SEAT": "2"}
    env = bot_environment(load_bot(tmp_path), seat, WORKDIR, pass_env=("JAVA_HOME",))
    assert env.pop("JAVA_HOME") == "/opt/java"  # the operator passed it
    assert env.pop("HOME") == str(WORKDIR)
    assert env.pop("ARENA_BOT_DIR") == str(tmp_path)
    assert env.pop("ARENA_PROTO_DIR") == str(contract_dir())
    # python3 in a build or a script is the arena's own interpreter, with its SDK.
    assert env["PATH"].split(os.pathsep)[0] == os.path.dirname(sys.executable)
    assert set(env) == {"PATH", "LANG", "PYTHONUNBUFFERED", "ARENA_TOKEN", "ARENA_SEAT"}
    assert "JAVA_HOME" not in bot_environment(load_bot(tmp_path), seat, WORKDIR)


@pytest.mark.usefixtures("bubblewrap")
def test_proc_holds_the_listed_snapshots_and_nothing_else(tmp_path: Path) -> None:
    """/proc by allowlist (issue: fair play, round three, item 2; round four): the seat's
    /proc holds the listed files and settings only, no process's directory (its own
    included: /proc/self's files tell of the machine), and meminfo tells the seat's own
    limit, not the machine's."""
    sandbox = Sandbox(bot_dir=tmp_path, socket=None, memory_bytes=512 * 1024 * 1024)
    script = (
        "cd /proc && find . -type f | sort | sed 's/^/FILE /'; "
        "cat /proc/self/status 2>/dev/null && echo SELF; head -1 /proc/meminfo"
    )
    done = subprocess.run(
        sandboxed(["/bin/sh", "-c", script], sandbox),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    lines = done.stdout.splitlines()
    files = {line.removeprefix("FILE ./") for line in lines if line.startswith("FILE ")}
    listed = {name for name in PROC_SHOWN if name != "sys"} | {f"sys/{r}" for r in PROC_SYS_SHOWN}
    assert files <= listed, files - listed
    assert {"cpuinfo", "meminfo", "sys/kernel/cap_last_cap"} <= files, done
    assert "SELF" not in lines, done  # no procfs: no process's files, not even its own
    assert lines[-1].split() == ["MemTotal:", str(512 * 1024), "kB"], done
