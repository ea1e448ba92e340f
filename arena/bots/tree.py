"""A bot's files as a tree the arena never leaves: walked, hashed, copied, packed and written
relative to directory descriptors, never through a link, within caps.

Everything the arena does with a bot's files goes through here: its version (``scan``
and ``Tree.version``), the copies a version is built in and its seats run (``scan`` with
a ``Writer``), the archives that carry it (``pack``, ``extract_tar``), and uploads.

By construction, not by a check of each name's text:

* reading: a directory is listed through its descriptor, each entry's type is the one
  the kernel lists (never a link's target's), a file is opened relative to its
  directory's descriptor with ``O_NOFOLLOW | O_NONBLOCK`` and read only if ``fstat``
  says it is a regular file, a link is read as its text (``readlink``), never followed;
  so no link, however chained (through ``/proc/self/...`` or past ``PATH_MAX``), makes
  the arena read a byte outside the tree, and no FIFO or device makes it wait;
* writing: a ``Writer`` opens every directory of a path from its parent's descriptor
  with ``O_NOFOLLOW``, creates every file new (``O_EXCL``), and refuses a name twice or
  two names that differ only in case; so no member, whatever an earlier one planted,
  writes outside the tree;
* every walk and write is capped in bytes (a file's full size, sparse or not),
  entries and directory levels, with one line that says which cap.

Links are kept as links (their text is what is hashed); ``Tree.check_links`` resolves
each against the tree as it really is, link by link as the kernel would, and refuses
one that leaves it (uploads and builds' outputs must not hold one).
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import hashlib
import io
import os
import stat
import tarfile
import unicodedata
import zlib
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Final, Literal, cast

__all__ = [
    "MAX_DEPTH",
    "MAX_LINK_HOPS",
    "MAX_TREE",
    "Caps",
    "Item",
    "Tree",
    "TreeError",
    "Writer",
    "copy_file",
    "extract_tar",
    "file_version",
    "mib",
    "pack",
    "scan",
]

MiB: Final = 1024 * 1024
MAX_DEPTH: Final = 64  # directory levels: no bot needs more, and each one is a descriptor held
MAX_LINK_HOPS: Final = 40  # links followed in one lookup: the kernel's own MAXSYMLINKS
_NAME_MAX: Final = 255  # bytes in one name (NAME_MAX)
_TARGET_MAX: Final = 4095  # bytes in a link's text (PATH_MAX less its NUL)
_CHUNK: Final = 1024 * 1024
_OPEN_DIRS: Final = 64  # directory descriptors a Writer keeps open at most
VERSION_LEN: Final = 12
# Neither hashed nor copied where the bot runs: a repository's history and the caches that
# Python writes beside sources (it rebuilds them; a stale one never runs from a copy).
SKIP_DIRS: Final = frozenset({"__pycache__", ".git"})
SKIP_SUFFIXES: Final = (".pyc",)

_DIR_FLAGS: Final = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS: Final = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_CREATE_FLAGS: Final = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class TreeError(ValueError):
    """A tree (or an archive of one) refused, or over a cap; the message is one line."""


def mib(size: int) -> str:
    """A size for a person: ``256 MiB``, ``1.5 MiB``."""
    return f"{size / MiB:,.4g} MiB"


@dataclass(frozen=True)
class Caps:
    """How much a tree may hold: bytes (every file at its full size: a sparse file's holes
    count), entries (files, links and directories) and directory levels. ``option`` names
    the operator's option that sets ``bytes``, for the error that says it was reached."""

    bytes: int
    entries: int = 100_000
    depth: int = MAX_DEPTH
    option: str = ""

    def over_bytes(self) -> TreeError:
        """The one error of a tree over its byte cap, wherever it is found."""
        set_by = f", set by {self.option}" if self.option else ""
        return TreeError(
            f"too large: more than {mib(self.bytes)} of files (the cap{set_by}; a sparse "
            "file counts its full size)"
        )


# What the arena versions and copies of a bot at most (a local bot's source, a registry's
# copy); builds and seats' copies have the operator's cap (``Limits.disk_bytes``).
MAX_TREE: Final = Caps(bytes=1024 * MiB)


