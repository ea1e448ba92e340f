"""A real Dask cluster on loopback for the cluster tests: a ``dask scheduler`` and ``dask
worker`` processes, started with the commands the README gives.

Each worker has its own empty directory (``ARENA_WORKER_DIR``: its bot cache and logs)
and works in a directory outside the repository, with no sample bots in it: what it
plays it was shipped. Each process (a worker is its nanny and the worker it starts) is
the leader of its own process group, so a test can kill a worker whole with SIGKILL.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from bots.helpers import live_processes, wait_until_gone

DASK = str(Path(sys.executable).parent / "dask")
START_TIMEOUT_S = 60.0


@dataclass
class Worker:
    name: str
    directory: Path  # ARENA_WORKER_DIR: bots/ (its cache), logs/
    cwd: Path  # outside the repository, and empty
    process: subprocess.Popen[bytes]

    @property
    def cache(self) -> Path:
        return self.directory / "bots"

    def match_logs(self) -> list[Path]:
        """The directories of the matches it has started (LOGS/RUN/MATCH)."""
        return sorted(self.directory.glob("logs/*/*"))

    def kill(self) -> None:
        """SIGKILL to the nanny and the worker, as a machine that dies takes both."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        wait_until_gone(self.process.pid, 10.0)


@dataclass
class LocalCluster:
    root: Path
    address: str
    scheduler: subprocess.Popen[bytes]
    workers: list[Worker] = field(default_factory=list)

    def add_worker(self, tables: int = 1) -> Worker:
        """``dask worker ADDRESS --resources TABLES=N``, with one thread per table."""
        name = f"w{len(self.workers)}"
        directory = self.root / name
        cwd = self.root / f"{name}-cwd"
        cwd.mkdir(parents=True)
        env = {**os.environ, "ARENA_WORKER_DIR": str(directory)}
        with (self.root / f"{name}.log").open("wb") as log:
            process = subprocess.Popen(
                [
                    DASK,
                    "worker",
                    self.address,
                    "--resources",
                    f"TABLES={tables}",
                    "--nthreads",
                    str(tables),
                    "--name",
                    name,
                    "--no-dashboard",
                    "--local-directory",
                    str(self.root / f"{name}-scratch"),
                ],
                cwd=cwd,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        worker = Worker(name, directory, cwd, process)
        self.workers.append(worker)
        return worker

    def wait_for_workers(self, count: int) -> None:
        from distributed import Client

        with Client(self.address, timeout=START_TIMEOUT_S) as client:  # type: ignore[no-untyped-call]
            client.wait_for_workers(count, timeout=START_TIMEOUT_S)

    def logs(self) -> str:
        return "\n".join(
            f"--- {path.name}\n{path.read_text(errors='replace')[-3000:]}"
            for path in sorted(self.root.glob("*.log"))
        )

    def stop(self) -> None:
        for process in [w.process for w in self.workers] + [self.scheduler]:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        for process in [w.process for w in self.workers] + [self.scheduler]:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def start_cluster(root: Path, workers: int, tables: int = 1) -> LocalCluster:
    """``dask scheduler`` on a free loopback port, then ``workers`` workers."""
    root.mkdir(parents=True, exist_ok=True)
    address_file = root / "scheduler.json"
    with (root / "scheduler.log").open("wb") as log:
        scheduler = subprocess.Popen(
            [
                DASK,
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(address_file),
            ],
            cwd=root,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    deadline = time.monotonic() + START_TIMEOUT_S
    while (address := _written_address(address_file)) is None:
        if scheduler.poll() is not None or time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(scheduler.pid, signal.SIGKILL)
            scheduler.wait()
            said = (root / "scheduler.log").read_text()
            raise RuntimeError(f"dask scheduler did not start:\n{said}")
        time.sleep(0.05)
    cluster = LocalCluster(root, address, scheduler)
    try:
        for _ in range(workers):
            cluster.add_worker(tables)
        cluster.wait_for_workers(workers)
    except BaseException:
        cluster.stop()
        raise
    return cluster


def processes_naming(path: Path) -> list[int]:
    """Live processes whose command line names ``path`` (a worker's sandboxed bot names its
    cached code in bubblewrap's arguments, an unsandboxed one runs it from there)."""
    needle = str(path).encode()
    found = []
    for pid in live_processes():  # zombies left out: they run nothing
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue  # gone meanwhile
        if needle in cmdline and pid != os.getpid():
            found.append(pid)
    return sorted(found)


def _written_address(path: Path) -> str | None:
    try:
        return str(json.loads(path.read_text())["address"])
    except (OSError, ValueError, KeyError):
        return None  # not yet written, or not whole yet


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    """A scheduler and two workers of one table each."""
    started = start_cluster(tmp_path / "cluster", workers=2)
    try:
        yield started
    finally:
        started.stop()
