"""Launch a bot as a sandboxed OS process: own session, rlimits, capped log, group-wide stop.

A sandboxed bot runs a private copy of its files (no inode shared with another seat, so no
lock or page-cache state in common, and nothing it could leave for a later match), under
the seccomp filter of ``arena.bots.seccomp``, in cgroups that cap its memory, processes
and CPU together, and, when the arena runs as root, as a user of its own
(``arena.bots.users``).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import dataclasses
import fcntl
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Self

from arena.bots.cgroup import BotCgroup, CpuMeter, join_in_child, owner_tag
from arena.bots.manifest import BotSpec, read_log_tail, resolve_command, versioned_files
from arena.bots.reaper import LEDGER, SEAT_COPY_PREFIX
from arena.bots.sandbox import WORKDIR, Sandbox, contract_dir, sandboxed
from arena.bots.seccomp import filter_fd
from arena.bots.users import BotUser, claim_user

__all__ = [
    "BotProcess",
    "BotStartError",
    "Limits",
    "bot_environment",
    "exit_status",
    "log_summary",
    "start_bot",
]

_GiB = 1024**3
_MiB = 1024**2
_READ_CHUNK = 64 * 1024
# How long stop() waits for the log pipe to hit EOF after SIGKILL. Only a
# process that escaped the group (setsid) can hold it open longer; we do not
# wait for that one.
_READER_JOIN_TIMEOUT = 1.0


# A log's end as a fault's reason gives it: enough lines to show a traceback's last words.
_SUMMARY_LINES = 3
_SUMMARY_LINE_CHARS = 160


class BotStartError(RuntimeError):
    """The bot's command could not be executed (missing binary, bad permissions, ...)."""


@dataclass(frozen=True)
class Limits:
    """Per-bot resource limits; ``None`` leaves the inherited limit in place.

    * ``memory_bytes``: the memory of the whole bot, all its processes together,
      where the machine has a writable memory cgroup (``memory.limit_in_bytes``
      and ``memory.memsw.limit_in_bytes`` on cgroup v1, ``memory.max`` with
      ``memory.swap.max`` = 0 on v2; see ``arena.bots.cgroup``): going over it
      gets a process of the bot killed by the kernel (SIGKILL). Elsewhere it is
      RLIMIT_AS of each process, so a bot's children may together hold more;
      an allocation over it fails (MemoryError) instead. RLIMIT_AS is not set as
      well where the cgroup applies: it caps *virtual* address space, which
      runtimes that reserve large ranges up front (JVM, V8, Go) need far more of
      than they use, while the cgroup counts the memory really held.
    * ``cpu_seconds`` -> RLIMIT_CPU, total CPU time over the bot's life.
    * ``cpu_cores``: the CPU of all the bot's processes together, at most this many cores'
      worth at any time (``cpu.cfs_quota_us`` or ``cpu.max`` of its cgroup, where the
      machine has a writable cpu controller); every bot has the same CPU weight.
    * ``open_files`` -> RLIMIT_NOFILE.
    * ``processes`` -> ``pids.max`` of the bot's own pids cgroup (threads
      count), where the machine has a writable pids hierarchy (see
      ``arena.bots.cgroup``). Not RLIMIT_NPROC: the kernel counts that per
      *user* (and not at all for root), so it would punish bots for the
      arena's other processes.
    * ``log_bytes``: how much of the bot's stdout+stderr is kept on disk.

    Limits can only tighten what the arena itself has: values above the
    current hard limit are clamped to it.
    """

    memory_bytes: int | None = 2 * _GiB
    cpu_seconds: int | None = 600
    cpu_cores: float | None = 1.0
    open_files: int | None = 256
    processes: int | None = 256
    log_bytes: int = 1 * _MiB

    def rlimits(self, address_space: bool = True) -> list[tuple[int, int]]:
        """Return ``(resource, value)`` pairs to apply, clamped to current hard limits.

        ``address_space=False`` leaves RLIMIT_AS alone: for a bot whose memory a cgroup
        limits.
        """
        wanted = [
            (resource.RLIMIT_AS, self.memory_bytes if address_space else None),
            (resource.RLIMIT_CPU, self.cpu_seconds),
            (resource.RLIMIT_NOFILE, self.open_files),
        ]
        pairs: list[tuple[int, int]] = []
        for res, value in wanted:
            if value is None:
                continue
            _, hard = resource.getrlimit(res)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            pairs.append((res, value))
        return pairs


def _load_prctl() -> Callable[[int, int], int] | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    except OSError:  # pragma: no cover - not Linux
        return None
    return getattr(libc, "prctl", None)


_PRCTL = _load_prctl() if sys.platform.startswith("linux") else None
_PR_SET_PDEATHSIG = 1


def _make_preexec(
    pairs: list[tuple[int, int]], cgroup_procs: tuple[str, ...] | None = None
) -> Callable[[], None] | None:
    prctl = _PRCTL
    if not pairs and prctl is None and cgroup_procs is None:
        # Without preexec_fn subprocess can use vfork/posix_spawn, which is
        # faster and safe in a multi-threaded parent.
        return None

    # Runs in the forked child of a possibly multi-threaded parent, so it only
    # calls setrlimit on precomputed values: no allocation-heavy work, no locks.
    def apply_limits() -> None:
        if prctl is not None:
            # If the arena itself dies (even by kill -9), the kernel kills the bot too,
            # so no bot outlives its arena.
            prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if cgroup_procs is not None:
            join_in_child(cgroup_procs)
        for res, value in pairs:
            resource.setrlimit(res, (value, value))

    return apply_limits


def _pump_log(source: IO[bytes], log_path: Path, cap: int) -> None:
    """Copy ``source`` into ``log_path`` up to ``cap`` bytes, then drain to EOF.

    Draining past the cap matters as much as the cap: if nobody read the pipe
    the bot would block on its next write once the pipe buffer filled.
    """
    fd = source.fileno()
    written = 0
    last_byte = b"\n"
    log: IO[bytes] | None
    try:
        log = log_path.open("ab", buffering=0)
    except OSError:
        log = None  # still drain, or the bot blocks on a full pipe
    try:
        while chunk := os.read(fd, _READ_CHUNK):
            if log is None:
                continue
            out = log
            try:
                keep = chunk[: cap - written]
                if keep:
                    out.write(keep)
                    written += len(keep)
                    last_byte = keep[-1:]
                if len(keep) < len(chunk):
                    prefix = "" if last_byte == b"\n" else "\n"
                    out.write(f"{prefix}[arena] log truncated at {cap} bytes\n".encode())
                    out.close()
                    log = None
            except OSError:
                # Disk full or similar: stop logging but keep draining.
                out.close()
                log = None
    finally:
        if log is not None:
            log.close()
        source.close()


