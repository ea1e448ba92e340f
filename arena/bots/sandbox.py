"""Running a bot inside bubblewrap: a private capped home, the system read-only, one socket.

A sandboxed bot sees only: its own fresh working directory (``WORKDIR``, also its HOME: a
size-capped tmpfs, gone when the bot ends), its own code read-only, the system read-only
(``/usr``, ``/etc``, ...), what bots run on read-only (this Python's prefixes, the
installed ``arena`` package, the contract's ``proto/``), a private ``/tmp`` and
``/dev/shm`` (capped the same way), a minimal ``/dev``, the ``/proc`` of its own PID
namespace, and the referee socket of its own seat. No network (its own empty network
namespace), no capabilities, no ``/sys`` (other bots' cgroup files there would be a
channel between partners), nothing of other seats, other matches, the results database,
the registry or logs.

What it does not protect against: covert timing channels through the shared CPU, a
kernel exploit, or a bot reading what every bot may read anyway (the system's files).
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DEFAULT_WORKDIR_BYTES",
    "TRUSTED_LINE",
    "WORKDIR",
    "Sandbox",
    "SandboxUnavailableError",
    "bubblewrap",
    "runtime_paths",
    "sandbox_problem",
    "sandboxed",
]

WORKDIR = Path("/home/bot")  # every sandboxed bot's cwd and HOME: the same for all seats
DEFAULT_WORKDIR_BYTES = 64 * 1024 * 1024
# The system, read-only. On merged-/usr systems the top-level ones are symlinks into /usr
# and are recreated as such.
SYSTEM_PATHS = tuple(
    Path(p) for p in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
)
# System files that only root should read; the bot runs as root in its namespace (with
# no capabilities), so file modes alone would not keep them from it.
MASKED_FILES = tuple(
    Path(p) for p in ("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-")
)
TRUSTED_LINE = (
    "bots run without a sandbox and are trusted code: they can read, signal and connect "
    "to each other and to the arena"
)
_PROBE_TIMEOUT_S = 10.0


class SandboxUnavailableError(RuntimeError):
    """bubblewrap is not installed, or cannot build a sandbox on this machine."""


@dataclass(frozen=True)
class Sandbox:
    """What one sandboxed seat sees besides the read-only system."""

    bot_dir: Path  # the bot's own code, read-only
    socket: Path | None  # its seat's referee socket, the only way out
    runtime: tuple[Path, ...] = ()  # read-only: what bots run on (see runtime_paths)
    hidden: tuple[Path, ...] = ()  # never visible, even inside a path bound above
    workdir_bytes: int = DEFAULT_WORKDIR_BYTES  # cap of WORKDIR, /tmp and /dev/shm each


def bubblewrap() -> str:
    path = shutil.which("bwrap")
    if path is None:
        raise SandboxUnavailableError(
            "the sandbox needs bubblewrap (bwrap); install it, e.g. `apt-get install bubblewrap`"
        )
    return path


def runtime_paths() -> tuple[Path, ...]:
    """What bots run on, besides the system: this Python (prefix and base prefix, which
    may live outside /usr, e.g. under ~/.pyenv), the installed ``arena`` package and, in
    a checkout, the contract (``proto/``, which bots in other languages load). Those
    directories only: a checkout's root also holds results and logs."""
    import arena

    package = Path(arena.__file__).parent
    paths = {Path(sys.prefix), Path(sys.base_prefix), package}
    contract = package.parent / "proto"
    if (contract / "arena").is_dir():
        paths.add(contract)
    return tuple(sorted(paths | {p.resolve() for p in paths}))


@functools.cache
def sandbox_problem() -> str | None:
    """Why bubblewrap cannot sandbox bots here (None: it can); probed once per process.

    The probe builds the same kind of sandbox as a seat's and runs ``true`` in it:
    bwrap may be installed yet refused by the kernel (no user namespaces, a container
    without the privileges to mount).
    """
    try:
        true = shutil.which("true") or "/bin/true"
        with tempfile.TemporaryDirectory(prefix="arena-sandbox-probe-") as bot_dir:
            args = sandboxed([true], Sandbox(bot_dir=Path(bot_dir), socket=None))
            done = subprocess.run(
                args,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=_PROBE_TIMEOUT_S,
                check=False,
            )
    except SandboxUnavailableError as error:
        return str(error)
    except (OSError, subprocess.SubprocessError) as error:
        return f"bubblewrap does not run: {error}"
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = detail[-1] if detail else f"exit status {done.returncode}"
        return f"bubblewrap does not work on this machine ({reason})"
    return None


def _bind_ro(path: Path) -> list[str]:
    if path.is_symlink():
        # Bound as a symlink: binding it would show the target's contents at this path
        # while hiding that it is a link, and tools compare the two.
        return ["--symlink", str(path.readlink()), str(path)]
    return ["--ro-bind", str(path), str(path)]


def _capped_tmpfs(path: Path, size: int) -> list[str]:
    return ["--size", str(size), "--tmpfs", str(path)]


def sandboxed(command: Sequence[str], sandbox: Sandbox) -> list[str]:
    """``command`` wrapped in bwrap, as the module's docstring describes.

    Order matters: bwrap applies its options one after another, so what hides (tmpfs
    over hidden paths, /dev/null over masked files) comes after what it hides in.
    """
    size = max(sandbox.workdir_bytes, 4096)
    args = [bubblewrap(), "--die-with-parent", "--new-session", "--unshare-all"]
    args += ["--cap-drop", "ALL"]
    bound: list[Path] = []
    for path in SYSTEM_PATHS:
        if path.exists() or path.is_symlink():
            args += _bind_ro(path)
            bound.append(path)
    # The private mounts before the bot's own paths, which may lie under /tmp.
    args += ["--dev", "/dev", *_capped_tmpfs(Path("/dev/shm"), size), "--remount-ro", "/dev"]
    args += ["--proc", "/proc"]
    args += _capped_tmpfs(Path("/tmp"), size)
    args += _capped_tmpfs(WORKDIR, size)
    for path in (*sandbox.runtime, sandbox.bot_dir):
        if path.exists() and not any(path.is_relative_to(b) for b in bound):
            args += ["--ro-bind", str(path), str(path)]
            bound.append(path)
    for path in MASKED_FILES:
        if path.is_file():
            args += ["--ro-bind", "/dev/null", str(path)]
    for path in sandbox.hidden:
        # Only what a bound path would show: hiding elsewhere would reveal the path's name.
        if not any(path.is_relative_to(b) for b in bound):
            continue
        if path.is_dir():
            if any(b.is_relative_to(path) for b in bound):
                continue  # it holds the bot's own code; hide the files in it instead
            args += ["--tmpfs", str(path), "--remount-ro", str(path)]
        elif path.exists():
            args += ["--ro-bind", "/dev/null", str(path)]
    if sandbox.socket is not None:
        args += ["--ro-bind", str(sandbox.socket), str(sandbox.socket)]
    # The root itself is bwrap's own uncapped tmpfs: nothing may be written there.
    args += ["--remount-ro", "/", "--chdir", str(WORKDIR), "--", *command]
    return args
