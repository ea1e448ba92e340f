"""arena.bots.tree: a bot's files walked, hashed, copied and written without ever leaving the
tree (issue 33, findings 1 and 2: a version is the bytes that run, everywhere)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.bots.manifest import compute_version
from arena.bots.process import SeatCopyError, private_copy
from arena.bots.tree import Caps, TreeError, Writer, scan

MANIFEST = 'name = "b"\ncommand = ["python3", "bot.py"]\n'


def bot_with_links(directory: Path) -> Path:
    """A bot whose links point into /proc/self (different in every process that follows
    them), at a FIFO outside (a read would never end) and at a huge file."""
    directory.mkdir()
    (directory / "bot.toml").write_text(MANIFEST)
    (directory / "bot.py").write_text("print()\n")
    (directory / "status").symlink_to("/proc/self/status")
    (directory / "pagemap").symlink_to("/proc/self/pagemap")
    (directory / "chain").symlink_to("hop")
    (directory / "hop").symlink_to("../" * 20 + "proc/self/environ")
    fifo = directory.parent / "outside.fifo"
    os.mkfifo(fifo)
    (directory / "fifo").symlink_to(fifo)
    return directory


def test_the_version_never_reads_through_a_link_and_is_the_same_in_every_process(
    tmp_path: Path,
) -> None:
    bot = bot_with_links(tmp_path / "b")
    here = compute_version(bot)  # reading /proc/self/pagemap (18 GB) would not end here
    script = "import sys; from pathlib import Path; from arena.bots.manifest import compute_version"
    there = subprocess.run(
        [sys.executable, "-c", f"{script}; print(compute_version(Path(sys.argv[1])))", str(bot)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()
    assert here == there == compute_version(bot)
    items = {item.rel: item for item in scan(bot).items}
    assert items["status"].link == "/proc/self/status" and items["status"].size == 0
    (bot / "status").unlink()
    (bot / "status").symlink_to("/proc/self/stat")
    assert compute_version(bot) != here  # the link's text is what is hashed


def test_a_copy_keeps_links_as_links_and_hashes_what_it_wrote(tmp_path: Path) -> None:
    bot = bot_with_links(tmp_path / "b")
    (bot / "run.sh").write_text("#!/bin/sh\n")
    (bot / "run.sh").chmod(0o755)
    caps = Caps(bytes=1024 * 1024)
    with Writer(tmp_path / "copy", caps, links_out=True) as writer:
        copied = scan(bot, caps, into=writer)
    assert copied.version == compute_version(bot) == compute_version(tmp_path / "copy")
    assert os.readlink(tmp_path / "copy" / "pagemap") == "/proc/self/pagemap"
    assert os.access(tmp_path / "copy" / "run.sh", os.X_OK)
    assert not os.access(tmp_path / "copy" / "bot.py", os.X_OK)


def test_a_sparse_file_counts_its_full_size(tmp_path: Path) -> None:
    bot = tmp_path / "b"
    bot.mkdir()
    (bot / "bot.toml").write_text(MANIFEST)
    with (bot / "holes.bin").open("wb") as holes:
        holes.truncate(64 * 1024 * 1024)  # no block on disk, 64 MiB to whoever reads it
    with pytest.raises(TreeError, match="too large: more than 16 MiB of files"):
        scan(bot, Caps(bytes=16 * 1024 * 1024))
    with pytest.raises(SeatCopyError, match=r"too large.*--build-disk-mb") as refused:
        private_copy(bot, None, 16 * 1024 * 1024)
    assert "\n" not in str(refused.value)


def test_a_seat_copy_that_is_not_its_build_is_refused(tmp_path: Path) -> None:
    bot = tmp_path / "b"
    bot.mkdir()
    (bot / "bot.toml").write_text(MANIFEST)
    built = compute_version(bot)
    copy = private_copy(bot, built)
    assert compute_version(copy) == built
    (bot / "bot.toml").write_text(MANIFEST + "# changed after it was built\n")
    with pytest.raises(SeatCopyError, match=f"not to its build {built}"):
        private_copy(bot, built)


# -- whatever the members, nothing outside the tree is written ---------------------------------

PARTS = ("a", "b", "A", "..", ".", "", "l")
TARGETS = ("a", "b", "l", "..", "../outside", "../outside/victim", "a/../..", "/tmp", ".")
name = st.lists(st.sampled_from(PARTS), min_size=1, max_size=4).map("/".join)
member = st.one_of(
    st.tuples(st.just("file"), name, st.binary(max_size=8)),
    st.tuples(st.just("dir"), name, st.just(b"")),
    st.tuples(st.just("link"), name, st.sampled_from(TARGETS).map(str.encode)),
    st.tuples(st.just("copy"), name, name.map(str.encode)),
)


def snapshot(root: Path) -> dict[str, bytes]:
    found = {}
    for folder, dirs, files in os.walk(root):
        for entry in dirs + files:
            path = Path(folder) / entry
            found[str(path)] = (
                os.readlink(path).encode()
                if path.is_symlink()
                else (path.read_bytes() if path.is_file() else b"<dir>")
            )
    return found


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(members=st.lists(member, max_size=12))
def test_no_sequence_of_members_writes_outside_and_kept_links_stay_inside(
    tmp_path_factory: pytest.TempPathFactory, members: list[tuple[str, str, bytes]]
) -> None:
    root = tmp_path_factory.mktemp("w")
    (root / "outside").mkdir()
    (root / "outside" / "victim").write_bytes(b"victim")
    before = snapshot(root / "outside")
    target = root / "target"
    try:
        with Writer(target, Caps(bytes=4096, entries=50, depth=3)) as writer:
            for kind, rel, content in members:
                try:
                    if kind == "file":
                        writer.file(rel, [content])
                    elif kind == "dir":
                        writer.directory(rel)
                    elif kind == "link":
                        writer.link(rel, content.decode())
                    else:
                        writer.copy(rel, content.decode())
                except TreeError:
                    continue  # refused: the next member is tried all the same
        scan(target, strict=True).check_links()
    except TreeError:
        pass  # a tree with a link out: refused as a whole
    else:
        # Every link the check let through, resolved by the kernel itself, stays inside.
        for folder, dirs, files in os.walk(target):
            for entry in dirs + files:
                path = Path(folder) / entry
                if path.is_symlink() and path.exists():
                    assert path.resolve().is_relative_to(target.resolve()), path
    assert snapshot(root / "outside") == before
    assert sorted(p.name for p in root.iterdir()) in (["outside"], ["outside", "target"])
