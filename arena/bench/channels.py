"""``arena bench channels``: what every class of covert channel carries between two
sandboxed bots, partners at one table or seats at two tables.

Two bots, each started exactly as a seat is (``start_bot`` with the default limits,
sandbox, seccomp filter and a user and a copy of their own), agree on a start time and a
slot length; in each slot the sender does or does not do something and the receiver
notes what it can see (``arena/bench/channel_probe.py``). The classes: locks on a file
both can read (every ``fcntl`` form, its command in both widths, ``flock``,
``/proc/locks``), futexes on a file both map (``FUTEX_WAIT``, ``futex_waitv``), every
machine file the sandbox's ``/proc`` shows, ``sysinfo`` (process count, free memory,
load), and the CPU (the receiver's own speed). The default deny of the sandbox closes all
but the last: a **closed** class must show the receiver one value in every slot (it
carries nothing), and the benchmark fails (exit status 1) if one does not. For the open
ones the figures are the raw rate, the error rate and the capacity
``rate × (1 − H(error rate))`` of a binary symmetric channel.

Partners run two seats of one bot; two tables run two bots of their own (their own
files), as copies of one entrant at two matches would: the sandbox gives a seat nothing
that depends on its table, so the two should agree.
"""

from __future__ import annotations

import ctypes
import json
import math
import mmap
import os
import random
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.bots import BotSpec, Limits, start_bot
from arena.bots.sandbox import Sandbox, runtime_paths, sandbox_problem

PROBE = Path(__file__).with_name("channel_probe.py")
# kind -> (what carries the bits, whether the sandbox closes it)
KINDS: dict[str, tuple[str, bool]] = {
    "locks": ("fcntl, OFD and flock locks on a shared file, /proc/locks", True),
    "futex": ("futexes on a shared file: FUTEX_WAIT, futex_waitv", True),
    "proc": ("every machine file /proc shows", True),
    "sysinfo-procs": ("the machine's thread count (sysinfo)", True),
    "sysinfo-memory": ("the machine's free memory (sysinfo)", True),
    "sysinfo-loads": ("the machine's load (sysinfo)", True),
    "pidfd": ("pidfds' inode numbers: clone's CLONE_PIDFD, SO_PEERPIDFD", True),
    "cookie": ("sockets' cookies (SO_COOKIE): one counter for the machine", True),
    "eventfd-id": ("eventfds' numbers (/proc/self/fdinfo): one allocator for the machine", True),
    "mapped": ("who else maps a system file's pages (/proc/self/smaps, numa_maps)", True),
    "atime": ("a system file's access time", True),
    "cpu": ("the receiver's own speed (CPU contention)", False),
    "inodes": ("pipes' inode numbers: one counter for the machine", False),
    "page-cache": ("a system file's page cache (a read's time; a page once)", False),
    "dentries": ("names looked up in a system directory (a lookup's time; a name once)", False),
}
# The shortest slot an open class is measured at: its receiver's own work in a slot.
MIN_SLOT_MS = {"inodes": 100.0}
CLOSED = [kind for kind, (_, closed) in KINDS.items() if closed]
SCOPES = ("partners", "tables")
HAND_BITS = math.log2(math.comb(53, 9))  # a hand of nine cards of 53 (R3.2)
DECISION_S = 1.0  # a decision's time limit (TableSettings): what a partner may wait for
_SETTLE_S = 5.0  # from launch to the first slot: both seats started, prepared and settled
CLOSED_SLOT_MS = 30.0  # the slot a closed class is measured at
# Closed classes whose receiver needs longer in a slot: reading every file /proc shows took
# more than 30 ms in over a quarter of the slots even on a quiet machine (unmeasured).
CLOSED_SLOT_MS_OF = {"proc": 100.0}
# Where the probe finds a large system file (page cache, mappings): the largest file of the
# first of these directories that has one.
BIG_FILE_DIRS = (
    Path("/usr/lib/x86_64-linux-gnu"),
    Path("/usr/lib/aarch64-linux-gnu"),
    Path("/usr/lib64"),
    Path("/usr/lib"),
    Path("/usr/bin"),
)


def big_file() -> Path | None:
    """A large system file every seat can read, of which the page cache holds little: of the
    largest few files of the first of ``BIG_FILE_DIRS`` that has files, the one with the
    fewest of its pages cached (few other processes read or map it)."""
    for directory in BIG_FILE_DIRS:
        try:
            files = [(e.stat().st_size, e.path) for e in os.scandir(directory) if e.is_file()]
        except OSError:
            continue
        if files:
            largest = [Path(path) for _, path in sorted(files, reverse=True)[:_BIG_FILES]]
            return min(largest, key=_cached_share)
    return None


_BIG_FILES = 8
_LIBC = ctypes.CDLL("libc.so.6", use_errno=True)
_LIBC.mmap.restype = ctypes.c_void_p
_LIBC.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int]
_LIBC.mmap.argtypes += [ctypes.c_int, ctypes.c_long]
_LIBC.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_LIBC.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]


def _cached_share(path: Path) -> float:
    """The share of ``path``'s pages in the page cache (mincore, here in the arena; a seat
    may not ask), 1.0 where it cannot be told."""
    size = path.stat().st_size
    pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
    fd = os.open(path, os.O_RDONLY)
    try:
        address = _LIBC.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    finally:
        os.close(fd)
    if address in (None, ctypes.c_void_p(-1).value):
        return 1.0
    try:
        vector = ctypes.create_string_buffer(pages)
        if _LIBC.mincore(address, size, vector) != 0:
            return 1.0
        return sum(byte & 1 for byte in vector.raw) / max(pages, 1)
    finally:
        _LIBC.munmap(address, size)


@dataclass(frozen=True)
class ChannelFigure:
    kind: str
    scope: str
    slot_ms: float
    bits: int
    errors: int
    distinct: int  # how many different values the receiver saw
    calls: dict[str, str] = field(default_factory=dict)  # call -> the kernel's answer
    late_s: float = 0.0  # how late the later end was ready for the first slot (0: in time)
    late_slots: int = 0  # slots the later end reached too late to act in (a busy machine)

    @property
    def closed(self) -> bool:
        return KINDS[self.kind][1]

    @property
    def raw_bits_per_s(self) -> float:
        return 1000 / self.slot_ms

    @property
    def error_rate(self) -> float:
        return self.errors / self.bits

    @property
    def capacity(self) -> float:
        """Bits per second a code could carry through it without error (BSC capacity);
        nothing when the receiver saw one value throughout."""
        if self.distinct <= 1:
            return 0.0
        p = min(self.error_rate, 1 - self.error_rate)
        entropy = 0.0 if p == 0 else -p * math.log2(p) - (1 - p) * math.log2(1 - p)
        return self.raw_bits_per_s * (1 - entropy)

    @property
    def leaks(self) -> bool:
        """A closed class that showed the receiver more than one value, or that could not be
        measured (an end was late: no claim that it carries nothing)."""
        return self.closed and (self.distinct > 1 or not self.measured)

    @property
    def measured(self) -> bool:
        """Both ends were ready in time and acted in at least three slots of four."""
        return self.late_s == 0 and self.late_slots * 4 <= self.bits

    def line(self) -> str:
        head = f"{self.kind} ({KINDS[self.kind][0]}), {self.scope}, {self.slot_ms:g} ms slots: "
        if math.isinf(self.late_s):
            return head + "not measured: an end never said it was ready"
        if self.late_s > 0:
            return head + f"not measured: an end was ready {self.late_s:.1f} s after the first slot"
        if not self.measured:
            return (
                head + f"not measured: the ends were late in {self.late_slots} of {self.bits} slots"
            )
        if self.closed and not self.leaks:
            return (
                head + f"closed, the receiver saw one value in all {self.bits} slots" + self._late()
            )
        verdict = "LEAKS (a closed class): " if self.leaks else ""
        return (
            head
            + verdict
            + (
                f"{self.raw_bits_per_s:.0f} bits/s raw, error rate {self.error_rate:.3f} "
                f"({self.errors} of {self.bits}), {self.distinct} values seen, "
                f"capacity {self.capacity:.1f} bits/s"
            )
            + self._late()
        )

    def _late(self) -> str:
        return f" ({self.late_slots} slots late)" if self.late_slots else ""

    def refused(self) -> str:
        """The calls the kernel refused to either end, with its answers."""
        refused = sorted(
            f"{call} {answer}" for call, answer in self.calls.items() if answer != "ok"
        )
        return ", ".join(refused) or "nothing"


