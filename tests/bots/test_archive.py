"""Bots that travel by content (arena.bots.archive): packed by version, unpacked, checked
against that version and built once per version in a cache that starts empty."""

from __future__ import annotations

import dataclasses
import io
import os
import pickle
import tarfile
from pathlib import Path

import pytest

from arena.bots import BotBuildError, BotSpec, load_bot
from arena.bots.archive import ArchiveError, BotArchive, install, pack_bot
from arena.bots.build import BotCache, BotOptions

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"
# Counts its runs in build/ (in the receiving side's copy): the cache must run it once.
COUNTING_BUILD = '["sh", "-c", "mkdir -p build && echo run >> build/runs"]'


def make_bot(directory: Path, build: str | None = None, name: str = "b") -> Path:
    directory.mkdir(parents=True)
    manifest = f'name = "{name}"\ncommand = ["python3", "bot.py"]\n'
    if build is not None:
        manifest += f"build = {build}\n"
    (directory / "bot.toml").write_text(manifest)
    (directory / "bot.py").write_text("print('hi')\n")
    (directory / "lib").mkdir()
    (directory / "lib" / "helper.py").write_text("X = 1\n")
    return directory


def files_of(directory: Path) -> dict[str, bytes]:
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in directory.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_a_sample_bot_unpacks_to_its_own_files_and_version(tmp_path: Path) -> None:
    spec = load_bot(SAMPLES / "greedy")
    installed = install(BotCache(tmp_path / "cache"), pack_bot(spec), BotOptions())
    assert (installed.name, installed.version) == (spec.name, spec.version)
    assert installed.directory.is_relative_to(tmp_path / "cache")
    assert files_of(installed.directory) == files_of(spec.directory)
    # The command names the cached copy, never the packing machine's files.
    assert installed.command[1] == str(installed.directory / "bot.py")


def test_packing_is_the_same_bytes_each_time(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "b")
    first = pack_bot(load_bot(bot))
    (bot / "lib" / "helper.py").touch()  # a newer time, the same content
    assert pack_bot(load_bot(bot)).data == first.data


def test_what_travels_is_what_the_version_hashes(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "b")
    for left in ("build/out.bin", "__pycache__/bot.cpython-311.pyc", ".git/HEAD"):
        (bot / left).parent.mkdir(exist_ok=True)
        (bot / left).write_text("left over")
    with tarfile.open(fileobj=io.BytesIO(pack_bot(load_bot(bot)).data)) as tar:
        assert sorted(tar.getnames()) == ["bot.py", "bot.toml", "build/out.bin", "lib/helper.py"]


def test_an_archive_whose_content_is_not_its_version_is_refused(tmp_path: Path) -> None:
    honest = load_bot(make_bot(tmp_path / "b"))
    other = load_bot(make_bot(tmp_path / "other", name="b"))
    (other.directory / "bot.py").write_text("print('something else')\n")
    forged = dataclasses.replace(pack_bot(load_bot(other.directory)), version=honest.version)
    cache = BotCache(tmp_path / "cache")
    with pytest.raises(ArchiveError, match=f"not to its version {honest.version}"):
        install(cache, forged, BotOptions())
    assert not (tmp_path / "cache" / honest.version).exists()
    # The real one still can.
    assert install(cache, pack_bot(honest), BotOptions()).version == honest.version


def test_a_bot_changed_on_disk_since_it_was_loaded_is_not_shipped(tmp_path: Path) -> None:
    spec = load_bot(make_bot(tmp_path / "b"))
    (spec.directory / "bot.py").write_text("print('edited')\n")
    with pytest.raises(ArchiveError, match="changed on disk"):
        pack_bot(spec)


