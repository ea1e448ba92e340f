"""Built bots: a copy of the bot per version, built there once, in the sandbox, as a bot.

A bot's source directory is never written. ``BotCache.prepare`` copies the files its
version hashes into ``ROOT/VERSION/bot`` (``BotCache.install`` unpacks a shipped archive
there instead, on a cluster worker), checks that they still hash to that version, and runs
the manifest's ``build`` command on them — confined like a seat (``arena.bots.process``):
bubblewrap with only the system, what bots run on and its own copy in view, no network
unless the operator allows it (``--build-network``, never the manifest), the allowlisted
environment, its own cgroup (memory, processes, CPU quota), a user of its own when the
arena is root, the seccomp filter, a wall-time limit, a capped log, and every process it
started killed when it ends.

Its copy is a tmpfs of ``Limits.disk_bytes`` (``--build-disk-mb``) at the path where the
seats will see it: the files come in as a tar on its stdin, and what the build leaves
goes out as a tar on its stdout (``arena.bots.buildbox``), which the arena writes into the
cache as it writes an upload (``arena.bots.tree``: never through a link, within the same
cap, a sparse file at its full size) in place of the source's copy. Nothing the build
does reaches the host's disk any other way. That is what the bot's seats run, each from
a private copy, from then on; the version, a hash of the sources, never moves with a
build, and the **build digest**, the same hash of what was built (``BotSpec
.build_digest``), is recorded with every game and checked against each seat's copy.

Several processes may share one cache: a version is prepared under a file lock, once.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import os
import re
import shlex
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from arena.bots.manifest import (
    BotBuildError,
    BotSpec,
    BotSpecError,
    check_name,
    load_bot,
    read_log_tail,
)
from arena.bots.process import DISK_OPTION, BotProcess, BotStartError, Limits, start_bot
from arena.bots.sandbox import DEFAULT_WORKDIR_BYTES, Sandbox, runtime_paths
from arena.bots.tree import (
    MAX_TREE,
    VERSION_LEN,
    Caps,
    TreeError,
    Writer,
    copy_file,
    extract_tar,
    pack,
    scan,
)

__all__ = [
    "BUILD_LOG",
    "BotCache",
    "BotOptions",
    "BotSource",
    "PrepareError",
    "copy_bot_files",
    "default_cache_root",
    "run_build",
    "run_confined",
    "user_cache_path",
]

_VERSION_RE = re.compile(r"[0-9a-f]{12}")
READY = "ready"  # beside the bot in its version's directory: copied, checked (and built)
BUILD_LOG = "build.log"
BOT_DIR = "bot"  # a directory bot's files, under its version's directory
DEFAULT_BUILD_TIMEOUT_S = 600.0


class PrepareError(RuntimeError):
    """A bot's files cannot be made ready: changed on disk, unreadable, not its version."""


@dataclass(frozen=True)
class BotOptions:
    """How the operator runs bots — their builds and their seats alike: one value that
    every command builds from its options."""

    limits: Limits = field(default_factory=Limits)
    sandbox: bool = True  # in bubblewrap (where it works; else trusted code)
    workdir_bytes: int = DEFAULT_WORKDIR_BYTES  # each sandboxed bot's tmpfs working dir
    pass_env: tuple[str, ...] = ()  # the arena's variables given to bots (--pass-env)
    build: bool = True  # run the manifests' build commands (--no-build: as they are)
    build_network: bool = False  # the host's network for builds that download
    build_timeout_s: float = DEFAULT_BUILD_TIMEOUT_S


def user_cache_path(variable: str, name: str) -> Path:
    """``$variable`` where it is set, else ``schmier-arena/<name>`` in the user's cache
    directory (``$XDG_CACHE_HOME``, ``~/.cache``): where a machine keeps what the arena
    learns or builds once."""
    explicit = os.environ.get(variable)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "schmier-arena" / name


def default_cache_root() -> Path:
    """Where a machine keeps its built bots: ``$ARENA_BOT_CACHE``, else under the user's
    cache directory (``user_cache_path``)."""
    return user_cache_path("ARENA_BOT_CACHE", "bots")


@dataclass(frozen=True)
class BotSource:
    """What ``BotCache`` makes a bot version from: its name and version, the file name of
    a one-file bot (None: a directory), and ``fill``, which writes its files into the path
    it is given (``.../bot`` or ``.../<executable>``)."""

    name: str
    version: str
    executable: str | None
    fill: Callable[[Path], None]