class BotProcess:
    """A running (or finished) bot process; create it with :func:`start_bot`.

    The bot is the leader of its own session and process group, so
    :meth:`stop` can signal everything it spawned at once (unless a child
    deliberately left the group with ``setsid``).
    """

    def __init__(
        self,
        spec: BotSpec,
        popen: subprocess.Popen[bytes],
        reader: threading.Thread,
        *,
        workdir: Path,
        log_path: Path,
        cgroup: BotCgroup | None = None,
        user: BotUser | None = None,
        private_copy: Path | None = None,
        protocol_pipes: tuple[IO[bytes], IO[bytes]] | None = None,
    ) -> None:
        self.spec = spec
        self.workdir = workdir
        self.log_path = log_path
        self.cgroup = cgroup  # every process the bot started, where cgroups are available
        self.user = user  # the user id it runs as, held until it is stopped
        self._private_copy = private_copy  # its own copy of its files, removed when it stops
        # Read from the cgroup as the bot is stopped, before the group goes.
        self.memory_peak_bytes: int | None = None  # all its processes together
        self.oom_kills = 0  # its processes the kernel killed for going over memory_bytes
        self.cpu_seconds: float | None = None  # all its processes, where a group counts it
        self._popen = popen
        self._reader = reader
        # A stdio bot's stdin and stdout (the arena's ends): the protocol, never the log.
        self.protocol_pipes = protocol_pipes
        if popen.stderr is not None and popen.stdin is not None and popen.stdout is not None:
            self.protocol_pipes = (popen.stdin, popen.stdout)
        self.protocol_taken = False  # a channel owns (and closes) the protocol pipes
        self._stop_lock = threading.Lock()
        self._stopped = False

    def __repr__(self) -> str:
        return f"<BotProcess {self.spec.name} pid={self.pid} returncode={self.returncode}>"

    @property
    def pid(self) -> int:
        """PID of the bot, which is also its process group and session id."""
        return self._popen.pid

    @property
    def returncode(self) -> int | None:
        """Exit status (negative signal number if killed), or None while running."""
        return self._popen.poll()

    def poll(self) -> int | None:
        """Reap the bot if it exited; return its exit status or None."""
        return self._popen.poll()

    @property
    def cpu_meter(self) -> CpuMeter | None:
        """How long other bots' load kept this one from the CPU, where the kernel counts it."""
        return None if self.cgroup is None else self.cgroup.cpu_meter()

    def log_tail(self, n_bytes: int = 2000) -> str:
        """Return the last ``n_bytes`` of the bot's captured output."""
        return read_log_tail(self.log_path, n_bytes)

    async def wait_log(self, timeout: float) -> None:
        """Wait until all the bot wrote is in its log (its output ended: it exited), at
        most ``timeout`` s, without blocking the event loop."""
        await asyncio.to_thread(self._reader.join, timeout)

    async def wait_exit(self) -> int:
        """Wait for the bot to exit without blocking the event loop.

        Where the kernel has process file descriptors (Linux 5.3), the loop is woken
        once, when the process exits; elsewhere it polls. Either way no executor
        thread is tied up, and cancelling the awaiting task really stops the wait.
        """
        if (code := self._popen.poll()) is not None:
            return code
        try:
            fd = os.pidfd_open(self.pid)
        except (AttributeError, OSError):
            fd = -1
        if fd >= 0:
            loop = asyncio.get_running_loop()
            exited = loop.create_future()
            loop.add_reader(fd, _settle, exited)
            try:
                await exited
            finally:
                loop.remove_reader(fd)
                os.close(fd)
        while (code := self._popen.poll()) is None:
            await asyncio.sleep(0.05)
        return code

    def stop(self, grace: float = 2.0) -> None:
        """Terminate the bot's whole process group and reap the bot.

        SIGTERM to the group, up to ``grace`` seconds for the bot to exit,
        then SIGKILL to the group -- also when the bot had already exited,
        since children it forked may still linger in the group. Idempotent,
        thread-safe, and never raises because something is already gone.
        """
        with self._stop_lock:
            if self._stopped:
                return
            self._stopped = True
            pgid = self._popen.pid
            if self._popen.poll() is None:
                _signal_group(pgid, signal.SIGTERM)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self._popen.wait(timeout=max(grace, 0.0))
            _signal_group(pgid, signal.SIGKILL)
            if self.cgroup is not None:
                # Also the processes that left the group (setsid) but not the cgroup.
                self.cgroup.kill_all()
                self.memory_peak_bytes = self.cgroup.memory_peak()
                self.oom_kills = self.cgroup.oom_kills()
                self.cpu_seconds = self.cgroup.cpu_seconds()
            self._popen.wait()
            if self.protocol_pipes is not None and not self.protocol_taken:
                for pipe in self.protocol_pipes:
                    with contextlib.suppress(OSError):
                        pipe.close()
            # EOF on the log pipe arrives once every group member has died.
            self._reader.join(timeout=_READER_JOIN_TIMEOUT)
            if self.cgroup is not None:
                self.cgroup.remove()
            LEDGER.discard(pgid)
            if self.user is not None:
                self.user.release()
            if self._private_copy is not None:
                shutil.rmtree(self._private_copy, ignore_errors=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    # ESRCH: the group is empty. EPERM: only zombies or processes we may not
    # signal are left; either way there is nothing more we can do.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def bot_environment(
    spec: BotSpec, seat_env: Mapping[str, str], home: Path, pass_env: Sequence[str] = ()
) -> dict[str, str]:
    """The only environment a bot gets: an allowlist, never the arena's whole one.

    ``PATH`` (the arena's, with its own Python's directory first, so that ``python3`` in a
    build or a script is the interpreter the arena and its SDK run on) and ``LANG``,
    ``HOME`` (the bot's working directory), ``ARENA_BOT_DIR``, ``ARENA_PROTO_DIR`` (the
    directory holding the contract, ``arena/v1/arena.proto``), ``PYTHONUNBUFFERED=1``,
    the variables the operator passes (``pass_env``: ``arena run --pass-env NAME``, those
    the arena has set; never a manifest's wish), then ``seat_env`` (``ARENA_ADDRESS``,
    ``ARENA_TOKEN``, ...), which wins. Anything else of the arena's (its gRPC tuning,
    credentials, paths to its database) stays out.
    """
    path = os.environ.get("PATH", os.defpath)
    python_dir = os.path.dirname(sys.executable)
    if python_dir and path.split(os.pathsep)[0] != python_dir:
        path = os.pathsep.join([python_dir, path])
    child = {
        "PATH": path,
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "HOME": str(home),
        "ARENA_BOT_DIR": str(spec.directory),
        "PYTHONUNBUFFERED": "1",
    }
    contract = contract_dir()
    if contract is not None:
        child["ARENA_PROTO_DIR"] = str(contract)
    child |= {name: os.environ[name] for name in pass_env if name in os.environ}
    return child | dict(seat_env)


