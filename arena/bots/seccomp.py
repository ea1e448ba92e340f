"""The system calls no bot may make: a seccomp filter on every bot process (builds and seats).

Modelled on the default profile of the container runtimes (Docker, Podman, containerd):
what a process without privileges has no business calling is refused — keyrings,
``ptrace``, perf events, ``bpf``, ``userfaultfd``, kernel modules, mounts, new namespaces,
clocks, ``io_uring`` and the rest of that list. To it we add what would let two bots on one
machine share state through the kernel even though they share no file, socket or process:

* **file locks and leases** (``flock``, ``fcntl`` F_SETLK/F_GETLK/F_OFD_*, leases,
  directory notifications): a byte-range lock on a file both seats can read (their code,
  ``/usr/bin/python3``, ``/etc/hostname``) is visible to the other seat;
* **file-access notifications** (inotify, fanotify): a watch on a shared read-only file sees
  the partner open it;
* **page-cache probes and evictions** (``mincore``, ``cachestat``, ``preadv2`` with
  RWF_NOWAIT, ``fadvise`` DONTNEED/NOREUSE, ``madvise`` COLD/PAGEOUT): whether a page of a
  shared file is cached is a bit that another process can set and read, and it outlives
  the match.

Refused calls fail with an error (``ENOSYS`` where programs treat the call as unsupported
and go on, as Go's and Cargo's file locks do; ``EPERM`` otherwise); a 32-bit (x32, i386)
system call kills the process. The filter is compiled once per process by libseccomp
and handed to bubblewrap (``--seccomp FD``), which installs it just before the bot's
command runs. What it cannot close (CPU load and timing, the system's memory and process
counts, the timing of reads of shared files) is written down in docs/SECURITY.md, with the
bandwidth measured by ``arena bench channels``.
"""

from __future__ import annotations

import errno
import fcntl
import functools
import os
import tempfile
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

__all__ = ["DENIED", "SeccompUnavailableError", "filter_fd", "filter_program"]


class SeccompUnavailableError(RuntimeError):
    """libseccomp cannot build the filter here (not installed, or not Linux)."""


# Each refused call and why, in the container runtimes' terms: name -> errno.
DENIED: Final[Mapping[str, int]] = MappingProxyType(
    {
        # Kernel keyrings: per-user state shared by every process of a user (and /proc/keys).
        "add_key": errno.EPERM,
        "keyctl": errno.EPERM,
        "request_key": errno.EPERM,
        # Other processes' memory and the kernel's insides.
        "ptrace": errno.EPERM,
        "process_vm_readv": errno.EPERM,
        "process_vm_writev": errno.EPERM,
        "kcmp": errno.EPERM,
        "pidfd_getfd": errno.EPERM,
        "perf_event_open": errno.EPERM,
        "bpf": errno.EPERM,
        "userfaultfd": errno.EPERM,
        "lookup_dcookie": errno.EPERM,
        "syslog": errno.EPERM,
        # The machine: modules, clocks, reboot, swap, accounting, quotas.
        "init_module": errno.EPERM,
        "finit_module": errno.EPERM,
        "delete_module": errno.EPERM,
        "create_module": errno.EPERM,
        "query_module": errno.EPERM,
        "get_kernel_syms": errno.EPERM,
        "kexec_load": errno.EPERM,
        "kexec_file_load": errno.EPERM,
        "reboot": errno.EPERM,
        "swapon": errno.EPERM,
        "swapoff": errno.EPERM,
        "acct": errno.EPERM,
        "quotactl": errno.EPERM,
        "quotactl_fd": errno.EPERM,
        "settimeofday": errno.EPERM,
        "clock_settime": errno.EPERM,
        "clock_adjtime": errno.EPERM,
        "adjtimex": errno.EPERM,
        "stime": errno.EPERM,
        "iopl": errno.EPERM,
        "ioperm": errno.EPERM,
        "vhangup": errno.EPERM,
        "nfsservctl": errno.EPERM,
        "uselib": errno.EPERM,
        "ustat": errno.EPERM,
        "sysfs": errno.EPERM,
        "_sysctl": errno.EPERM,
        "personality": errno.EPERM,
        # Mounts and namespaces: the sandbox's are fixed before the bot starts.
        "mount": errno.EPERM,
        "umount2": errno.EPERM,
        "pivot_root": errno.EPERM,
        "open_tree": errno.EPERM,
        "move_mount": errno.EPERM,
        "fsopen": errno.EPERM,
        "fsconfig": errno.EPERM,
        "fsmount": errno.EPERM,
        "fspick": errno.EPERM,
        "mount_setattr": errno.EPERM,
        "unshare": errno.EPERM,
        "setns": errno.EPERM,
        "name_to_handle_at": errno.EPERM,
        "open_by_handle_at": errno.EPERM,
        # NUMA placement (another process's pages).
        "mbind": errno.EPERM,
        "set_mempolicy": errno.EPERM,
        "get_mempolicy": errno.EPERM,
        "move_pages": errno.EPERM,
        "migrate_pages": errno.EPERM,
        # io_uring does file and socket work outside the system calls filtered here.
        "io_uring_setup": errno.EPERM,
        "io_uring_enter": errno.EPERM,
        "io_uring_register": errno.EPERM,
        # clone3's flags live in memory, where a filter cannot look: ENOSYS makes the C
        # libraries fall back to clone, whose flags are checked below.
        "clone3": errno.ENOSYS,
        # Shared kernel state between seats (see the module's docstring).
        "flock": errno.ENOSYS,
        "inotify_init": errno.ENOSYS,
        "inotify_init1": errno.ENOSYS,
        "inotify_add_watch": errno.ENOSYS,
        "fanotify_init": errno.EPERM,
        "fanotify_mark": errno.EPERM,
        "mincore": errno.ENOSYS,
        "cachestat": errno.ENOSYS,
    }
)

