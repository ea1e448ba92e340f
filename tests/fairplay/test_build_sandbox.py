"""A build is confined like a bot (issue: fair play, round two, items 1, 2, 5 and 6), with
the default options.

``bots/build_probe``'s build command tries to read the results database (the run's key),
the operator's files and the source directory's neighbours, to write outside the copy it
builds, to reach a service on the host's loopback, to start a daemon that outlives it,
and to print far more than any log keeps. It reports what it found in its copy, which the
test reads once the build is over.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_sandbox_attacks import ALLOWED_ENV, copied
from typer.testing import CliRunner

from arena.bots import load_bot
from arena.bots.build import BUILD_LOG, BotCache, BotOptions
from arena.bots.process import Limits
from arena.bots.sandbox import runtime_paths
from arena.cli import app

pytestmark = [pytest.mark.timeout(300), pytest.mark.usefixtures("sandbox_required")]
LOG_CAP = 64 * 1024


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A service on the host's loopback (a cluster's scheduler would be one)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    yield server
    server.close()


def alive_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def hostile_build(tmp_path: Path, port: int) -> tuple[Path, dict[str, Any]]:
    """The probe's source directory, beside a results database and an operator's secret."""
    results = tmp_path / "arena-results"
    results.mkdir()
    with sqlite3.connect(results / "arena.db") as db:
        db.execute("CREATE TABLE runs (key BLOB)")
        db.execute("INSERT INTO runs VALUES (?)", (b"the run's secret key",))
    (tmp_path / "operator.env").write_text("AWS_SECRET_ACCESS_KEY=the operator's own")
    marker = f"schmier-build-daemon-{uuid.uuid4().hex}"
    source = tmp_path / "bots" / "build_probe"
    targets = {
        "read": {
            "db": str(results / "arena.db"),
            "results": str(results),
            "operator": str(tmp_path / "operator.env"),
            "source_parent": str(tmp_path / "bots"),
            "home": str(Path.home()),
            "root": "/root",
        },
        "write": {
            "source": str(source / "planted.txt"),
            "host_tmp": f"/tmp/{marker}.txt",
            "results": str(results / "planted.txt"),
        },
        "port": port,
        "marker": marker,
        "log_mib": 64,
    }
    copied("build_probe", tmp_path / "bots", {"targets.json": json.dumps(targets)})
    return source, targets


def test_a_build_reaches_nothing_but_its_own_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, listener: socket.socket
) -> None:
    monkeypatch.setenv("ARENA_BUILD_SECRET", "the arena's own")
    monkeypatch.setenv("GOFLAGS", "-mod=vendor")  # a variable the operator passes on
    source, targets = hostile_build(tmp_path, listener.getsockname()[1])
    before = sorted(p.name for p in source.iterdir())
    spec = load_bot(source)
    cache = BotCache(tmp_path / "cache")
    options = BotOptions(limits=Limits(log_bytes=LOG_CAP), pass_env=("GOFLAGS",))
    built = cache.prepare(spec, options)
    report = json.loads((built.directory / "build-report.json").read_text())

    # Home directories show only the way to what bots run on (this Python, under ~/.pyenv).
    leading = {p.parts[2] for p in runtime_paths() if p.is_relative_to(Path.home())}
    for name, outcome in report["reads"].items():
        if name in ("home", "root") and outcome.startswith("LISTED: "):
            assert set(outcome.removeprefix("LISTED: ").split(",")) <= leading, (name, outcome)
        else:
            assert outcome.startswith("refused"), (name, outcome)
    for name, outcome in report["writes"].items():
        if name != "host_tmp":  # its own /tmp is a private tmpfs: checked on the host below
            assert outcome.startswith("refused"), (name, outcome)
    assert report["own_copy"] == "WRITTEN"  # its copy is its to write
    assert report["network"].startswith("refused"), report["network"]
    seat_only = {"ARENA_ADDRESS", "ARENA_TOKEN", "ARENA_SEAT", "ARENA_SEED"}
    assert set(report["env"]) <= (ALLOWED_ENV - seat_only) | {"GOFLAGS", "PWD"}, report["env"]
    assert report["env"]["GOFLAGS"] == "-mod=vendor"
    if os.geteuid() == 0:
        assert report["uid"] != 0, report["uid"]
        # Afterwards the copy is the arena's again: no bot's user owns what seats run.
        assert all(p.stat().st_uid == 0 for p in built.directory.rglob("*"))

    # The source directory was never written, and the version did not move.
    assert sorted(p.name for p in source.iterdir()) == before
    assert load_bot(source).version == spec.version == built.version
    assert not Path(targets["write"]["host_tmp"]).exists()
    # The daemon it started died with the build.
    assert alive_with(targets["marker"]) == []
    # 64 MiB printed; the log kept its cap and says where it stopped.
    log = cache.root / spec.version / BUILD_LOG
    assert log.stat().st_size < LOG_CAP + 1024, log.stat().st_size
    assert "log truncated" in log.read_text()


def test_only_the_operator_gives_a_build_the_network(
    tmp_path: Path, listener: socket.socket
) -> None:
    source, _ = hostile_build(tmp_path, listener.getsockname()[1])
    options = BotOptions(limits=Limits(log_bytes=LOG_CAP), build_network=True)
    built = BotCache(tmp_path / "cache").prepare(load_bot(source), options)
    report = json.loads((built.directory / "build-report.json").read_text())
    assert report["network"] == "CONNECTED"


@pytest.mark.slow
def test_arena_run_builds_in_the_sandbox(tmp_path: Path, listener: socket.socket) -> None:
    """The same build through the command line: the run goes on, the attack changes nothing."""
    source, targets = hostile_build(tmp_path, listener.getsockname()[1])
    db = tmp_path / "run" / "arena.db"
    samples = Path(__file__).resolve().parents[2] / "sample_bots"
    outcome = CliRunner().invoke(
        app,
        ["run", str(source), str(samples / "random"), "--games", "1", "--db", str(db)],
        env={"COLUMNS": "200", "ARENA_BOT_CACHE": str(tmp_path / "cache")},
    )
    assert outcome.exit_code == 0, outcome.output
    assert not (source / "planted.txt").exists()
    assert alive_with(targets["marker"]) == []
    with sqlite3.connect(db) as store:
        assert store.execute("SELECT COUNT(*) FROM faults").fetchone()[0] == 0