def private_copy(path: Path) -> Path:
    """A copy of a bot's files (a directory's versioned files, or one executable) in a new
    private directory, for one seat: returns the copy (``<new dir>/bot`` or
    ``<new dir>/<file name>``). The new directory is named after this arena process, so that
    ``arena.bots.reaper`` removes what an arena that died left."""
    holder = Path(tempfile.mkdtemp(prefix=f"{SEAT_COPY_PREFIX}{owner_tag()}-"))
    try:
        if path.is_dir():
            target = holder / "bot"
            target.mkdir(mode=0o755)
            for rel, source in versioned_files(path):
                destination = target / rel
                for parent in reversed(destination.relative_to(target).parents[:-1]):
                    (target / parent).mkdir(mode=0o755, exist_ok=True)
                _copy_entry(source, destination)
            target.chmod(0o755)  # mkdir's mode is masked by the umask
            for root, dirs, _ in os.walk(target):
                for name in dirs:
                    if not os.path.islink(os.path.join(root, name)):
                        os.chmod(os.path.join(root, name), 0o755)
        else:
            target = holder / path.name
            _copy_entry(path.resolve(), target)
    except BaseException:
        shutil.rmtree(holder, ignore_errors=True)
        raise
    return target


def walk_tree(directory: Path) -> Iterator[Path]:
    """``directory`` and everything under it, links as links (never followed)."""
    yield directory
    for root, dirs, files in os.walk(directory):
        for name in dirs + files:
            yield Path(root) / name


def _copy_entry(source: Path, destination: Path) -> None:
    """One file (readable, and executable if it was, by the bot's own user; the holder
    directory, 0700, keeps the host's other users out) or one link, kept a link."""
    if source.is_symlink():
        destination.symlink_to(os.readlink(source))
        return
    shutil.copyfile(source, destination, follow_symlinks=False)
    destination.chmod(0o755 if os.access(source, os.X_OK) else 0o644)


