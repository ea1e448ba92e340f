"""Prober `deny_probe`: makes each refused class of system call in every width of its
argument (the value alone, with bit 32 set, with all upper 32 bits set), a few allowed
ones with their upper bits set, and a 32-bit (x32) call in a child; prints one
``DENY-REPORT`` JSON line: call -> ``ok`` or the error's name (``killed by SIGSYS`` for
the child). The standard library only: it runs as a seat runs, under the seat's filter.
"""

import ctypes
import ctypes.util
import errno
import json
import os
import signal
import struct

LIBC = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
LIBC.syscall.restype = ctypes.c_long
WIDTHS = {"": 0, "|bit32": 1 << 32, "|high": 0xFFFF_FFFF << 32}
FOUND: dict[str, str] = {}


def call(name: str, number: int, *args: object) -> int:
    result = LIBC.syscall(ctypes.c_long(number), *args)
    if result < 0:
        code = ctypes.get_errno()
        FOUND[name] = errno.errorcode.get(code, str(code))
    else:
        FOUND[name] = "ok"
    return int(result)


def widths(name: str, number: int, before: tuple[object, ...], value: int, *after: object) -> None:
    for suffix, high in WIDTHS.items():
        call(name + suffix, number, *before, ctypes.c_ulong(value | high), *after)


def child_result(number: int) -> str:
    """A call made by a child that exits 0 when it survives (a killed child is the answer)."""
    pid = os.fork()
    if pid == 0:
        LIBC.syscall(ctypes.c_long(number))
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return f"killed by {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exit {os.WEXITSTATUS(status)}"


fd = os.open("/etc/passwd", os.O_RDONLY)
lock = ctypes.create_string_buffer(struct.pack("hhqqi", 0, 0, 0, 1, 0))
for name, command in {
    "F_GETLK": 5,
    "F_SETLK": 6,
    "F_SETLKW": 7,
    "F_OFD_GETLK": 36,
    "F_OFD_SETLK": 37,
    "F_OFD_SETLKW": 38,
    "F_SETLEASE": 1024,
    "F_GETLEASE": 1025,
    "F_NOTIFY": 1026,
}.items():
    widths(f"fcntl {name}", 72, (ctypes.c_int(fd),), command, lock)
widths("fcntl F_GETFD", 72, (ctypes.c_int(fd),), 1)  # allowed: the kernel reads 32 bits
call("flock", 73, ctypes.c_int(fd), ctypes.c_int(1))  # LOCK_SH

word = ctypes.c_uint32(7)
wait = ctypes.c_long * 2
timeout = wait(0, 1_000_000)
for name, op in {"FUTEX_WAIT": 0, "FUTEX_WAIT_BITSET": 9}.items():
    widths(f"futex {name}", 202, (ctypes.byref(word),), op, ctypes.c_uint(7), timeout, None, -1)
for name, op in {
    "FUTEX_WAKE": 1,
    "FUTEX_WAKE_BITSET": 10,
    "FUTEX_REQUEUE": 3,
    "FUTEX_LOCK_PI": 6,
}.items():
    widths(f"futex {name}", 202, (ctypes.byref(word),), op, 1, None, None, -1)
widths("futex FUTEX_WAKE_PRIVATE", 202, (ctypes.byref(word),), 1 | 128, 1)  # allowed
call("futex_waitv", 449, None, 0, 0, None, 1)
call("futex_wake", 454, ctypes.byref(word), ctypes.c_ulong(0xFFFFFFFF), 1, 2)
call("futex_wait", 455, ctypes.byref(word), ctypes.c_ulong(0xFFFFFFFF), 7, 2, None, 1)

page = LIBC.mmap
page.restype = ctypes.c_void_p
page.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
]
address = ctypes.c_void_p(page(None, 4096, 1, 2, fd, 0))  # PROT_READ, MAP_PRIVATE of /etc/passwd
for name, advice in {
    "MADV_COLD": 20,
    "MADV_PAGEOUT": 21,
    "MADV_MERGEABLE": 12,
    "MADV_COLLAPSE": 25,
}.items():
    widths(f"madvise {name}", 28, (address, ctypes.c_size_t(4096)), advice)
widths("madvise MADV_DONTNEED", 28, (address, ctypes.c_size_t(4096)), 4)  # allowed
widths("fadvise64 POSIX_FADV_DONTNEED", 221, (ctypes.c_int(fd), 0, 0), 4)
widths("preadv2 RWF_NOWAIT", 327, (ctypes.c_int(fd), None, 0, 0, 0), 8)
call("mincore", 27, address, ctypes.c_size_t(4096), ctypes.create_string_buffer(1))
call("cachestat", 451, ctypes.c_int(fd), None, None, 0)

