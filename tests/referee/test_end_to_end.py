"""A whole game between six real bot processes over gRPC: greedy vs random vs random."""

from __future__ import annotations

from pathlib import Path

import pytest
from bots.helpers import alive_processes_in_group

from arena.engine import GameKey, replay

from .harness import FAST, check_games, run_match, sample


@pytest.mark.timeout(120)
def test_full_game_between_six_processes(tmp_path: Path) -> None:
    entrants = [sample("greedy"), sample("random"), sample("random")]
    run = run_match(entrants, tmp_path / "logs", seeds=(7,), settings=FAST, seed=7)

    check_games(run)
    (report,) = run.reports
    record = report.record
    game = replay(record)
    assert game.outcome is not None
    assert (game.outcome.winner, game.outcome.scores) == (report.winner, report.scores)
    assert record["result"]["winner"] == report.winner
    assert record["result"]["scores"] == list(report.scores)
    assert record["result"]["draw"] is (report.winner is None)
    assert "seed" not in record and report.key == GameKey.from_seed(7)
    replay(record, report.key)  # dealt from the game's key
    assert record["meta"]["match_id"] == "test-7"
    assert [e["name"] for e in record["meta"]["entrants"]] == ["greedy", "random", "random"]

    assert run.faults == [] and report.faults == ()
    for seat, stats in enumerate(report.seats):
        assert stats.faults == 0, seat
        assert stats.decisions >= 1, seat
        assert stats.decision_seconds_total > 0, seat
        assert 0 < stats.decision_seconds_max <= stats.decision_seconds_total, seat
    # Every decision of the record was asked of a seat and answered by it.
    assert sum(s.decisions for s in report.seats) == game.decisions
    # Bids made and won are counted for the bidder of each played deal.
    played = [d for d in record["deals"] if not d["thrown_in"]]
    assert sum(s.bids_made for s in report.seats) == len(played)
    # The points of each deal are the engine's, as the record has them too.
    won = tuple(tuple(d.get("points_won", (0, 0, 0))) for d in record["deals"])
    assert report.deal_points == won and sum(map(sum, won)) > 0

    # Every seat joined under its entrant's name; no process outlives the match.
    for seat, link in enumerate(run.match.links):
        assert link.bot_name == entrants[seat % 3].name
    processes = run.match.processes
    assert all(p is not None for p in processes)
    for process in processes:
        assert process is not None
        assert process.returncode is not None
        assert alive_processes_in_group(process.pid) == []
    # The seats' logs are where the plan said, one per seat.
    assert sorted(p.name for p in (tmp_path / "logs").glob("seat*.log")) == [
        f"seat{s}.log" for s in range(6)
    ]
