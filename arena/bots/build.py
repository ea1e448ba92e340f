"""Built bots: a copy of the bot per version, built there once, in the sandbox, as a bot.

A bot's source directory is never written. ``BotCache.prepare`` copies the files its
version hashes into ``ROOT/VERSION/bot`` (``BotCache.install`` unpacks a shipped archive
there instead, on a cluster worker), checks that they still hash to that version, and runs
the manifest's ``build`` command in that copy — confined like a seat (``arena.bots.process``):
bubblewrap with only the system, what bots run on and its own copy (writable) in view, no
network unless the operator allows it (``--build-network``, never the manifest), the
allowlisted environment, its own cgroup (memory, processes, CPU quota), a user of its own
when the arena is root, the seccomp filter, a wall-time limit, a capped log, and every
process it started killed when it ends. What it leaves there is what the bot's seats run,
each from a private copy, from then on; the version, a hash of the sources, never moves
with a build.

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
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from arena.bots.manifest import (
    BotBuildError,
    BotSpec,
    BotSpecError,
    check_name,
    load_bot,
    read_log_tail,
    versioned_files,
)
from arena.bots.process import BotStartError, Limits, start_bot, walk_tree
from arena.bots.sandbox import DEFAULT_WORKDIR_BYTES, Sandbox, runtime_paths

__all__ = [
    "BUILD_LOG",
    "BotCache",
    "BotOptions",
    "BotSource",
    "PrepareError",
    "copy_bot_files",
    "default_cache_root",
    "run_build",
    "take_back",
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
        try:
            return (self.root / spec.version / READY).read_text() == "built"
        except OSError:
            return False

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
        ready = home / READY
        if ready.exists():
            spec = _loaded(bot_path, version)
            if ready.read_text() == "built" or not options.build:
                return spec
        else:
            # Whatever an interrupted preparation left is redone from the source.
            shutil.rmtree(home, ignore_errors=True)
            self._fill(source, home)
            spec = _loaded(bot_path, None)
            if spec.version != version:
                shutil.rmtree(home, ignore_errors=True)
                raise PrepareError(
                    f"bot {name}: its files hash to {spec.version}, not to its version "
                    f"{version} (they changed on disk since it was loaded)"
                )
            ready.write_text("copied")
        if options.build and spec.build is not None:
            # Built where it stays: builds (CMake's among them) record absolute paths.
            run_build(dataclasses.replace(spec, name=name), home / BUILD_LOG, options)
            ready.write_text("built")
            spec = _loaded(bot_path, version)  # the command may name a built file
        return spec

    def _fill(self, source: BotSource, home: Path) -> None:
        """Into a fresh directory beside ``home``, renamed to it once complete."""
        self.root.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{home.name}-", dir=self.root))
        try:
            source.fill(staging / (source.executable or BOT_DIR))
            staging.chmod(0o755)
            staging.rename(home)
        except OSError as error:
            raise PrepareError(f"bot {source.name}: cannot copy its files: {error}") from None
        finally:
            shutil.rmtree(staging, ignore_errors=True)


def copy_bot_files(source: Path, target: Path) -> None:
    """A bot's files into ``target`` (new): exactly those its version hashes, links kept
    links; or its one executable."""
    if not source.is_dir():
        shutil.copy2(source, target)
        target.chmod(0o755)
        return
    target.mkdir()
    for rel, full in versioned_files(source):
        destination = target / rel
        destination.parent.mkdir(parents=True, exist_ok=True)
        if full.is_symlink():
            destination.symlink_to(os.readlink(full))
        else:
            shutil.copy2(full, destination, follow_symlinks=False)


def _loaded(bot_path: Path, version: str | None) -> BotSpec:
    """The cached bot as a spec. Its content was checked against ``version`` when it was
    copied (None: this is that check); a build has since added the files it made."""
    try:
        spec = load_bot(bot_path)
    except BotSpecError as error:
        raise PrepareError(f"a prepared bot is unusable: {error}") from None
    return spec if version is None else dataclasses.replace(spec, version=version)


def run_build(spec: BotSpec, log_path: Path, options: BotOptions) -> None:
    """Run ``spec.build`` in ``spec.directory`` (its per-version copy) as a confined bot.

    Raises :class:`BotBuildError` with the exit status and the log's tail when the build
    cannot start, fails or runs out of time; whatever it started is killed either way.
    """
    assert spec.build is not None
    from arena.bots.sandbox import sandbox_problem

    sandboxed = options.sandbox and sandbox_problem() is None
    directory = spec.directory
    header = f"[arena] build {spec.name}: {shlex.join(spec.build)}\n"
    try:
        try:
            process = start_bot(
                spec,
                env={},
                workdir=directory,
                log_path=log_path,
                limits=options.limits,
                sandbox=(
                    Sandbox(
                        bot_dir=directory,
                        socket=None,
                        runtime=runtime_paths(),
                        workdir_bytes=options.workdir_bytes,
                        writable=True,
                        network=options.build_network,
                    )
                    if sandboxed
                    else None
                ),
                pass_env=options.pass_env,
                command=spec.build,
                log_header=header,
            )
        except BotStartError as error:
            raise BotBuildError(
                f"build of bot {spec.name!r} could not start: {error}",
                returncode=None,
                log_tail=str(error),
            ) from error
        deadline = time.monotonic() + options.build_timeout_s
        while (returncode := process.poll()) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        # Whatever the build left running (background jobs, daemons) ends with it.
        process.stop(grace=0.0)
    finally:
        if sandboxed and os.geteuid() == 0:
            take_back(directory)
    if returncode is None:
        with contextlib.suppress(OSError), log_path.open("a") as log:
            log.write(f"[arena] build timed out after {options.build_timeout_s:g} s\n")
        tail = read_log_tail(log_path)
        raise BotBuildError(
            f"build of bot {spec.name!r} timed out after {options.build_timeout_s:g} s "
            f"(log: {log_path}):\n{tail}",
            returncode=None,
            log_tail=tail,
        )
    if returncode != 0:
        tail = read_log_tail(log_path)
        raise BotBuildError(
            f"build of bot {spec.name!r} failed with exit status {returncode} "
            f"(log: {log_path}):\n{tail}",
            returncode=returncode,
            log_tail=tail,
        )


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


def take_back(directory: Path) -> None:
    """After a build that ran as a user of its own: the copy belongs to the arena's user
    again, readable by all, writable by none but the owner, with no set-user-id bit, so
    that no bot's user owns or can change a file that a seat will run."""
    for path in walk_tree(directory):
        os.lchown(path, os.geteuid(), os.getegid())
        if not path.is_symlink():
            mode = path.lstat().st_mode & 0o755 | 0o444
            path.chmod(mode | 0o111 if path.is_dir() else mode)