def _decode(seen: list[float]) -> list[int]:
    """The sender's 0s and 1s as the receiver tells them apart: its values above their
    median. The sent bits are random, about half of them 1s, so the median sits between the
    two clusters wherever a signal separates them, and a few outliers do not move it (as
    they would move a split at the widest gap)."""
    ordered = sorted(seen)
    median = ordered[(len(ordered) - 1) // 2]
    return [1 if value > median else 0 for value in seen]


def _probe_spec(root: Path, name: str) -> BotSpec:
    """The probe as a bot of its own, in its own directory."""
    directory = root / name
    directory.mkdir()
    shutil.copyfile(PROBE, directory / PROBE.name)
    return BotSpec(
        name=name,
        version="0" * 12,
        command=(sys.executable, str(directory / PROBE.name)),
        directory=directory,
        build=None,
    )


def _lines(log: Path, prefix: str) -> list[Any]:
    text = log.read_text(errors="replace") if log.exists() else ""
    return [
        json.loads(line.removeprefix(prefix))
        for line in text.splitlines()
        if line.startswith(prefix)
    ]


def measure(
    kinds: list[str], slot_ms: float, bits: int, rng: random.Random, scope: str = "partners"
) -> list[ChannelFigure]:
    """One transmission of ``bits`` random bits per kind, one kind after the other,
    between two seats: two of one bot (partners) or of two bots (two tables)."""
    sent = [rng.randrange(2) for _ in range(bits)]
    with tempfile.TemporaryDirectory(prefix="arena-channel-") as tmp:
        root = Path(tmp)
        sender = _probe_spec(root, "probe")
        receiver = sender if scope == "partners" else _probe_spec(root, "other")
        start = time.time() + _SETTLE_S
        env = {
            "CH_KINDS": ",".join(kinds),
            "CH_START": repr(start),
            "CH_SLOT_MS": repr(slot_ms),
            "CH_BITS": "".join(map(str, sent)),
        }
        found = big_file()
        if found is not None:
            env["CH_FILE"] = str(found)
        processes = [
            start_bot(
                spec,
                env=env | {"CH_ROLE": role},
                workdir=root / f"{role}-work",
                log_path=root / f"{role}.log",
                limits=Limits(),
                sandbox=Sandbox(bot_dir=spec.directory, socket=None, runtime=runtime_paths()),
            )
            for role, spec in (("send", sender), ("receive", receiver))
        ]
        deadline = start + len(kinds) * bits * slot_ms / 1000 + 30
        while any(p.poll() is None for p in processes) and time.time() < deadline:
            time.sleep(0.05)
        for process in processes:
            process.stop(grace=0.0)
        results = _lines(root / "receive.log", "CH-RESULT ")
        calls: dict[str, str] = {}
        ready = [_lines(root / f"{role}.log", "CH-READY ") for role in ("send", "receive")]
        late_slots: dict[str, int] = {}
        for role in ("send", "receive"):
            for found in _lines(root / f"{role}.log", "CH-LATE "):
                for kind, count in found.items():
                    late_slots[f"{role} {kind}"] = int(count)
        late = max((float(r[0]) for r in ready if r), default=math.inf)
        for role in ("send", "receive"):
            for found in _lines(root / f"{role}.log", "CH-CALLS "):
                calls |= {str(k): str(v) for k, v in found.items()}
    seen = results[-1] if results else {}
    figures = []
    for kind in kinds:
        values = seen.get(kind)
        if not isinstance(values, list) or len(values) != bits:
            # Nothing received: a coin, and no claim that the class is closed.
            figures.append(
                ChannelFigure(kind, scope, slot_ms, bits, bits // 2, 2, calls, max(late, 0.0))
            )
            continue
        slots_late = max(late_slots.get(f"{role} {kind}", 0) for role in ("send", "receive"))
        received = _decode([float(v) for v in values])
        errors = sum(a != b for a, b in zip(sent, received, strict=True))
        distinct = len(set(values))
        late_s = max(late, 0.0) if all(ready) else math.inf
        figures.append(
            ChannelFigure(kind, scope, slot_ms, bits, errors, distinct, calls, late_s, slots_late)
        )
    return figures


@dataclass(frozen=True)
class ChannelsReport:
    figures: list[ChannelFigure]

    @property
    def leaks(self) -> list[ChannelFigure]:
        return [figure for figure in self.figures if figure.leaks]

    def lines(self) -> list[str]:
        out = [figure.line() for figure in self.figures]
        for scope in SCOPES:
            said = [f for f in self.figures if f.scope == scope and f.closed]
            if said:
                out.append(f"refused ({scope}): {said[0].refused()}")
        measured = [figure for figure in self.figures if figure.measured]
        best = max(measured, key=lambda f: f.capacity, default=None)
        if best is not None and best.capacity > 0:
            seconds = HAND_BITS / best.capacity
            out.append(
                f"best: {best.kind} at {best.capacity:.1f} bits/s: a hand ({HAND_BITS:.1f} bits) "
                f"crosses in {seconds:.1f} s; {best.capacity * DECISION_S:.1f} bits in a "
                f"decision's {DECISION_S:g} s"
            )
        else:
            out.append("best: nothing crosses")
        for figure in self.leaks:
            out.append(
                f"a closed class carries something (or went unmeasured): {figure.kind} "
                f"({figure.scope})"
            )
        return out


def bench_channels(
    slots_ms: list[float], bits: int, seed: int, kinds: list[str] | None = None
) -> ChannelsReport:
    """The closed classes in both scopes, in one pair of seats each; the open ones at
    every slot length."""
    problem = sandbox_problem()
    if problem is not None:
        raise RuntimeError(f"the channels are measured between sandboxed bots: {problem}")
    rng = random.Random(seed)
    chosen = kinds or list(KINDS)
    closed = [kind for kind in chosen if KINDS[kind][1]]
    figures: list[ChannelFigure] = []
    slot_of = {kind: CLOSED_SLOT_MS_OF.get(kind, CLOSED_SLOT_MS) for kind in closed}
    for scope in SCOPES:
        for slot in sorted(set(slot_of.values())):
            group = [kind for kind in closed if slot_of[kind] == slot]
            figures += measure(group, slot, bits, rng, scope)
    for kind in chosen:
        if not KINDS[kind][1]:
            for slot in slots_ms:
                if slot >= MIN_SLOT_MS.get(kind, 0.0):
                    figures += measure([kind], slot, bits, rng)
    return ChannelsReport(figures)
