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
import errno
import fcntl
import itertools
import json
import mmap
import os
import re
import socket
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
THREADS = 16  # what the sender adds to the machine's thread count for a 1
MEMORY = 32 * 1024 * 1024  # what it allocates and touches for a 1 (in a slot's time)
SHARED = Path("/etc/passwd")  # a file every seat can read: one inode for all
HIGH = 1 << 32  # set in a 32-bit argument: the kernel ignores it, a filter must too
# glibc by its soname: find_library runs ldconfig, which can take seconds on a busy machine
# (and a late sender sends nothing).
LIBC = ctypes.CDLL("libc.so.6", use_errno=True)
LIBC.syscall.restype = ctypes.c_long
LIBC.mmap.restype = ctypes.c_void_p
LIBC.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int]
LIBC.mmap.argtypes += [ctypes.c_int, ctypes.c_long]
LIBC.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
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

_word: list[int] = []  # the address of the shared file's first word, once mapped


def map_file(path: Path, length: int, offset: int = 0) -> int:
    """The address of ``length`` bytes of ``path`` from ``offset``, mapped shared and
    read-only (mmap through libc: ctypes takes no address of a read-only Python mmap)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        address = LIBC.mmap(None, length, mmap.PROT_READ, mmap.MAP_SHARED, fd, offset)
    finally:
        os.close(fd)
    if address in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), f"mmap of {path}")
    return int(address)


def _shared_word() -> tuple[ctypes.c_void_p, int]:
    """A word of the shared file, mapped shared and read-only, and its value."""
    if not _word:
        _word.append(map_file(SHARED, 4096))
    return ctypes.c_void_p(_word[0]), ctypes.c_uint32.from_address(_word[0]).value


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


# --- machine-wide counters and allocators a seat's own objects are numbered from ---------

SYS_CLONE, CLONE_PIDFD, SIGCHLD = 56, 0x1000, 17
SO_COOKIE, SO_PEERPIDFD = 57, 77
PIPES = 1100  # more than a CPU's batch of inode numbers (1024): the receiver sees a refill
COOKIES = 64  # the receiver's sockets in a slot (cookies come in per-CPU batches too)


def _errno_of(error: OSError) -> str:
    return errno.errorcode.get(error.errno or 0, str(error.errno))


def pipe_inodes(count: int) -> list[int]:
    """The inode numbers of ``count`` new pipes (pipefs numbers them from the machine's one
    counter, handed to each CPU in batches of 1024)."""
    found = []
    for _ in range(count):
        read, write = os.pipe()
        found.append(os.fstat(read).st_ino)
        os.close(read)
        os.close(write)
    return found


def send_inodes(end: float) -> None:
    while time.time() < end - 0.002:
        pipe_inodes(16)


def receive_inodes() -> float:
    """How many inode numbers others took while the receiver made its pipes: the gaps
    between its consecutive pipes' numbers (a CPU's batch refilled after others took
    theirs, or another process on its CPU taking numbers from its batch)."""
    numbers = pipe_inodes(PIPES)
    return float(sum(b - a - 1 for a, b in itertools.pairwise(numbers) if b > a))


def pidfd_inode() -> int:
    """The inode number of a new child's pidfd (pidfs numbers them from one machine-wide
    counter), or -errno when clone(CLONE_PIDFD) is refused."""
    fd = ctypes.c_int(-1)
    flags = ctypes.c_ulong(CLONE_PIDFD | SIGCHLD)
    null = ctypes.c_void_p(0)
    pid = syscall("clone CLONE_PIDFD", SYS_CLONE, flags, null, ctypes.byref(fd), null, null)
    if pid == 0:
        os._exit(0)
    if pid < 0:
        return pid
    try:
        return os.fstat(fd.value).st_ino
    finally:
        os.close(fd.value)
        os.waitpid(pid, 0)


def socket_option(name: str, option: int, form: str) -> int:
    """Option ``option`` (SOL_SOCKET) of a new socket pair's first end, noted under
    ``name``; -errno when it is refused."""
    first, second = socket.socketpair()
    try:
        size = struct.calcsize(form)
        value = int(struct.unpack(form, first.getsockopt(socket.SOL_SOCKET, option, size))[0])
        note(name, "ok")
        return value
    except OSError as error:
        note(name, _errno_of(error))
        return -(error.errno or 0)
    finally:
        first.close()
        second.close()


def peer_pidfd() -> int:
    """SO_PEERPIDFD: a pidfd without clone (closed at once); -errno when refused."""
    fd = socket_option("SO_PEERPIDFD", SO_PEERPIDFD, "i")
    if fd >= 0:
        os.close(fd)
    return fd


def send_pidfds(end: float) -> None:
    for _ in range(8):  # a clone of this process takes milliseconds
        if time.time() > end - 0.005:
            break
        pidfd_inode()
        peer_pidfd()


_last_pidfd: list[int] = []


def receive_pidfds() -> float:
    """How far the machine's pidfd counter moved since the receiver's last pidfd."""
    number = pidfd_inode()
    if number < 0:
        return float(number)
    moved = number - _last_pidfd[-1] if _last_pidfd else 0
    _last_pidfd[:] = [number]
    return float(moved)


def socket_cookie() -> int:
    """A new socket's cookie (numbered from the machine's one counter when first asked
    for), or -errno when SO_COOKIE is refused."""
    return socket_option("SO_COOKIE", SO_COOKIE, "Q")


def send_cookies(end: float) -> None:
    while time.time() < end - 0.002:
        for _ in range(16):
            socket_cookie()


def receive_cookies() -> float:
    """The gaps between the cookies of the receiver's consecutive sockets."""
    cookies = [socket_cookie() for _ in range(COOKIES)]
    if cookies[0] < 0:
        return float(cookies[0])
    return float(sum(b - a - 1 for a, b in itertools.pairwise(cookies) if b > a))


