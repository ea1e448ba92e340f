"""Per-bot cgroups (pids, memory, CPU share and quota, CPU accounting and pressure), where the
machine lets the arena make them.

A bot gets one group in each hierarchy the arena uses: on cgroup v1 a group under each of
``/sys/fs/cgroup/{pids,memory,cpu,cpuacct}`` (and, on a hybrid machine, one in the unified
hierarchy ``/sys/fs/cgroup/unified`` for its CPU pressure), on v2 one group with every
controller. Its child joins them before it execs, so every process the bot ever starts is
counted and found:

* ``pids.max`` limits the bot's own processes and threads (RLIMIT_NPROC counts every
  process of the user, and not at all for root);
* ``memory.limit_in_bytes`` (v1, with ``memory.memsw.limit_in_bytes`` at the same value
  so that swap is no way round it) or ``memory.max`` with ``memory.swap.max`` = 0 (v2)
  limits the memory of all the bot's processes together;
* ``cpu.cfs_quota_us`` (v1) or ``cpu.max`` (v2) caps the CPU of all its processes together
  (``Limits.cpu_cores``), and every bot group has the same weight (``cpu.shares``,
  ``cpu.weight``), so a bot that spins a hundred children gets one bot's share of the
  machine, not a hundred processes' worth;
* ``cpuacct.usage`` (v1) or ``cpu.stat`` (v2) counts the CPU of all its processes, also
  inside the sandbox's PID namespace, where the kernel's per-child accounting loses it;
* ``cpu.pressure`` (v2 and the unified hierarchy of a hybrid machine) counts the time the
  bot could have run but its runnable threads waited for a CPU; with its CPU time, the
  referee's fair clock tells from it the time others' load took from the bot, which it
  does not charge (``CpuMeter``, ``arena.referee.starved``);
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
_UNIFIED = _ROOT / "unified"  # a hybrid machine's v2 hierarchy (no controllers: pressure only)
# cpuacct (v1) limits nothing: it counts the CPU of all a bot's processes, which the
# kernel's own accounting (RUSAGE_CHILDREN) loses for bots in a PID namespace (the
# sandbox). On v2 every group counts its CPU in cpu.stat without a controller.
_CONTROLLERS = ("pids", "memory", "cpu", "cpuacct")
# A file that exists in a child group only where the controller is really enabled there.
_PROBE_FILE = {
    (1, "pids"): "pids.max",
    (1, "memory"): "memory.limit_in_bytes",
    (1, "cpu"): "cpu.cfs_quota_us",
    (1, "cpuacct"): "cpuacct.usage",
    (2, "pids"): "pids.max",
    (2, "memory"): "memory.max",
    (2, "cpu"): "cpu.max",
}
_PRESSURE = "cpu.pressure"  # in every v2 group where the kernel has PSI
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
    controllers: frozenset[str]  # of _CONTROLLERS: what a bot group there can limit or count
    pressure: bool = False  # its groups have cpu.pressure


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
        found = {n for n in wanted if (probe / _PROBE_FILE[version, n]).exists()}
        if version == 2 and (probe / _PRESSURE).exists():
            found.add(_PRESSURE)
        return frozenset(found)
    finally:
        probe.rmdir()


@cache
def hierarchies() -> tuple[Hierarchy, ...]:
    """The writable hierarchies for bot groups on this machine (none without root or cgroups)."""
    candidates: list[tuple[int, Path, tuple[str, ...]]] = []
    unified = _ROOT / "cgroup.controllers"
    if unified.exists():
        offered = set((_ROOT / "cgroup.subtree_control").read_text().split())
        # cpu.stat and cpu.pressure need no controller on v2.
        candidates.append((2, _ROOT, tuple(n for n in _CONTROLLERS if n in offered)))
    else:
        mounts: dict[Path, list[str]] = {}  # cpu and cpuacct are often mounted together
        for name in _CONTROLLERS:
            if (_ROOT / name / "cgroup.procs").exists():
                mounts.setdefault((_ROOT / name).resolve(), []).append(name)
        candidates += [(1, mount, tuple(names)) for mount, names in mounts.items()]
        if (_UNIFIED / "cgroup.procs").exists():
            candidates.append((2, _UNIFIED, ()))
    found = []
    for version, mount, wanted in candidates:
        base = mount / ARENA_GROUP
        try:
            usable = _usable(version, base, wanted)
        except OSError:
            continue
        pressure = _PRESSURE in usable
        usable -= {_PRESSURE}
        if usable or pressure or version == 2:
            found.append(Hierarchy(version, base, usable, pressure))
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


@dataclass(frozen=True, slots=True)
class CpuReading:
    """A bot group's CPU counters at one moment (seconds since the group was made)."""

    at: float  # time.monotonic() when read
    waiting: float  # some runnable thread of the bot waited for a CPU (cpu.pressure "some")
    starved: float  # every runnable thread of the bot waited for a CPU (cpu.pressure "full")
    used: float  # CPU time of all its processes (cpuacct.usage, or cpu.stat's usage_usec)


