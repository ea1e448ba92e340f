"""An uploaded bot, unpacked safely: a tar (plain or gzip'd), a zip, or one executable file.

Everything a contestant sends is hostile until shown otherwise, and no one layer is
trusted to stop it, least of all a library's filter (CVE-2025-4517 walked a tar through
``tarfile``'s ``data`` filter with links chained past ``PATH_MAX``):

1. The archive is read in a process of its own in the sandbox (``arena.bots.build
   .run_confined``: a user of its own when the arena is root, no network, the seccomp
   filter, memory and CPU limits, nothing of the host's disk writable), which writes it
   into an empty tmpfs capped at ``MAX_UNPACKED_BYTES`` and checks it; it hands the tree
   back as a plain tar.
2. The arena writes that tar into the empty ``target`` through ``arena.bots.tree.Writer``
   (every directory opened from its parent without following a link, every file created
   new, each name once), then walks what is really there, never through a link, and
   resolves every link against it as the kernel would.

Where the sandbox does not work, step 1 runs in this process instead (the same
``Writer``). Refused, in one line (``UnpackError``), with nothing left behind: absolute
names and ``..``; links that lead out of the tree (absolute, or out through other
links, however long the chain; more than 40 links in one lookup); hard links to anything
but a file before them (written as copies); devices, fifos, sockets and sparse members;
a name twice, or two names that differ only in case; more than ``MAX_FILES`` entries or
``MAX_DEPTH`` directory levels; more than ``MAX_UNPACKED_BYTES`` in all, declared or real
(a decompression bomb stops at the cap), or more than ``MAX_RATIO`` times what was sent.

``python -I -m arena.serve.unpack DIRECTORY`` is step 1: the upload on stdin, the tree on
stdout, ``refused: …`` on stderr and exit status ``REFUSED`` when it is refused.
"""

from __future__ import annotations

import io
import os
import posixpath
import shutil
import stat
import sys
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final

from arena.bots.manifest import MANIFEST_NAME
from arena.bots.tree import (
    MAX_DEPTH,
    Caps,
    TreeError,
    Writer,
    extract_tar,
    member_name,
    pack,
    scan,
)

MAX_UPLOAD_BYTES: Final = 8 * 1024 * 1024  # what is sent (the request body's cap too)
MAX_UNPACKED_BYTES: Final = 64 * 1024 * 1024  # everything unpacked together
MAX_FILES: Final = 2000  # members of an archive, directories included
MAX_RATIO: Final = 200  # unpacked bytes per byte sent, above a megabyte unpacked
CAPS: Final = Caps(bytes=MAX_UNPACKED_BYTES, entries=MAX_FILES, depth=MAX_DEPTH)
REFUSED: Final = 3  # the sandboxed unpacker's exit status for a refused upload
UNPACK_TIMEOUT_S: Final = 60.0
_RATIO_FLOOR: Final = 1024 * 1024
_CHUNK: Final = 64 * 1024
_LINK_MAX: Final = 4095


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
    """Unpack ``data`` into ``target`` (made here: it must not exist, its parent must);
    ``UnpackError`` if refused, and then nothing is left behind.

    ``filename`` names a one-file bot (only its base name is used, checked).
    """
    if len(data) > MAX_UPLOAD_BYTES:
        raise UnpackError(f"too large: {len(data):,} bytes sent, at most {MAX_UPLOAD_BYTES:,}")
    if not data:
        raise UnpackError("empty upload")
    kind = kind_of(data)
    try:
        if kind == "executable":
            return _executable(data, target, filename)
        _unpack_archive(data, kind, target)
        tree = scan(target, CAPS, strict=True)  # what is really there, never through a link
        tree.check_links()
        files = len(tree.items) + len(tree.dirs)
        _check_ratio(tree.bytes, len(data))
        return Unpacked(_bot_root(target), kind, files, tree.bytes)
    except TreeError as error:
        shutil.rmtree(target, ignore_errors=True)
        raise UnpackError(str(error)) from None
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
    with Writer(target, CAPS) as writer:
        writer.file(name, [data], executable=True)
    return Unpacked(target / name, "executable", 1, len(data))


def _unpack_archive(data: bytes, kind: str, target: Path) -> None:
    """Step 1 in the sandbox where it works (its tree written into ``target`` through a
    ``Writer``), else here."""
    from arena.bots.sandbox import sandbox_problem

    if sandbox_problem() is not None:
        with Writer(target, CAPS) as writer:
            unpack_into(data, kind, writer)
        return
    from arena.bots import BotSpec, Limits
    from arena.bots.build import BotOptions, run_confined
    from arena.bots.process import BotStartError

    log = target.with_name(f"{target.name}.unpack.log")
    inside = Path("/upload")
    spec = BotSpec(
        name="upload",
        version="0" * 12,
        command=(sys.executable,),
        directory=inside,
        build=None,
    )
    options = BotOptions(
        limits=Limits(
            memory_bytes=512 * 1024 * 1024,
            cpu_seconds=int(UNPACK_TIMEOUT_S),
            processes=16,
            log_bytes=64 * 1024,
            disk_bytes=MAX_UNPACKED_BYTES,
        ),
        workdir_bytes=4 * 1024 * 1024,
    )
    command = [sys.executable, "-I", "-m", "arena.serve.unpack", str(inside)]

    def feed(stdin: IO[bytes]) -> None:
        stdin.write(data)

    try:
        status = run_confined(
            spec,
            command,
            feed=feed,
            into=target,
            caps=CAPS,
            options=options,
            log_path=log,
            links_out=False,
            timeout_s=UNPACK_TIMEOUT_S,
        )
        said = log.read_text(errors="replace").splitlines() if log.exists() else []
    except BotStartError as error:
        raise UnpackError(f"the upload could not be unpacked here: {error}") from None
    finally:
        log.unlink(missing_ok=True)
    if status == REFUSED:
        reason = next((line for line in reversed(said) if line.startswith("refused: ")), "")
        raise UnpackError(reason.removeprefix("refused: ") or "refused")
    if status is None:
        raise UnpackError(f"unpacking took more than {UNPACK_TIMEOUT_S:g} s")
    if status != 0:
        raise UnpackError(f"cannot unpack it (the unpacker exited with status {status})")


