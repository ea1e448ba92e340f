"""Per-bot cgroups (pids, memory, CPU accounting), where the machine lets the arena make them.

A bot gets one group in each controller the arena uses: on cgroup v1 a group under
``/sys/fs/cgroup/pids`` and one under ``/sys/fs/cgroup/memory``, on v2 (unified) one group
with both controllers. Its child joins them before it execs, so every process the bot ever
starts is counted and found:

* ``pids.max`` limits the bot's own processes and threads (RLIMIT_NPROC counts every
  process of the user, and not at all for root);
* ``memory.limit_in_bytes`` (v1, with ``memory.memsw.limit_in_bytes`` at the same value
  so that swap is no way round it) or ``memory.max`` with ``memory.swap.max`` = 0 (v2)
  limits the memory of all the bot's processes together;
* ``cpuacct.usage`` (v1) or ``cpu.stat`` (v2) counts the CPU of all its processes, also
  inside the sandbox's PID namespace, where the kernel's per-child accounting loses it;
* ``cgroup.procs`` lists even a process that left the process group with setsid, so that
  none outlives the match.

Groups are named ``bot-<arena pid>-<arena start time>-<n>``: the owner's start time tells
a dead arena's groups from those of a live process that reused its pid
(``arena.bots.reaper`` kills what is left in them). Without a writable hierarchy bots run
without it, and the process-group kill and RLIMIT_AS remain the safeguards.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ARENA_GROUP = "schmier-arena"
_ROOT = Path("/sys/fs/cgroup")
# cpuacct (v1) limits nothing: it counts the CPU of all a bot's processes, which the
# kernel's own accounting (RUSAGE_CHILDREN) loses for bots in a PID namespace (the
# sandbox). On v2 every group counts its CPU in cpu.stat without a controller.
_CONTROLLERS = ("pids", "memory", "cpuacct")
# A file that exists in a child group only where the controller is really enabled there.
_PROBE_FILE = {
    (1, "pids"): "pids.max",
    (1, "memory"): "memory.limit_in_bytes",
    (1, "cpuacct"): "cpuacct.usage",
    (2, "pids"): "pids.max",
    (2, "memory"): "memory.max",
}
_counter = itertools.count()


def start_time(pid: int) -> int | None:
    """When ``pid`` started (clock ticks since boot, /proc/PID/stat field 22), or None if gone.

    A pid and its start time name one process for good: a reused pid starts later.
    """
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    # comm (field 2) may hold spaces and parentheses; field 22 is the 20th after it.
    fields = stat[stat.rfind(b")") + 2 :].split()
    return int(fields[19]) if len(fields) > 19 else None


@cache
def _owner_tag(pid: int) -> str:
    return f"{pid}-{start_time(pid) or 0}"


def owner_tag() -> str:
    """``<pid>-<start time>`` of this process: the owner part of its groups' names."""
    return _owner_tag(os.getpid())  # per pid, so a forked process tags its own groups


@dataclass(frozen=True)
class Hierarchy:
    """One place where the arena makes bot groups: ``base`` holds them."""

    version: int  # 1 or 2
    base: Path  # <mount>/schmier-arena
    controllers: frozenset[str]  # of "pids", "memory": what a bot group there can limit


def _usable(version: int, base: Path, wanted: tuple[str, ...]) -> frozenset[str]:
    """The controllers of ``wanted`` that really work in a group made under ``base``."""
    base.mkdir(exist_ok=True)
    if version == 2:
        # The arena's directory holds no process, so it may hand its controllers down.
        for name in wanted:
            with contextlib.suppress(OSError):
                (base / "cgroup.subtree_control").write_text(f"+{name}")
    probe = base / f"probe-{os.getpid()}"
    probe.mkdir(exist_ok=True)
    try:
        return frozenset(n for n in wanted if (probe / _PROBE_FILE[version, n]).exists())
    finally:
        probe.rmdir()


@cache
def hierarchies() -> tuple[Hierarchy, ...]:
    """The writable hierarchies for bot groups on this machine (none without root or cgroups)."""
    candidates: list[tuple[int, Path, tuple[str, ...]]] = []
    unified = _ROOT / "cgroup.controllers"
    if unified.exists():
        offered = set((_ROOT / "cgroup.subtree_control").read_text().split())
        wanted = tuple(n for n in _CONTROLLERS if n in offered)
        if wanted:
            candidates.append((2, _ROOT, wanted))
    else:
        candidates += [
            (1, _ROOT / name, (name,))
            for name in _CONTROLLERS
            if (_ROOT / name / "cgroup.procs").exists()
        ]
    found = []
    for version, mount, wanted in candidates:
        base = mount / ARENA_GROUP
        try:
            usable = _usable(version, base, wanted)
        except OSError:
            continue
        if usable:
            found.append(Hierarchy(version, base, usable))
    return tuple(found)


def _kill_until_empty(procs_files: list[Path], timeout: float) -> tuple[set[int], list[int]]:
    """SIGKILL whatever is in the groups until they are empty: (every pid seen, survivors)."""

    def pids() -> set[int]:
        found: set[int] = set()
        for path in procs_files:
            with contextlib.suppress(OSError, ValueError):
                found.update(int(line) for line in path.read_text().split())
        return found

    seen: set[int] = set()
    deadline = time.monotonic() + timeout
    while (alive := pids()) and time.monotonic() < deadline:
        seen |= alive
        for pid in alive:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)
    return seen, sorted(pids())


