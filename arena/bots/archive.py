"""Bots that travel by content: packed into an archive named by their version, and on any
machine unpacked, checked against that version and built once, in a cache.

A machine that plays a bot it has no copy of (a cluster worker) needs neither the bot's
source tree nor a shared filesystem: ``pack_bot`` puts exactly the files the version hashes
(``versioned_files``: no build outputs, caches or logs) into a gzip'd tar, and
``BotCache.install`` unpacks it into ``ROOT/VERSION/``, refuses it unless its content
hashes to that version, runs the manifest's build command there once, and marks it ready.
Every later match of that version on the machine starts at once from the cache. Several
processes may share one cache: a version is installed under a file lock.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import io
import os
import re
import shutil
import tarfile
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from arena.bots.manifest import (
    MANIFEST_NAME,
    BotSpec,
    BotSpecError,
    build_bot,
    check_name,
    compute_version,
    load_bot,
    versioned_files,
)

__all__ = ["ArchiveError", "BotArchive", "BotCache", "default_cache_root", "pack_bot"]

_VERSION_RE = re.compile(r"[0-9a-f]{12}")
READY = "ready"  # beside the bot in its version's directory: unpacked, checked and built
BUILD_LOG = "build.log"
BOT_DIR = "bot"  # a directory bot's files, under its version's directory


class ArchiveError(RuntimeError):
    """A bot archive that cannot be unpacked, or whose content is not its version."""


@dataclass(frozen=True)
class BotArchive:
    """One bot version's files, packed; ``executable`` names the file of a one-file bot."""

    name: str
    version: str
    data: bytes  # gzip'd tar of the versioned files, in a fixed order
    executable: str | None = None  # a one-file bot: its file name (None: a directory bot)

    def __repr__(self) -> str:  # not the bytes: task listings and errors print it
        return f"BotArchive({self.name}@{self.version}, {len(self.data)} bytes)"


def pack_bot(spec: BotSpec) -> BotArchive:
    """The files that make ``spec``'s version, as one archive (the same bytes each time).

    Raises ``ArchiveError`` if they no longer hash to it (the bot changed on disk since it
    was loaded): what is shipped is always what its label says.
    """
    buffer = io.BytesIO()
    executable: str | None = None
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as tar:
        if _holds_version(spec.directory, spec):
            for rel, full in versioned_files(spec.directory):
                _add(tar, rel, full)
        elif spec.command and _holds_version(Path(spec.command[0]), spec):
            path = Path(spec.command[0])
            executable = path.name
            _add(tar, executable, path, follow=True)
        else:
            raise ArchiveError(
                f"bot {spec.name}: its files no longer hash to its version {spec.version} "
                "(it changed on disk since it was loaded)"
            )
    return BotArchive(spec.name, spec.version, buffer.getvalue(), executable)


def _holds_version(path: Path, spec: BotSpec) -> bool:
    """Whether ``path`` is the bot: its manifest's directory, or its one executable file."""
    if path.is_dir() and not (path / MANIFEST_NAME).is_file():
        return False
    try:
        return (path.is_dir() or path.is_file()) and compute_version(path) == spec.version
    except OSError:
        return False


def _add(tar: tarfile.TarFile, name: str, path: Path, follow: bool = False) -> None:
    """One member with no owner or time in it, so that equal content packs to equal bytes."""
    info = tarfile.TarInfo(name)
    info.mtime = 0
    if path.is_symlink() and not follow:
        # Kept a link, never the target's bytes: a link out of the bot's directory must not
        # ship a file of the packing machine (it is refused on unpacking instead).
        info.type = tarfile.SYMTYPE
        info.linkname = os.readlink(path)
        info.mode = 0o777
        tar.addfile(info)
        return
    with path.open("rb") as source:
        content = source.read()
    info.size = len(content)
    info.mode = 0o755 if os.access(path, os.X_OK) else 0o644
    tar.addfile(info, io.BytesIO(content))


