"""The contest's pages in a real Chromium: an upload through the form, the leaderboard,
a contestant's page and a replay, each without a script error or a request elsewhere."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from arena.bots.samples import sample_bot
from arena.serve.client import pack_for_upload

from .conftest import ContestServer
from .hostile import KINDS


def wait_for(what: str, check: Any, timeout: float = 600.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(1.0)
    raise AssertionError(f"timed out waiting for {what}")


def upload_through_form(page: Page, server: ContestServer, token: str, file: Path) -> str:
    page.goto(server.url + "/upload")
    page.fill("input[name=token]", token)
    page.set_input_files("input[name=bot]", str(file))
    page.click("button[type=submit]")
    page.wait_for_selector("#result", timeout=600_000)
    return page.inner_text("#result")


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_upload_form_and_pages_in_chromium(
    page: Page, page_log: Any, artefacts: Path, tmp_path: Path
) -> None:
    server = ContestServer(tmp_path / "contest.db", ("random", "lowest")).start()
    try:
        token = server.add_contestant("bob")
        hostile = tmp_path / "evil.tar"
        hostile.write_bytes(KINDS["traversal"][0]("tar"))
        refused = upload_through_form(page, server, token, hostile)
        assert refused.startswith("refused: path traversal"), refused
        data, name = pack_for_upload(sample_bot("greedy"))
        archive = tmp_path / name
        archive.write_bytes(data)
        accepted = upload_through_form(page, server, token, archive)
        assert accepted.startswith("accepted"), accepted
        assert "ok answers every decision legally" in page.inner_text("#checks")
        page.screenshot(path=str(artefacts / "contest-upload.png"), full_page=True)

        def bob_played() -> bool:
            board = server.get("/api/leaderboard").json()
            return any(e["contestant"] == "bob" and e["games"] >= 6 for e in board["entrants"])

        wait_for("bob's games", bob_played)
        page.goto(server.url + "/")
        rows = page.locator("#leaderboard tbody tr")
        assert rows.count() == 3
        assert "bob" in page.inner_text("#leaderboard")
        page.screenshot(path=str(artefacts / "contest-leaderboard.png"), full_page=True)

        page.click("text=bob")
        page.wait_for_selector("#versions")
        assert page.locator("#versions tbody tr.version").count() == 1
        # Everyone reads the status of an upload; only its owner reads why.
        assert "refused: not a bot archive" in page.inner_text("main")
        assert "path traversal" not in page.inner_text("main")
        page.fill("input[name=token]", token)
        page.click("text=Show my logs")
        page.wait_for_selector("#allowance")
        assert "refused: path traversal" in page.inner_text("main")
        page.screenshot(path=str(artefacts / "contest-contestant.png"), full_page=True)

        page.locator("#games a").first.click()
        page.wait_for_selector("#replay-data", state="attached")
        page.wait_for_timeout(500)
        page.goto(server.url + "/live")
        assert page.locator("#live").count() == 1
        # The refused upload's page comes with its status, 422: that is not an error.
        errors = [e for e in page_log.errors if "status of 422" not in e]
        assert errors == [], "\n".join(errors)
        elsewhere = [u for u in page_log.requests if not u.startswith(server.url)]
        assert elsewhere == [], elsewhere
    finally:
        assert server.stop() == 0
