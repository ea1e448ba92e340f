"""Running a bot inside bubblewrap: a private capped home, the system read-only, one socket.

A sandboxed bot sees only: its own fresh working directory (``WORKDIR``, also its HOME: a
size-capped tmpfs, gone when the bot ends), its own code read-only (a seat's private copy
of it: no file of it is shared with another seat), the system read-only (``/usr``,
``/etc``, ...), what bots run on read-only (this Python's prefixes, the installed
``arena`` package, the contract's ``proto/``), a private ``/tmp`` and ``/dev/shm`` (capped
the same way), a minimal ``/dev``, the ``/proc`` of its own PID namespace (without the
files that count what the whole machine does, and without the kernel's key lists), and
the referee socket of its own seat. No network (its own empty network namespace), no
capabilities, no ``/sys`` (other bots' cgroup files there would be a channel between
partners), nothing of other seats, other matches, the results database, the registry or
logs. Every bot process runs under the seccomp filter of ``arena.bots.seccomp`` and, when
the arena runs as root, as an unprivileged user of its own (``arena.bots.users``).

A build (``arena.bots.build``) runs in the same sandbox, with its copy of the bot's
directory writable and no socket; the operator may give builds the network.

What it does not protect against: covert channels through the shared CPU, memory and
timing (docs/SECURITY.md gives their measured bandwidth), a kernel exploit,
or a bot reading what every bot may read anyway (the system's files).
"""

from __future__ import annotations

import functools
import os
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
# What the sandbox's /proc would tell of the whole machine: its load, CPU, interrupt and
# memory-event counters (a partner spinning or sleeping would show in them) and the
# kernel's keys. Shown empty.
MASKED_PROC = tuple(
    Path("/proc") / name
    for name in (
        "keys",
        "key-users",
        "loadavg",
        "stat",
        "schedstat",
        "sched_debug",
        "timer_list",
        "interrupts",
        "softirqs",
        "vmstat",
        "diskstats",
        "zoneinfo",
        "buddyinfo",
        "pagetypeinfo",
        "sysrq-trigger",
    )
)
MASKED_PROC_DIRS = (Path("/proc/pressure"),)
TRUSTED_LINE = (
    "bots run without a sandbox and are trusted code: they can read, signal and connect "
    "to each other and to the arena"
)
_PROBE_TIMEOUT_S = 10.0


class SandboxUnavailableError(RuntimeError):
    """bubblewrap is not installed, or cannot build a sandbox on this machine."""


@dataclass(frozen=True)
class Sandbox:
    """What one sandboxed seat (or build) sees besides the read-only system."""

    bot_dir: Path  # the bot's own files (read-only unless ``writable``)
    socket: Path | None  # its seat's referee socket, the only way out (a build has none)
    runtime: tuple[Path, ...] = ()  # read-only: what bots run on (see runtime_paths)
    hidden: tuple[Path, ...] = ()  # never visible, even inside a path bound above
    workdir_bytes: int = DEFAULT_WORKDIR_BYTES  # cap of WORKDIR, /tmp and /dev/shm each
    mount_at: Path | None = None  # where ``bot_dir`` appears inside (default: its own path)
    writable: bool = False  # a build writes its outputs into its copy of the bot
    network: bool = False  # the host's network (builds, when the operator allows it)
    uid: int | None = None  # run as this unprivileged user (the arena runs as root)
    seccomp_fd: int | None = None  # the filter bubblewrap installs (arena.bots.seccomp)
    # A stdio bot's pipes (its stdin's read end, its stdout's write end), handed to bwrap
    # as these descriptors and made the bot's fds 0 and 1 inside (``sandboxed``): bwrap's
    # own processes keep fds 0-2 open and close the rest, so only then does the bot's
    # closing its stdout (or exiting) end the pipe at once.
    protocol_fds: tuple[int, int] | None = None


# Run inside, before the bot: its pipes become its stdin and stdout, then the bot runs.
# The arena's own interpreter, which every sandbox shows (runtime_paths): about 8 ms of
# CPU, once per stdio bot.
_PROTOCOL_FDS = (
    "import os,sys;a=sys.argv;i,o=int(a[1]),int(a[2]);"
    "os.dup2(i,0);os.dup2(o,1);os.close(i);os.close(o);os.execvp(a[3],a[3:])"
)


def _tool(name: str, missing: str) -> str:
    """The path of program ``name``; ``SandboxUnavailableError(missing)`` without it."""
    path = shutil.which(name)
    if path is None:
        raise SandboxUnavailableError(missing)
    return path


def bubblewrap() -> str:
    return _tool(
        "bwrap",
        "the sandbox needs bubblewrap (bwrap); install it, e.g. `apt-get install bubblewrap`",
    )


def contract_dir() -> Path | None:
    """The directory that holds the contract, ``arena/v1/arena.proto``: a checkout's
    ``proto/``, else the copy shipped inside the package; bots and builds find it in
    ``$ARENA_PROTO_DIR``."""
    import arena

    package = Path(arena.__file__).parent
    for candidate in (package.parent / "proto", package / "proto"):
        if (candidate / "arena" / "v1" / "arena.proto").is_file():
            return candidate
    return None


def runtime_paths() -> tuple[Path, ...]:
    """What bots run on, besides the system: this Python (prefix and base prefix, which
    may live outside /usr, e.g. under ~/.pyenv), the installed ``arena`` package and the
    contract (``contract_dir``, which bots in other languages load). Those directories
    only: a checkout's root also holds results and logs."""
    import arena

    package = Path(arena.__file__).parent
    paths = {Path(sys.prefix), Path(sys.base_prefix), package}
    contract = contract_dir()
    if contract is not None:
        paths.add(contract)
    return tuple(sorted(paths | {p.resolve() for p in paths}))


