"""One end of a covert channel between two sandboxed bots (``arena bench channels``, and
the tests of tests/fairplay/test_kernel_channels.py).

Run as a bot process, with the standard library only: ``CH_ROLE`` (``send`` or
``receive``), ``CH_KINDS`` (what carries the bits: comma-separated, played one after the
other), ``CH_START`` (the wall-clock time the first slot starts), ``CH_SLOT_MS`` and
``CH_BITS`` (the bits to send per kind, as 0s and 1s; the receiver uses only their number).
Time is cut into slots; in each the sender does or does not do something the receiver
might see, and the receiver notes one number per slot. The receiver prints one
``CH-RESULT`` JSON line (kind -> its numbers), each end one ``CH-CALLS`` line (call ->
how the kernel answered it: ``ok`` or the error's name), which says what was refused.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import fcntl
import json
import mmap
import os
import re
import struct
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROLE = os.environ.get("CH_ROLE", "receive")
KINDS = [k for k in os.environ.get("CH_KINDS", "sysinfo-procs").split(",") if k]
START = float(os.environ.get("CH_START", "0"))
SLOT = float(os.environ.get("CH_SLOT_MS", "50")) / 1000
BITS = os.environ.get("CH_BITS", "")
THREADS = 40  # what the sender adds to the machine's thread count for a 1
MEMORY = 256 * 1024 * 1024  # what it allocates and touches for a 1
SHARED = Path("/etc/passwd")  # a file every seat can read: one inode for all
HIGH = 1 << 32  # set in a 32-bit argument: the kernel ignores it, a filter must too
LIBC = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
LIBC.syscall.restype = ctypes.c_long
SYS_FUTEX, SYS_FUTEX_WAITV, SYS_FUTEX_WAKE, SYS_SYSINFO, SYS_FCNTL = 202, 449, 454, 99, 72
FUTEX_WAIT, FUTEX_WAKE, FUTEX2_SIZE_U32 = 0, 1, 2
F_OFD_GETLK, F_OFD_SETLK = 36, 37
CALLS: dict[str, str] = {}


class SysInfo(ctypes.Structure):
    _fields_ = [
        ("uptime", ctypes.c_long),
        ("loads", ctypes.c_ulong * 3),
        ("totalram", ctypes.c_ulong),
        ("freeram", ctypes.c_ulong),
        ("sharedram", ctypes.c_ulong),
        ("bufferram", ctypes.c_ulong),
        ("totalswap", ctypes.c_ulong),
        ("freeswap", ctypes.c_ulong),
        ("procs", ctypes.c_ushort),
        ("pad", ctypes.c_ushort),
        ("totalhigh", ctypes.c_ulong),
        ("freehigh", ctypes.c_ulong),
        ("mem_unit", ctypes.c_uint),
    ]


class Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


class FutexWaitv(ctypes.Structure):
    _fields_ = [
        ("val", ctypes.c_uint64),
        ("uaddr", ctypes.c_uint64),
        ("flags", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
    ]


def note(call: str, outcome: str) -> str:
    """Keep the first answer to each call (the report says how the kernel answered)."""
    CALLS.setdefault(call, outcome)
    return outcome


def syscall(call: str, number: int, *args: object) -> int:
    """A raw system call; -errno when it fails (noted under ``call``)."""
    result = LIBC.syscall(ctypes.c_long(number), *args)
    if result < 0:
        code = ctypes.get_errno()
        note(call, errno.errorcode.get(code, str(code)))
        return -code
    note(call, "ok")
    return int(result)


def wait_until(moment: float) -> None:
    while (left := moment - time.time()) > 0:
        time.sleep(min(left, 0.05))


def spin_until(moment: float) -> int:
    count = 0
    while time.time() < moment:
        count += 1
    return count


# --- locks: every fcntl form, in both widths of its command, and flock -------------------

_LOCK = struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 1, 0)
_PROBE = struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 1, 0)
_LOCK_FORMS = {"F_SETLK": fcntl.F_SETLK, "F_OFD_SETLK": F_OFD_SETLK}
_PROBE_FORMS = {"F_GETLK": fcntl.F_GETLK, "F_OFD_GETLK": F_OFD_GETLK}


def _fcntl(call: str, fd: int, command: int, arg: bytes) -> bytes | None:
    buffer = ctypes.create_string_buffer(arg, len(arg))
    result = syscall(call, SYS_FCNTL, ctypes.c_int(fd), ctypes.c_ulong(command), buffer)
    return None if result < 0 else buffer.raw


def send_locks(end: float) -> None:
    fds = []
    for name, command in _LOCK_FORMS.items():
        for width, high in (("", 0), ("|high", HIGH)):
            fd = os.open(SHARED, os.O_RDONLY)
            fds.append(fd)
            _fcntl(name + width, fd, command | high, _LOCK)
    fd = os.open(SHARED, os.O_RDONLY)
    fds.append(fd)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        note("flock", "ok")
    except OSError as error:
        note("flock", errno.errorcode.get(error.errno or 0, "?"))
    wait_until(end)
    for fd in fds:
        os.close(fd)


def receive_locks() -> float:
    seen = 0
    fd = os.open(SHARED, os.O_RDONLY)
    try:
        for name, command in _PROBE_FORMS.items():
            for width, high in (("", 0), ("|high", HIGH)):
                answer = _fcntl(name + width, fd, command | high, _PROBE)
                if answer is not None and struct.unpack("hhqqi", answer)[0] != fcntl.F_UNLCK:
                    seen += 1
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            note("flock", "ok")
        except BlockingIOError:
            seen += 1
        except OSError as error:
            note("flock", errno.errorcode.get(error.errno or 0, "?"))
    finally:
        os.close(fd)
    return seen + 1000 * _lines("/proc/locks")


def _lines(path: str) -> int:
    try:
        return len(Path(path).read_text().splitlines())
    except OSError:
        return -1


# --- futexes on a file every seat maps -------------------------------------------------

_mapping: mmap.mmap | None = None


def _shared_word() -> tuple[ctypes.c_void_p, int]:
    """A word of the shared file, mapped shared and read-only, and its value."""
    global _mapping
    if _mapping is None:
        with SHARED.open("rb") as source:
            _mapping = mmap.mmap(source.fileno(), 0, mmap.MAP_SHARED, mmap.PROT_READ)
    return ctypes.c_void_p(_address()), struct.unpack("I", _mapping[:4])[0]


def _address() -> int:
    """Where the shared file is mapped (ctypes takes no address of a read-only buffer)."""
    for line in Path("/proc/self/maps").read_text().splitlines():
        if line.endswith(str(SHARED)):
            return int(line.split("-")[0], 16)
    raise OSError(errno.ENOENT, "the shared file is not mapped")


def send_futex(end: float) -> None:
    word, _ = _shared_word()
    while time.time() < end:
        for width, high in (("", 0), ("|high", HIGH)):
            syscall("FUTEX_WAKE" + width, SYS_FUTEX, word, ctypes.c_ulong(FUTEX_WAKE | high), 1000)
        syscall("futex_wake", SYS_FUTEX_WAKE, word, ctypes.c_ulong(0xFFFFFFFF), 1000, 2)
        time.sleep(0.0005)


def receive_futex() -> float:
    word, value = _shared_word()
    woken = 0
    timeout = Timespec(0, int(SLOT * 0.15 * 1e9))
    for width, high in (("", 0), ("|high", HIGH)):
        call = "FUTEX_WAIT" + width
        op = ctypes.c_ulong(FUTEX_WAIT | high)
        if syscall(call, SYS_FUTEX, word, op, ctypes.c_uint(value), ctypes.byref(timeout)) == 0:
            woken += 1
    waiter = FutexWaitv(value, word.value or 0, FUTEX2_SIZE_U32, 0)
    deadline = Timespec()
    LIBC.clock_gettime(1, ctypes.byref(deadline))  # CLOCK_MONOTONIC, absolute
    deadline.tv_nsec += int(SLOT * 0.15 * 1e9)
    deadline.tv_sec += deadline.tv_nsec // 1_000_000_000
    deadline.tv_nsec %= 1_000_000_000
    args = (ctypes.byref(waiter), 1, 0, ctypes.byref(deadline), 1)
    if syscall("futex_waitv", SYS_FUTEX_WAITV, *args) >= 0:
        woken += 1
    return woken


# --- what the machine tells of itself: sysinfo and the files /proc still shows -----------


def sysinfo() -> SysInfo | int:
    info = SysInfo()
    result = syscall("sysinfo", SYS_SYSINFO, ctypes.byref(info))
    return result if result < 0 else info


_NUMBER = re.compile(rb"\d+")


def proc_files() -> list[Path]:
    """Every file the sandbox's /proc shows of the machine (not its own processes)."""
    found = []
    for top in sorted(Path("/proc").iterdir()):
        if top.name.isdigit() or top.name in ("self", "thread-self", "mounts", "net"):
            continue
        paths = [top] if not top.is_dir() else sorted(p for p in top.rglob("*") if p.is_file())
        found.extend(paths)
    return found


