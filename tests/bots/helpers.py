"""Helpers for tests that check what is left of a bot's processes (Linux: they read ``/proc``).

The arena never asks: it ends a bot's whole process group, or its cgroup, and moves on.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable


def live_processes() -> dict[int, list[bytes]]:
    """Every live process, by pid: the fields of its ``/proc/<pid>/stat`` after the command
    name (state, ppid, pgrp, ...).

    Zombies are left out because they run nothing, and in containers whose PID 1 does not
    reap orphans they may never disappear.
    """
    found: dict[int, list[bytes]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue  # exited while we were scanning
        # comm (field 2) may contain spaces and parentheses: the fields after the last ')'
        # are the ones that follow it.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) < 3 or fields[0] in (b"Z", b"X"):
            continue
        found[int(entry.name)] = fields
    return found


def alive_processes_in_group(pgid: int) -> list[int]:
    """PIDs of the live processes whose process group is ``pgid``."""
    return sorted(pid for pid, fields in live_processes().items() if int(fields[2]) == pgid)


def wait_until_none(
    probe: Callable[[], list[int]], timeout: float, interval: float = 0.02
) -> list[int]:
    """Poll ``probe`` until it finds no process or ``timeout`` passes; the survivors."""
    deadline = time.monotonic() + timeout
    while (alive := probe()) and time.monotonic() < deadline:
        time.sleep(interval)
    return alive


def wait_until_gone(pgid: int, timeout: float) -> list[int]:
    """Poll until no live process is left in ``pgid`` or ``timeout`` passes; the survivors."""
    return wait_until_none(lambda: alive_processes_in_group(pgid), timeout)