def test_the_build_runs_once_per_version_across_caches_sharing_a_root(tmp_path: Path) -> None:
    spec = load_bot(make_bot(tmp_path / "b", build=COUNTING_BUILD))
    archive = pack_bot(spec)
    first = install(BotCache(tmp_path / "cache"), archive, BotOptions())
    # Another process, the same disk.
    second = install(BotCache(tmp_path / "cache"), archive, BotOptions())
    assert first.directory == second.directory
    assert (first.directory / "build" / "runs").read_text() == "run\n"
    assert not (spec.directory / "build").exists()  # built on the receiving side only


def test_without_build_nothing_is_built_until_asked(tmp_path: Path) -> None:
    archive = pack_bot(load_bot(make_bot(tmp_path / "b", build=COUNTING_BUILD)))
    cache = BotCache(tmp_path / "cache")
    unbuilt = install(cache, archive, BotOptions(build=False))
    assert not (unbuilt.directory / "build").exists()
    built = install(cache, archive, BotOptions())
    assert (built.directory / "build" / "runs").read_text() == "run\n"


def test_a_build_that_fails_is_a_build_error_that_survives_pickling(tmp_path: Path) -> None:
    failing = '["sh", "-c", "echo broken toolchain; exit 3"]'
    archive = pack_bot(load_bot(make_bot(tmp_path / "b", build=failing)))
    with pytest.raises(BotBuildError) as raised:
        install(BotCache(tmp_path / "cache"), archive, BotOptions())
    # A worker's failure reaches the coordinator pickled: whole, as a local one is raised.
    error = pickle.loads(pickle.dumps(raised.value))
    assert isinstance(error, BotBuildError)
    assert error.returncode == 3
    assert "broken toolchain" in error.log_tail
    assert str(error) == str(raised.value)


def test_a_one_file_bot_travels_executable(tmp_path: Path) -> None:
    script = tmp_path / "solo"
    script.write_text("#!/bin/sh\necho solo\n")
    script.chmod(0o755)
    spec = load_bot(script)
    installed = install(BotCache(tmp_path / "cache"), pack_bot(spec), BotOptions())
    copy = Path(installed.command[0])
    assert (installed.name, installed.version) == ("solo", spec.version)
    assert copy != script and copy.read_bytes() == script.read_bytes()
    assert os.access(copy, os.X_OK)


def test_a_link_out_of_the_bot_ships_no_file_of_the_packing_machine(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the packing machine's own file")
    bot = make_bot(tmp_path / "b")
    (bot / "loot").symlink_to(secret)
    archive = pack_bot(load_bot(bot))
    assert b"packing machine" not in _unzipped(archive)
    with pytest.raises(ArchiveError, match="cannot unpack"):
        install(BotCache(tmp_path / "cache"), archive, BotOptions())


def test_an_interrupted_install_is_redone(tmp_path: Path) -> None:
    spec = load_bot(make_bot(tmp_path / "b"))
    cache_root = tmp_path / "cache"
    half = cache_root / spec.version / "bot"
    half.mkdir(parents=True)
    (half / "bot.py").write_text("half written")
    installed = install(BotCache(cache_root), pack_bot(spec), BotOptions())
    assert files_of(installed.directory) == files_of(spec.directory)


def test_the_registered_name_is_kept(tmp_path: Path) -> None:
    spec: BotSpec = dataclasses.replace(load_bot(make_bot(tmp_path / "b")), name="renamed")
    assert install(BotCache(tmp_path / "cache"), pack_bot(spec), BotOptions()).name == "renamed"


def test_archive_repr_leaves_out_the_bytes(tmp_path: Path) -> None:
    archive = pack_bot(load_bot(make_bot(tmp_path / "b")))
    assert repr(archive).startswith("BotArchive(b@") and "\\x" not in repr(archive)
    assert isinstance(archive, BotArchive)


def _unzipped(archive: BotArchive) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=io.BytesIO(archive.data)) as tar:
        for member in tar.getmembers():
            source = tar.extractfile(member) if member.isfile() else None
            if source is not None:
                out.write(source.read())
            out.write(member.linkname.encode())
    return out.getvalue()
