"""Unpacking uploads: every hostile kind refused in each format, in one line, nothing left
behind and nothing outside the upload's directory changed (issue 33, findings 1 and 2)."""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import pytest

from arena.bots.tree import TreeError, Writer, scan
from arena.serve.unpack import CAPS, UnpackError, kind_of, unpack, unpack_into

from . import hostile_links
from .hostile import FORMATS, KINDS, MANIFEST, build, expected


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_hostile_archive_is_refused_in_one_line(kind: str, fmt: str, tmp_path: Path) -> None:
    data = KINDS[kind][0](fmt)
    target = tmp_path / "bot"
    with pytest.raises(UnpackError) as refused:
        unpack(data, target)
    line = str(refused.value)
    assert expected(kind, fmt) in line and "\n" not in line, line
    assert not target.exists()  # nothing left behind
    assert not (tmp_path / "escape.py").exists()
    assert not Path("/tmp/escape.py").exists()


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_bot_archive_unpacks_with_links_inside_it(fmt: str, tmp_path: Path) -> None:
    members = [
        ("mybot/bot.toml", "file", MANIFEST),
        ("mybot/bot.py", "file", b"print()\n"),
        ("mybot/lib/util.py", "file", b"X = 1\n"),
        ("mybot/util.py", "sym", "lib/util.py"),
    ]
    unpacked = unpack(build(members, fmt), tmp_path / "bot")
    assert unpacked.path == tmp_path / "bot" / "mybot"
    assert (unpacked.path / "util.py").read_text() == "X = 1\n"
    assert unpacked.kind == fmt


def test_one_executable_and_what_is_neither(tmp_path: Path) -> None:
    unpacked = unpack(b"#!/bin/sh\necho hi\n", tmp_path / "a", "../../mybot.sh")
    assert unpacked.path == tmp_path / "a" / "mybot.sh" and unpacked.kind == "executable"
    with pytest.raises(UnpackError, match="not a bot"):
        unpack(b"just text", tmp_path / "b")


def snapshot(root: Path) -> dict[str, tuple[str, bytes | str]]:
    """Everything under ``root``, links as their text (never followed)."""
    found: dict[str, tuple[str, bytes | str]] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            rel = str(path.relative_to(root))
            if path.is_symlink():
                found[rel] = ("link", os.readlink(path))
            elif path.is_dir():
                found[rel] = ("dir", b"")
            else:
                found[rel] = ("file", path.read_bytes())
    return found


def hostile_case(tmp_path: Path, name: str, fmt: str) -> tuple[bytes, Path, Path]:
    """The archive ``name`` in ``fmt``, aimed at a victim beside the uploads' directory."""
    (tmp_path / "uploads").mkdir()
    victim = tmp_path / "victim" / "flag"
    victim.parent.mkdir()
    victim.write_text("the victim's own")
    target = tmp_path / "uploads" / "bot"
    builder = hostile_links.ARCHIVES[name][0]
    return hostile_links.build(builder(target, victim), fmt), target, victim


# Each attack in one format through the whole path (the sandboxed unpacker and the arena's
# side), and in every format through the writer alone (below): the formats differ only
# in how members are read, the same for both layers.
@pytest.mark.parametrize(("name", "fmt"), hostile_links.cases(every_format=False))
def test_a_link_or_name_attack_is_refused_and_changes_nothing_outside(
    name: str, fmt: str, tmp_path: Path
) -> None:
    data, target, victim = hostile_case(tmp_path, name, fmt)
    before = snapshot(tmp_path)
    with pytest.raises(UnpackError) as refused:
        unpack(data, target)
    line = str(refused.value)
    assert hostile_links.ARCHIVES[name][2] in line and "\n" not in line, line
    assert not target.exists()  # nothing left behind
    assert snapshot(tmp_path) == before  # nothing outside written, moved or made
    assert victim.read_text() == "the victim's own"


@pytest.mark.parametrize(("name", "fmt"), hostile_links.cases())
def test_the_writer_alone_keeps_every_attack_inside(name: str, fmt: str, tmp_path: Path) -> None:
    """Without the sandbox (the layer that runs where bubblewrap does not work, and the
    arena's own side of the sandboxed one): refused, and nothing outside changed."""
    data, target, _ = hostile_case(tmp_path, name, fmt)
    before = snapshot(tmp_path)
    with pytest.raises((TreeError, UnpackError)):
        with Writer(target, CAPS) as writer:
            unpack_into(data, kind_of(data), writer)
        scan(target, CAPS, strict=True).check_links()
    after = snapshot(tmp_path)
    assert {rel: what for rel, what in after.items() if not rel.startswith("uploads")} == {
        rel: what for rel, what in before.items() if not rel.startswith("uploads")
    }


def test_the_chain_is_the_real_attack_on_tarfiles_own_filter(tmp_path: Path) -> None:
    """The CVE-2025-4517 archive above is the attack itself: on a Python whose ``tarfile``
    is vulnerable (3.11.7 here) its ``data`` filter lets it overwrite the victim; a fixed
    one refuses it. The arena refuses it on both (the tests above)."""
    data, target, victim = hostile_case(tmp_path, "cve-2025-4517", "tar")
    target.mkdir()
    try:
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            archive.extractall(target, filter="data")
    except tarfile.FilterError:  # a fixed tarfile
        assert victim.read_text() == "the victim's own"
    else:
        assert victim.read_text() == "overwritten through the chain"
        assert (victim.parent / "newfile").read_text() == "new outside"


def test_after_every_refusal_a_good_bot_still_unpacks(tmp_path: Path) -> None:
    data, target, _ = hostile_case(tmp_path, "cve-2025-4517", "tar")
    with pytest.raises(UnpackError):
        unpack(data, target)
    members = [("bot.toml", "file", MANIFEST), ("bot.py", "file", b"print()\n")]
    unpacked = unpack(build(members, "tar.gz"), tmp_path / "good")
    assert (unpacked.path / "bot.py").read_bytes() == b"print()\n"


def test_links_inside_the_tree_are_kept_as_links(tmp_path: Path) -> None:
    members = [
        ("bot.toml", "file", MANIFEST),
        ("bot.py", "file", b"print()\n"),
        ("lib/util.py", "file", b"X = 1\n"),
        ("lib/again", "sym", "../lib/./util.py"),
        ("dangling", "sym", "gen/made_by_the_build.py"),
    ]
    unpacked = unpack(build(members, "tar"), tmp_path / "bot")
    assert os.readlink(unpacked.path / "lib" / "again") == "../lib/./util.py"
    assert os.readlink(unpacked.path / "dangling") == "gen/made_by_the_build.py"


def test_a_hard_link_inside_is_written_as_a_copy(tmp_path: Path) -> None:
    members: list[hostile_links.Member] = [
        ("bot.toml", "file", MANIFEST),
        ("bot.py", "file", b"print()\n"),
        ("same.py", "hard", "bot.py"),
    ]
    unpacked = unpack(hostile_links.build(members, "tar"), tmp_path / "bot")
    copy, original = unpacked.path / "same.py", unpacked.path / "bot.py"
    assert copy.read_bytes() == original.read_bytes()
    assert copy.stat().st_ino != original.stat().st_ino  # no inode shared between two names