def kill_groups(groups: list[Path], timeout: float = 2.0) -> tuple[set[int], list[int]]:
    """Kill every process in ``groups`` and remove them: (pids killed, survivors)."""
    seen, survivors = _kill_until_empty([g / "cgroup.procs" for g in groups], timeout)
    for group in groups:
        with contextlib.suppress(OSError):
            group.rmdir()  # fails, harmlessly, while a survivor is still in it
    return seen, survivors


class BotCgroup:
    """One bot's groups (one per hierarchy): created before launch, joined by the child."""

    def __init__(
        self,
        paths: tuple[Path, ...],
        memory: Path | None,
        memory_version: int,
        cpu_usage: Path | None = None,
    ) -> None:
        self.paths = paths
        self._cpu_usage = cpu_usage  # cpuacct.usage (v1, ns) or cpu.stat (v2, usage_usec)
        self.path = paths[0]
        self.procs_files = tuple(str(p / "cgroup.procs") for p in paths)
        self.procs_file = self.procs_files[0]
        self._memory = memory  # the group whose memory limit is set, if one is
        self._memory_version = memory_version

    @property
    def limits_memory(self) -> bool:
        """Whether the memory of all the bot's processes together is limited here."""
        return self._memory is not None

    @classmethod
    def create(cls, max_processes: int | None, memory_bytes: int | None = None) -> BotCgroup | None:
        """The bot's groups with its limits, or None where no hierarchy is writable.

        The memory limit is set only if ``memory_bytes`` is given and a memory controller
        works; otherwise ``limits_memory`` is False and the caller limits each process.
        """
        name = f"bot-{owner_tag()}-{next(_counter)}"
        paths: list[Path] = []
        memory: Path | None = None
        memory_version = 0
        cpu_usage: Path | None = None
        for hierarchy in hierarchies():
            path = hierarchy.base / name
            try:
                path.mkdir()
            except OSError:
                continue
            paths.append(path)
            if hierarchy.version == 2:
                cpu_usage = path / "cpu.stat"
            elif "cpuacct" in hierarchy.controllers:
                cpu_usage = path / "cpuacct.usage"
            try:
                if "pids" in hierarchy.controllers and max_processes is not None:
                    (path / "pids.max").write_text(str(max_processes))
                if "memory" in hierarchy.controllers and memory_bytes is not None:
                    _limit_memory(hierarchy.version, path, memory_bytes)
                    memory, memory_version = path, hierarchy.version
            except OSError:
                # A limit that cannot be set must not pass for one that holds.
                for made in paths:
                    with contextlib.suppress(OSError):
                        made.rmdir()
                return None
        if not paths:
            return None
        return cls(tuple(paths), memory, memory_version, cpu_usage)

    def pids(self) -> list[int]:
        found: set[int] = set()
        for procs in self.procs_files:
            with contextlib.suppress(OSError, ValueError):
                found.update(int(line) for line in Path(procs).read_text().split())
        return sorted(found)

    def memory_peak(self) -> int | None:
        """The most memory the bot's processes held together (bytes), where it is counted."""
        if self._memory is None:
            return None
        name = "memory.max_usage_in_bytes" if self._memory_version == 1 else "memory.peak"
        try:
            return int((self._memory / name).read_text())
        except (OSError, ValueError):
            return None  # memory.peak needs Linux 5.19

    def cpu_seconds(self) -> float | None:
        """CPU time of all the bot's processes together, where a group counts it."""
        if self._cpu_usage is None:
            return None
        try:
            text = self._cpu_usage.read_text()
            if self._cpu_usage.name == "cpuacct.usage":
                return int(text) / 1e9
            counts = dict(line.split()[:2] for line in text.splitlines() if line.strip())
            return int(counts["usage_usec"]) / 1e6
        except (OSError, ValueError, KeyError):
            return None

    def oom_kills(self) -> int:
        """How many of the bot's processes the kernel killed for going over the memory limit."""
        if self._memory is None:
            return 0
        name = "memory.oom_control" if self._memory_version == 1 else "memory.events"
        try:
            lines = (self._memory / name).read_text().splitlines()
        except OSError:
            return 0
        counts = dict(line.split()[:2] for line in lines if len(line.split()) >= 2)
        return int(counts.get("oom_kill", 0))

    def kill_all(self, timeout: float = 2.0) -> list[int]:
        """SIGKILL every process in the groups until they are empty; return any survivors."""
        return _kill_until_empty([Path(p) for p in self.procs_files], timeout)[1]

    def remove(self) -> None:
        for path in self.paths:
            with contextlib.suppress(OSError):
                path.rmdir()


# The name under which the first version (pids only) was known.
PidsCgroup = BotCgroup


def _limit_memory(version: int, path: Path, limit: int) -> None:
    if version == 1:
        (path / "memory.limit_in_bytes").write_text(str(limit))
        memsw = path / "memory.memsw.limit_in_bytes"
        if memsw.exists():  # memory + swap: at the same value, no swap at all
            memsw.write_text(str(limit))
    else:
        (path / "memory.max").write_text(str(limit))
        swap = path / "memory.swap.max"
        if swap.exists():
            swap.write_text("0")


def join_in_child(procs_files: tuple[str, ...] | str) -> None:
    """In the forked child, before exec: move this process into the groups ("0" = self)."""
    for procs_file in (procs_files,) if isinstance(procs_files, str) else procs_files:
        fd = os.open(procs_file, os.O_WRONLY)
        try:
            os.write(fd, b"0")
        finally:
            os.close(fd)
