"""The seccomp filter every bot process runs under (builds and seats): default deny.

The filter allows the calls of ``arena.bots.syscalls`` (``SEAT`` for a seat, ``SEAT`` and
``BUILD`` for a build), some only with the argument values listed there, and refuses
everything else: ``ENOSYS`` by default, the error ``REFUSED`` names where a caller needs
another one to go on. That is the container runtimes' shape (Moby's default profile:
``defaultAction`` an error, then the calls a program may make), not a list of forbidden
calls on a default of ALLOW, which leaked whatever it did not name: a call added to the
kernel later is refused here until someone lists it, with a reason.

Arguments are compared as the kernel reads them: an ``int`` masked to its low 32 bits, so
``fcntl(fd, (1 << 32) | F_OFD_SETLK)`` is the lock command it is to the kernel, refused. A
32-bit (x32, i386) system call kills the process (libseccomp's default for a foreign
architecture). The filter is compiled once per process by libseccomp and handed to
bubblewrap (``--seccomp FD``), which installs it just before the bot's command runs.
What remains between bots on one machine (CPU load and timing, the timing of reads of
shared files) is written down in docs/SECURITY.md, with the bandwidth measured by
``arena bench channels``.
"""

from __future__ import annotations

import errno
import functools
import os
import tempfile
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from arena.bots.syscalls import BUILD, REFUSED, SEAT, Allowed, Only

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "DEFAULT_ERRNO",
    "SeccompUnavailableError",
    "allowed_names",
    "filter_fd",
    "filter_program",
]

DEFAULT_ERRNO = errno.ENOSYS  # a call not listed: "not implemented", so runtimes fall back


class SeccompUnavailableError(RuntimeError):
    """libseccomp cannot build the filter here (not installed, or not Linux)."""


def _table(build: bool) -> tuple[Allowed, ...]:
    return SEAT + BUILD if build else SEAT


def allowed_names(build: bool = False) -> frozenset[str]:
    """The calls a seat (or a build) may make at all, some only with listed arguments."""
    return frozenset(entry.name for entry in _table(build))


def _conditions(seccomp: Any, only: Only | None) -> Iterator[tuple[Any, ...]]:
    """One tuple of libseccomp conditions per allowed value (rules for one call are OR'd)."""
    if only is None:
        yield ()
        return
    for value in only.values:
        yield (seccomp.Arg(only.arg, seccomp.MASKED_EQ, only.mask, value & only.mask),)


def _add(
    add_rule: Callable[..., None], action: object, name: str, conditions: Iterable[tuple[Any, ...]]
) -> None:
    for condition in conditions:
        try:
            add_rule(action, name, *condition)
        except (OSError, ValueError, RuntimeError):
            # A call this kernel's or libseccomp's tables do not know: the default refuses it.
            return


@functools.cache
def filter_program(build: bool = False) -> bytes:
    """The compiled filter (classic BPF, as bubblewrap's ``--seccomp`` reads it): a seat's,
    or with ``build`` a build's wider one."""
    try:
        import pyseccomp as seccomp
    except (ImportError, OSError) as error:  # OSError: libseccomp.so is missing
        raise SeccompUnavailableError(f"libseccomp is not available: {error}") from None
    rules = seccomp.SyscallFilter(defaction=seccomp.ERRNO(DEFAULT_ERRNO))
    # A build's table may list a call again with wider arguments (socket): one rule each.
    for entry in _table(build):
        _add(rules.add_rule, seccomp.ALLOW, entry.name, _conditions(seccomp, entry.only))
    allowed = allowed_names(build)
    whole = {entry.name for entry in _table(build) if entry.only is None}
    for refusal in REFUSED:
        if (refusal.when is None and refusal.name in allowed) or refusal.name in whole:
            continue  # allowed whole in this table (a build's): no refusal of any part
        action = seccomp.ERRNO(refusal.error)
        _add(rules.add_rule, action, refusal.name, _conditions(seccomp, refusal.when))
    with tempfile.TemporaryFile() as sink:
        rules.export_bpf(sink)
        sink.seek(0)
        return sink.read()


def filter_fd(build: bool = False) -> int:
    """A new file descriptor to read the filter from (inheritable: pass it to bubblewrap).

    An anonymous memory file, positioned at its start; the caller closes it once the
    child has started.
    """
    program = filter_program(build)
    fd = os.memfd_create("arena-seccomp", 0)
    try:
        os.write(fd, program)
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd
