"""Hostile uploads that go for the disk through links and names, as data: each a list of
members, built as a tar, a tar.gz and (where a zip can say it) a zip.

``victim`` is a file outside the upload's directory that each archive tries to write,
read or point at; ``target`` is the directory the upload is unpacked into. The tests
assert that the victim, and everything else outside ``target``, is untouched.
"""

from __future__ import annotations

import io
import os
import stat
import tarfile
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Final

MANIFEST: Final = b'name = "x"\ncommand = ["python3", "bot.py"]\n'
# (name, kind, content): kind "file" (bytes), "dir", "sym" or "hard" (the target's text),
# "sparse" (a GNU sparse member).
Member = tuple[str, str, bytes | str]
Builder = Callable[[Path, Path], list[Member]]  # (target, victim) -> members


def tar(members: list[Member], gz: bool = False) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz" if gz else "w", format=tarfile.GNU_FORMAT) as t:
        for name, kind, content in members:
            info = tarfile.TarInfo(name)
            if kind == "file":
                assert isinstance(content, bytes)
                info.size, info.mode = len(content), 0o644
                t.addfile(info, io.BytesIO(content))
                continue
            info.type, info.mode = {
                "dir": (tarfile.DIRTYPE, 0o755),
                "sym": (tarfile.SYMTYPE, 0o777),
                "hard": (tarfile.LNKTYPE, 0o644),
                "sparse": (tarfile.GNUTYPE_SPARSE, 0o644),
            }[kind]
            if kind in ("sym", "hard"):
                info.linkname = str(content)
            t.addfile(info)
    return buffer.getvalue()


