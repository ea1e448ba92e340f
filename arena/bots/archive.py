"""Bots that travel by content: packed into an archive named by their version, and on any
machine unpacked, checked against that version and built once, in its bot cache.

A machine that plays a bot it has no copy of (a cluster worker) needs neither the bot's
source tree nor a shared filesystem: ``pack_bot`` puts exactly the files the version hashes
(``versioned_files``) into a gzip'd tar, and ``install`` unpacks it into the machine's
``BotCache`` (``arena.bots.build``), which refuses it unless its content hashes to that
version and builds it there once, in the sandbox, as it does a local bot. Every later
match of that version on the machine starts at once from the cache.
"""

from __future__ import annotations

import io
import os
import re
import tarfile
from dataclasses import dataclass
from pathlib import Path

from arena.bots.build import BotCache, BotOptions, BotSource, PrepareError
from arena.bots.manifest import (
    MANIFEST_NAME,
    BotSpec,
    check_name,
    compute_version,
    versioned_files,
)

__all__ = ["ArchiveError", "BotArchive", "install", "pack_bot"]

_VERSION_RE = re.compile(r"[0-9a-f]{12}")


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
        if not spec.executable and _holds_version(spec.directory, spec):
            for rel, full in versioned_files(spec.directory):
                _add(tar, rel, full)
        elif spec.executable and _holds_version(spec.path, spec):
            executable = spec.path.name
            _add(tar, executable, spec.path, follow=True)
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


def install(cache: BotCache, archive: BotArchive, options: BotOptions) -> BotSpec:
    """``archive``'s bot, runnable here: from ``cache``, or unpacked, checked and built.

    Raises ``ArchiveError`` for an archive that cannot be unpacked or is not its version,
    and ``BotBuildError`` (its log in the version's directory) for a build that fails, as
    a local build failure does.
    """
    if not _VERSION_RE.fullmatch(archive.version):
        raise ArchiveError(f"bot archive version {archive.version!r} is not a version hash")
    check_name(archive.name, "bot archive")

    def fill(target: Path) -> None:
        _unpack(archive, target)

    try:
        return cache.ready(
            BotSource(archive.name, archive.version, archive.executable, fill), options
        )
    except PrepareError as error:
        raise ArchiveError(str(error)) from None


def _unpack(archive: BotArchive, target: Path) -> None:
    """Into ``target`` (a directory bot's files, or its one executable)."""
    try:
        with tarfile.open(fileobj=io.BytesIO(archive.data), mode="r:gz") as tar:
            if archive.executable is not None:
                names = tar.getnames()
                if names != [archive.executable]:
                    raise ArchiveError(f"bot {archive.name}: a one-file archive holds {names!r}")
                tar.extractall(target.parent, filter="data")
                target.chmod(0o755)
            else:
                # The data filter refuses absolute names, '..', devices and links that lead
                # out of the directory.
                tar.extractall(target, filter="data")
    except (tarfile.TarError, OSError) as error:
        raise ArchiveError(f"bot {archive.name}: cannot unpack its archive: {error}") from None
