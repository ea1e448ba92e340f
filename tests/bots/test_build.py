"""Tests for arena.bots.build_bot: running a bot's build step once before use."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from arena.bots import BotBuildError, build_bot, load_bot


def make_bot(directory: Path, build: str) -> Path:
    directory.mkdir(parents=True)
    (directory / "bot.toml").write_text(
        f'name = "b"\ncommand = ["python3", "bot.py"]\nbuild = {build}\n'
    )
    (directory / "bot.py").write_text("print('hi')\n")
    return directory


def test_build_creates_file(tmp_path: Path) -> None:
    bot_dir = make_bot(
        tmp_path / "b",
        """["python3", "-c", "open('built.txt', 'w').write('ok'); print('building')"]""",
    )
    log = tmp_path / "logs" / "build.log"
    build_bot(load_bot(bot_dir), log)
    assert (bot_dir / "built.txt").read_text() == "ok"
    assert "building" in log.read_text()


def test_no_build_is_a_noop(tmp_path: Path) -> None:
    bot_dir = tmp_path / "b"
    bot_dir.mkdir()
    (bot_dir / "bot.toml").write_text('name = "b"\ncommand = ["python3", "bot.py"]\n')
    log = tmp_path / "build.log"
    build_bot(load_bot(bot_dir), log)
    assert not log.exists()


def test_failing_build_raises_with_code_and_tail(tmp_path: Path) -> None:
    bot_dir = make_bot(
        tmp_path / "b",
        """"python3 -c 'import sys; print(\\"compiler says boom\\"); sys.exit(3)'" """,
    )
    with pytest.raises(BotBuildError) as info:
        build_bot(load_bot(bot_dir), tmp_path / "build.log")
    assert info.value.returncode == 3
    assert "compiler says boom" in info.value.log_tail
    assert "exit code 3" in str(info.value)
    assert "compiler says boom" in str(info.value)


def test_build_timeout_kills_and_raises(tmp_path: Path) -> None:
    bot_dir = make_bot(tmp_path / "b", """["python3", "-c", "import time; time.sleep(30)"]""")
    started = time.monotonic()
    with pytest.raises(BotBuildError, match="timed out") as info:
        build_bot(load_bot(bot_dir), tmp_path / "build.log", timeout=0.5)
    assert time.monotonic() - started < 5
    assert info.value.returncode is None


def test_missing_build_program_raises(tmp_path: Path) -> None:
    bot_dir = make_bot(tmp_path / "b", '["./no-such-build-script"]')
    with pytest.raises(BotBuildError, match="could not start"):
        build_bot(load_bot(bot_dir), tmp_path / "build.log")
