"""The stdio sample bots (sample_bots/go, sample_bots/shell): built with their manifests,
played for real.

Neither has a gRPC library: both speak JSON lines on their standard input and output
(`protocol = "stdio"`). Real processes against a real referee, no mocks, each bot in the
sandbox as the arena runs it by default: the Go build (`go build`, offline, from Debian's
golang-go) runs as the arena runs it, then each bot plays a match against the Python
samples, and the three play a tournament with the arena's runner, as `arena run` does.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from arena.bots import BotSpec, load_bot
from arena.bots.build import BUILD_LOG, BotCache, BotOptions
from arena.bots.samples import sample_bots_dir
from arena.referee.result import GameResult

from .common import (
    FIRST_TEAM_SEATS,
    check_clean_tournament,
    check_first_team_clean,
    check_first_team_holds_its_own,
    play_match,
)

# The Go bot is built for the module: the whole suite only.
pytestmark = pytest.mark.slow

GO_BOT = sample_bots_dir() / "go"
SHELL_BOT = sample_bots_dir() / "shell"
GREEDY_BOT = sample_bots_dir() / "greedy"
RANDOM_BOT = sample_bots_dir() / "random"


_missing = [tool for tool in ("go", "jq") if shutil.which(tool) is None]
if _missing:
    # On CI a missing toolchain is a broken setup (scripts/setup.sh installs both).
    if os.environ.get("CI"):
        raise RuntimeError(f"the stdio sample bots' tests need {', '.join(_missing)} on PATH")
    pytest.skip(f"not on PATH: {', '.join(_missing)}", allow_module_level=True)


@pytest.fixture(scope="module")
def go_bot() -> BotSpec:
    """The go bot, built once with its manifest's build command, in the sandbox and
    without the network: the standard library is all it needs."""
    spec = load_bot(GO_BOT)
    assert spec.name == "go" and spec.stdio
    assert spec.command == (str(GO_BOT / "bot"),)
    cache = BotCache()
    built = cache.prepare(spec, BotOptions(build_timeout_s=600))
    binary = built.directory / "bot"
    assert built.command == (str(binary),)
    assert binary.is_file(), (cache.root / spec.version / BUILD_LOG).read_text()
    # The arena runs the compiled program itself, not a script wrapping it.
    assert binary.read_bytes()[:4] == b"\x7fELF"
    # The build's cache does not travel to the seats with the binary.
    assert sorted(p.name for p in built.directory.iterdir()) == sorted(
        [p.name for p in GO_BOT.iterdir() if p.name != "bot"] + ["bot"]
    )
    assert built.version == spec.version  # the build never moves the version
    return built


@pytest.fixture(scope="module")
def shell_bot() -> BotSpec:
    """The shell bot: nothing to build, but prepared (copied) as the arena does."""
    spec = load_bot(SHELL_BOT)
    assert spec.name == "shell" and spec.stdio and spec.build is None
    return BotCache().prepare(spec, BotOptions())


def check_all_seats_clean(reports: list[GameResult]) -> None:
    """No fault at any seat: the Python samples' seats are clean too."""
    for report in reports:
        assert list(report.faults) == [], report.faults


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_go_bot_plays_a_clean_match_and_beats_random(go_bot: BotSpec, tmp_path: Path) -> None:
    games = 4
    random_bot = load_bot(RANDOM_BOT)
    seeds = list(range(1, games + 1))
    match, table, reports = play_match(
        (go_bot, random_bot, random_bot), tmp_path, seeds, sandbox=True
    )
    logs = check_first_team_clean(match, table, reports, games, "go")
    check_all_seats_clean(reports)
    assert all("[go] match over: finished" in log for log in logs), logs
    check_first_team_holds_its_own(reports)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_shell_bot_plays_a_clean_match(shell_bot: BotSpec, tmp_path: Path) -> None:
    games = 3
    greedy_bot, random_bot = load_bot(GREEDY_BOT), load_bot(RANDOM_BOT)
    seeds = list(range(1, games + 1))
    match, table, reports = play_match(
        (shell_bot, greedy_bot, random_bot), tmp_path, seeds, sandbox=True
    )
    logs = check_first_team_clean(match, table, reports, games, "shell")
    check_all_seats_clean(reports)
    # Every decision kind came up and was answered: the shell bot passes every bid, so
    # it never names trump, but it discards and plays in every deal that is played.
    assert all(report.seats[seat].decisions > 0 for report in reports for seat in FIRST_TEAM_SEATS)
    assert all("jq" not in log for log in logs), logs


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_stdio_bots_play_a_clean_tournament_with_the_python_samples(
    go_bot: BotSpec, shell_bot: BotSpec, tmp_path: Path
) -> None:
    """The arena's runner, as `arena run sample_bots/go sample_bots/shell
    sample_bots/greedy --games 1` plays it: one triple, six seatings, every game clean."""
    greedy = BotCache().prepare(load_bot(GREEDY_BOT), BotOptions())
    check_clean_tournament([go_bot, shell_bot, greedy], tmp_path)
