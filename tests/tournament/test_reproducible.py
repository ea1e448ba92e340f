"""The same run (same entrants, games and seed) gives the same games, however many tables play."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.engine.record import first_difference
from arena.tournament.results import ResultsStore
from arena.tournament.runner import RunConfig, run_tournament

from .helpers import sample

# Nothing in a game record depends on the clock today; if timing fields are ever added to
# records, they belong here.
TIMING_FIELDS = frozenset({"duration_s", "started_at", "finished_at", "elapsed", "seconds"})


def _without_timing(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_timing(v) for k, v in value.items() if k not in TIMING_FIELDS}
    if isinstance(value, list):
        return [_without_timing(v) for v in value]
    return value


def _results(db: Path, run_id: str) -> dict[tuple[str, int], dict[str, Any]]:
    found = {}
    with ResultsStore.open(db) as store:
        for game_id in store.game_ids(run_id):
            game = store.find_game(game_id)
            assert game is not None
            found[(game.match_key, game.game_index)] = {
                "seed": game.seed,
                "winner": game.winner,
                "scores": game.scores,
                "deals": game.deals,
                "record": _without_timing(store.game_record(game_id)),
                "points_won": [s.points_won for s in game.seats],
                "bids": [(s.bids_made, s.bids_won) for s in game.seats],
            }
    return found


@pytest.mark.timeout(180)
def test_one_table_and_two_tables_play_identical_games(tmp_path: Path) -> None:
    entrants = (sample("random"), sample("greedy"))
    runs = {}
    for jobs in (1, 2):
        config = RunConfig(
            entrants=entrants, games=2, seed=4242, jobs=jobs, db_path=tmp_path / f"jobs{jobs}.db"
        )
        summary = run_tournament(config, tmp_path / f"logs{jobs}")
        assert summary.played == 12
        runs[jobs] = (summary.run_id, _results(config.db_path, summary.run_id))

    (id1, one), (id2, two) = runs[1], runs[2]
    assert id1 == id2, "jobs is not part of what a run plays, so not of its id"
    assert one.keys() == two.keys()
    assert len(one) == 12
    for key in sorted(one):
        a, b = one[key], two[key]
        for field in ("seed", "winner", "scores", "deals", "points_won", "bids"):
            assert a[field] == b[field], f"{key}: {field} {a[field]!r} != {b[field]!r}"
        difference = first_difference(a["record"], b["record"])
        assert difference is None, f"{key}: the records differ at {difference}"
