"""Launch a bot as a sandboxed OS process: own session, rlimits, capped log, group-wide stop."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import os
import resource
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Self

from arena.bots.cgroup import BotCgroup, join_in_child
from arena.bots.manifest import BotSpec, read_log_tail, resolve_command
from arena.bots.reaper import LEDGER
from arena.bots.sandbox import WORKDIR, Sandbox, sandboxed

__all__ = [
    "BotProcess",
    "BotStartError",
    "Limits",
    "bot_environment",
    "start_bot",
]

_GiB = 1024**3
_MiB = 1024**2
_READ_CHUNK = 64 * 1024
# How long stop() waits for the log pipe to hit EOF after SIGKILL. Only a
# process that escaped the group (setsid) can hold it open longer; we do not
# wait for that one.
_READER_JOIN_TIMEOUT = 1.0


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
    ) -> None:
        self.spec = spec
        self.workdir = workdir
        self.log_path = log_path
        self.cgroup = cgroup  # every process the bot started, where cgroups are available
        # Read from the cgroup as the bot is stopped, before the group goes.
        self.memory_peak_bytes: int | None = None  # all its processes together
        self.oom_kills = 0  # its processes the kernel killed for going over memory_bytes
        self.cpu_seconds: float | None = None  # all its processes, where a group counts it
        self._popen = popen
        self._reader = reader
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

    def log_tail(self, n_bytes: int = 2000) -> str:
        """Return the last ``n_bytes`` of the bot's captured output."""
        return read_log_tail(self.log_path, n_bytes)

    async def wait_exit(self) -> int:
        """Wait for the bot to exit without blocking the event loop.

        Polls instead of using an executor thread so cancelling the awaiting
        task really stops the wait and ties up no thread.
        """
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
            # EOF on the log pipe arrives once every group member has died.
            self._reader.join(timeout=_READER_JOIN_TIMEOUT)
            if self.cgroup is not None:
                self.cgroup.remove()
            LEDGER.discard(pgid)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    # ESRCH: the group is empty. EPERM: only zombies or processes we may not
    # signal are left; either way there is nothing more we can do.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def bot_environment(spec: BotSpec, seat_env: Mapping[str, str], home: Path) -> dict[str, str]:
    """The only environment a bot gets: an allowlist, never the arena's whole one.

    ``PATH`` and ``LANG`` (from the arena's), ``HOME`` (the bot's working directory),
    ``ARENA_BOT_DIR``, ``PYTHONUNBUFFERED=1``, the variables the manifest names in
    ``env`` (those the arena has set), then ``seat_env`` (``ARENA_ADDRESS``,
    ``ARENA_TOKEN``, ...), which wins. Anything else of the arena's (its gRPC tuning,
    credentials, paths to its database) stays out.
    """
    child = {
        "PATH": os.environ.get("PATH", os.defpath),
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "HOME": str(home),
        "ARENA_BOT_DIR": str(spec.directory),
        "PYTHONUNBUFFERED": "1",
    }
    child |= {name: os.environ[name] for name in spec.env if name in os.environ}
    return child | dict(seat_env)


def start_bot(
    spec: BotSpec,
    *,
    env: Mapping[str, str],
    workdir: Path,
    log_path: Path,
    limits: Limits,
    sandbox: Sandbox | None = None,
) -> BotProcess:
    """Launch ``spec.command`` with output captured to ``log_path``.

    With ``sandbox``, the command runs inside bubblewrap (see ``arena.bots.sandbox``):
    its working directory and HOME are ``WORKDIR``, a capped tmpfs that ends with it,
    and nothing is written to ``workdir``. Without, ``workdir`` (created if missing) is
    its working directory and HOME, and stays after it (see ``Match.launch``).

    The environment is :func:`bot_environment`: ``env`` (the seat's variables) on an
    allowlist. The log's parent directory is created if missing and the log file
    truncated. Raises :class:`BotStartError` if the command cannot be executed.
    """
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log_path.write_bytes(b"")

    # Resolve again: files the build created did not exist when the
    # manifest was loaded.
    command = list(resolve_command(spec.command, spec.directory))
    cgroup = BotCgroup.create(limits.processes, limits.memory_bytes)
    if sandbox is not None:
        command = sandboxed(command, sandbox)
        cwd, home = spec.directory, WORKDIR
    else:
        workdir.mkdir(parents=True, exist_ok=True)
        cwd, home = workdir, workdir.resolve()
    child_env = bot_environment(spec, env, home)
    try:
        popen = subprocess.Popen(
            command,
            cwd=cwd,
            env=child_env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
            preexec_fn=_make_preexec(
                limits.rlimits(address_space=cgroup is None or not cgroup.limits_memory),
                cgroup.procs_files if cgroup is not None else None,
            ),
        )
    except (OSError, subprocess.SubprocessError) as exc:
        message = f"cannot start bot {spec.name!r} ({command[0]}): {exc}"
        log_path.write_text(f"[arena] {message}\n")
        if cgroup is not None:
            cgroup.remove()
        raise BotStartError(message) from exc

    assert popen.stdout is not None
    reader = threading.Thread(
        target=_pump_log,
        args=(popen.stdout, log_path, max(limits.log_bytes, 0)),
        name=f"bot-log-{spec.name}-{popen.pid}",
        daemon=True,
    )
    reader.start()
    if cgroup is None:  # a cgroup names its owner; otherwise the ledger must (arena.bots.reaper)
        LEDGER.add(popen.pid)
    return BotProcess(spec, popen, reader, workdir=workdir, log_path=log_path, cgroup=cgroup)