_F_OFD_GETLK, _F_OFD_SETLK, _F_OFD_SETLKW = 36, 37, 38
_F_SETLEASE, _F_GETLEASE, _F_NOTIFY = 1024, 1025, 1026
# fcntl commands that lock, lease or watch: refused with ENOLCK ("no locks available").
_LOCKING_FCNTL = (
    fcntl.F_GETLK,
    fcntl.F_SETLK,
    fcntl.F_SETLKW,
    _F_OFD_GETLK,
    _F_OFD_SETLK,
    _F_OFD_SETLKW,
    _F_SETLEASE,
    _F_GETLEASE,
    _F_NOTIFY,
)
_CLONE_NEW_NAMESPACES = 0x7E020080  # CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID,
# NEWNET and NEWTIME: a bot makes threads and processes, never namespaces.
_RWF_NOWAIT = 0x8  # preadv2: "fail if not cached", a probe that reads nothing
_POSIX_FADV_DONTNEED, _POSIX_FADV_NOREUSE = 4, 5
_MADV_COLD, _MADV_PAGEOUT = 20, 21


@functools.cache
def filter_program() -> bytes:
    """The compiled filter (classic BPF, as bubblewrap's ``--seccomp`` reads it)."""
    try:
        import pyseccomp as seccomp
    except (ImportError, OSError) as error:  # OSError: libseccomp.so is missing
        raise SeccompUnavailableError(f"libseccomp is not available: {error}") from None
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for name, code in DENIED.items():
        try:
            rules.add_rule(seccomp.ERRNO(code), name)
        except OSError:
            continue  # a call this kernel's or libseccomp's tables do not know: none to make
    for command in _LOCKING_FCNTL:
        rules.add_rule(seccomp.ERRNO(errno.ENOLCK), "fcntl", seccomp.Arg(1, seccomp.EQ, command))
    # Any one of the namespace bits is enough to refuse (one rule per bit: a masked
    # comparison is an equality).
    for bit in range(32):
        flag = 1 << bit
        if flag & _CLONE_NEW_NAMESPACES:
            rules.add_rule(
                seccomp.ERRNO(errno.EPERM), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag)
            )
    for name in ("preadv2", "pwritev2"):
        rules.add_rule(
            seccomp.ERRNO(errno.EOPNOTSUPP),
            name,
            seccomp.Arg(5, seccomp.MASKED_EQ, _RWF_NOWAIT, _RWF_NOWAIT),  # (.., pos_h, flags)
        )
    for advice in (_POSIX_FADV_DONTNEED, _POSIX_FADV_NOREUSE):
        rules.add_rule(seccomp.ERRNO(errno.EINVAL), "fadvise64", seccomp.Arg(3, seccomp.EQ, advice))
    for advice in (_MADV_COLD, _MADV_PAGEOUT):
        rules.add_rule(seccomp.ERRNO(errno.EINVAL), "madvise", seccomp.Arg(2, seccomp.EQ, advice))
    rules.add_rule(seccomp.ERRNO(errno.EPERM), "process_madvise")
    with tempfile.TemporaryFile() as sink:
        rules.export_bpf(sink)
        sink.seek(0)
        return sink.read()


def filter_fd() -> int:
    """A new file descriptor to read the filter from (inheritable: pass it to bubblewrap).

    An anonymous memory file, positioned at its start; the caller closes it once the
    child has started.
    """
    program = filter_program()
    fd = os.memfd_create("arena-seccomp", 0)
    try:
        os.write(fd, program)
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd
