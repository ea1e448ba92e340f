"""A pids cgroup per bot process, where the machine lets the arena make one.

It gives a process limit that counts only the bot's own processes (RLIMIT_NPROC counts
every process of the user, and not at all for root), and it finds every process the bot
started — even one that left the process group with setsid — so that none outlives the
match. Without a writable pids hierarchy (cgroup v1 ``pids`` or a v2 tree delegating
``pids``) bots run without it, and the process-group kill remains the safeguard.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import time
from functools import cache
from pathlib import Path

ARENA_GROUP = "schmier-arena"
_V1_PIDS = Path("/sys/fs/cgroup/pids")
_V2 = Path("/sys/fs/cgroup")
_counter = itertools.count()


@cache
def _base() -> Path | None:
    """The arena's own directory in a writable pids hierarchy, or None."""
    candidates = []
    if (_V1_PIDS / "cgroup.procs").exists():
        candidates.append(_V1_PIDS)
    controllers = _V2 / "cgroup.subtree_control"
    if controllers.exists() and "pids" in controllers.read_text().split():
        candidates.append(_V2)
    for root in candidates:
        base = root / ARENA_GROUP
        try:
            base.mkdir(exist_ok=True)
            probe = base / f"probe-{os.getpid()}"
            probe.mkdir(exist_ok=True)
            usable = (probe / "pids.max").exists()
            probe.rmdir()
        except OSError:
            continue
        if usable:
            _sweep(base)
            return base
    return None


def _sweep(base: Path) -> None:
    """Remove empty cgroups left by arena processes that died without cleaning up."""
    for group in base.glob("bot-*"):
        owner = group.name.split("-")[1]
        if owner.isdigit() and not Path(f"/proc/{owner}").exists():
            with contextlib.suppress(OSError):
                group.rmdir()  # fails, harmlessly, while the group still has processes


class PidsCgroup:
    """One bot's cgroup: created before launch, joined by the child before it execs."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.procs_file = str(path / "cgroup.procs")

    @classmethod
    def create(cls, max_processes: int | None) -> PidsCgroup | None:
        base = _base()
        if base is None:
            return None
        path = base / f"bot-{os.getpid()}-{next(_counter)}"
        try:
            path.mkdir()
            if max_processes is not None:
                (path / "pids.max").write_text(str(max_processes))
        except OSError:
            return None
        return cls(path)

    def pids(self) -> list[int]:
        try:
            return [int(line) for line in Path(self.procs_file).read_text().split()]
        except (OSError, ValueError):
            return []

    def kill_all(self, timeout: float = 2.0) -> list[int]:
        """SIGKILL every process in the group until it is empty; return any survivors."""
        deadline = time.monotonic() + timeout
        while (pids := self.pids()) and time.monotonic() < deadline:
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)
        return self.pids()

    def remove(self) -> None:
        with contextlib.suppress(OSError):
            self.path.rmdir()


def join_in_child(procs_file: str) -> None:
    """In the forked child, before exec: move this process into the cgroup ("0" = self)."""
    fd = os.open(procs_file, os.O_WRONLY)
    try:
        os.write(fd, b"0")
    finally:
        os.close(fd)