def unpack_into(data: bytes, kind: str, writer: Writer) -> None:
    """An archive's members written through ``writer``; ``TreeError`` or ``UnpackError``
    for the first refused."""
    if kind == "zip":
        _unzip(data, writer)
    else:
        raw = _gunzip(data) if kind == "tar.gz" else data
        extract_tar(io.BytesIO(raw), writer)


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


def _unzip(data: bytes, writer: Writer) -> None:
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
            member_name(info.filename)
            _zip_kind(info)
            declared += info.file_size
            if declared > MAX_UNPACKED_BYTES and declared > MAX_RATIO * len(data):
                raise UnpackError(
                    f"decompression bomb: {declared:,} bytes declared unpacked from "
                    f"{len(data):,} sent"
                )
            if declared > MAX_UNPACKED_BYTES:
                raise CAPS.over_bytes()
        for info in infos:
            try:
                _unzip_member(archive, info, writer)
            except (zipfile.BadZipFile, RuntimeError, NotImplementedError, zlib.error) as error:
                raise UnpackError(f"cannot unpack {info.filename!r}: {error}") from None
            except TreeError as error:
                if "too large" in str(error):  # a size field that lied
                    raise UnpackError(
                        f"decompression bomb: more than {MAX_UNPACKED_BYTES:,} bytes unpacked "
                        f"from {len(data):,} sent"
                    ) from None
                raise


def _zip_kind(info: zipfile.ZipInfo) -> int:
    mode = info.external_attr >> 16
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        raise UnpackError(f"device file: {info.filename!r}")
    if stat.S_ISFIFO(mode):
        raise UnpackError(f"fifo: {info.filename!r}")
    if stat.S_ISSOCK(mode):
        raise UnpackError(f"socket: {info.filename!r}")
    return mode


def _unzip_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, writer: Writer) -> None:
    name = member_name(info.filename)
    mode = _zip_kind(info)
    if info.is_dir():
        if name:
            writer.directory(name)
        return
    if not name:
        raise UnpackError(f"not a plain relative name: {info.filename!r}")
    with archive.open(info) as source:
        if stat.S_ISLNK(mode):
            text = source.read(_LINK_MAX + 1)
            if len(text) > _LINK_MAX:
                raise UnpackError(f"a link's text over {_LINK_MAX} bytes: {info.filename!r}")
            writer.link(name, text.decode("utf-8", "surrogateescape"))
            return
        writer.file(name, iter(lambda: source.read(_CHUNK), b""), bool(mode & 0o111))


def _check_ratio(size: int, sent: int) -> None:
    if size > _RATIO_FLOOR and size > MAX_RATIO * sent:
        raise UnpackError(
            f"decompression bomb: {size:,} bytes unpacked from {sent:,} sent "
            f"(more than {MAX_RATIO} times)"
        )


def _is_file(path: Path) -> bool:
    """A regular file itself, never what a link names."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _bot_root(target: Path) -> Path:
    """The bot's directory: ``target``, or the one directory it holds."""
    if _is_file(target / MANIFEST_NAME):
        return target
    entries = [p for p in target.iterdir() if not p.name.startswith(".")]
    only = entries[0] if len(entries) == 1 else None
    if only is not None and not only.is_symlink() and _is_file(only / MANIFEST_NAME):
        return only
    raise UnpackError(f"no {MANIFEST_NAME}: at the archive's top or in its one directory")


def main(argv: list[str]) -> int:
    """Step 1, in the sandbox: the upload on stdin into ``argv[0]`` (an empty tmpfs), the
    tree it made on stdout."""
    root = Path(argv[0])
    data = sys.stdin.buffer.read(MAX_UPLOAD_BYTES + 1)
    try:
        if len(data) > MAX_UPLOAD_BYTES:
            raise UnpackError(f"too large: more than {MAX_UPLOAD_BYTES:,} bytes sent")
        with Writer(root, CAPS, fresh=False) as writer:
            unpack_into(data, kind_of(data), writer)
        tree = scan(root, CAPS, strict=True)
        tree.check_links()
        _check_ratio(tree.bytes, len(data))
    except (UnpackError, TreeError) as error:
        print(f"refused: {error}", file=sys.stderr)
        return REFUSED
    pack(root, tree, sys.stdout.buffer)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
