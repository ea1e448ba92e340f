"""The C++ sample bot (sample_bots/cpp): built with its manifest, played for real.

Real processes against a real referee, no mocks: the build step (CMake, protoc and
grpc_cpp_plugin from the system packages) runs as the arena runs it, then the compiled
binary plays a match of several games against two random teams.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest

from arena.bots import BotSpec, load_bot
from arena.bots.build import BUILD_LOG, BotCache, BotOptions
from arena.bots.samples import sample_bots_dir

from .common import check_first_team_holds_its_own, clean_match_against_random, run_alone, tcp_match

# The C++ bot is built for the module (about a minute): the whole suite only.
pytestmark = pytest.mark.slow

CPP_BOT = sample_bots_dir() / "cpp"
TOOLS = ("cmake", "g++", "pkg-config", "protoc", "grpc_cpp_plugin")

_missing = [tool for tool in TOOLS if shutil.which(tool) is None]
if _missing:
    # On CI a missing toolchain is a broken setup, not a reason to skip.
    if os.environ.get("CI"):
        raise RuntimeError(f"the cpp sample bot's tests need {', '.join(_missing)} on PATH")
    pytest.skip(f"not on PATH: {', '.join(_missing)}", allow_module_level=True)


@pytest.fixture(scope="module")
def cpp_bot(tmp_path_factory: pytest.TempPathFactory) -> BotSpec:
    """The cpp bot, built once with its manifest's build command (CMake)."""
    spec = load_bot(CPP_BOT)
    assert spec.name == "cpp"
    assert spec.command == (str(CPP_BOT / "build" / "bot"),)
    assert spec.build is not None
    cache = BotCache()
    # Built as the arena builds it: in the sandbox, in the version's copy.
    built = cache.prepare(spec, BotOptions(build_timeout_s=840))
    binary = built.directory / "build" / "bot"
    assert built.command == (str(binary),)
    assert binary.is_file(), (cache.root / spec.version / BUILD_LOG).read_text()
    assert os.access(binary, os.X_OK)
    # The arena runs the compiled program itself, not a script wrapping it.
    assert binary.read_bytes()[:4] == b"\x7fELF"
    assert built.version == spec.version  # the build never moves the version
    return built


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_cpp_bot_plays_a_clean_match_and_beats_random(cpp_bot: BotSpec, tmp_path: Path) -> None:
    reports, logs = clean_match_against_random(cpp_bot, tmp_path)
    assert all("match over: finished" in log for log in logs), logs
    check_first_team_holds_its_own(reports)


@pytest.mark.timeout(900)
def test_cpp_bot_over_tcp(cpp_bot: BotSpec, tmp_path: Path) -> None:
    tcp_match(cpp_bot, tmp_path)


@pytest.mark.timeout(900)
def test_refused_join_is_one_line_and_exit_2(cpp_bot: BotSpec) -> None:
    code, stderr = asyncio.run(run_alone([cpp_bot.command[0]], None, "not-a-seat-token"))
    assert code == 2
    assert stderr == "[cpp] the referee refused this bot: UNAUTHENTICATED: unknown seat token\n"


@pytest.mark.timeout(900)
def test_unreachable_referee_is_one_line_and_exit_2(cpp_bot: BotSpec, tmp_path: Path) -> None:
    address = f"unix:{tmp_path}/nobody-listens.sock"
    code, stderr = asyncio.run(run_alone([cpp_bot.command[0]], address, "any-token"))
    assert code == 2
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith(f"[cpp] cannot reach the referee at {address}: UNAVAILABLE: ")