EVENTFDS = 16  # the allocator hands out the lowest free numbers: a few move the receiver's


def send_eventfds(end: float) -> None:
    held = [os.eventfd(0) for _ in range(EVENTFDS)]
    wait_until(end)
    for fd in held:
        os.close(fd)


def receive_eventfd_id() -> float:
    """A new eventfd's number from the machine's one allocator (the lowest free), as its
    /proc/self/fdinfo tells; -errno where that cannot be read."""
    fd = os.eventfd(0)
    try:
        for line in Path(f"/proc/self/fdinfo/{fd}").read_text().splitlines():
            if line.startswith("eventfd-id:"):
                note("fdinfo", "ok")
                return float(line.split()[1])
        return -1.0
    except OSError as error:
        note("fdinfo", _errno_of(error))
        return -float(error.errno or 0)
    finally:
        os.close(fd)


# --- pages of a system file both seats map, and the page cache -------------------------

PAGE = 4096
MAPPED_PAGES = 16


def big_file() -> Path:
    """The large system file both ends use (``CH_FILE``, chosen by the arena: few other
    processes read or map all of it); a small one that every seat can read without it."""
    return Path(os.environ.get("CH_FILE", str(SHARED)))


def _touch(address: int, pages: int) -> int:
    return sum(ctypes.c_char.from_address(address + i * PAGE).value[0] for i in range(pages))


def send_mapped(end: float) -> None:
    address = map_file(big_file(), MAPPED_PAGES * PAGE)
    _touch(address, MAPPED_PAGES)
    note("mmap of a system file", "ok")
    wait_until(end)
    LIBC.munmap(address, MAPPED_PAGES * PAGE)


def _mapping_figures(path: Path) -> float:
    """What the receiver's own /proc tells of its mapping of ``path``: smaps' shared pages
    (another process maps them), numa_maps' highest map count, pagemap's pages mapped by it
    alone; -errno where none of that can be read."""
    total = 0.0
    try:
        lines = Path("/proc/self/smaps").read_text().splitlines()
        note("smaps", "ok")
        inside = False
        for line in lines:
            if not line[:1].isupper() or "-" in line.split()[0]:
                inside = line.endswith(str(path))
            elif inside and line.startswith("Shared_Clean:"):
                total += int(line.split()[1])
        for line in Path("/proc/self/numa_maps").read_text().splitlines():
            if line.endswith(str(path)) or f" file={path} " in f"{line} ":
                counts = [t for t in line.split() if t.startswith("mapmax=")]
                total += 1000 * int(counts[0].removeprefix("mapmax=")) if counts else 1000
    except OSError as error:
        note("smaps", _errno_of(error))
        return -float(error.errno or 0)
    return total


def receive_mapped() -> float:
    path = big_file()
    address = map_file(path, MAPPED_PAGES * PAGE)
    try:
        _touch(address, MAPPED_PAGES)
        return _mapping_figures(path)
    finally:
        LIBC.munmap(address, MAPPED_PAGES * PAGE)


STRIDE = 64 * 1024  # a random read reads no further ahead: one page (region) per slot


