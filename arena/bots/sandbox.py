"""Running a bot inside bubblewrap: no network, a private filesystem view, its own PIDs.

What it protects against: a bot reaching the network, reading or writing other bots'
files (its partner's working directory included), signalling other processes, or talking
to its partner through files, /tmp, abstract sockets or shared memory. What it does not:
covert timing channels through the shared CPU, a kernel exploit, or a bot reading files
that every bot may read anyway (the system's own files, read-only).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


class SandboxUnavailableError(RuntimeError):
    """bubblewrap is not installed."""


@dataclass(frozen=True)
class Sandbox:
    """What one sandboxed seat may see besides the read-only system."""

    hidden: tuple[Path, ...]  # directories replaced by empty ones (others' files)
    socket: Path | None  # the referee's unix socket, the only way out
    keep: tuple[Path, ...] = ()  # read-only paths to keep visible under the private /tmp


def bubblewrap() -> str:
    path = shutil.which("bwrap")
    if path is None:
        raise SandboxUnavailableError(
            "--sandbox needs bubblewrap (bwrap); install it, e.g. `apt-get install bubblewrap`"
        )
    return path


def sandboxed(command: Sequence[str], sandbox: Sandbox, workdir: Path, bot_dir: Path) -> list[str]:
    """``command`` wrapped in bwrap: read-only system, own workdir writable, no network."""
    args = [bubblewrap(), "--die-with-parent", "--new-session"]
    args += ["--unshare-all"]  # network, PIDs, IPC, UTS, cgroups: nothing shared with others
    args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for path in sandbox.keep:
        if path.is_relative_to("/tmp"):  # e.g. the arena itself, installed under /tmp
            args += ["--ro-bind", str(path), str(path)]
    for path in sandbox.hidden:
        args += ["--tmpfs", str(path)]
    args += ["--ro-bind", str(bot_dir), str(bot_dir)]
    if sandbox.socket is not None:
        args += ["--ro-bind", str(sandbox.socket), str(sandbox.socket)]
    args += ["--bind", str(workdir), str(workdir), "--chdir", str(workdir), "--", *command]
    return args
