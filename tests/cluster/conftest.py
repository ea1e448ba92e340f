"""A real Dask cluster on loopback for the cluster tests: ``arena.bench.cluster``'s, a
``dask scheduler`` and ``dask worker`` processes started with the commands docs/CLUSTER.md gives.

Each worker has its own empty directory (``ARENA_WORKER_DIR``: its bot cache and logs)
and works in a directory outside the repository, with no sample bots in it: what it
plays it was shipped. Each worker (its nanny and the worker process the nanny starts) is
a process group of its own, so a test can kill it whole with SIGKILL.
"""

from __future__ import annotations

import os
from pathlib import Path

from bots.helpers import live_processes

from arena.bench.cluster import ClusterWorker, LocalCluster, start_local_cluster

__all__ = ["ClusterWorker", "LocalCluster", "match_logs", "processes_naming", "start_local_cluster"]


def match_logs(worker: ClusterWorker) -> list[Path]:
    """The directories of the matches ``worker`` has started (LOGS/RUN/MATCH)."""
    return sorted(worker.directory.glob("logs/*/*"))


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
