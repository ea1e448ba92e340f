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

import gzip
import io
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
)
from arena.bots.tree import MAX_TREE, TreeError, Writer, extract_tar, pack, scan

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
    was loaded): what is shipped is always what its label says. Links travel as links,
    never the bytes they point to (a link out of the bot is refused on unpacking).
    """
    buffer = io.BytesIO()
    executable: str | None = None
    try:
        if spec.executable and spec.path.is_file() and compute_version(spec.path) == spec.version:
            executable = spec.path.name
            content = spec.path.read_bytes()
            with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
                info = tarfile.TarInfo(executable)
                info.size, info.mode, info.mtime = len(content), 0o755, 0
                tar.addfile(info, io.BytesIO(content))
        elif not spec.executable and (spec.directory / MANIFEST_NAME).is_file():
            tree = scan(spec.directory)
            if tree.version != spec.version:
                raise ArchiveError(_changed(spec))
            pack(spec.directory, tree, buffer)
        else:
            raise ArchiveError(_changed(spec))
    except (OSError, TreeError) as error:
        raise ArchiveError(f"bot {spec.name}: cannot pack it: {error}") from None
    # No time in the gzip header either: equal content, equal bytes.
    data = gzip.compress(buffer.getvalue(), compresslevel=6, mtime=0)
    return BotArchive(spec.name, spec.version, data, executable)


def _changed(spec: BotSpec) -> str:
    return (
        f"bot {spec.name}: its files no longer hash to its version {spec.version} "
        "(it changed on disk since it was loaded)"
    )


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
    """Into ``target`` (a directory bot's files, or its one executable), as an upload is
    (``arena.bots.tree``): never through a link, no link out of the bot, within caps."""
    try:
        if archive.executable is not None:
            with Writer(target.parent, MAX_TREE, fresh=False) as writer:
                extract_tar(io.BytesIO(archive.data), writer, gz=True)
            names = [item.rel for item in scan(target.parent).items]
            if names != [archive.executable] or not target.is_file():
                raise ArchiveError(f"bot {archive.name}: a one-file archive holds {names!r}")
            target.chmod(0o755)
        else:
            with Writer(target, MAX_TREE) as writer:
                extract_tar(io.BytesIO(archive.data), writer, gz=True)
            scan(target, strict=True).check_links()
    except (TreeError, OSError) as error:
        raise ArchiveError(f"bot {archive.name}: cannot unpack its archive: {error}") from None
