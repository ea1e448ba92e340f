"""Tests for arena.bots.build: a bot copied per version and built there once, as a bot.

What a hostile build can and cannot reach is in tests/fairplay/test_build_sandbox.py.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from arena.bots import BotBuildError, Limits, compute_version, load_bot
from arena.bots.build import BUILD_LOG, BotCache, BotOptions, PrepareError


def make_bot(directory: Path, build: str | None, files: dict[str, str] | None = None) -> Path:
    directory.mkdir(parents=True)
    manifest = 'name = "b"\ncommand = ["python3", "bot.py"]\n'
    if build is not None:
        manifest += f"build = {build}\n"
    (directory / "bot.toml").write_text(manifest)
    (directory / "bot.py").write_text("print('hi')\n")
    for rel, text in (files or {}).items():
        (directory / rel).parent.mkdir(parents=True, exist_ok=True)
        (directory / rel).write_text(text)
    return directory


def snapshot(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes() for p in directory.rglob("*") if p.is_file()
    }


def test_a_build_runs_in_the_versions_copy_and_never_writes_the_source(tmp_path: Path) -> None:
    source = make_bot(
        tmp_path / "b",
        """["python3", "-c", "open('built.txt', 'w').write('ok'); print('building')"]""",
    )
    before = snapshot(source)
    spec = load_bot(source)
    built = BotCache(tmp_path / "cache").prepare(spec, BotOptions())
    assert (built.directory / "built.txt").read_text() == "ok"
    assert snapshot(source) == before  # the source directory is never written
    assert built.version == spec.version == load_bot(source).version  # a build never moves it
    assert built.directory == tmp_path / "cache" / spec.version / "bot"
    assert "building" in (tmp_path / "cache" / spec.version / BUILD_LOG).read_text()
    assert built.command[-1] == str(built.directory / "bot.py")  # it runs the built copy


def test_a_version_is_built_once(tmp_path: Path) -> None:
    source = make_bot(tmp_path / "b", """["python3", "-c", "open('count', 'a').write('x')"]""")
    for _ in range(2):  # two processes sharing the cache, one after the other
        built = BotCache(tmp_path / "cache").prepare(load_bot(source), BotOptions())
    assert (built.directory / "count").read_text() == "x"


def test_a_string_build_runs_in_a_shell_with_relative_paths(tmp_path: Path) -> None:
    source = make_bot(
        tmp_path / "b",
        '"mkdir -p gen && cat proto/x.txt > gen/y.txt && echo done"',
        {"proto/x.txt": "stubs"},
    )
    built = BotCache(tmp_path / "cache").prepare(load_bot(source), BotOptions())
    assert (built.directory / "gen" / "y.txt").read_text() == "stubs"
    assert not (source / "gen").exists()


def test_no_build_copies_only(tmp_path: Path) -> None:
    source = make_bot(tmp_path / "b", None)
    cache = BotCache(tmp_path / "cache")
    built = cache.prepare(load_bot(source), BotOptions())
    assert (built.directory / "bot.py").read_text() == "print('hi')\n"
    assert not (cache.root / built.version / BUILD_LOG).exists()


def test_without_build_the_copy_runs_as_it_is(tmp_path: Path) -> None:
    source = make_bot(tmp_path / "b", """["python3", "-c", "open('built.txt', 'w')"]""")
    built = BotCache(tmp_path / "cache").prepare(load_bot(source), BotOptions(build=False))
    assert not (built.directory / "built.txt").exists()


def test_failing_build_raises_with_status_and_tail(tmp_path: Path) -> None:
    source = make_bot(
        tmp_path / "b",
        """"python3 -c 'import sys; print(\\"compiler says boom\\"); sys.exit(3)'" """,
    )
    with pytest.raises(BotBuildError) as info:
        BotCache(tmp_path / "cache").prepare(load_bot(source), BotOptions())
    assert info.value.returncode == 3
    assert "compiler says boom" in info.value.log_tail
    assert "exit status 3" in str(info.value)
    assert "compiler says boom" in str(info.value)


def test_a_failed_build_is_tried_again_next_time(tmp_path: Path) -> None:
    source = make_bot(tmp_path / "b", """["sh", "-c", "test -e $HOME/never || exit 1"]""")
    cache = BotCache(tmp_path / "cache")
    for _ in range(2):
        with pytest.raises(BotBuildError):
            cache.prepare(load_bot(source), BotOptions())


@pytest.mark.slow
def test_build_timeout_kills_and_raises(tmp_path: Path) -> None:
    source = make_bot(tmp_path / "b", """["python3", "-c", "import time; time.sleep(60)"]""")
    started = time.monotonic()
    with pytest.raises(BotBuildError, match="timed out") as info:
        BotCache(tmp_path / "cache").prepare(load_bot(source), BotOptions(build_timeout_s=1.0))
    assert time.monotonic() - started < 50  # not the build's own 60 s
    assert info.value.returncode is None


@pytest.mark.slow
def test_missing_build_program_fails(tmp_path: Path) -> None:
    source = make_bot(tmp_path / "b", '["./no-such-build-script"]')
    with pytest.raises(BotBuildError):
        BotCache(tmp_path / "cache").prepare(load_bot(source), BotOptions())


def test_a_bot_changed_since_it_was_loaded_is_refused(tmp_path: Path) -> None:
    source = make_bot(tmp_path / "b", None)
    spec = load_bot(source)
    (source / "bot.py").write_text("print('changed')\n")
    with pytest.raises(PrepareError, match="changed on disk"):
        BotCache(tmp_path / "cache").prepare(spec, BotOptions())


def test_a_one_file_bot_is_copied_alone(tmp_path: Path) -> None:
    script = tmp_path / "solo"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    (tmp_path / "neighbour.txt").write_text("not the bot's")
    spec = load_bot(script)
    built = BotCache(tmp_path / "cache").prepare(spec, BotOptions())
    assert built.executable and built.version == spec.version
    assert Path(built.command[0]).read_text() == script.read_text()
    assert "neighbour.txt" not in {p.name for p in Path(built.command[0]).parent.iterdir()}


# -- a build's copy on a capped filesystem, and the digest of what it built (issue 34, item 4) --


@pytest.mark.parametrize(
    ("build", "said"),
    [
        # Holes cost the tmpfs nothing, but every copy of the file would be written in full.
        ('"truncate -s 512M holes.bin"', "too large: more than 16 MiB of files"),
        # Real bytes: the filesystem itself stops the build.
        ('"head -c 64M /dev/zero > big.bin"', "its copy is full: a build has 16 MiB"),
    ],
)
def test_a_build_has_the_disk_it_is_given_and_no_more(
    build: str, said: str, tmp_path: Path
) -> None:
    source = make_bot(tmp_path / "b", build)
    options = BotOptions(limits=Limits(disk_bytes=16 * 1024 * 1024))
    with pytest.raises(BotBuildError) as refused:
        BotCache(tmp_path / "cache").prepare(load_bot(source), options)
    line = str(refused.value).splitlines()[0]
    assert said in line and "--build-disk-mb" in line, line
    built = [p.name for p in (tmp_path / "cache").rglob("*") if p.suffix == ".bin"]
    assert built == []  # nothing of it reached the host's disk


def test_the_build_digest_is_what_was_built(tmp_path: Path) -> None:
    plain = BotCache(tmp_path / "cache").prepare(
        load_bot(make_bot(tmp_path / "p", None)), BotOptions()
    )
    assert plain.build_digest == plain.version  # nothing built: its seats run its version
    # A build that differs from one build to the next (it rewrites its own bot.toml).
    rewrite = "import os; open('bot.toml', 'a').write('# ' + os.urandom(8).hex())"
    build = f"""["python3", "-c", "{rewrite}"]"""
    source = make_bot(tmp_path / "b", build)
    spec = load_bot(source)
    first = BotCache(tmp_path / "one").prepare(spec, BotOptions())
    second = BotCache(tmp_path / "two").prepare(spec, BotOptions())
    assert first.version == second.version == spec.version  # the sources did not move
    assert first.build_digest == compute_version(first.directory)
    assert second.build_digest == compute_version(second.directory)
    assert first.build_digest != second.build_digest  # what runs did: it is recorded apart


def test_a_cached_copy_changed_since_its_build_is_made_again(tmp_path: Path) -> None:
    source = make_bot(tmp_path / "b", """["python3", "-c", "open('built.txt', 'w').write('ok')"]""")
    built = BotCache(tmp_path / "cache").prepare(load_bot(source), BotOptions())
    (built.directory / "bot.py").write_text("print('planted')\n")
    again = BotCache(tmp_path / "cache").prepare(load_bot(source), BotOptions())
    assert (again.directory / "bot.py").read_text() == "print('hi')\n"
    assert again.build_digest == built.build_digest == compute_version(again.directory)
