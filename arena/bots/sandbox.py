"""Running a bot inside bubblewrap: a private capped home, the system read-only, one socket.

A sandboxed bot sees only: its own fresh working directory (``WORKDIR``, also its HOME: a
size-capped tmpfs, gone when the bot ends), its own code read-only (a seat's private copy
of it: no file of it is shared with another seat), the system read-only (``/usr``,
``/etc``, ...), what bots run on read-only (this Python's prefixes, the installed
``arena`` package, the contract's ``proto/``), a private ``/tmp`` and ``/dev/shm`` (capped
the same way), a minimal ``/dev``, a ``/proc`` of a few snapshots (``PROC_SHOWN``: no
procfs, so no process's files, its own included), and the referee socket of its own seat.
Its processes have a PID namespace of their own. No network (its own empty network namespace), no
capabilities, no ``/sys`` (other bots' cgroup files there would be a channel between
partners), nothing of other seats, other matches, the results database, the registry or
logs. Every bot process runs under the seccomp filter of ``arena.bots.seccomp`` and, when
the arena runs as root, as an unprivileged user of its own (``arena.bots.users``).

A build (``arena.bots.build``) runs in the same sandbox with no socket, its copy of the
bot's directory a size-capped tmpfs of its own (``bot_tmpfs_bytes``: its files come in
and go out as streams); the operator may give builds the network.

What it does not protect against: covert channels through the shared CPU, memory and
timing (docs/SECURITY.md gives their measured bandwidth), a kernel exploit,
or a bot reading what every bot may read anyway (the system's files).
"""

from __future__ import annotations

import atexit
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
# /proc by allowlist: a seat's /proc is a read-only tmpfs holding these machine files only,
# each a snapshot taken once by the arena (or made from the seat's own limits), so nothing a
# seat reads there changes while bots run. No procfs at all: its per-process files tell of
# the whole machine, and a sandbox cannot hide one file in every process's directory
# (/proc/self/smaps, numa_maps and pagemap say whether another process on the machine maps a
# page of a system file; fdinfo shows an eventfd's number from a machine-wide allocator,
# stat the CPU a process last ran on, status its context switches, net/ machine-wide socket
# figures). Everything else of the real /proc (locks, uptime, loadavg, stat, pressure, the
# kernel's key lists, and each process's directory, /proc/self included) does not exist.
PROC_SHOWN = {
    "cpuinfo": "a snapshot: the CPU's model and features (Node's os.cpus, the JVM)",
    "meminfo": "made from the seat's memory limit: Node sizes its heap by MemTotal",
    "filesystems": "a snapshot: the filesystems the kernel knows (libmount, libselinux)",
    "sys": "a snapshot of the few settings runtimes read (PROC_SYS_SHOWN); nothing else",
}
# Settings under /proc/sys a runtime reads, set by root only, snapshot when the arena starts.
PROC_SYS_SHOWN = {
    "kernel/cap_last_cap": "setpriv (libcap-ng) counts the capabilities it drops",
    "kernel/ngroups_max": "glibc's sysconf(_SC_NGROUPS_MAX)",
    "kernel/osrelease": "the kernel's version (as uname)",
    "kernel/ostype": "the kernel's name (as uname)",
    "kernel/pid_max": "runtimes size process tables",
    "kernel/threads-max": "runtimes size thread pools",
    "vm/overcommit_memory": "glibc's malloc trims its heaps by it",
    "vm/max_map_count": "runtimes (V8, the JVM) bound their mappings",
    "net/core/somaxconn": "Go's listen backlog",
}
TRUSTED_LINE = (
    "bots run without a sandbox and are trusted code: they can read, signal and connect "
    "to each other and to the arena"
)
_PROBE_TIMEOUT_S = 10.0
_PROC_TMPFS_BYTES = 64 * 1024  # /proc holds mount points only: the snapshots are bound


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
    # With ``writable``, instead of binding ``bot_dir``: an empty tmpfs of this size at
    # ``mount_at`` (a build's copy on a capped filesystem; its files arrive and leave as
    # streams, arena.bots.build.run_confined).
    bot_tmpfs_bytes: int | None = None
    network: bool = False  # the host's network (builds, when the operator allows it)
    uid: int | None = None  # run as this unprivileged user (the arena runs as root)
    seccomp_fd: int | None = None  # the filter bubblewrap installs (arena.bots.seccomp)
    memory_bytes: int | None = None  # its memory limit, which its /proc/meminfo tells
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


