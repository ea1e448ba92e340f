"""Tests for arena.bots.manifest: loading bot.toml directories and executables, versions."""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path

import pytest

from arena.bots import BotSpecError, load_bot
from arena.bots.manifest import check_pass_env, versioned_files


def write_bot(directory: Path, manifest: str, files: dict[str, str] | None = None) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "bot.toml").write_text(manifest)
    for rel, text in (files or {"bot.py": "print('hi')\n"}).items():
        (directory / rel).parent.mkdir(parents=True, exist_ok=True)
        (directory / rel).write_text(text)
    return directory


BASIC = 'name = "greedy"\ncommand = ["python3", "bot.py"]\n'


def test_directory_bot(tmp_path: Path) -> None:
    bot_dir = write_bot(tmp_path / "greedy", BASIC)
    spec = load_bot(bot_dir)
    assert spec.name == "greedy"
    assert spec.directory == bot_dir.resolve()
    # python3 -> the arena's interpreter; bot.py -> absolute, since cwd is the seat workdir.
    assert spec.command == (sys.executable, str(bot_dir.resolve() / "bot.py"))
    assert spec.build is None
    assert len(spec.version) == 12
    int(spec.version, 16)


def test_load_bot_accepts_str(tmp_path: Path) -> None:
    bot_dir = write_bot(tmp_path / "greedy", BASIC)
    assert load_bot(str(bot_dir)) == load_bot(bot_dir)


def test_command_string_is_shlex_split_and_relative_paths_resolved(tmp_path: Path) -> None:
    bot_dir = write_bot(
        tmp_path / "b",
        'name = "b"\ncommand = "./run --level \'very hard\' data.txt"\nbuild = "make all"\n',
        {"run": "#!/bin/sh\n", "data.txt": "x"},
    )
    spec = load_bot(bot_dir)
    root = bot_dir.resolve()
    assert spec.command == (str(root / "run"), "--level", "very hard", str(root / "data.txt"))


def test_a_build_string_runs_in_a_shell_and_a_list_as_it_is(tmp_path: Path) -> None:
    """A build runs in the bot's directory (its per-version copy): nothing is made absolute,
    so ``protoc -I proto proto/x.proto`` means what it says."""
    files = {"proto/x.proto": "syntax = 'proto3';\n"}
    shell = write_bot(
        tmp_path / "shell",
        'name = "b"\ncommand = ["x"]\nbuild = "mkdir -p gen && protoc -I proto proto/x.proto"\n',
        files,
    )
    assert load_bot(shell).build == ("sh", "-c", "mkdir -p gen && protoc -I proto proto/x.proto")
    assert load_bot(shell).build_line == "mkdir -p gen && protoc -I proto proto/x.proto"
    listed = write_bot(
        tmp_path / "listed",
        'name = "b"\ncommand = ["x"]\nbuild = ["protoc", "-I", "proto", "proto/x.proto"]\n',
        files,
    )
    assert load_bot(listed).build == ("protoc", "-I", "proto", "proto/x.proto")


def test_a_manifest_cannot_ask_for_the_arenas_variables(tmp_path: Path) -> None:
    bot_dir = write_bot(tmp_path / "b", 'name = "b"\ncommand = ["x"]\nenv = ["HOME_SECRET"]\n')
    with pytest.raises(BotSpecError, match="only the operator grants") as info:
        load_bot(bot_dir)
    assert "--pass-env" in str(info.value)


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["JAVA_HOME", "GOPATH", "JAVA_HOME"], ("JAVA_HOME", "GOPATH")),
        (["ARENA_TOKEN"], "the arena sets it"),
        (["PATH"], "the arena sets it"),
        (["NOT-A-NAME"], "is not one"),
    ],
)
def test_pass_env_names_are_checked(names: list[str], expected: object) -> None:
    if isinstance(expected, tuple):
        assert check_pass_env(names) == expected
    else:
        with pytest.raises(ValueError, match=str(expected)):
            check_pass_env(names)


def test_relative_first_element_with_slash_resolved_before_it_exists(tmp_path: Path) -> None:
    # build/bot is produced by the build step, so it cannot exist at load time.
    bot_dir = write_bot(tmp_path / "b", 'name = "b"\ncommand = ["build/bot", "--fast"]\n')
    spec = load_bot(bot_dir)
    assert spec.command == (str(bot_dir.resolve() / "build" / "bot"), "--fast")


def test_bare_program_name_left_for_path_lookup(tmp_path: Path) -> None:
    bot_dir = write_bot(tmp_path / "b", 'name = "b"\ncommand = ["node", "main.js"]\n')
    assert load_bot(bot_dir).command == ("node", "main.js")  # main.js does not exist


def test_executable_bot(tmp_path: Path) -> None:
    script = tmp_path / "random_bot.py"
    script.write_text(f"#!{sys.executable}\nprint('hi')\n")
    script.chmod(0o755)
    spec = load_bot(script)
    assert spec.name == "random_bot"
    assert spec.command == (str(script),)
    assert spec.directory == tmp_path
    assert spec.build is None
    assert spec.version == hashlib.sha256(script.read_bytes()).hexdigest()[:12]