def receive_proc() -> float:
    """The sum of every number in every machine file /proc shows: a live counter of the
    machine (a process count, free memory, idle time) moves it."""
    total = 0
    for path in proc_files():
        try:
            data = path.read_bytes()
        except OSError:
            continue
        total += sum(int(number) for number in _NUMBER.findall(data)[:4096])
    return float(total)


def load(end: float) -> None:
    """What a busy sender does to the machine: threads, memory and a spinning core."""
    remaining = max(0.0, end - time.time())
    threads = [threading.Thread(target=time.sleep, args=(remaining,)) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    block = b"\x01" * (MEMORY // 4)  # written, so every page is really held
    spin_until(end)
    del block
    for thread in threads:
        thread.join()


def threads_until(end: float) -> None:
    remaining = max(0.0, end - time.time())
    threads = [threading.Thread(target=time.sleep, args=(remaining,)) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def memory_until(end: float) -> None:
    block = b"\x01" * MEMORY
    wait_until(end)
    del block


def _sysinfo_field(read: Callable[[SysInfo], float]) -> Callable[[], float]:
    def receive() -> float:
        info = sysinfo()
        return float(info) if isinstance(info, int) else read(info)

    return receive


def receive_cpu() -> float:
    begin = time.time()
    return float(spin_until(begin + SLOT * 0.6))


SENDERS: dict[str, Callable[[float], object]] = {
    "locks": send_locks,
    "futex": send_futex,
    "proc": load,
    "sysinfo-procs": threads_until,
    "sysinfo-memory": memory_until,
    "sysinfo-loads": spin_until,
    "cpu": spin_until,
}
RECEIVERS: dict[str, Callable[[], float]] = {
    "locks": receive_locks,
    "futex": receive_futex,
    "proc": receive_proc,
    "sysinfo-procs": _sysinfo_field(lambda info: info.procs),
    "sysinfo-memory": _sysinfo_field(lambda info: info.freeram * info.mem_unit),
    "sysinfo-loads": _sysinfo_field(lambda info: info.loads[0]),
    "cpu": receive_cpu,
}
# Where in its slot the receiver looks: after the sender has begun, before it stops.
LOOK_AT = {"cpu": 0.2, "futex": 0.2}


def send() -> None:
    for kind_index, kind in enumerate(KINDS):
        for index, bit in enumerate(BITS):
            slot = kind_index * len(BITS) + index
            begin, end = START + slot * SLOT, START + (slot + 1) * SLOT
            wait_until(begin)
            if bit == "1":
                SENDERS[kind](end - SLOT * 0.05)
        print("CH-CALLS " + json.dumps(CALLS), flush=True)  # after each kind: it may be late


def receive() -> None:
    seen: dict[str, list[float]] = {}
    for kind_index, kind in enumerate(KINDS):
        values = seen.setdefault(kind, [])
        for index in range(len(BITS)):
            begin = START + (kind_index * len(BITS) + index) * SLOT
            wait_until(begin + SLOT * LOOK_AT.get(kind, 0.6))
            values.append(RECEIVERS[kind]())
    print("CH-RESULT " + json.dumps(seen), flush=True)
    print("CH-CALLS " + json.dumps(CALLS), flush=True)


if __name__ == "__main__":
    (send if ROLE == "send" else receive)()
