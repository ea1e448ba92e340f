"""The JavaScript sample bot (sample_bots/node): built with its manifest, played for real.

Real processes against a real referee, no mocks: the build step (`npm ci`) runs as the
arena runs it, then node plays a match of several games against two random teams.
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

# The Node.js bot is built for the module: the whole suite only.
pytestmark = pytest.mark.slow

NODE_BOT = sample_bots_dir() / "node"

if shutil.which("node") is None or shutil.which("npm") is None:
    # On CI a missing Node.js is a broken setup, not a reason to skip.
    if os.environ.get("CI"):
        raise RuntimeError("the node sample bot's tests need `node` and `npm` on PATH")
    pytest.skip("node and npm are not on PATH", allow_module_level=True)


@pytest.fixture(scope="module")
def node_bot(tmp_path_factory: pytest.TempPathFactory) -> BotSpec:
    """The node bot, built once with its manifest's build command (npm ci), which downloads
    its packages: the operator gives this build the network (--build-network)."""
    spec = load_bot(NODE_BOT)
    assert spec.name == "node"
    assert spec.build is not None and spec.build[:2] == ("npm", "ci")
    cache = BotCache()
    built = cache.prepare(spec, BotOptions(build_network=True, build_timeout_s=300))
    log = cache.root / spec.version / BUILD_LOG
    assert (built.directory / "node_modules" / "@grpc" / "grpc-js").is_dir(), log.read_text()
    return built


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_node_bot_plays_a_clean_match_and_beats_random(node_bot: BotSpec, tmp_path: Path) -> None:
    reports, logs = clean_match_against_random(node_bot, tmp_path)
    assert all("Error" not in log for log in logs), logs
    check_first_team_holds_its_own(reports, names_trump=False)


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_node_bot_over_tcp(node_bot: BotSpec, tmp_path: Path) -> None:
    tcp_match(node_bot, tmp_path)


@pytest.mark.timeout(60)
def test_refused_join_is_one_line_and_exit_2(node_bot: BotSpec) -> None:
    code, stderr = asyncio.run(
        run_alone(["node", str(node_bot.directory / "bot.js")], None, "not-a-seat-token")
    )
    assert code == 2
    assert stderr == "[node] the referee refused this bot: UNAUTHENTICATED: unknown seat token\n"


@pytest.mark.timeout(60)
def test_unreachable_referee_is_one_line_and_exit_2(node_bot: BotSpec, tmp_path: Path) -> None:
    address = f"unix:{tmp_path}/nobody-listens.sock"
    code, stderr = asyncio.run(
        run_alone(["node", str(node_bot.directory / "bot.js")], address, "any-token")
    )
    assert code == 2
    assert stderr == f"[node] cannot reach the referee at {address}\n"
