"""An uploaded bot, unpacked safely: a tar (plain or gzip'd), a zip, or one executable file.

Everything a contestant sends is hostile until shown otherwise. Before a byte is written,
every member is checked: no absolute name, no ``..``, no link (symbolic or hard) that
leads out of the tree, no device, fifo or socket, at most ``MAX_FILES`` members, at most
``MAX_UNPACKED_BYTES`` in all, each member's declared size counted before it is read and
its real size while it is. A gzip'd tar is decompressed here with the same cap (a
decompression bomb stops at the cap, never fills memory or disk). A tar is then extracted
by ``tarfile``'s ``data`` filter as a second line; a zip member by member, by hand.

A refusal is ``UnpackError`` with one line that says why; nothing is left behind.
"""

from __future__ import annotations

import io
import os
import posixpath
import shutil
import stat
import tarfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from arena.bots.manifest import MANIFEST_NAME

MAX_UPLOAD_BYTES: Final = 8 * 1024 * 1024  # what is sent (the request body's cap too)
MAX_UNPACKED_BYTES: Final = 64 * 1024 * 1024  # everything unpacked together
MAX_FILES: Final = 2000  # members of an archive, directories included
MAX_RATIO: Final = 200  # unpacked bytes per byte sent, above a megabyte unpacked
_RATIO_FLOOR: Final = 1024 * 1024
_CHUNK: Final = 64 * 1024


class UnpackError(ValueError):
    """An upload refused; its message is the one line that says why."""


@dataclass(frozen=True)
class Unpacked:
    path: Path  # the bot: its directory (with bot.toml) or its one executable file
    kind: str  # "tar", "tar.gz", "zip" or "executable"
    files: int
    bytes: int


