"""Helpers for tests that check what is left of a bot's processes (Linux: they read ``/proc``).

The arena never asks: it ends a bot's whole process group, or its cgroup, and moves on.
"""

from __future__ import annotations

import os
import time


def alive_processes_in_group(pgid: int) -> list[int]:
    """Return PIDs of live (non-zombie) processes whose process group is ``pgid``.

    Linux-only (scans ``/proc/*/stat``). Zombies are excluded because they
    run nothing, and in containers whose PID 1 does not reap orphans they
    may never disappear.
    """
    found: list[int] = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue  # exited while we were scanning
        # comm (field 2) may contain spaces and parentheses; the fields after
        # the last ')' are: state ppid pgrp ...
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) < 3 or fields[0] in (b"Z", b"X"):
            continue
        if int(fields[2]) == pgid:
            found.append(int(entry.name))
    return sorted(found)


def wait_until_gone(pgid: int, timeout: float) -> list[int]:
    """Poll until no live process is left in ``pgid`` or ``timeout`` passes; return survivors."""
    deadline = time.monotonic() + timeout
    while (alive := alive_processes_in_group(pgid)) and time.monotonic() < deadline:
        time.sleep(0.02)
    return alive