@dataclass(frozen=True)
class Item:
    """A file or a link of a tree: its path (relative, POSIX), and a file's size, SHA-256
    and executable bit, or a link's text."""

    rel: str
    size: int = 0
    digest: bytes = b""
    link: str | None = None
    executable: bool = False


Kind = Literal["dir", "file", "link"]


@dataclass(frozen=True)
class Tree:
    """What a walk found: its files and links in path order, and its directories."""

    items: tuple[Item, ...]
    dirs: frozenset[str] = frozenset()

    @property
    def bytes(self) -> int:
        return sum(item.size for item in self.items)

    @property
    def version(self) -> str:
        """The version of a bot whose directory this is: the first 12 hex digits of a
        SHA-256 over each file's path and SHA-256 and each link's path and text, in path
        order (a path ends in NUL, so that bytes cannot move between a path and what
        follows it)."""
        digest = hashlib.sha256()
        for item in sorted(self.items, key=lambda item: item.rel):
            digest.update(_encode(item.rel) + b"\0")
            if item.link is None:
                digest.update(b"F" + item.digest)
            else:
                digest.update(b"L" + _encode(item.link))
        return digest.hexdigest()[:VERSION_LEN]

    def check_links(self) -> None:
        """Refuse any link that, resolved in this tree as the kernel would (each link on
        the way followed, at most ``MAX_LINK_HOPS``), leads out of it."""
        kinds: dict[str, Kind] = dict.fromkeys(self.dirs, "dir")
        targets: dict[str, str] = {}
        for item in self.items:
            if item.link is None:
                kinds[item.rel] = "file"
            else:
                kinds[item.rel] = "link"
                targets[item.rel] = item.link
        for rel, target in targets.items():
            _resolve_inside(rel, target, kinds, targets)


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _resolve_inside(rel: str, target: str, kinds: dict[str, Kind], targets: dict[str, str]) -> None:
    where = rel.split("/")[:-1]  # the link's directory: where its text is read from
    pending = deque(target.split("/"))
    via = rel  # the link whose text is being followed

    def leaves() -> TreeError:
        through = f" (through {via!r})" if via != rel else ""
        return TreeError(f"link out of the tree: {rel!r} -> {target!r}{through}")

    if target.startswith("/"):
        raise leaves()
    hops = 0
    missing = False  # past a name that does not exist: the kernel stops, the text goes on
    while pending:
        part = pending.popleft()
        if part in ("", "."):
            continue
        if part == "..":
            if not where:
                raise leaves()
            where.pop()
            continue
        here = "/".join([*where, part])
        kind = None if missing else kinds.get(here)
        if kind == "link":
            hops += 1
            if hops > MAX_LINK_HOPS:
                raise TreeError(
                    f"a chain of more than {MAX_LINK_HOPS} links (or a loop): {rel!r} -> {target!r}"
                )
            via = here
            text = targets[here]
            if text.startswith("/"):
                raise leaves()
            pending.extendleft(reversed(text.split("/")))
            continue
        if kind is None or (kind == "file" and pending):
            # The kernel would stop here (no such name, or a file used as a directory);
            # what follows is still checked as text, as if a later file made it real.
            missing = True
        where.append(part)


# -- reading -----------------------------------------------------------------------------------


def scan(
    root: Path,
    caps: Caps = MAX_TREE,
    into: Writer | None = None,
    *,
    strict: bool = False,
) -> Tree:
    """The files and links of directory ``root`` that a bot's version hashes (all but
    ``.git``, ``__pycache__`` and ``*.pyc``), each read once, never through a link; with
    ``into``, also written there (a copy). ``root`` itself must be a directory, not a
    link. A FIFO, socket or device is skipped (``strict``: refused). ``TreeError`` for
    what is over ``caps`` or refused, ``OSError`` for what cannot be read."""
    fd = os.open(root, _DIR_FLAGS)
    walk = _Walk(caps, into, strict)
    try:
        walk.directory(fd, ())
    finally:
        os.close(fd)
    return Tree(tuple(sorted(walk.items, key=lambda item: item.rel)), frozenset(walk.dirs))


