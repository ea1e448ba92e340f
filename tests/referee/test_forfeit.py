"""F1 with real processes: a seat that stops playing makes its team forfeit the game three
deals later, instead of holding the table to the draw limit (issue 33: sore losers), and
the record proves the early end (docs/SECURITY.md, "The referee's rules for bots")."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from arena.engine import replay
from arena.engine.forfeit import FORFEIT_DEALS
from arena.engine.game import forfeit_winner
from arena.referee.policy import FaultKind

from .harness import FAST, check_games, recorder, run_match

F1 = replace(FAST, forfeit_deals=FORFEIT_DEALS)
SORE = 4  # team 1's second seat


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("mode", "kinds"),
    [
        ("malformed", {FaultKind.MALFORMED}),  # a fault at every decision, still connected
        ("exit", {FaultKind.CLOSED}),  # gone at its fifth decision: auto-played from then
    ],
)
def test_F1_a_seat_that_stops_playing_forfeits_its_team_s_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, kinds: set[FaultKind]
) -> None:
    monkeypatch.setenv(f"TEST_BOT_FAULT_{SORE}", mode)
    run = run_match([recorder()] * 3, tmp_path / "logs", seeds=(1, 2), settings=F1)
    check_games(run, games=2)
    assert {f.kind for f in run.faults} == kinds and {f.seat for f in run.faults} == {SORE}
    for report in run.reports:
        record = report.record
        assert report.forfeited == (1,) and record["result"]["forfeited"] == [1]
        assert record["forfeit_deals"] == FORFEIT_DEALS
        assert report.winner == forfeit_winner(report.scores, {1})
        assert report.winner != 1 and record["result"]["draw"] is False
        # It ended at the end of the third deal in a row in which every decision of the
        # seat was the referee's, and not one deal later: the next is dealt, not played.
        deals = record["deals"]
        assert deals[-1]["decisions"] == [] and len(deals) > FORFEIT_DEALS
        for deal in deals[-1 - FORFEIT_DEALS : -1]:
            mine = [d for d in deal["decisions"] if d["seat"] == SORE]
            assert mine and all(d["fallback"] is not None for d in mine)
        before = deals[: -1 - FORFEIT_DEALS]
        assert not before or any(
            d["fallback"] is None for d in before[-1]["decisions"] if d["seat"] == SORE
        )
        assert replay(record).outcome is not None