for name, flag in {
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWNET": 0x40000000,
    "CLONE_NEWNS": 0x20000,
}.items():
    for suffix, high in WIDTHS.items():
        flags = flag | high | signal.SIGCHLD
        pid = call(f"clone {name}{suffix}", 56, ctypes.c_ulong(flags), None, None, None, None)
        if pid == 0:
            os._exit(0)
        if pid > 0:
            os.waitpid(pid, 0)
call("clone3", 435, None, 0)

for name, family in {
    "AF_INET": 2,
    "AF_INET6": 10,
    "AF_NETLINK": 16,
    "AF_PACKET": 17,
    "AF_VSOCK": 40,
}.items():
    widths(f"socket {name}", 41, (), family, ctypes.c_int(1), 0)
widths("socket AF_UNIX", 41, (), 1, ctypes.c_int(1), 0)  # allowed

widths("ioctl TIOCSTI", 16, (ctypes.c_int(0),), 0x5412, ctypes.byref(ctypes.c_char(b"x")))
widths("prctl PR_SET_MM", 157, (), 35, 0, 0, 0)
widths("prctl PR_SET_NAME", 157, (), 15, ctypes.c_char_p(b"probe"), 0, 0)  # allowed
widths("mknodat S_IFCHR", 259, (ctypes.c_int(-100), ctypes.c_char_p(b"/tmp/dev")), 0o020644, 0)

info = ctypes.create_string_buffer(256)
for name, number, args in (
    ("sysinfo", 99, (info,)),
    ("statfs", 137, (ctypes.c_char_p(b"/"), info)),
    ("add_key", 248, (ctypes.c_char_p(b"user"), ctypes.c_char_p(b"k"), None, 0, -4)),
    ("keyctl", 250, (0, -4)),
    ("request_key", 249, (ctypes.c_char_p(b"user"), ctypes.c_char_p(b"k"), None, -4)),
    ("mq_open", 240, (ctypes.c_char_p(b"q"), 0o100 | 2, 0o600, None)),
    ("shmget", 29, (0, 4096, 0o1000 | 0o600)),
    ("msgget", 68, (0, 0o1000 | 0o600)),
    ("semget", 64, (0, 1, 0o1000 | 0o600)),
    ("io_uring_setup", 425, (1, info)),
    ("pidfd_open", 434, (1, 0)),
    ("pidfd_getfd", 438, (0, 0, 0)),
    ("process_madvise", 440, (0, None, 0, 0, 0)),
    ("process_vm_readv", 310, (1, None, 0, None, 0, 0)),
    ("perf_event_open", 298, (info, 0, -1, -1, 0)),
    ("bpf", 321, (0, info, 0)),
    ("userfaultfd", 323, (0,)),
    ("memfd_create", 319, (ctypes.c_char_p(b"m"), 0)),
    ("memfd_secret", 447, (0,)),
    ("timerfd_create", 283, (1, 0)),
    ("signalfd4", 289, (-1, info, 8, 0)),
    ("inotify_init1", 294, (0,)),
    ("fanotify_init", 300, (0, 0)),
    ("ptrace", 101, (0, 0, 0, 0)),
    ("kcmp", 312, (1, 1, 0, 0, 0)),
    ("unshare", 272, (0x10000000,)),
    ("setns", 308, (0, 0)),
    ("mount", 165, (None, ctypes.c_char_p(b"/tmp"), ctypes.c_char_p(b"tmpfs"), 0, None)),
    ("open_tree", 428, (-100, ctypes.c_char_p(b"/"), 0)),
    ("fsopen", 430, (ctypes.c_char_p(b"tmpfs"), 0)),
    ("chroot", 161, (ctypes.c_char_p(b"/tmp"),)),
    ("sched_setaffinity", 203, (0, 8, info)),
    ("sched_setattr", 314, (0, info, 0)),
    ("ioprio_set", 251, (1, 0, 0)),
    ("name_to_handle_at", 303, (-100, ctypes.c_char_p(b"/"), info, info, 0)),
    ("personality", 135, (0xFFFFFFFF,)),
    ("syslog", 103, (3, info, 16)),
    ("getcpu", 309, (info, None, None)),
    ("vmsplice", 278, (0, None, 0, 0)),
    ("set_mempolicy", 238, (0, None, 0)),
    ("landlock_create_ruleset", 444, (None, 0, 1)),
    ("seccomp", 317, (0, 0, None)),
    ("acct", 163, (None,)),
    ("swapoff", 168, (ctypes.c_char_p(b"/x"),)),
):
    call(name, number, *args)
FOUND["x32 getpid"] = child_result(0x4000_0000 | 39)
print("DENY-REPORT " + json.dumps(FOUND), flush=True)
