"""The contest's pages escape every text a contestant or a bot chose (through the pages'
one escaping helper) and show logs and reasons on their owner's page only."""

from __future__ import annotations

from arena.serve import pages
from arena.serve.service import (
    Allowance,
    CheckRow,
    ContestantView,
    EntrantRow,
    GameRow,
    Leaderboard,
    LiveView,
    SeatLog,
    UploadAnswer,
    UploadRow,
    VersionRow,
)

EVIL = "<script>alert(1)</script>\"'&"


def contestant(owner: bool) -> ContestantView:
    version = VersionRow(
        version="v1",
        entrant=f"{EVIL}@v1",
        uploaded_at="2026-12-04",
        state="suspended",
        suspended="crash",
        suspended_at="2026-12-04",
        why=f"3 of its last 4 games: {EVIL}" if owner else None,
        games=4,
        game_ids=[1],
        faults=3,
        checks=[CheckRow(EVIL, False, EVIL if owner else None)],
    )
    upload = UploadRow(
        "2026-12-04",
        False,
        None,
        "refused: not a bot archive",
        f"refused: {EVIL}" if owner else None,
        EVIL if owner else None,
        1.0 if owner else None,
    )
    return ContestantView(
        name=EVIL,
        house=False,
        banned=False,
        owner=owner,
        versions=[version],
        uploads=[upload],
        comparison=None,
        games=[GameRow(1, 0, [EVIL, "b@1", "c@1"], [1, 2, 3], None, 0)],
        allowance=Allowance(3, 20, 12.0, 30.0) if owner else None,
    )


def test_every_chosen_text_is_escaped() -> None:
    board = Leaderboard(
        "run",
        False,
        1,
        1,
        [EntrantRow(1, EVIL, EVIL, EVIL, 1.0, None, None, True, False, False, 3, 0.5, 0)],
        stalled=EVIL,
    )
    live = LiveView("run", False, None, [], [], 0, [EVIL], [], [EVIL], EVIL)
    answer = UploadAnswer(False, EVIL, EVIL, EVIL, [CheckRow(EVIL, False, EVIL)], EVIL)
    rendered = [
        pages.leaderboard_page(board),
        pages.live_page(live),
        pages.upload_page(answer),
        pages.upload_page(error=EVIL),
        pages.contestant_page(contestant(owner=True)),
        pages.contestant_page(contestant(owner=False)),
        pages.logs_page(EVIL, 1, [SeatLog(0, EVIL, EVIL)]),
        pages.refused_page(EVIL),
    ]
    for page in rendered:
        assert "<script>" not in page and "&lt;script&gt;" in page


def test_logs_and_reasons_show_on_their_owners_page_only() -> None:
    public = pages.contestant_page(contestant(owner=False))
    own = pages.contestant_page(contestant(owner=True))
    assert "suspended: crash" in public and "suspended: crash" in own
    assert "3 of its last 4 games" in own and "3 of its last 4 games" not in public
    assert "<pre>" in own and "<pre>" not in public  # the upload's log
    assert "refused: not a bot archive" in public  # its status, for everyone
    assert 'id="allowance"' in own and 'id="allowance"' not in public
    assert "Show my logs" in public  # the form that opens one's own page