def zip_(members: list[Member]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, kind, content in members:
            data = content if isinstance(content, bytes) else content.encode()
            if kind == "dir":
                info = zipfile.ZipInfo(name.rstrip("/") + "/")
                info.external_attr = (stat.S_IFDIR | 0o755) << 16
            else:
                assert kind in ("file", "sym"), kind
                info = zipfile.ZipInfo(name)
                mode = stat.S_IFLNK | 0o777 if kind == "sym" else stat.S_IFREG | 0o644
                info.external_attr = mode << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            with warnings.catch_warnings():  # a name twice is the point of some archives
                warnings.simplefilter("ignore", UserWarning)
                archive.writestr(info, data)
    return buffer.getvalue()


def build(members: list[Member], fmt: str) -> bytes:
    if fmt == "zip":
        return zip_(members)
    return tar(members, gz=fmt == "tar.gz")


def _bot(*members: Member) -> list[Member]:
    return [("bot.toml", "file", MANIFEST), ("bot.py", "file", b"print()\n"), *members]


def _up_to_root(target: Path) -> str:
    """A relative text that climbs from ``target`` to ``/`` whatever its depth (``..`` at the
    root stays there)."""
    return "../" * (len(target.parts) + 8)


def _out(target: Path, path: Path) -> str:
    """A relative link text from the top of ``target`` to ``path``, wherever it is."""
    return _up_to_root(target) + str(path).lstrip("/")


def cve_2025_4517(target: Path, victim: Path) -> list[Member]:
    """CPython's own reproduction of CVE-2025-4517 (``test_realpath_limit_attack``), aimed
    at ``victim``: links that expand past ``PATH_MAX``, so that ``os.path.realpath`` stops
    resolving and ``tarfile``'s ``data`` filter sees a name inside the tree; through them a
    hard link to the victim, which is then overwritten, and a new file beside it."""
    steps = "abcdefghijklmnop"
    max_path = os.pathconf("/", "PC_PATH_MAX")
    component = "d" * ((max_path - len(str(target)) - 1) // (len(steps) + 1))
    members: list[Member] = []
    path = ""
    for step in steps:
        members.append((os.path.join(path, component), "dir", b""))
        members.append((os.path.join(path, step), "sym", component))
        path = os.path.join(path, component)
    linkpath = os.path.join(*steps, "l" * 254)
    members.append((linkpath, "sym", os.path.join(*[".."] * len(steps))))
    climb = os.path.relpath(victim.parent, target)  # from the top of the tree
    members.append(("escape", "sym", os.path.join(linkpath, climb)))
    members.append(("flaglink", "hard", os.path.join("escape", victim.name)))
    members.append(("flaglink", "file", b"overwritten through the chain"))
    members.append(("escape/newfile", "file", b"new outside"))
    return _bot(*members)


def cve_2025_4517_zip(target: Path, victim: Path) -> list[Member]:
    """The same chain in a zip (no hard links there): a file written through it."""
    members = [m for m in cve_2025_4517(target, victim) if m[1] != "hard" and m[0] != "flaglink"]
    return [*members, (f"escape/{victim.name}", "file", b"overwritten through the chain")]


# name -> (builder, formats, words the refusal line must hold)
ARCHIVES: Final[dict[str, tuple[Builder, tuple[str, ...], str]]] = {
    "cve-2025-4517": (cve_2025_4517, ("tar", "tar.gz"), ""),
    "cve-2025-4517-zip": (cve_2025_4517_zip, ("zip",), ""),
    "proc-pagemap": (
        lambda t, v: _bot(("pagemap", "sym", "/proc/self/pagemap")),
        ("tar", "tar.gz", "zip"),
        "out of the tree",
    ),
    "proc-climb": (
        lambda t, v: _bot(("status", "sym", _out(t, Path("/proc/self/status")))),
        ("tar", "tar.gz", "zip"),
        "out of the tree",
    ),
    "link-chain-to-proc": (
        lambda t, v: _bot(
            ("a", "sym", "b"),
            ("b", "sym", "c/../d"),
            ("c", "dir", b""),
            ("d", "sym", _out(t, Path("/proc/self/pagemap"))),
        ),
        ("tar", "tar.gz", "zip"),
        "out of the tree",
    ),
    "link-then-write-through-it": (
        lambda t, v: _bot(("out", "sym", _out(t, v.parent)), (f"out/{v.name}", "file", b"x")),
        ("tar", "tar.gz", "zip"),
        "",
    ),
    "link-to-link-then-write": (
        lambda t, v: _bot(
            ("a", "sym", "b"),
            ("b", "sym", _out(t, v.parent)),
            (f"a/{v.name}", "file", b"x"),
        ),
        ("tar", "tar.gz", "zip"),
        "",
    ),
    "inside-link-then-write": (
        lambda t, v: _bot(("lib", "dir", b""), ("l", "sym", "lib"), ("l/x.py", "file", b"x")),
        ("tar", "tar.gz", "zip"),
        "which is a link",
    ),
    "hardlink-out": (
        lambda t, v: _bot(("shadow", "hard", _out(t, Path("/etc/shadow")))),
        ("tar", "tar.gz"),
        "hard link out of the tree",
    ),
    "hardlink-victim": (
        lambda t, v: _bot(("h", "hard", str(v)), ("h", "file", b"overwritten")),
        ("tar", "tar.gz"),
        "hard link out of the tree",
    ),
    "hardlink-to-a-link": (
        lambda t, v: _bot(("l", "sym", "bot.py"), ("h", "hard", "l")),
        ("tar", "tar.gz"),
        "not a file before it",
    ),
    "link-loop": (
        lambda t, v: _bot(("a", "sym", "b"), ("b", "sym", "a")),
        ("tar", "tar.gz", "zip"),
        "a chain of more than 40 links",
    ),
    "absolute-name": (
        lambda t, v: _bot((str(v), "file", b"x")),
        ("tar", "tar.gz", "zip"),
        "absolute path",
    ),
    "dotdot-name": (
        lambda t, v: _bot((os.path.relpath(v, t), "file", b"x")),
        ("tar", "tar.gz", "zip"),
        "path traversal",
    ),
    "deep-1000": (
        lambda t, v: _bot(("a/" * 1000 + "deep.py", "file", b"x")),
        ("tar", "tar.gz", "zip"),
        "more than 64 directory levels",
    ),
    "duplicate-name": (
        lambda t, v: _bot(("bot.py", "file", b"second")),
        ("tar", "tar.gz", "zip"),
        "a name written twice",
    ),
    "case-twins": (
        lambda t, v: _bot(("BOT.PY", "file", b"x")),
        ("tar", "tar.gz", "zip"),
        "differ only in case",
    ),
    "unicode-twins": (
        lambda t, v: _bot(("caf\u00e9.py", "file", b"x"), ("cafe\u0301.py", "file", b"y")),
        ("tar", "tar.gz", "zip"),
        "differ only in case",
    ),
    "file-then-dir": (
        lambda t, v: _bot(("lib", "file", b"x"), ("lib/x.py", "file", b"y")),
        ("tar", "tar.gz", "zip"),
        "which is a file",
    ),
    "sparse": (
        lambda t, v: _bot(("big.bin", "sparse", b"")),
        ("tar", "tar.gz"),
        "sparse file",
    ),
}


def cases(every_format: bool = True) -> list[tuple[str, str]]:
    """(archive, format): each archive in each of its formats, or in its first only."""
    return [
        (name, fmt)
        for name, (_, formats, _) in ARCHIVES.items()
        for fmt in (formats if every_format else formats[:1])
    ]
