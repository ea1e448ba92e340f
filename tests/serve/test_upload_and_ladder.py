"""Contestants upload real bots through ``arena upload``; the ladder plays them; a second
version enters while the first keeps its games; a bot that fails a check changes nothing."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.bots.manifest import compute_version
from arena.bots.samples import sample_bot
from arena.cli import app

from .conftest import ContestServer, stored_games

REPO = Path(__file__).resolve().parents[2]
runner = CliRunner()


def upload(server: ContestServer, bot: Path, token: str) -> tuple[int, str]:
    for _attempt in range(3):
        args = ["upload", str(bot), "--server", server.url, "--token", token]
        result = runner.invoke(app, args)
        assert "Traceback" not in result.output
        # arena submit's own check: on a machine loaded by other work a sound bot's
        # process can miss the grace to exit after the match; a contestant sends it again.
        if "exits when the match ends failed" not in result.output:
            break
    return result.exit_code, result.output


def wait_for(what: str, check: object, timeout: float = 600.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(check) and check():
            return
        time.sleep(1.0)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_uploaded_versions_enter_the_ladder(tmp_path: Path) -> None:
    server = ContestServer(tmp_path / "contest.db", ("random", "lowest")).start()
    try:
        token = server.add_contestant("alice")
        bot = tmp_path / "alice"
        shutil.copytree(sample_bot("greedy"), bot, ignore=shutil.ignore_patterns("__pycache__"))
        code, output = upload(server, bot, token)
        assert code == 0, output
        first = compute_version(bot)
        assert f"accepted: alice@{first} enters the ladder" in output
        assert "ok   answers every decision legally" in output

        def alice_played() -> bool:
            board = server.get("/api/leaderboard").json()
            return any(e["contestant"] == "alice" and e["games"] >= 6 for e in board["entrants"])

        wait_for("alice's first games", alice_played)
        # A second version: the same bot with one more line.
        with (bot / "bot.py").open("a") as source:
            source.write("\n# version 2\n")
        code, output = upload(server, bot, token)
        assert code == 0, output
        second = compute_version(bot)
        assert second != first and f"alice@{second}" in output
        page = server.get("/api/contestants/alice").json()
        versions = {v["version"]: v for v in page["versions"]}
        assert versions[first]["games"] >= 6 and versions[first]["state"] == "replaced"
        assert versions[second]["state"] == "playing"
        board = server.get("/api/leaderboard").json()
        assert [e["version"] for e in board["entrants"] if e["contestant"] == "alice"] == [second]

        # A bot that fails a check is refused in one line and changes nothing.
        code, output = upload(server, REPO / "tests" / "submit_bots" / "illegal_card", token)
        assert code != 0
        assert "refused: answers every decision legally failed" in output, output
        after = server.get("/api/contestants/alice").json()
        assert [v["version"] for v in after["versions"]] == [first, second]
        assert after["uploads"][-1]["accepted"] is False

        wait_for(
            "the second version's games",
            lambda: server.get("/api/contestants/alice").json()["versions"][1]["games"] > 0,
        )

        def compared() -> bool:
            comparison = server.get("/api/contestants/alice").json()["comparison"]
            return comparison is not None and comparison["units"] >= 1

        wait_for("a seed group of the second version against the first", compared)
        comparison = server.get("/api/contestants/alice").json()["comparison"]
        assert comparison["new"] == f"alice@{second}" and comparison["base"] == f"alice@{first}"
        assert comparison["verdict"] in ("undecided", "better", "not better")
        games = server.get("/api/contestants/alice").json()["games"]
        replay = server.get(f"/games/{games[0]['id']}")
        assert replay.status_code == 200 and "replay-data" in replay.text
        assert server.get(f"/api/games/{games[0]['id']}").json()["record"]
        leaderboard = server.get("/")
        assert "alice" in leaderboard.text
        assert "default-src 'none'" in leaderboard.headers["content-security-policy"]
        live = server.get("/api/live").json()
        assert {"round", "matches", "recent"} <= set(live)
    finally:
        assert server.stop() == 0
    keys = stored_games(server.db)
    assert len(keys) == len(set(keys))
