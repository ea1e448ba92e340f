"""Who a bot runs as: never root. An arena running as root gives each bot process (a seat,
a build) a user id of its own, held for as long as the bot runs.

Inside its sandbox a bot has no capabilities, but the host still checks files against its
user: run as root, it could read every root-only file on the read-only mounts
(``/etc/security/opasswd`` …). So the sandbox drops to an unprivileged user (``setpriv``,
after bubblewrap has built the sandbox as root). Each running bot gets a user of its own,
not one shared ``nobody``: the kernel keeps some state per user (process counts,
inotify and message-queue quotas, keyrings), and two bots with one user would share it.

The ids come from ``BOT_UIDS``, far above the ranges that distributions, systemd and
container tools hand out; a number is taken by locking a file named after it in the
arena's runtime directory (``flock``), so that two arenas on one machine never give the
same id to two running bots, and an arena that dies frees its ids with its locks.
An arena that does not run as root runs its bots as its own user (an unprivileged user
cannot switch to another), which this module then leaves alone.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from arena.bots.reaper import runtime_dir

__all__ = ["BOT_UIDS", "BotUser", "claim_user", "drops_privileges"]

BOT_UIDS = range(2_000_000_000, 2_000_000_000 + 65_536)
_claimed: set[int] = set()  # by this process (a flock is per open file, not per process)
_lock = threading.Lock()


@dataclass
class BotUser:
    """A user id held for one bot process; ``release`` gives it back."""

    uid: int
    _lock_fd: int | None

    def release(self) -> None:
        fd, self._lock_fd = self._lock_fd, None
        if fd is None:
            return
        with _lock:
            _claimed.discard(self.uid)
        with contextlib.suppress(OSError):
            os.close(fd)  # the flock goes with it


def drops_privileges() -> bool:
    """Whether bots run as users of their own (the arena runs as root)."""
    return os.geteuid() == 0


def claim_user() -> BotUser | None:
    """A user id no other running bot on this machine has; None when the arena is not root
    (its bots then run as its own user). Raises OSError when none can be had."""
    if not drops_privileges():
        return None
    base = runtime_dir()
    if base is None:
        raise OSError("no private runtime directory to keep the bots' user ids in")
    directory = base / "uids"
    directory.mkdir(mode=0o700, exist_ok=True)
    # Start where this process left off, so that ids are not reused at once.
    with _lock:
        start = _next_start()
        for offset in range(len(BOT_UIDS)):
            uid = BOT_UIDS[(start + offset) % len(BOT_UIDS)]
            if uid in _claimed:
                continue
            fd = _try_lock(directory / str(uid))
            if fd is not None:
                _claimed.add(uid)
                return BotUser(uid, fd)
    raise OSError(f"all {len(BOT_UIDS)} bot user ids are in use on this machine")


_cursor = [os.getpid() * 97]


def _next_start() -> int:
    _cursor[0] = (_cursor[0] + 1) % len(BOT_UIDS)
    return _cursor[0]


def _try_lock(path: Path) -> int | None:
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd
