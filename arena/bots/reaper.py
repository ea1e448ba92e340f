"""Finding and killing what an arena that died (``kill -9``) left running.

A bot dies with its arena (PR_SET_PDEATHSIG, or bubblewrap's ``--die-with-parent``), but
what the bot started does not: children in its process group, and daemons that left the
group with setsid. So each arena process leaves traces that outlive it, and the next arena
to start (``reap``) kills what is still alive behind them:

* the bot cgroups, named after their owner (``bot-<pid>-<start time>-<n>``, see
  ``arena.bots.cgroup``): they hold every process the bot started, daemons included;
* for bots started without a cgroup, a ledger: one small file per arena process,
  ``arena-<pid>-<start time>.pgids`` in the arena's runtime directory, listing the process
  groups of its running bots with their leaders' start times. It is rewritten as bots
  start and stop, and removed once none runs (so a clean exit leaves none). Without a
  cgroup, a process that left its bot's group with setsid cannot be told from any other
  process: only the sandbox's PID namespace or a cgroup catches that one.

Each sandboxed seat also runs a private copy of its bot's files, in a directory of the
system's temporary directory named ``arena-seat-<pid>-<start time>-…``; ``reap`` removes
those of arenas that died.

An owner is dead when its pid is gone or now names a process that started at another time.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import stat
import tempfile
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from arena.bots.cgroup import hierarchies, kill_groups, owner_tag, start_time

__all__ = ["LEDGER", "SEAT_COPY_PREFIX", "Ledger", "reap", "runtime_dir"]

_KILL_TIMEOUT_S = 2.0
SEAT_COPY_PREFIX = "arena-seat-"  # + owner tag: a seat's private copy of its bot's files


def runtime_dir() -> Path | None:
    """The arena's own runtime directory (created 0700), or None where none can be had.

    /run/schmier-arena for root, $XDG_RUNTIME_DIR/schmier-arena for a user session,
    otherwise /tmp/schmier-arena-<uid>. One machine-wide place per user, so that any arena
    of that user finds what another one left. A directory that another user owns or others
    may write to is refused: a ledger there could be forged to make the arena kill others'
    processes.
    """
    uid = os.geteuid()
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if uid == 0:
        path = Path("/run/schmier-arena")
    elif xdg:
        path = Path(xdg) / "schmier-arena"
    else:
        path = Path(f"/tmp/schmier-arena-{uid}")
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = path.lstat()
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != uid or info.st_mode & 0o077:
        return None
    return path


def _dead(tag: str) -> int | None:
    """The owner's pid if the owner ``<pid>-<start time>`` is dead, else None."""
    pid_text, _, started = tag.partition("-")
    if not pid_text.isdigit() or not (started.isdigit() or started == ""):
        return None  # not one of ours: leave it
    pid = int(pid_text)
    now = start_time(pid)
    if started == "":  # named before start times were: the pid alone tells
        return pid if now is None else None
    return pid if now is None or now != int(started) else None