def kind_of(data: bytes) -> str:
    """What an upload is, by its first bytes (never by a name the client chose)."""
    if data[:2] == b"\x1f\x8b":
        return "tar.gz"
    if data[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return "zip"
    if len(data) >= 262 and data[257:262] == b"ustar":
        return "tar"
    return "executable"


def unpack(data: bytes, target: Path, filename: str = "bot") -> Unpacked:
    """Unpack ``data`` into the empty directory ``target``; ``UnpackError`` if refused.

    ``filename`` names a one-file bot (only its base name is used, checked).
    """
    if len(data) > MAX_UPLOAD_BYTES:
        raise UnpackError(f"too large: {len(data):,} bytes sent, at most {MAX_UPLOAD_BYTES:,}")
    if not data:
        raise UnpackError("empty upload")
    kind = kind_of(data)
    target.mkdir(parents=True, exist_ok=True)
    try:
        if kind == "executable":
            return _executable(data, target, filename)
        if kind == "zip":
            files, size = _unzip(data, target)
        else:
            raw = _gunzip(data) if kind == "tar.gz" else data
            files, size = _untar(raw, target)
        _check_ratio(size, len(data))
        return Unpacked(_bot_root(target), kind, files, size)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise


def _executable(data: bytes, target: Path, filename: str) -> Unpacked:
    name = posixpath.basename(filename.replace("\\", "/")) or "bot"
    if name in (".", "..") or not all(c.isalnum() or c in "._-" for c in name):
        raise UnpackError(f"a one-file bot's name must be letters, digits, '.', '_', '-': {name!r}")
    if not (data.startswith(b"#!") or data.startswith(b"\x7fELF")):
        raise UnpackError(
            "not a bot: neither an archive (tar, tar.gz, zip) nor an executable "
            "(a script starting with #! or an ELF binary)"
        )
    path = target / name
    path.write_bytes(data)
    path.chmod(0o755)
    return Unpacked(path, "executable", 1, len(data))


def _gunzip(data: bytes) -> bytes:
    """The tar inside a gzip stream, decompressed up to the cap and no further."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out = bytearray()
    pending = data
    try:
        while pending or not inflater.eof:
            room = MAX_UNPACKED_BYTES + _CHUNK - len(out)
            chunk = inflater.decompress(pending, min(_CHUNK, room))
            pending = inflater.unconsumed_tail
            out += chunk
            if len(out) > MAX_UNPACKED_BYTES + 10240:  # a tar's own padding is allowed
                raise UnpackError(
                    f"decompression bomb: more than {MAX_UNPACKED_BYTES:,} bytes unpacked "
                    f"from {len(data):,} sent"
                )
            if not chunk and not pending:
                break
    except zlib.error as error:
        raise UnpackError(f"not a valid gzip stream: {error}") from None
    return bytes(out)


def _check_name(name: str) -> str:
    """The member's name, normalised; refused if it could land outside the tree."""
    if "\x00" in name:
        raise UnpackError(f"a member's name holds a NUL byte: {name!r}")
    unix = name.replace("\\", "/")
    if unix.startswith("/") or (len(unix) > 1 and unix[1] == ":"):
        raise UnpackError(f"absolute path: {name!r}")
    parts = [p for p in unix.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise UnpackError(f"path traversal: {name!r}")
    if not parts:
        return ""
    return "/".join(parts)


def _check_link(member: str, link: str, hard: bool) -> None:
    """A link must stay inside the tree: relative, and resolving below its root."""
    what = "hard link" if hard else "symlink"
    if link.startswith("/") or (len(link) > 1 and link[1] == ":"):
        raise UnpackError(f"{what} out of the tree: {member!r} -> {link!r}")
    base = "" if hard else posixpath.dirname(member)
    resolved = posixpath.normpath(posixpath.join(base, link))
    if resolved == ".." or resolved.startswith("../") or resolved.startswith("/"):
        raise UnpackError(f"{what} out of the tree: {member!r} -> {link!r}")


def _count(files: int, size: int) -> None:
    if files > MAX_FILES:
        raise UnpackError(f"too many files: more than {MAX_FILES:,}")
    if size > MAX_UNPACKED_BYTES:
        raise UnpackError(f"too large: more than {MAX_UNPACKED_BYTES:,} bytes unpacked")


def _untar(raw: bytes, target: Path) -> tuple[int, int]:
    try:
        tar = tarfile.open(fileobj=io.BytesIO(raw), mode="r:")  # noqa: SIM115 (with below)
    except tarfile.TarError as error:
        raise UnpackError(f"not a valid tar archive: {error}") from None
    with tar:
        files = size = 0
        members: list[tarfile.TarInfo] = []
        try:
            for member in tar:
                files += 1
                _count(files, size)
                name = _check_name(member.name)
                if member.ischr() or member.isblk():
                    raise UnpackError(f"device file: {member.name!r}")
                if member.isfifo():
                    raise UnpackError(f"fifo: {member.name!r}")
                if member.issym() or member.islnk():
                    _check_link(name, member.linkname, hard=member.islnk())
                elif not (member.isfile() or member.isdir()):
                    raise UnpackError(f"not a file or directory: {member.name!r}")
                size += max(member.size, 0)
                _count(files, size)
                members.append(member)
        except tarfile.TarError as error:
            raise UnpackError(f"not a valid tar archive: {error}") from None
        try:
            # The data filter again refuses what the checks above refused, and drops
            # set-uid bits and ownership.
            tar.extractall(target, members=members, filter="data")
        except (tarfile.TarError, OSError) as error:
            raise UnpackError(f"cannot unpack: {error}") from None
    return files, size


def _unzip(data: bytes, target: Path) -> tuple[int, int]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError) as error:
        raise UnpackError(f"not a valid zip archive: {error}") from None
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_FILES:
            raise UnpackError(f"too many files: {len(infos):,}, at most {MAX_FILES:,}")
        declared = 0
        for info in infos:
            _check_name(info.filename)
            mode = info.external_attr >> 16
            if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
                raise UnpackError(f"device file: {info.filename!r}")
            if stat.S_ISFIFO(mode):
                raise UnpackError(f"fifo: {info.filename!r}")
            if stat.S_ISSOCK(mode):
                raise UnpackError(f"socket: {info.filename!r}")
            declared += info.file_size
            if declared > MAX_UNPACKED_BYTES and declared > MAX_RATIO * len(data):
                raise UnpackError(
                    f"decompression bomb: {declared:,} bytes declared unpacked from "
                    f"{len(data):,} sent"
                )
            _count(0, declared)
        size = 0
        root = target.resolve()
        for info in infos:
            name = _check_name(info.filename)
            if not name:
                continue
            dest = root / name
            mode = info.external_attr >> 16
            if info.is_dir():
                dest.mkdir(parents=True, exist_ok=True)
                continue
            dest.parent.mkdir(parents=True, exist_ok=True)
            if not dest.parent.resolve().is_relative_to(root):  # through a link made before
                raise UnpackError(f"path through a link: {info.filename!r}")
            if stat.S_ISLNK(mode):
                link = archive.read(info, pwd=None)[:4096].decode("utf-8", "replace")
                _check_link(name, link, hard=False)
                os.symlink(link, dest)
                continue
            try:
                with archive.open(info) as source, open(dest, "xb") as out:
                    while chunk := source.read(_CHUNK):
                        size += len(chunk)
                        if size > MAX_UNPACKED_BYTES:  # a size field that lied
                            raise UnpackError(
                                f"decompression bomb: more than {MAX_UNPACKED_BYTES:,} "
                                f"bytes unpacked from {len(data):,} sent"
                            )
                        out.write(chunk)
            except (zipfile.BadZipFile, RuntimeError, OSError, zlib.error) as error:
                raise UnpackError(f"cannot unpack {info.filename!r}: {error}") from None
            dest.chmod(0o755 if mode & 0o111 else 0o644)
    return len(infos), size


def _check_ratio(size: int, sent: int) -> None:
    if size > _RATIO_FLOOR and size > MAX_RATIO * sent:
        raise UnpackError(
            f"decompression bomb: {size:,} bytes unpacked from {sent:,} sent "
            f"(more than {MAX_RATIO} times)"
        )


def _bot_root(target: Path) -> Path:
    """The bot's directory: ``target``, or the one directory it holds."""
    if (target / MANIFEST_NAME).is_file():
        return target
    entries = [p for p in target.iterdir() if not p.name.startswith(".")]
    only = entries[0] if len(entries) == 1 else None
    if only is not None and not only.is_symlink() and (only / MANIFEST_NAME).is_file():
        return only
    raise UnpackError(f"no {MANIFEST_NAME}: at the archive's top or in its one directory")