@functools.cache
def sandbox_problem() -> str | None:
    """Why bubblewrap cannot sandbox bots here (None: it can); probed once per process.

    The probe builds the same kind of sandbox as a seat's and runs ``true`` in it:
    bwrap may be installed yet refused by the kernel (no user namespaces, a container
    without the privileges to mount).
    """
    from arena.bots.seccomp import SeccompUnavailableError, filter_fd
    from arena.bots.users import claim_user

    try:
        true = shutil.which("true") or "/bin/true"
        user = claim_user()
        fd = filter_fd()
        try:
            with tempfile.TemporaryDirectory(prefix="arena-sandbox-probe-") as bot_dir:
                sandbox = Sandbox(
                    bot_dir=Path(bot_dir),
                    socket=None,
                    uid=None if user is None else user.uid,
                    seccomp_fd=fd,
                )
                done = subprocess.run(
                    sandboxed([true], sandbox),
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    timeout=_PROBE_TIMEOUT_S,
                    check=False,
                    pass_fds=(fd,),
                )
        finally:
            os.close(fd)
            if user is not None:
                user.release()
    except (SandboxUnavailableError, SeccompUnavailableError) as error:
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


def _capped_tmpfs(path: Path, size: int, shared: bool) -> list[str]:
    # bwrap makes its mounts as the user who starts it: for a bot that runs as a user of
    # its own, its private tmpfs must be writable by anyone (no one else sees it).
    perms = ["--perms", "1777"] if shared else []
    return [*perms, "--size", str(size), "--tmpfs", str(path)]


def setpriv() -> str:
    return _tool(
        "setpriv", "running bots as users of their own needs setpriv (util-linux); install it"
    )


def _parents(path: Path, bound: list[Path], made: set[Path]) -> list[str]:
    """The directories leading to a mount point, made traversable by anyone (bwrap, run
    as root, would make them 0700, and the bot runs as a user of its own): those not
    already shown by a bound path or made before."""
    args: list[str] = []
    for parent in reversed(path.parents[:-1]):  # outermost first, "/" left out
        if parent in made or any(parent.is_relative_to(b) for b in bound):
            continue
        args += ["--perms", "0755", "--dir", str(parent)]
        made.add(parent)
    return args


def sandboxed(command: Sequence[str], sandbox: Sandbox) -> list[str]:
    """``command`` wrapped in bwrap, as the module's docstring describes.

    Order matters: bwrap applies its options one after another, so what hides (tmpfs
    over hidden paths, /dev/null over masked files) comes after what it hides in.

    As root, bwrap builds the namespaces without a user namespace (one made by root
    would map the bot to root outside) and keeps only the capabilities to change user,
    which ``setpriv`` uses to become ``sandbox.uid`` and then loses with every other.
    """
    size = max(sandbox.workdir_bytes, 4096)
    if sandbox.protocol_fds is not None:
        into, out = sandbox.protocol_fds
        command = [sys.executable, "-I", "-S", "-c", _PROTOCOL_FDS, str(into), str(out), *command]
    args = [bubblewrap(), "--die-with-parent", "--new-session"]
    args += ["--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try"]
    if os.geteuid() != 0:
        args += ["--unshare-user"]
    if not sandbox.network:
        args += ["--unshare-net"]
    args += ["--cap-drop", "ALL"]
    if sandbox.uid is not None:
        command = [
            setpriv(),
            f"--reuid={sandbox.uid}",
            f"--regid={sandbox.uid}",
            "--clear-groups",
            "--no-new-privs",
            "--",
            *command,
        ]
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    bound: list[Path] = []
    for path in SYSTEM_PATHS:
        if path.exists() or path.is_symlink():
            args += _bind_ro(path)
            bound.append(path)
    # The private mounts before the bot's own paths, which may lie under /tmp.
    shared = sandbox.uid is not None
    args += ["--dev", "/dev", *_capped_tmpfs(Path("/dev/shm"), size, shared)]
    args += ["--remount-ro", "/dev"]
    args += ["--proc", "/proc"]
    for path in MASKED_PROC:
        if path.exists():  # the sandbox's /proc has the same system-wide files
            args += ["--ro-bind", "/dev/null", str(path)]
    for path in MASKED_PROC_DIRS:
        if path.is_dir():
            args += ["--tmpfs", str(path), "--remount-ro", str(path)]
    args += _capped_tmpfs(Path("/tmp"), size, shared)
    args += _capped_tmpfs(WORKDIR, size, shared)
    made: set[Path] = {Path("/tmp"), WORKDIR}
    for path in sandbox.runtime:
        if path.exists() and not any(path.is_relative_to(b) for b in bound):
            args += _parents(path, bound, made)
            args += ["--ro-bind", str(path), str(path)]
            bound.append(path)
    # The bot's own files: a seat's private copy, shown where the bot's command expects it.
    inside = sandbox.mount_at or sandbox.bot_dir
    args += _parents(inside, bound, made)
    args += ["--bind" if sandbox.writable else "--ro-bind", str(sandbox.bot_dir), str(inside)]
    bound.append(inside)
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
        args += _parents(sandbox.socket, bound, made)
        args += ["--ro-bind", str(sandbox.socket), str(sandbox.socket)]
    if sandbox.seccomp_fd is not None:
        args += ["--seccomp", str(sandbox.seccomp_fd)]
    # The root itself is bwrap's own uncapped tmpfs: nothing may be written there.
    workdir = inside if sandbox.writable else WORKDIR  # a build works in its bot's copy
    args += ["--remount-ro", "/", "--chdir", str(workdir), "--", *command]
    return args