class CpuMeter:
    """Reads a bot group's CPU pressure and CPU time, for the referee's fair clock
    (``arena.referee.starved`` turns two readings into the credit a seat earns).

    ``cores`` is the CPU the bot is entitled to: its quota (``Limits.cpu_cores``) where the
    cpu controller holds it to one, never more than the CPUs it may run on (``cpus``).
    ``born`` is when its group was made, when every counter was 0. The files stay open:
    the referee reads them only when a decision (or a join) is slow enough to need it.
    """

    def __init__(self, pressure: Path, usage: Path, cores: float, cpus: int, born: float) -> None:
        self.cores = cores
        self.cpus = cpus
        self.born = born
        self._v1_usage = usage.name == "cpuacct.usage"  # nanoseconds; else v2's cpu.stat
        self._pressure: int | None = os.open(pressure, os.O_RDONLY | os.O_CLOEXEC)
        try:
            self._usage: int | None = os.open(usage, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            os.close(self._pressure)
            raise

    def zero(self) -> CpuReading:
        """The counters as the group was made: every one 0."""
        return CpuReading(self.born, 0.0, 0.0, 0.0)

    def read(self) -> CpuReading | None:
        """The counters now, or None once the group is gone."""
        if self._pressure is None or self._usage is None:
            return None
        try:
            pressure = os.pread(self._pressure, 256, 0)
            usage = os.pread(self._usage, 512, 0)
            at = time.monotonic()
        except OSError:
            return None
        # "some avg10=… total=N\nfull avg10=… total=N\n", microseconds.
        some, _, full = pressure.partition(b"\n")
        waiting, starved = _total_seconds(some, b"some"), _total_seconds(full, b"full")
        used = _used_seconds(usage, self._v1_usage)
        if waiting is None or starved is None or used is None:
            return None
        return CpuReading(at, waiting, starved, used)

    def close(self) -> None:
        """Closed with its group: a closed number must never be read again (it may be reused)."""
        fds = (self._pressure, self._usage)
        self._pressure = self._usage = None
        for fd in fds:
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)


def _total_seconds(line: bytes, name: bytes) -> float | None:
    """The ``total=`` of a pressure line named ``name``, in seconds; None if malformed."""
    total = line.rfind(b"total=")
    if not line.startswith(name) or total < 0:
        return None
    digits = line[total + 6 :].split()
    return int(digits[0]) / 1e6 if digits and digits[0].isdigit() else None


def _used_seconds(text: bytes, v1: bool) -> float | None:
    """CPU seconds from cpuacct.usage (v1: nanoseconds) or cpu.stat (v2: usage_usec)."""
    if v1:
        value = text.strip()
        return int(value) / 1e9 if value.isdigit() else None
    for line in text.splitlines():
        name, _, value = line.partition(b" ")
        if name == b"usage_usec" and value.strip().isdigit():
            return int(value) / 1e6
    return None