def default_cache_root() -> Path:
    """Where a machine keeps the bots shipped to it: ``$ARENA_BOT_CACHE``, else under the
    user's cache directory (``$XDG_CACHE_HOME``, ``~/.cache``)."""
    explicit = os.environ.get("ARENA_BOT_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "schmier-arena" / "bots"


class BotCache:
    """Shipped bots unpacked, checked and built once per version under ``root``."""

    def __init__(self, root: Path, build_timeout: float = 600.0) -> None:
        self.root = root
        self.build_timeout = build_timeout
        self._installed: dict[tuple[str, bool], BotSpec] = {}
        self._lock = threading.Lock()  # a worker plays several tables on threads

    def install(self, archive: BotArchive, build: bool = True) -> BotSpec:
        """``archive``'s bot, runnable here: from the cache, or unpacked, checked and built.

        Raises ``ArchiveError`` for an archive that is not its version, ``BotSpecError`` for
        an unusable manifest and ``BotBuildError`` (its log in the version's directory) for
        a build that fails, as a local build failure does.
        """
        if not _VERSION_RE.fullmatch(archive.version):
            raise ArchiveError(f"bot archive version {archive.version!r} is not a version hash")
        check_name(archive.name, "bot archive")
        with self._lock:
            known = self._installed.get((archive.version, build))
            if known is None:
                with self._locked(archive.version):
                    known = self._install(archive, build)
                self._installed[(archive.version, build)] = known
        return dataclasses.replace(known, name=archive.name)

    @contextlib.contextmanager
    def _locked(self, version: str) -> Iterator[None]:
        """Another process sharing the cache installs the same version only after us."""
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / f".{version}.lock", "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _install(self, archive: BotArchive, build: bool) -> BotSpec:
        home = self.root / archive.version
        bot_path = home / (archive.executable or BOT_DIR)
        ready = home / READY
        if ready.exists():
            spec = _loaded(bot_path, archive.version)
            if ready.read_text() == "built" or not build:
                return spec
        else:
            # Whatever an interrupted install left is redone from the archive.
            shutil.rmtree(home, ignore_errors=True)
            self._unpack(archive, home)
            spec = _loaded(bot_path, None)
            if spec.version != archive.version:
                shutil.rmtree(home, ignore_errors=True)
                raise ArchiveError(
                    f"bot {archive.name}: the shipped files hash to {spec.version}, "
                    f"not to its version {archive.version}"
                )
            ready.write_text("unpacked")
        if build and spec.build is not None:
            # Built where it stays: builds (CMake's among them) record absolute paths.
            build_bot(spec, home / BUILD_LOG, timeout=self.build_timeout)
            ready.write_text("built")
            spec = _loaded(bot_path, archive.version)  # the command may name a built file
        return spec

    def _unpack(self, archive: BotArchive, home: Path) -> None:
        """Into a fresh directory beside ``home``, renamed to it once complete."""
        self.root.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{archive.version}-", dir=self.root))
        target = staging / (archive.executable or BOT_DIR)
        try:
            with tarfile.open(fileobj=io.BytesIO(archive.data), mode="r:gz") as tar:
                if archive.executable is not None:
                    names = tar.getnames()
                    if names != [archive.executable]:
                        raise ArchiveError(
                            f"bot {archive.name}: a one-file archive holds {names!r}"
                        )
                    tar.extractall(staging, filter="data")
                    target.chmod(0o755)
                else:
                    # The data filter refuses absolute names, '..', devices and links
                    # that lead out of the directory.
                    tar.extractall(target, filter="data")
            staging.rename(home)
        except (tarfile.TarError, OSError) as error:
            raise ArchiveError(f"bot {archive.name}: cannot unpack its archive: {error}") from None
        finally:
            shutil.rmtree(staging, ignore_errors=True)


def _loaded(bot_path: Path, version: str | None) -> BotSpec:
    """The cached bot as a spec. Its content was checked against ``version`` when it was
    unpacked (None: this is that check); a build may since have added files that the
    version does not cover."""
    try:
        spec = load_bot(bot_path)
    except BotSpecError as error:
        raise ArchiveError(f"a shipped bot is unusable: {error}") from None
    return spec if version is None else dataclasses.replace(spec, version=version)