@dataclass
class _Walk:
    caps: Caps
    into: Writer | None
    strict: bool
    items: list[Item] = field(default_factory=list)
    dirs: set[str] = field(default_factory=set)
    entries: int = 0
    size: int = 0  # bytes read so far

    def count(self) -> None:
        self.entries += 1
        if self.entries > self.caps.entries:
            raise TreeError(f"too many files: more than {self.caps.entries:,}")

    def directory(self, fd: int, parts: tuple[str, ...]) -> None:
        with os.scandir(fd) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
        for entry in entries:
            name = entry.name
            rel = "/".join((*parts, name))
            if entry.is_symlink():
                self.count()
                target = os.readlink(name, dir_fd=fd)
                self.items.append(Item(rel, link=target))
                if self.into is not None:
                    self.into.link(rel, target)
            elif entry.is_dir(follow_symlinks=False):
                if name in SKIP_DIRS:
                    continue
                if len(parts) + 1 > self.caps.depth:
                    raise TreeError(f"more than {self.caps.depth} directory levels: {rel[:120]!r}…")
                self.count()
                self.dirs.add(rel)
                if self.into is not None:
                    self.into.directory(rel)
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
                try:
                    self.directory(child, (*parts, name))
                finally:
                    os.close(child)
            elif entry.is_file(follow_symlinks=False):
                if name.endswith(SKIP_SUFFIXES):
                    continue
                self.count()
                self.file(fd, name, rel)
            elif self.strict:
                raise TreeError(f"not a file, directory or link: {rel!r}")

    def file(self, dir_fd: int, name: str, rel: str) -> None:
        fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
        try:
            status = os.fstat(fd)
            if not stat.S_ISREG(status.st_mode):  # replaced since it was listed
                if self.strict:
                    raise TreeError(f"not a file, directory or link: {rel!r}")
                return
            if self.size + status.st_size > self.caps.bytes:
                raise self.caps.over_bytes()
            digest = hashlib.sha256()
            executable = bool(status.st_mode & 0o111)
            chunks = self._read(fd, digest)
            if self.into is not None:
                size = self.into.file(rel, chunks, executable)
            else:
                size = sum(len(chunk) for chunk in chunks)
        finally:
            os.close(fd)
        self.items.append(Item(rel, size, digest.digest(), executable=executable))

    def _read(self, fd: int, digest: hashlib._Hash) -> Iterator[bytes]:
        while chunk := os.read(fd, _CHUNK):
            self.size += len(chunk)
            if self.size > self.caps.bytes:  # it grew while being read
                raise self.caps.over_bytes()
            digest.update(chunk)
            yield chunk


def file_version(path: Path, cap: int = MAX_TREE.bytes) -> str:
    """The version of a one-file bot: its bytes' SHA-256 (12 hex digits); it must be a
    regular file (the operator may name it through a link)."""
    return _read_file(path, cap, None).digest.hex()[:VERSION_LEN]


def copy_file(source: Path, target: Path, cap: int) -> Item:
    """A one-file bot copied to ``target`` (new; its directory must exist), executable,
    at most ``cap`` bytes; returns what was copied (its digest is its version's)."""
    return _read_file(source, cap, target)


def _read_file(source: Path, cap: int, target: Path | None) -> Item:
    fd = os.open(source, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise TreeError(f"{source} is not a regular file")
        caps = Caps(bytes=cap)
        if status.st_size > cap:
            raise caps.over_bytes()
        walk = _Walk(caps, None, True)
        digest = hashlib.sha256()
        chunks = walk._read(fd, digest)
        if target is None:
            size = sum(len(chunk) for chunk in chunks)
        else:
            out = os.open(target, _CREATE_FLAGS, 0o755)
            try:
                size = _write_all(out, chunks, None)
                os.fchmod(out, 0o755)
            finally:
                os.close(out)
    finally:
        os.close(fd)
    return Item(source.name, size, digest.digest(), executable=True)


def _write_all(fd: int, chunks: Iterable[bytes], count: Writer | None) -> int:
    size = 0
    for chunk in chunks:
        size += len(chunk)
        if count is not None:
            count.add_bytes(len(chunk))
        view = memoryview(chunk)
        while view:
            view = view[os.write(fd, view) :]
    return size


# -- writing -----------------------------------------------------------------------------------


class Writer:
    """Writes a tree into ``root``: a directory it creates (``fresh``), or one that exists
    and is empty (a mount point). Every directory of a path is opened from its parent's
    descriptor without following a link, every file is created new, and a name is
    written once: so nothing can be written outside ``root``, whatever was written
    before. A link is written as its text; an absolute one only with ``links_out`` (a
    build's, say a virtualenv's link to the system's Python: never an upload's). Use it as
    a context manager (it holds descriptors)."""

    def __init__(
        self, root: Path, caps: Caps, *, fresh: bool = True, links_out: bool = False
    ) -> None:
        self.caps = caps
        self.links_out = links_out
        if fresh:
            os.mkdir(root, 0o755)
        self._root = os.open(root, _DIR_FLAGS)
        if not fresh and os.listdir(self._root):
            os.close(self._root)
            raise TreeError(f"{root} is not empty")
        if fresh:
            os.fchmod(self._root, 0o755)  # mkdir's mode is masked by the umask
        self._dirs: dict[tuple[str, ...], int] = {}
        self._names: dict[str, tuple[str, Kind]] = {}  # a name's key -> (name, kind)
        self.entries = 0
        self.bytes = 0

    def __enter__(self) -> Writer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        for fd in self._dirs.values():
            os.close(fd)
        self._dirs.clear()
        if self._root >= 0:
            os.close(self._root)
            self._root = -1

    def add_bytes(self, size: int) -> None:
        self.bytes += size
        if self.bytes > self.caps.bytes:
            raise self.caps.over_bytes()

    def directory(self, rel: str) -> None:
        self._dir(self._split(rel))

    def file(self, rel: str, chunks: Iterable[bytes], executable: bool = False) -> int:
        """Writes a new file of ``chunks``; returns its size."""
        parts = self._split(rel)
        parent = self._dir(parts[:-1])
        self._claim(parts, "file")
        fd = self._create(parts, parent)
        try:
            size = _write_all(fd, chunks, self)
            os.fchmod(fd, 0o755 if executable else 0o644)
        finally:
            os.close(fd)
        return size

    def link(self, rel: str, target: str) -> None:
        """A symbolic link, its text as given: absolute only with ``links_out``
        (``Tree.check_links`` refuses one that leads out through other links)."""
        if "\x00" in target or len(_encode(target)) > _TARGET_MAX or not target:
            raise TreeError(f"a link's text is empty, too long or holds a NUL: {rel!r}")
        if target.startswith("/") and not self.links_out:
            raise TreeError(f"link out of the tree: {rel!r} -> {target!r}")
        parts = self._split(rel)
        parent = self._dir(parts[:-1])
        self._claim(parts, "link")
        try:
            os.symlink(target, parts[-1], dir_fd=parent)
        except OSError as error:
            raise TreeError(f"cannot write {rel!r}: {error.strerror}") from None

    def copy(self, rel: str, existing: str) -> int:
        """A tar's hard link: a new file with the bytes of ``existing``, a file written
        before it (never a link shared between two names)."""
        parts = self._split(existing)
        if self._names.get(_key(existing)) != (existing, "file"):
            raise TreeError(f"hard link to what is not a file before it: {rel!r} -> {existing!r}")
        fd = os.open(parts[-1], _READ_FLAGS, dir_fd=self._dir(parts[:-1]))
        try:
            executable = bool(os.fstat(fd).st_mode & 0o111)
            return self.file(rel, iter(lambda: os.read(fd, _CHUNK), b""), executable)
        finally:
            os.close(fd)

    def _split(self, rel: str) -> tuple[str, ...]:
        if "\x00" in rel:
            raise TreeError(f"a name holds a NUL byte: {rel!r}")
        parts = tuple(rel.split("/"))
        for part in parts:
            if part in ("", ".", ".."):
                raise TreeError(f"not a plain relative name: {rel!r}")
            if len(_encode(part)) > _NAME_MAX:
                raise TreeError(f"a name over {_NAME_MAX} bytes: {rel[:120]!r}…")
        if len(parts) - 1 > self.caps.depth:
            raise TreeError(f"more than {self.caps.depth} directory levels: {rel[:120]!r}…")
        return parts

    def _claim(self, parts: tuple[str, ...], kind: Kind) -> bool:
        """Whether ``parts`` is new (a directory already made is not); refuses a name
        written twice, a member inside a file or link, and two names that differ only in
        case or Unicode normalisation (one file on other filesystems)."""
        rel = "/".join(parts)
        known = self._names.get(_key(rel))
        if known is not None:
            if known == (rel, "dir") and kind == "dir":
                return False
            if known[0] != rel:
                raise TreeError(
                    f"two names that differ only in case or Unicode form: {known[0]!r} and {rel!r}"
                )
            if kind == "dir":
                raise TreeError(f"a name inside {rel!r}, which is a {known[1]}")
            raise TreeError(f"a name written twice: {rel!r}")
        self.entries += 1
        if self.entries > self.caps.entries:
            raise TreeError(f"too many files: more than {self.caps.entries:,}")
        self._names[_key(rel)] = (rel, kind)
        return True

    def _dir(self, parts: tuple[str, ...]) -> int:
        if not parts:
            return self._root
        known = self._dirs.get(parts)
        if known is not None:
            return known
        parent = self._dir(parts[:-1])
        made = self._claim(parts, "dir")
        if made:
            os.mkdir(parts[-1], 0o755, dir_fd=parent)
        try:
            fd = os.open(parts[-1], _DIR_FLAGS, dir_fd=parent)
        except OSError as error:  # ELOOP, ENOTDIR: never through what is not a directory
            raise TreeError(f"cannot write into {'/'.join(parts)!r}: {error.strerror}") from None
        if made:
            os.fchmod(fd, 0o755)  # mkdir's mode is masked by the umask
        if len(self._dirs) >= _OPEN_DIRS:
            for old in self._dirs.values():
                os.close(old)
            self._dirs.clear()
        self._dirs[parts] = fd
        return fd

    def _create(self, parts: tuple[str, ...], parent: int) -> int:
        try:
            return os.open(parts[-1], _CREATE_FLAGS, 0o600, dir_fd=parent)
        except OSError as error:
            if error.errno == errno.EEXIST:
                raise TreeError(f"a name written twice: {'/'.join(parts)!r}") from None
            raise


def _key(rel: str) -> str:
    return unicodedata.normalize("NFC", rel).casefold()


# -- archives ----------------------------------------------------------------------------------


def pack(root: Path, tree: Tree, out: IO[bytes]) -> None:
    """The files and links of ``tree`` (a ``scan`` of ``root``) as a tar written to
    ``out``, with no owner or time in it, so that equal trees pack to equal bytes. Files are
    read again, never through a link, and must still be what the scan found."""
    with tarfile.open(fileobj=out, mode="w|", format=tarfile.PAX_FORMAT) as tar:
        root_fd = os.open(root, _DIR_FLAGS)
        try:
            for item in tree.items:
                info = tarfile.TarInfo(item.rel)
                info.mtime = 0
                if item.link is not None:
                    info.type, info.linkname, info.mode = tarfile.SYMTYPE, item.link, 0o777
                    tar.addfile(info)
                    continue
                info.size = item.size
                info.mode = 0o755 if item.executable else 0o644
                with _open_beneath(root_fd, item.rel) as source:
                    tar.addfile(info, _Exact(source, item))
        finally:
            os.close(root_fd)


@contextlib.contextmanager
def _open_beneath(root_fd: int, rel: str) -> Iterator[IO[bytes]]:
    parts = rel.split("/")
    fds: list[int] = []
    try:
        at = root_fd
        for part in parts[:-1]:
            at = os.open(part, _DIR_FLAGS, dir_fd=at)
            fds.append(at)
        fd = os.open(parts[-1], _READ_FLAGS, dir_fd=at)
        with os.fdopen(fd, "rb") as source:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise TreeError(f"{rel!r} changed while it was being packed")
            yield source
    finally:
        for fd in fds:
            os.close(fd)


class _Exact(io.RawIOBase):
    """A file's bytes as packed: exactly the size the scan found, else ``TreeError``."""

    def __init__(self, source: IO[bytes], item: Item) -> None:
        self._source = source
        self._item = item
        self._left = item.size

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        want = self._left if size < 0 else min(size, self._left)
        data = self._source.read(want) if want else b""
        self._left -= len(data)
        if len(data) < want:
            raise TreeError(f"{self._item.rel!r} changed while it was being packed")
        return data


class _Capped(io.RawIOBase):
    """A stream read no further than ``limit`` bytes: a tar's headers (a pax record can
    claim any size) are bounded too, not only its members."""

    def __init__(self, raw: IO[bytes], limit: int) -> None:
        self._raw = raw
        self._left = limit

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self._raw.read(min(len(buffer), self._left + 1))
        if len(data) > self._left:
            raise TreeError("the archive is larger than its cap allows")
        self._left -= len(data)
        buffer[: len(data)] = data
        return len(data)


def extract_tar(source: IO[bytes], writer: Writer, *, gz: bool = False) -> None:
    """The members of a tar (gzip'd with ``gz``; ``source`` read once, front to back)
    written through ``writer``: directories, regular files, links (kept links) and hard
    links (written as copies); anything else refused in one line. Never extracted by
    ``tarfile`` itself, whose filters are not what stands between a member and the disk
    (CVE-2025-4517 went through the ``data`` filter)."""
    # Headers and padding: a few blocks per member at most, beside the bytes themselves;
    # a gzip'd tar is capped as it is decompressed.
    limit = writer.caps.bytes + 3 * 1024 * (writer.caps.entries + 2)
    raw = cast(IO[bytes], gzip.GzipFile(fileobj=source, mode="rb")) if gz else source
    capped = io.BufferedReader(_Capped(raw, limit), _CHUNK)
    try:
        with tarfile.open(fileobj=capped, mode="r|") as tar:
            for member in tar:
                _extract_member(tar, member, writer)
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as error:
        raise TreeError(f"not a valid tar archive: {error}") from None


def _extract_member(tar: tarfile.TarFile, member: tarfile.TarInfo, writer: Writer) -> None:
    name = member_name(member.name)
    if member.isdev() and not member.isfifo():
        raise TreeError(f"device file: {member.name!r}")
    if member.isfifo():
        raise TreeError(f"fifo: {member.name!r}")
    if member.issparse():
        raise TreeError(f"sparse file: {member.name!r} (send it whole)")
    if not name:
        if member.isdir():
            return  # the archive's own top, "./"
        raise TreeError(f"not a plain relative name: {member.name!r}")
    if member.isdir():
        writer.directory(name)
    elif member.issym():
        writer.link(name, member.linkname)
    elif member.islnk():
        try:
            target = member_name(member.linkname)
        except TreeError:
            raise TreeError(f"hard link out of the tree: {name!r} -> {member.linkname!r}") from None
        writer.copy(name, target)
    elif member.isreg():
        if writer.bytes + member.size > writer.caps.bytes:
            raise writer.caps.over_bytes()
        data = tar.extractfile(member)
        assert data is not None
        writer.file(name, iter(lambda: data.read(_CHUNK), b""), bool(member.mode & 0o111))
    else:
        raise TreeError(f"not a file, directory or link: {member.name!r}")


def member_name(name: str) -> str:
    """An archive member's name as a relative POSIX path ('' for the top); ``TreeError``
    for one that is absolute or climbs out with ``..``."""
    if "\x00" in name:
        raise TreeError(f"a member's name holds a NUL byte: {name!r}")
    unix = name.replace("\\", "/")
    if unix.startswith("/") or (len(unix) > 1 and unix[1] == ":"):
        raise TreeError(f"absolute path: {name!r}")
    parts = [part for part in unix.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise TreeError(f"path traversal: {name!r}")
    return "/".join(parts)