class Ledger:
    """This arena process's running bots that have no cgroup, kept on disk for ``reap``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._groups: dict[int, int] = {}  # pgid -> its leader's start time
        self._path: Path | None = None

    def add(self, pgid: int) -> None:
        started = start_time(pgid)
        if started is None:
            return  # already gone: nothing to leave behind
        with self._lock:
            self._groups[pgid] = started
            self._write()

    def discard(self, pgid: int) -> None:
        with self._lock:
            if self._groups.pop(pgid, None) is not None:
                self._write()

    def _write(self) -> None:
        if self._path is None or not self._path.name.startswith(f"arena-{os.getpid()}-"):
            directory = runtime_dir()
            if directory is None:
                return
            self._path = directory / f"arena-{owner_tag()}.pgids"
        path = self._path
        with contextlib.suppress(OSError):
            if not self._groups:
                path.unlink(missing_ok=True)
                return
            tmp = path.with_suffix(".tmp")
            tmp.write_text("".join(f"{g} {s}\n" for g, s in sorted(self._groups.items())))
            tmp.replace(path)  # whole or not at all, whenever the arena dies


LEDGER = Ledger()


def _stat_fields(pid: int) -> list[bytes] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    return raw[raw.rfind(b")") + 2 :].split()


def _group_members(pgid: int, leader_started: int) -> list[int]:
    """Live processes of process group ``pgid`` if it is still the recorded bot's group.

    The leader (the bot, whose pid is the pgid) must have the recorded start time; once it
    is dead, the kernel has not given its pid to anyone while the group has members, so
    what is left in the group (in the bot's own session, started no earlier than the bot)
    is the bot's.
    """
    members = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        fields = _stat_fields(int(entry.name))
        # state ppid pgrp session ... starttime (index 19)
        if fields is None or len(fields) < 20 or fields[0] in (b"Z", b"X"):
            continue
        if int(fields[2]) == pgid and int(fields[3]) == pgid:
            if int(entry.name) == pgid and int(fields[19]) != leader_started:
                return []  # the pid now leads a group of somebody else
            if int(fields[19]) >= leader_started:
                members.append(int(entry.name))
    return members


def _kill_process_groups(groups: Iterable[tuple[int, int]]) -> set[int]:
    killed: set[int] = set()
    for pgid, started in groups:
        deadline = time.monotonic() + _KILL_TIMEOUT_S
        while (members := _group_members(pgid, started)) and time.monotonic() < deadline:
            killed.update(members)
            for pid in members:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)
    return killed


def _read_ledger(path: Path) -> list[tuple[int, int]]:
    groups = []
    with contextlib.suppress(OSError):
        for line in path.read_text().splitlines():
            parts = line.split()
            if len(parts) == 2 and all(p.isdigit() for p in parts):
                groups.append((int(parts[0]), int(parts[1])))
    return groups


def _remove_dead_copies() -> None:
    """The seats' private copies of their bots left by arenas that died."""
    with contextlib.suppress(OSError):
        for entry in Path(tempfile.gettempdir()).glob(f"{SEAT_COPY_PREFIX}*"):
            # arena-seat-<pid>-<start time>-<random>
            pid, _, rest = entry.name.removeprefix(SEAT_COPY_PREFIX).partition("-")
            started = rest.partition("-")[0]
            info = entry.lstat()
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
                continue  # not one this user's arenas made
            if _dead(f"{pid}-{started}") is not None:
                shutil.rmtree(entry, ignore_errors=True)


def reap() -> str | None:
    """Kill what arenas that died left running; one line saying so, or None if none was left.

    Call it once when an arena starts launching bots. Groups and ledgers of live arenas are
    never touched; those of dead ones are removed, empty or not.
    """
    killed: set[int] = set()
    owners: set[int] = set()
    for hierarchy in hierarchies():
        for group in hierarchy.base.glob("bot-*"):
            tag = group.name.removeprefix("bot-").rpartition("-")[0]
            owner = _dead(tag)
            if owner is None:
                continue
            seen, _ = kill_groups([group], _KILL_TIMEOUT_S)
            if seen:
                killed |= seen
                owners.add(owner)
    directory = runtime_dir()
    if directory is not None:
        for ledger in directory.glob("arena-*.pgids"):
            owner = _dead(ledger.name.removeprefix("arena-").removesuffix(".pgids"))
            if owner is None:
                continue
            seen = _kill_process_groups(_read_ledger(ledger))
            if seen:
                killed |= seen
                owners.add(owner)
            with contextlib.suppress(OSError):
                ledger.unlink()
    _remove_dead_copies()
    if not killed:
        return None
    count = len(killed)
    processes = "process" if count == 1 else "processes"
    label = "pid" if len(owners) == 1 else "pids"
    pids = ", ".join(str(p) for p in sorted(owners))
    return f"arena: reaped {count} {processes} left by an arena that died ({label} {pids})"