def _page_of_slot(path: Path) -> int:
    """Where this slot's page lies: a region of the big file chosen by the run's start time
    (so that each run finds pages no earlier run read), one stride per slot."""
    size = max(path.stat().st_size, STRIDE)
    slots = max(size // STRIDE, 1)
    index = (int(START * 1000) + _slot_index[0]) % slots
    return index * STRIDE


_slot_index = [0]


def send_page(end: float) -> None:
    """Read one byte of this slot's page: the page cache now holds it."""
    path = big_file()
    fd = os.open(path, os.O_RDONLY)
    try:
        os.pread(fd, 1, _page_of_slot(path))
    finally:
        os.close(fd)


def receive_page() -> float:
    """How long the receiver's own first read of this slot's page takes, in microseconds:
    short where the page was cached (the sender read it), long where it came from disk."""
    path = big_file()
    fd = os.open(path, os.O_RDONLY)
    try:
        begin = time.perf_counter_ns()
        os.pread(fd, 1, _page_of_slot(path))
        return (time.perf_counter_ns() - begin) / 1000
    finally:
        os.close(fd)


NAMES = 8  # names looked up a slot


def _names_of_slot() -> list[Path]:
    """Names no file has in the big file's directory, new to this run and slot."""
    stem = f".arena-channel-{int(START * 1000)}-{_slot_index[0]}"
    return [big_file().parent / f"{stem}-{i}" for i in range(NAMES)]


def _lookup_ns(path: Path) -> int:
    begin = time.perf_counter_ns()
    os.path.lexists(path)
    return time.perf_counter_ns() - begin


def send_names(end: float) -> None:
    """Look up names that do not exist: the kernel remembers each miss (a negative dentry)
    for every process on the machine."""
    for path in _names_of_slot():
        _lookup_ns(path)


def receive_names() -> float:
    """How long the receiver's own lookups of this slot's names take, median, in ns: short
    where the kernel remembered the miss (the sender looked them up first)."""
    return float(sorted(_lookup_ns(path) for path in _names_of_slot())[NAMES // 2])


def send_atime(end: float) -> None:
    """Read a system file's first page (on a read-only mount, which never sets its access
    time)."""
    with big_file().open("rb") as source:
        source.read(PAGE)
    note("read of a system file", "ok")


def receive_atime() -> float:
    info = big_file().stat()
    return float(info.st_atime_ns ^ info.st_ctime_ns ^ info.st_mtime_ns)


SENDERS: dict[str, Callable[[float], object]] = {
    "locks": send_locks,
    "futex": send_futex,
    "proc": load,
    "sysinfo-procs": threads_until,
    "sysinfo-memory": memory_until,
    "sysinfo-loads": spin_until,
    "cpu": spin_until,
    "pidfd": send_pidfds,
    "cookie": send_cookies,
    "eventfd-id": send_eventfds,
    "mapped": send_mapped,
    "atime": send_atime,
    "inodes": send_inodes,
    "page-cache": send_page,
    "dentries": send_names,
}
RECEIVERS: dict[str, Callable[[], float]] = {
    "locks": receive_locks,
    "futex": receive_futex,
    "proc": receive_proc,
    "sysinfo-procs": _sysinfo_field(lambda info: info.procs),
    "sysinfo-memory": _sysinfo_field(lambda info: info.freeram * info.mem_unit),
    "sysinfo-loads": _sysinfo_field(lambda info: info.loads[0]),
    "cpu": receive_cpu,
    "pidfd": receive_pidfds,
    "cookie": receive_cookies,
    "eventfd-id": receive_eventfd_id,
    "mapped": receive_mapped,
    "atime": receive_atime,
    "inodes": receive_inodes,
    "page-cache": receive_page,
    "dentries": receive_names,
}
# Where in its slot the receiver looks: after the sender has begun, before it stops.
LOOK_AT = {"cpu": 0.2, "futex": 0.2}


# What an end does once before the first slot: read the pages it maps from disk now.
PREPARE: dict[str, Callable[[], object]] = {"mapped": lambda: send_mapped(0.0)}


def prepare() -> None:
    """Every kind's preparation, then one ``CH-READY`` line: how long after the first slot's
    start this end was ready (above 0: it missed slots, and the figures mean nothing)."""
    for kind in KINDS:
        PREPARE.get(kind, lambda: None)()
    print(f"CH-READY {time.time() - START:.3f}", flush=True)


LATE: dict[str, int] = {}  # kind -> the slots this end reached too late to act in


def send() -> None:
    prepare()
    for kind_index, kind in enumerate(KINDS):
        LATE[kind] = 0
        for index, bit in enumerate(BITS):
            slot = kind_index * len(BITS) + index
            begin, end = START + slot * SLOT, START + (slot + 1) * SLOT
            wait_until(begin)
            _slot_index[0] = slot
            if time.time() > begin + SLOT * 0.5:  # the receiver looks at 0.6: it would miss
                LATE[kind] += 1
            if bit == "1" and time.time() < end - SLOT * 0.25:  # never past its slot
                SENDERS[kind](end - SLOT * 0.05)
        # After each kind: an end that runs late may be stopped before the last.
        print("CH-CALLS " + json.dumps(CALLS), flush=True)
        print("CH-LATE " + json.dumps(LATE), flush=True)


def receive() -> None:
    prepare()
    seen: dict[str, list[float]] = {}
    for kind_index, kind in enumerate(KINDS):
        values = seen.setdefault(kind, [])
        LATE[kind] = 0
        for index in range(len(BITS)):
            begin = START + (kind_index * len(BITS) + index) * SLOT
            look = LOOK_AT.get(kind, 0.6)
            wait_until(begin + SLOT * look)
            if time.time() > begin + SLOT * (look + 0.3):  # near the sender's end
                LATE[kind] += 1
            _slot_index[0] = kind_index * len(BITS) + index
            values.append(RECEIVERS[kind]())
    print("CH-RESULT " + json.dumps(seen), flush=True)
    print("CH-CALLS " + json.dumps(CALLS), flush=True)
    print("CH-LATE " + json.dumps(LATE), flush=True)


if __name__ == "__main__":
    (send if ROLE == "send" else receive)()
