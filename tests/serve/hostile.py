"""Hostile uploads, each kind in three archive formats (tar, tar.gz, zip), as data.

``HOSTILE`` maps (kind, format) to the archive's bytes builder and the words its refusal
line must hold.
"""

from __future__ import annotations

import io
import os
import stat
import tarfile
import zipfile
from collections.abc import Callable
from typing import Final

from arena.serve.unpack import MAX_FILES, MAX_UNPACKED_BYTES, MAX_UPLOAD_BYTES

FORMATS: Final = ("tar", "tar.gz", "zip")
MANIFEST: Final = b'name = "x"\ncommand = ["python3", "bot.py"]\n'

Member = tuple[str, str, bytes | str]  # (name, type, content or link target)


def _tar(members: list[Member], gz: bool, sizes: dict[str, int] | None = None) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz" if gz else "w") as tar:
        for name, kind, content in members:
            info = tarfile.TarInfo(name)
            if kind == "file":
                assert isinstance(content, bytes)
                info.size = len(content)
                info.mode = 0o644
                tar.addfile(info, io.BytesIO(content))
                continue
            if kind == "sym":
                info.type, info.linkname = tarfile.SYMTYPE, str(content)
            elif kind == "hard":
                info.type, info.linkname = tarfile.LNKTYPE, str(content)
            elif kind == "chr":
                info.type, info.devmajor, info.devminor = tarfile.CHRTYPE, 1, 3
            elif kind == "fifo":
                info.type = tarfile.FIFOTYPE
            tar.addfile(info)
    return buffer.getvalue()


def _zip(members: list[Member]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, kind, content in members:
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            mode = {
                "file": stat.S_IFREG | 0o644,
                "sym": stat.S_IFLNK | 0o777,
                "hard": stat.S_IFLNK | 0o777,  # a zip has no hard links: a link all the same
                "chr": stat.S_IFCHR | 0o644,
                "fifo": stat.S_IFIFO | 0o644,
            }[kind]
            info.external_attr = mode << 16
            data = content if isinstance(content, bytes) else content.encode()
            archive.writestr(info, data)
    return buffer.getvalue()


def build(members: list[Member], fmt: str) -> bytes:
    if fmt == "zip":
        return _zip(members)
    return _tar(members, gz=fmt == "tar.gz")


def _with_manifest(*members: Member) -> list[Member]:
    return [("bot.toml", "file", MANIFEST), ("bot.py", "file", b"print()\n"), *members]


def _bomb(fmt: str) -> bytes:
    zeros = b"\0" * (MAX_UNPACKED_BYTES + 4 * 1024 * 1024)
    if fmt == "tar":
        # A plain tar cannot compress: its header claims more than the cap, with no data.
        buffer = io.BytesIO()
        info = tarfile.TarInfo("bot.py")
        info.size = len(zeros)
        buffer.write(info.tobuf())
        return buffer.getvalue()
    return build(_with_manifest(("zeros.bin", "file", zeros)), fmt)


def _too_large(fmt: str) -> bytes:
    noise = os.urandom(MAX_UPLOAD_BYTES + 512 * 1024)  # incompressible: over the cap sent
    return build(_with_manifest(("noise.bin", "file", noise)), fmt)


def _too_many(fmt: str) -> bytes:
    return build(_with_manifest(*((f"f{i}.txt", "file", b"") for i in range(MAX_FILES + 5))), fmt)


KINDS: Final[dict[str, tuple[Callable[[str], bytes], str]]] = {
    "traversal": (
        lambda fmt: build(_with_manifest(("../escape.py", "file", b"x")), fmt),
        "path traversal",
    ),
    "absolute": (
        lambda fmt: build(_with_manifest(("/tmp/escape.py", "file", b"x")), fmt),
        "absolute path",
    ),
    "symlink-out": (
        lambda fmt: build(_with_manifest(("data", "sym", "../../../etc/passwd")), fmt),
        "out of the tree",
    ),
    "link-absolute": (
        lambda fmt: build(_with_manifest(("data", "hard", "/etc/passwd")), fmt),
        "out of the tree",
    ),
    "device": (lambda fmt: build(_with_manifest(("null", "chr", b"")), fmt), "device file"),
    "fifo": (lambda fmt: build(_with_manifest(("pipe", "fifo", b"")), fmt), "fifo"),
    "too-many-files": (_too_many, "too many files"),
    "too-large": (_too_large, "too large"),
    "bomb": (_bomb, ""),  # tar: "too large" (its header); tar.gz and zip: "decompression bomb"
}


def expected(kind: str, fmt: str) -> str:
    if kind == "bomb":
        return "too large" if fmt == "tar" else "decompression bomb"
    return KINDS[kind][1]