class BotCache:
    """Bots copied (or unpacked), checked and built once per version under ``root``."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or default_cache_root()
        self._ready: dict[tuple[str, bool], BotSpec] = {}
        self._lock = threading.Lock()  # several tables launch on threads

    def prepare(self, spec: BotSpec, options: BotOptions) -> BotSpec:
        """``spec``'s bot ready to run: its per-version copy, built if ``options.build``.

        Raises ``PrepareError`` for files that no longer hash to the version (changed on
        disk since the bot was loaded), ``BotSpecError`` for an unusable manifest and
        ``BotBuildError`` for a build that fails (its log in the version's directory).
        """
        executable = spec.path.name if spec.executable else None

        def fill(target: Path) -> None:
            copy_bot_files(spec.path, target)

        return self._get(BotSource(spec.name, spec.version, executable, fill), options)

    def is_ready(self, spec: BotSpec) -> bool:
        """Whether ``spec``'s version is already copied and built here."""
        return _read_ready(self.root / spec.version)[0] == "built"

    def ready(self, source: BotSource, options: BotOptions) -> BotSpec:
        """The bot ``source`` names, ready: from the cache, or its ``fill`` writes its files,
        then they are checked and built."""
        if not _VERSION_RE.fullmatch(source.version):
            raise PrepareError(f"bot version {source.version!r} is not a version hash")
        check_name(source.name, "bot")
        return self._get(source, options)

    def _get(self, source: BotSource, options: BotOptions) -> BotSpec:
        with self._lock:
            known = self._ready.get((source.version, options.build))
            if known is None:
                with self._locked(source.version):
                    known = self._prepare(source, options)
                self._ready[(source.version, options.build)] = known
        return dataclasses.replace(known, name=source.name)

    @contextlib.contextmanager
    def _locked(self, version: str) -> Iterator[None]:
        """Another process sharing the cache prepares the same version only after us."""
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / f".{version}.lock", "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _prepare(self, source: BotSource, options: BotOptions) -> BotSpec:
        name, version = source.name, source.version
        home = self.root / version
        bot_path = home / (source.executable or BOT_DIR)
        stage, digest = _read_ready(home)
        spec: BotSpec | None = None
        if stage is not None:
            spec = _loaded(bot_path, version)
            if spec.build_digest != digest:
                spec = None  # its files changed since they were prepared: made again
            elif stage == "built" or not options.build:
                return spec
        if spec is None:
            # Whatever an interrupted or changed preparation left is redone from the source.
            shutil.rmtree(home, ignore_errors=True)
            self._fill(source, home)
            spec = _loaded(bot_path, None)
            if spec.version != version:
                shutil.rmtree(home, ignore_errors=True)
                raise PrepareError(
                    f"bot {name}: its files hash to {spec.version}, not to its version "
                    f"{version} (they changed on disk since it was loaded)"
                )
            _write_ready(home, "copied", version)
        if options.build and spec.build is not None:
            # Built where it stays: builds (CMake's among them) record absolute paths.
            run_build(dataclasses.replace(spec, name=name), home / BUILD_LOG, options)
            spec = _loaded(bot_path, version)  # the command may name a built file
            assert spec.build_digest is not None
            _write_ready(home, "built", spec.build_digest)
        return spec

    def _fill(self, source: BotSource, home: Path) -> None:
        """Into a fresh directory beside ``home``, renamed to it once complete."""
        self.root.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{home.name}-", dir=self.root))
        try:
            source.fill(staging / (source.executable or BOT_DIR))
            staging.chmod(0o755)
            staging.rename(home)
        except (OSError, TreeError) as error:
            raise PrepareError(f"bot {source.name}: cannot copy its files: {error}") from None
        finally:
            shutil.rmtree(staging, ignore_errors=True)


def _read_ready(home: Path) -> tuple[str | None, str | None]:
    """(stage, digest) of a version's directory: ("copied" or "built", the digest of the
    files there); (None, None) where nothing (or an older arena's mark) is ready."""
    try:
        stage, _, digest = (home / READY).read_text().strip().partition(" ")
    except OSError:
        return None, None
    if stage in ("copied", "built") and _VERSION_RE.fullmatch(digest):
        return stage, digest
    return None, None


def _write_ready(home: Path, stage: str, digest: str) -> None:
    (home / READY).write_text(f"{stage} {digest}\n")


def copy_bot_files(source: Path, target: Path, caps: Caps = MAX_TREE) -> str:
    """A bot's files into ``target`` (new): exactly those its version hashes, read and
    written as ``arena.bots.tree`` does (never through a link, links kept links, within
    ``caps``); or its one executable. Returns the version of what was copied."""
    if not source.is_dir():
        return copy_file(source, target, caps.bytes).digest.hex()[:VERSION_LEN]
    with Writer(target, caps, links_out=True) as writer:
        return scan(source, caps, into=writer).version


def _loaded(bot_path: Path, version: str | None) -> BotSpec:
    """The cached bot as a spec, its build digest the hash of the files there now. Its
    content was checked against ``version`` when it was copied (None: this is that
    check); a build has since added the files it made."""
    try:
        spec = load_bot(bot_path)
    except BotSpecError as error:
        raise PrepareError(f"a prepared bot is unusable: {error}") from None
    built = dataclasses.replace(spec, build_digest=spec.version)
    return built if version is None else dataclasses.replace(built, version=version)


def run_build(spec: BotSpec, log_path: Path, options: BotOptions) -> None:
    """Run ``spec.build`` on ``spec.directory`` (its per-version copy) as a confined bot;
    what it leaves replaces the copy.

    Sandboxed, the build works on a tmpfs of ``options.limits.disk_bytes`` and what it
    built comes out through ``arena.bots.tree`` (the module's docstring); without the
    sandbox (trusted code) it works in the copy itself, which is then held to the same cap.
    Raises :class:`BotBuildError` with the exit status and the log's tail when the build
    cannot start, fails, runs out of time or leaves what the arena refuses (over the cap);
    whatever it started is killed either way.
    """
    assert spec.build is not None
    from arena.bots.sandbox import sandbox_problem

    directory = spec.directory
    caps = Caps(bytes=options.limits.disk_bytes, option=DISK_OPTION)
    header = f"[arena] build {spec.name}: {shlex.join(spec.build)}\n"
    staging = directory.parent / f".built-{os.getpid()}-{threading.get_ident()}"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        if options.sandbox and sandbox_problem() is None:
            try:
                source = scan(directory, caps)
            except TreeError as error:
                raise BotBuildError(
                    f"build of bot {spec.name!r} cannot start: its own files do not fit its "
                    f"copy: {error}",
                    returncode=None,
                    log_tail="",
                ) from None
            command = [
                sys.executable,
                "-I",
                "-m",
                "arena.bots.buildbox",
                str(directory),
                str(caps.bytes),
                str(caps.entries),
                "--",
                *spec.build,
            ]
            returncode = run_confined(
                spec,
                command,
                feed=lambda stdin: pack(directory, source, stdin),
                into=staging,
                caps=caps,
                options=options,
                log_path=log_path,
                log_header=header,
            )
        else:
            returncode = _build_in_place(spec, options, log_path, header)
            if returncode == 0:
                scan(directory, caps)  # held to the cap the sandbox's filesystem would be
    except BotStartError as error:
        raise BotBuildError(
            f"build of bot {spec.name!r} could not start: {error}",
            returncode=None,
            log_tail=str(error),
        ) from error
    except (TreeError, OSError) as error:
        shutil.rmtree(staging, ignore_errors=True)
        _log(log_path, f"[arena] refused what the build left: {error}")
        raise _failed(spec, log_path, f"left what the arena refuses in its copy: {error}") from None
    if returncode == 0 and staging.exists():
        _replace(directory, staging)
    shutil.rmtree(staging, ignore_errors=True)
    if returncode is None:
        _log(log_path, f"[arena] build timed out after {options.build_timeout_s:g} s")
        raise _failed(spec, log_path, f"timed out after {options.build_timeout_s:g} s")
    if returncode != 0:
        said = [
            line.removeprefix("[arena] ")
            for line in read_log_tail(log_path).splitlines()
            if line.startswith("[arena] ") and not line.startswith("[arena] build ")
        ]
        why = f": {said[-1]}" if said else ""
        raise _failed(spec, log_path, f"failed with exit status {returncode}{why}", returncode)


def _failed(
    spec: BotSpec, log_path: Path, what: str, returncode: int | None = None
) -> BotBuildError:
    """The error of a build that ``what`` (its first line), with its log's tail."""
    tail = read_log_tail(log_path)
    return BotBuildError(
        f"build of bot {spec.name!r} {what} (log: {log_path}):\n{tail}",
        returncode=returncode,
        log_tail=tail,
    )


def _log(log_path: Path, line: str) -> None:
    with contextlib.suppress(OSError), log_path.open("a") as log:
        log.write(line + "\n")


def _replace(directory: Path, built: Path) -> None:
    """``built`` in the place of ``directory`` (its source's copy), the old one removed."""
    old = directory.with_name(f".source-{built.name}")
    directory.rename(old)
    built.rename(directory)
    shutil.rmtree(old, ignore_errors=True)


def _build_in_place(spec: BotSpec, options: BotOptions, log_path: Path, header: str) -> int | None:
    """An unsandboxed build (trusted code) in its copy: its exit status, None if it ran
    out of time."""
    assert spec.build is not None
    process = _start(spec, spec.build, options, log_path, header)
    return _wait(process, time.monotonic() + options.build_timeout_s)


def _start(
    spec: BotSpec,
    command: Sequence[str],
    options: BotOptions,
    log_path: Path,
    log_header: str,
    sandbox: Sandbox | None = None,
) -> BotProcess:
    """A build's process (or a confined one's: ``run_confined``) as a bot of ``spec``, with
    no seat: sandboxed, its stdin and stdout are pipes to the arena."""
    return start_bot(
        spec,
        env={},
        workdir=spec.directory if sandbox is None else log_path.parent,
        log_path=log_path,
        limits=options.limits,
        sandbox=sandbox,
        pass_env=options.pass_env,
        command=command,
        log_header=log_header,
        stdio=sandbox is not None,
    )


def _wait(process: BotProcess, deadline: float) -> int | None:
    """The process's exit status, None at ``deadline``; whatever it left running (background
    jobs, daemons) ends with it either way."""
    while (returncode := process.poll()) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    process.stop(grace=0.0)
    return returncode


def run_confined(
    spec: BotSpec,
    command: Sequence[str],
    *,
    feed: Callable[[IO[bytes]], None],
    into: Path,
    caps: Caps,
    options: BotOptions,
    log_path: Path,
    log_header: str = "",
    links_out: bool = True,
    timeout_s: float | None = None,
) -> int | None:
    """Run ``command`` as ``spec``'s sandboxed process on a tmpfs of ``caps.bytes`` at
    ``spec.directory`` (nothing of the host's disk writable), ``feed`` writing its stdin,
    and write the tar it prints on stdout into ``into`` (new) through a ``Writer`` within
    ``caps`` (absolute links only with ``links_out``). Returns its exit status (None: it
    ran out of ``timeout_s``, by default the build's); ``TreeError`` for what it printed
    that the arena refuses, ``BotStartError`` if it cannot start."""
    sandbox = Sandbox(
        bot_dir=spec.directory,
        socket=None,
        runtime=runtime_paths(),
        workdir_bytes=options.workdir_bytes,
        writable=True,  # it writes its copy: a build's sandbox (and seccomp list)
        network=options.build_network,
        bot_tmpfs_bytes=caps.bytes,
    )
    process = _start(spec, command, options, log_path, log_header, sandbox)
    assert process.protocol_pipes is not None
    process.protocol_taken = True
    stdin, stdout = process.protocol_pipes
    failed: list[BaseException] = []

    def give() -> None:
        # It stopped reading: its own trouble, which its exit status and log tell.
        with contextlib.suppress(OSError, ValueError), stdin:
            feed(stdin)

    def take() -> None:
        try:
            with Writer(into, caps, links_out=links_out) as writer:
                extract_tar(stdout, writer)
            while stdout.read(64 * 1024):  # what follows the archive is not kept
                pass
        except (TreeError, OSError) as error:
            failed.append(error)
            process.stop(grace=0.0)  # it would block on a pipe nobody reads
        finally:
            stdout.close()

    threads = [
        threading.Thread(target=give, daemon=True),
        threading.Thread(target=take, daemon=True),
    ]
    for thread in threads:
        thread.start()
    timeout = options.build_timeout_s if timeout_s is None else timeout_s
    returncode = _wait(process, time.monotonic() + timeout)
    for thread in threads:
        thread.join(timeout=10.0)
    if failed and returncode == 0:  # else it printed nothing, and says why in its log
        raise failed[0]
    return returncode


# What a build's log shows when it wanted the network a build does not have by default: a
# name that did not resolve or a connection that could not be made, as npm, pip, cargo,
# go, git and curl word it.
_NETWORK_ERROR = re.compile(
    r"EAI_AGAIN|ENOTFOUND|ENETUNREACH|ECONNREFUSED|getaddrinfo|name resolution|"
    r"Could not resolve host|Name or service not known|Network is unreachable|"
    r"No route to host|Failed to establish a new connection|network request to|"
    r"dial tcp|Could not connect to|unable to access '?https?://",
    re.IGNORECASE,
)
NETWORK_HINT = (
    "the build's log shows a network error, and builds run without the network unless "
    "the operator gives it: try again with --build-network (or run the download, e.g. "
    "npm ci, in the bot's directory once, so that what it fetched travels with the bot)"
)


def needs_network(log: str, options: BotOptions) -> bool:
    """Whether a failed build's ``log`` shows that it wanted the network it did not have."""
    return not options.build_network and _NETWORK_ERROR.search(log) is not None
