"""Unpacking uploads: every hostile kind refused in each format, in one line, nothing left."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.serve.unpack import UnpackError, unpack

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