def test_non_executable_file(tmp_path: Path) -> None:
    script = tmp_path / "bot.py"
    script.write_text("print('hi')\n")
    script.chmod(0o644)
    with pytest.raises(BotSpecError, match="not executable"):
        load_bot(script)


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(BotSpecError, match="does not exist"):
        load_bot(tmp_path / "nope")


def test_directory_without_manifest(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(BotSpecError, match=r"has no bot\.toml manifest"):
        load_bot(tmp_path / "empty")


def test_bad_toml_names_file_and_line(tmp_path: Path) -> None:
    bot_dir = write_bot(tmp_path / "b", 'name = "b"\ncommand = ["x"\nbuild = = 3\n')
    with pytest.raises(BotSpecError) as info:
        load_bot(bot_dir)
    message = str(info.value)
    assert str(bot_dir.resolve() / "bot.toml") in message
    assert "line 3" in message
    assert "\n" not in message


def test_missing_command(tmp_path: Path) -> None:
    bot_dir = write_bot(tmp_path / "b", 'name = "b"\n')
    with pytest.raises(BotSpecError, match="missing required key 'command'"):
        load_bot(bot_dir)


@pytest.mark.parametrize(
    ("manifest", "expected"),
    [
        ('command = ["x"]\n', "missing required key 'name'"),
        ('name = "a b"\ncommand = ["x"]\n', "invalid bot name"),
        ('name = ".."\ncommand = ["x"]\n', "invalid bot name"),
        ('name = 3\ncommand = ["x"]\n', "'name' must be a string"),
        ('name = "b"\ncommand = []\n', "'command' must not be empty"),
        ('name = "b"\ncommand = ""\n', "'command' must not be empty"),
        ('name = "b"\ncommand = ["x", 1]\n', "'command' must be a string or a list"),
        ('name = "b"\ncommand = "x \'unclosed"\n', "cannot split 'command'"),
        ('name = "b"\ncommand = ["x"]\nbuild = 1\n', "'build' must be a string or a list"),
        ('name = "b"\ncommand = ["x"]\nbuld = "make"\n', "unknown key"),
    ],
)
def test_invalid_manifests(tmp_path: Path, manifest: str, expected: str) -> None:
    bot_dir = write_bot(tmp_path / "b", manifest)
    with pytest.raises(BotSpecError, match=expected) as info:
        load_bot(bot_dir)
    assert "\n" not in str(info.value)


def test_version_stable_and_sensitive_to_changes(tmp_path: Path) -> None:
    bot_dir = write_bot(tmp_path / "b", BASIC, {"bot.py": "print(1)\n", "lib/util.py": "X = 1\n"})
    v1 = load_bot(bot_dir).version
    assert load_bot(bot_dir).version == v1

    (bot_dir / "lib" / "util.py").write_text("X = 2\n")
    v2 = load_bot(bot_dir).version
    assert v2 != v1

    (bot_dir / "lib" / "util.py").write_text("X = 1\n")
    assert load_bot(bot_dir).version == v1  # content, not mtime

    (bot_dir / "lib" / "util.py").rename(bot_dir / "lib" / "other.py")
    assert load_bot(bot_dir).version not in {v1, v2}  # paths are hashed too


def test_same_content_same_version_elsewhere(tmp_path: Path) -> None:
    a = write_bot(tmp_path / "a", BASIC, {"bot.py": "print(1)\n"})
    b = tmp_path / "elsewhere" / "b"
    shutil.copytree(a, b)
    assert load_bot(a).version == load_bot(b).version


def test_version_skips_only_what_never_runs(tmp_path: Path) -> None:
    """Python's caches and a repository's history are neither hashed nor copied where the
    bot runs; everything else is both."""
    bot_dir = write_bot(tmp_path / "b", BASIC)
    before = load_bot(bot_dir).version
    skipped = ["__pycache__/bot.cpython-311.pyc", "lib/__pycache__/x.pyc", "stray.pyc", ".git/HEAD"]
    for rel in skipped:
        (bot_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        (bot_dir / rel).write_text("noise")
    os.mkfifo(bot_dir / "control.fifo")  # must be skipped, not read (which would hang)
    assert load_bot(bot_dir).version == before
    assert not {rel for rel, _ in versioned_files(bot_dir)} & {*skipped, "control.fifo"}


@pytest.mark.parametrize(
    "rel", ["node_modules/left-pad/index.js", "build/bot", "logs/seat0.log", "gen/stubs.rb"]
)
def test_code_anywhere_else_is_part_of_the_version(tmp_path: Path, rel: str) -> None:
    """No skip list in which running code can hide: a file under build/ or node_modules
    changes what runs, so it changes the version."""
    bot_dir = write_bot(tmp_path / "b", BASIC)
    before = load_bot(bot_dir).version
    (bot_dir / rel).parent.mkdir(parents=True, exist_ok=True)
    (bot_dir / rel).write_text("code")
    changed = load_bot(bot_dir).version
    assert changed != before
    (bot_dir / rel).write_text("other code")
    assert load_bot(bot_dir).version not in {before, changed}