class BotCgroup:
    """One bot's groups (one per hierarchy): created before launch, joined by the child."""

    def __init__(
        self,
        paths: tuple[Path, ...],
        memory: Path | None,
        memory_version: int,
        cpu_usage: Path | None = None,
        pressure: Path | None = None,
        cpu_quota: float | None = None,
    ) -> None:
        self.paths = paths
        self.born = time.monotonic()  # its counters were 0 then: a join is metered from it
        self._cpu_usage = cpu_usage  # cpuacct.usage (v1, ns) or cpu.stat (v2, usage_usec)
        self.path = paths[0]
        self.procs_files = tuple(str(p / "cgroup.procs") for p in paths)
        self.procs_file = self.procs_files[0]
        self._memory = memory  # the group whose memory limit is set, if one is
        self._memory_version = memory_version
        self._pressure = pressure  # cpu.pressure, where the kernel keeps it
        self._cpu_quota = cpu_quota  # cores, where the cpu controller holds it to a quota
        self._meter: CpuMeter | None = None

    @property
    def limits_memory(self) -> bool:
        """Whether the memory of all the bot's processes together is limited here."""
        return self._memory is not None

    @classmethod
    def create(
        cls,
        max_processes: int | None,
        memory_bytes: int | None = None,
        cpu_cores: float | None = None,
    ) -> BotCgroup | None:
        """The bot's groups with its limits, or None where no hierarchy is writable.

        The memory limit is set only if ``memory_bytes`` is given and a memory controller
        works; otherwise ``limits_memory`` is False and the caller limits each process.
        ``cpu_cores`` caps the CPU of all the bot's processes (1.0: one core's worth).
        """
        name = f"bot-{owner_tag()}-{next(_counter)}"
        paths: list[Path] = []
        memory: Path | None = None
        memory_version = 0
        cpu_usage: Path | None = None
        pressure: Path | None = None
        cpu_quota: float | None = None
        for hierarchy in hierarchies():
            path = hierarchy.base / name
            try:
                path.mkdir()
            except OSError:
                continue
            paths.append(path)
            if hierarchy.version == 2 and cpu_usage is None:
                cpu_usage = path / "cpu.stat"
            elif "cpuacct" in hierarchy.controllers:
                cpu_usage = path / "cpuacct.usage"
            if hierarchy.pressure:
                pressure = path / _PRESSURE
            try:
                if "pids" in hierarchy.controllers and max_processes is not None:
                    (path / "pids.max").write_text(str(max_processes))
                if "memory" in hierarchy.controllers and memory_bytes is not None:
                    _limit_memory(hierarchy.version, path, memory_bytes)
                    memory, memory_version = path, hierarchy.version
                if "cpu" in hierarchy.controllers and cpu_cores is not None:
                    _limit_cpu(hierarchy.version, path, cpu_cores)
                    cpu_quota = cpu_cores
            except OSError:
                # A limit that cannot be set must not pass for one that holds.
                for made in paths:
                    with contextlib.suppress(OSError):
                        made.rmdir()
                return None
        if not paths:
            return None
        return cls(tuple(paths), memory, memory_version, cpu_usage, pressure, cpu_quota)

    def pids(self) -> list[int]:
        found: set[int] = set()
        for procs in self.procs_files:
            with contextlib.suppress(OSError, ValueError):
                found.update(int(line) for line in Path(procs).read_text().split())
        return sorted(found)

    def cpu_meter(self) -> CpuMeter | None:
        """A meter of the bot's CPU pressure and CPU time, where the kernel counts both
        (without either, the fair clock credits nothing)."""
        if self._meter is None and self._pressure is not None and self._cpu_usage is not None:
            cpus = len(os.sched_getaffinity(0))  # the bot inherits the arena's
            quota = self._cpu_quota
            cores = float(cpus) if quota is None else min(quota, float(cpus))
            with contextlib.suppress(OSError):
                self._meter = CpuMeter(self._pressure, self._cpu_usage, cores, cpus, self.born)
        return self._meter

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
            text = self._cpu_usage.read_bytes()
        except OSError:
            return None
        return _used_seconds(text, self._cpu_usage.name == "cpuacct.usage")

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
        if self._meter is not None:
            self._meter.close()
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


def _limit_cpu(version: int, path: Path, cores: float) -> None:
    if version == 1:
        period = int((path / "cpu.cfs_period_us").read_text())
        (path / "cpu.cfs_quota_us").write_text(str(max(1000, round(cores * period))))
    else:
        period = 100_000
        (path / "cpu.max").write_text(f"{max(1000, round(cores * period))} {period}")


def join_in_child(procs_files: tuple[str, ...] | str) -> None:
    """In the forked child, before exec: move this process into the groups ("0" = self)."""
    for procs_file in (procs_files,) if isinstance(procs_files, str) else procs_files:
        fd = os.open(procs_file, os.O_WRONLY)
        try:
            os.write(fd, b"0")
        finally:
            os.close(fd)