_KiB = 1024


def _meminfo(memory_bytes: int) -> str:
    """A /proc/meminfo that tells the seat its own limit, all of it free, and nothing of
    the machine (Node reads MemTotal and MemAvailable; other fields, zero, keep parsers
    that expect them)."""
    kib = memory_bytes // _KiB
    fields = {"MemTotal": kib, "MemFree": kib, "MemAvailable": kib}
    for name in ("Buffers", "Cached", "SwapCached", "Active", "Inactive", "SwapTotal"):
        fields[name] = 0
    for name in ("SwapFree", "Dirty", "Writeback", "AnonPages", "Mapped", "Shmem", "Slab"):
        fields[name] = 0
    return "".join(f"{name + ':':<16}{value:>8} kB\n" for name, value in fields.items())


@functools.cache
def machine_files(memory_bytes: int | None) -> Path:
    """The directory of the machine files a seat's /proc shows (``PROC_SHOWN``): snapshots
    taken now, and a meminfo made from ``memory_bytes`` (None: the machine's total, still
    all free). Made once per process and limit, removed when the arena exits (or by the
    reaper, after an arena that died: it is named as a seat's copy is)."""
    from arena.bots.cgroup import owner_tag
    from arena.bots.reaper import SEAT_COPY_PREFIX

    root = Path(tempfile.mkdtemp(prefix=f"{SEAT_COPY_PREFIX}{owner_tag()}-proc-"))
    root.chmod(0o755)
    atexit.register(shutil.rmtree, root, True)
    for name in ("cpuinfo", "filesystems"):
        _snapshot(Path("/proc") / name, root / name)
    for rel in PROC_SYS_SHOWN:
        _snapshot(Path("/proc/sys") / rel, root / "sys" / rel)
    if memory_bytes is None:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        memory_bytes = total if total > 0 else 0
    (root / "meminfo").write_text(_meminfo(memory_bytes))
    (root / "meminfo").chmod(0o444)
    return root


def _snapshot(source: Path, target: Path) -> None:
    """A copy of ``source`` at ``target``, readable by anyone; nothing where it cannot be read."""
    try:
        data = source.read_bytes()
    except OSError:
        return
    target.parent.mkdir(parents=True, exist_ok=True)  # bound file by file: modes do not matter
    target.write_bytes(data)
    target.chmod(0o444)


def _proc_allowlist(memory_bytes: int | None) -> list[str]:
    """bwrap options that make the sandbox's /proc a read-only tmpfs holding ``PROC_SHOWN``
    (snapshots bound file by file) and nothing else: no procfs, so no process's files."""
    shown = machine_files(memory_bytes)
    args = ["--perms", "0755", "--size", str(_PROC_TMPFS_BYTES), "--tmpfs", "/proc"]
    made: set[Path] = set()
    files = [name for name in PROC_SHOWN if name != "sys"] + [f"sys/{r}" for r in PROC_SYS_SHOWN]
    for rel in files:
        if not (shown / rel).is_file():
            continue
        for parent in reversed(Path(rel).parents[:-1]):  # traversable by the bot's own user
            if parent not in made:
                args += ["--perms", "0755", "--dir", str(Path("/proc") / parent)]
                made.add(parent)
        args += ["--ro-bind", str(shown / rel), str(Path("/proc") / rel)]
    return [*args, "--remount-ro", "/proc"]


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
    args += _proc_allowlist(sandbox.memory_bytes)
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
    if sandbox.bot_tmpfs_bytes is not None:
        args += _capped_tmpfs(inside, max(sandbox.bot_tmpfs_bytes, 4096), shared)
    else:
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
    # A build works in its bot's copy.
    workdir = inside if sandbox.writable or sandbox.bot_tmpfs_bytes is not None else WORKDIR
    args += ["--remount-ro", "/", "--chdir", str(workdir), "--", *command]
    return args
