"""Default deny (issue: fair play, round three, items 1 and 8): a sandboxed bot, started
as the arena starts seats and builds, makes each refused class of system call in every
width of its argument, and each fails as the syscall table (arena/bots/syscalls.py) says;
the calls it allows still work with their upper 32 bits set, as the kernel reads them.

The prober ``bots/deny_probe`` reports how the kernel answered each call; the expected
answers are the table below (the seat's), with a build's few differences after it.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from arena.bots import Limits, load_bot, start_bot
from arena.bots.sandbox import Sandbox, runtime_paths

PROBE = Path(__file__).resolve().parent / "bots" / "deny_probe"
WIDTHS = ("", "|bit32", "|high")

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("sandbox_required")]


def every_width(answers: dict[str, str]) -> dict[str, str]:
    return {name + width: answer for name, answer in answers.items() for width in WIDTHS}


SEAT = (
    every_width(
        {f"fcntl {cmd}": "ENOLCK" for cmd in ("F_GETLK", "F_SETLK", "F_SETLKW", "F_OFD_GETLK")}
        | {f"fcntl {cmd}": "ENOLCK" for cmd in ("F_OFD_SETLK", "F_OFD_SETLKW")}
        | {f"fcntl {cmd}": "ENOLCK" for cmd in ("F_SETLEASE", "F_GETLEASE", "F_NOTIFY")}
        | {"fcntl F_GETFD": "ok"}
        # A wait on a shared futex returns at once, "the word changed"; a wake does nothing.
        | {"futex FUTEX_WAIT": "EAGAIN", "futex FUTEX_WAIT_BITSET": "EAGAIN"}
        | {"futex FUTEX_WAKE": "EINVAL", "futex FUTEX_WAKE_BITSET": "EINVAL"}
        | {"futex FUTEX_REQUEUE": "ENOSYS", "futex FUTEX_LOCK_PI": "ENOSYS"}
        | {"futex FUTEX_WAKE_PRIVATE": "ok"}
        | {f"madvise {a}": "EINVAL" for a in ("MADV_COLD", "MADV_PAGEOUT", "MADV_MERGEABLE")}
        | {"madvise MADV_COLLAPSE": "EINVAL", "madvise MADV_DONTNEED": "ok"}
        | {"fadvise64 POSIX_FADV_DONTNEED": "ENOSYS", "preadv2 RWF_NOWAIT": "ENOSYS"}
        | {f"clone {flag}": "ENOSYS" for flag in ("CLONE_NEWUSER", "CLONE_NEWNET", "CLONE_NEWNS")}
        | {f"socket {family}": "ENOSYS" for family in ("AF_INET", "AF_INET6", "AF_NETLINK")}
        | {"socket AF_PACKET": "ENOSYS", "socket AF_VSOCK": "ENOSYS", "socket AF_UNIX": "ok"}
        | {"ioctl TIOCSTI": "ENOSYS", "prctl PR_SET_MM": "ENOSYS", "prctl PR_SET_NAME": "ok"}
        | {"mknodat S_IFCHR": "ENOSYS"}
    )
    | {"flock": "ENOSYS", "futex_waitv": "ENOSYS", "futex_wake": "ENOSYS", "futex_wait": "ENOSYS"}
    | {"mincore": "ENOSYS", "cachestat": "ENOSYS", "clone3": "ENOSYS"}
    | dict.fromkeys(
        [
            "sysinfo",
            "statfs",
            "add_key",
            "keyctl",
            "request_key",
            "mq_open",
            "shmget",
            "msgget",
            "semget",
            "io_uring_setup",
            "pidfd_open",
            "pidfd_getfd",
            "process_madvise",
            "process_vm_readv",
            "perf_event_open",
            "bpf",
            "userfaultfd",
            "memfd_create",
            "memfd_secret",
            "timerfd_create",
            "signalfd4",
            "inotify_init1",
            "fanotify_init",
            "ptrace",
            "kcmp",
            "unshare",
            "setns",
            "mount",
            "open_tree",
            "fsopen",
            "chroot",
            "sched_setaffinity",
            "sched_setattr",
            "ioprio_set",
            "name_to_handle_at",
            "personality",
            "syslog",
            "getcpu",
            "vmsplice",
            "set_mempolicy",
            "landlock_create_ruleset",
            "seccomp",
            "acct",
            "swapoff",
        ],
        "ENOSYS",
    )
    | {"x32 getpid": "killed by SIGSYS"}  # a 32-bit system call kills the process
)
# What a build may do besides (arena/bots/syscalls.py's BUILD): its sockets meet only an
# empty network namespace unless the operator gives builds the network.
# (netlink has no stream sockets: the kernel's own answer, past the filter.)
BUILD = (
    SEAT
    | every_width({"socket AF_INET": "ok", "socket AF_INET6": "ok"})
    | every_width({"socket AF_NETLINK": "ESOCKTNOSUPPORT"})
    | {"sysinfo": "ok", "statfs": "ok"}
)


def probe(tmp_path: Path, build: bool) -> dict[str, str]:
    bot_dir = tmp_path / "deny_probe"
    shutil.copytree(PROBE, bot_dir)
    spec = load_bot(bot_dir)
    log = tmp_path / "probe.log"
    sandbox = Sandbox(bot_dir=bot_dir, socket=None, runtime=runtime_paths(), writable=build)
    process = start_bot(
        spec, env={}, workdir=tmp_path / "work", log_path=log, limits=Limits(), sandbox=sandbox
    )
    deadline = time.monotonic() + 60
    while process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    process.stop()
    lines = [line for line in log.read_text().splitlines() if line.startswith("DENY-REPORT ")]
    assert len(lines) == 1, log.read_text()
    found: dict[str, str] = json.loads(lines[0].removeprefix("DENY-REPORT "))
    return found


@pytest.mark.parametrize("build", [False, True], ids=["seat", "build"])
def test_each_refused_class_fails_in_every_width(tmp_path: Path, build: bool) -> None:
    found = probe(tmp_path, build)
    expected = BUILD if build else SEAT
    wrong = {name: (found.get(name), answer) for name, answer in expected.items()}
    wrong = {name: pair for name, pair in wrong.items() if pair[0] != pair[1]}
    assert wrong == {}, wrong  # call: (how the kernel answered, what the table says)
    assert set(found) == set(expected)
