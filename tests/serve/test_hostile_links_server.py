"""The real server takes the link and name attacks of ``hostile_links``: each refused in one
line, the victim's files outside the upload directory untouched, and the server answering
(issue 33, "Done when", first item)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from . import hostile_links
from .conftest import ContestServer

# Where the server unpacks an upload: tempfile.mkdtemp's names, one level inside the other
# (arena.serve.app), so the archives climb as many levels as they would there.
LIKE_TARGET = Path(tempfile.gettempdir()) / "arena-uploads-abcdefgh" / "tmpabcdefgh" / "bot"
SENT = (
    "cve-2025-4517",
    "proc-pagemap",
    "link-then-write-through-it",
    "hardlink-victim",
    "deep-1000",
    "case-twins",
)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_server_refuses_each_attack_and_nothing_outside_changes(
    contest: ContestServer, tmp_path: Path
) -> None:
    victim = tmp_path / "victim" / "flag"
    victim.parent.mkdir()
    victim.write_text("the victim's own")
    headers = {"Authorization": f"Bearer {contest.add_contestant('mallory')}"}
    # The worst of them through the server (every one is unpacked in test_unpack.py).
    for name in SENT:
        builder, formats, words = hostile_links.ARCHIVES[name]
        fmt = formats[0]
        data = hostile_links.build(builder(LIKE_TARGET, victim), fmt)
        answer = contest.post("/api/upload", content=data, headers=headers)
        assert answer.status_code == 422, (name, answer.text)
        reason = answer.json()["reason"]
        assert words in reason and "\n" not in reason, (name, reason)
        assert sorted(p.name for p in victim.parent.iterdir()) == ["flag"], name
        assert victim.read_text() == "the victim's own", name
        assert contest.get("/api/leaderboard").status_code == 200  # it keeps answering
    assert contest.get("/api/contestants/mallory").json()["versions"] == []