def start_bot(
    spec: BotSpec,
    *,
    env: Mapping[str, str],
    workdir: Path,
    log_path: Path,
    limits: Limits,
    sandbox: Sandbox | None = None,
    pass_env: Sequence[str] = (),
    command: Sequence[str] | None = None,
    log_header: str = "",
    stdio: bool = False,
) -> BotProcess:
    """Launch ``spec.command`` (or ``command``: a build's) with output captured to
    ``log_path``.

    With ``sandbox``, the command runs inside bubblewrap (see ``arena.bots.sandbox``):
    its working directory and HOME are ``WORKDIR``, a capped tmpfs that ends with it,
    and nothing is written to ``workdir``. Its files are a private copy of
    ``sandbox.bot_dir``, shown at that path, unless the sandbox is ``writable`` (a build,
    which writes into the one copy it is given). It runs under the seccomp filter and,
    when the arena is root, as a user of its own. Without, ``workdir`` (created if
    missing) is its working directory and HOME, and stays after it (see
    ``Match.launch``).

    With ``stdio`` (a bot whose ``protocol`` is ``"stdio"``), its standard input and output
    are pipes to the arena (``BotProcess.protocol_pipes``) and only its stderr goes to the
    log (in the sandbox the pipes reach it as other descriptors, ``Sandbox.protocol_fds``);
    otherwise stdin is ``/dev/null`` and stdout and stderr both go to the log.

    The environment is :func:`bot_environment`: ``env`` (the seat's variables) on an
    allowlist, with the operator's ``pass_env``. The log's parent directory is created if
    missing and the log file truncated. Raises :class:`BotStartError` if the command
    cannot be executed.
    """
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log_path.write_bytes(log_header.encode())

    # Resolve again: files the build created did not exist when the
    # manifest was loaded.
    argv = list(resolve_command(spec.command, spec.directory) if command is None else command)
    user: BotUser | None = None
    copy: Path | None = None
    seccomp: int | None = None
    cgroup: BotCgroup | None = None
    # A sandboxed stdio bot's pipes: the bot's ends (passed as fds), the arena's ends.
    inner: tuple[int, ...] = ()
    protocol: tuple[IO[bytes], IO[bytes]] | None = None
    try:
        cgroup = BotCgroup.create(limits.processes, limits.memory_bytes, limits.cpu_cores)
        if sandbox is not None:
            user = claim_user()
            if not sandbox.writable:
                copy = private_copy(sandbox.bot_dir)
            elif user is not None:
                for path in walk_tree(sandbox.bot_dir):  # a build writes into its copy
                    os.lchown(path, user.uid, user.uid)
            seccomp = filter_fd()
            if stdio and not sandbox.writable:  # a seat's protocol (a build's pipes carry files)
                inner, protocol = _protocol_pipes()
            sandbox = dataclasses.replace(
                sandbox,
                bot_dir=copy or sandbox.bot_dir,
                mount_at=sandbox.mount_at or sandbox.bot_dir,
                uid=None if user is None else user.uid,
                seccomp_fd=seccomp,
                protocol_fds=(inner[0], inner[1]) if inner else None,
            )
            argv = sandboxed(argv, sandbox)
            cwd, home = spec.directory, WORKDIR
        else:
            workdir.mkdir(parents=True, exist_ok=True)
            cwd, home = workdir, workdir.resolve()
        child_env = bot_environment(spec, env, home, pass_env)
        piped = stdio and protocol is None  # the pipes are the process's own stdin and stdout
        popen = subprocess.Popen(
            argv,
            cwd=cwd if cwd.is_dir() else None,
            env=child_env,
            stdin=subprocess.PIPE if piped else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if piped else subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
            pass_fds=(*inner, *(() if seccomp is None else (seccomp,))),
            preexec_fn=_make_preexec(
                limits.rlimits(address_space=cgroup is None or not cgroup.limits_memory),
                cgroup.procs_files if cgroup is not None else None,
            ),
        )
    except (OSError, subprocess.SubprocessError) as exc:
        message = f"cannot start bot {spec.name!r} ({argv[0]}): {exc}"
        log_path.write_text(f"[arena] {message}\n")
        if cgroup is not None:
            cgroup.remove()
        if user is not None:
            user.release()
        if copy is not None:
            shutil.rmtree(copy.parent, ignore_errors=True)
        for pipe in protocol or ():
            pipe.close()
        raise BotStartError(message) from exc
    finally:
        if seccomp is not None:
            os.close(seccomp)  # bubblewrap has its own copy, and reads it at once
        for fd in inner:
            os.close(fd)  # the bot's ends: the child has them

    logged = popen.stderr if popen.stderr is not None else popen.stdout
    assert logged is not None
    reader = threading.Thread(
        target=_pump_log,
        args=(logged, log_path, max(limits.log_bytes, 0)),
        name=f"bot-log-{spec.name}-{popen.pid}",
        daemon=True,
    )
    reader.start()
    if cgroup is None:  # a cgroup names its owner; otherwise the ledger must (arena.bots.reaper)
        LEDGER.add(popen.pid)
    return BotProcess(
        spec,
        popen,
        reader,
        workdir=workdir,
        log_path=log_path,
        cgroup=cgroup,
        user=user,
        private_copy=None if copy is None else copy.parent,
        protocol_pipes=protocol,
    )


def _protocol_pipes() -> tuple[tuple[int, int], tuple[IO[bytes], IO[bytes]]]:
    """Two pipes for a sandboxed stdio bot: its ends (stdin's read end, stdout's write end,
    never fds 0-2, which the child's own stdio takes) and the arena's ends, as files."""
    stdin_read, stdin_write = os.pipe()
    stdout_read, stdout_write = os.pipe()
    inner = []
    for fd in (stdin_read, stdout_write):
        if fd < 3:  # only where the arena itself runs without a stdin or stdout
            moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
            os.close(fd)
            fd = moved
        inner.append(fd)
    # Buffered, as subprocess's own pipes are: a writer through the file object writes all.
    return (inner[0], inner[1]), (open(stdin_write, "wb"), open(stdout_read, "rb"))


def exit_status(code: int) -> str:
    """How a process ended, in words: "exited with status 1", "was killed by SIGKILL"."""
    if code >= 0:
        return f"exited with status {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    return f"was killed by {name}"


def log_summary(process: BotProcess) -> str:
    """The last lines the bot wrote (not the arena's own) and where its whole log is, for
    a fault's reason: a bot that failed to start says why there, in its own words."""
    lines = [
        line.strip()
        for line in process.log_tail().splitlines()
        if line.strip() and not line.startswith("[arena]")
    ]
    tail = " | ".join(line[:_SUMMARY_LINE_CHARS] for line in lines[-_SUMMARY_LINES:])
    said = f"its log ends: {tail}" if tail else "it wrote nothing"
    return f"{said}; log: {process.log_path}"
