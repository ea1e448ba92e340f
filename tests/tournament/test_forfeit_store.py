"""A forfeited game (the referee's rule F1) in the results store and the statistics: the
teams that forfeited each lose and finish behind every other team, whoever else won."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arena.stats.rates import GameOutcome, finishing_positions, standings
from arena.tournament.report import build_report
from arena.tournament.store import SCHEMA_VERSION, ResultsStore

from .test_results import make_game

RUN = "run-f1"
KEY = bytes(range(32))


@pytest.mark.parametrize(
    ("scores", "winner", "forfeited", "positions"),
    [
        ((15, 10, 5), 1, (0,), (2, 0, 1)),  # the leader forfeits: last, whatever its score
        ((15, 4, 4), None, (0,), (2, 0, 0)),  # the others level: they share first
        ((3, 9, 1), 2, (0, 1), (1, 1, 0)),  # two forfeit: both behind the third
        ((3, 9, 1), None, (), (1, 0, 2)),  # no forfeit: a draw ordered by score, as before
    ],
)
def test_F1_a_team_that_forfeited_finishes_last(
    scores: tuple[int, int, int],
    winner: int | None,
    forfeited: tuple[int, ...],
    positions: tuple[int, ...],
) -> None:
    game = GameOutcome(("a", "b", "c"), scores, winner, 0, forfeited)
    assert finishing_positions(game) == positions


def test_F1_the_winner_cannot_have_forfeited() -> None:
    with pytest.raises(ValueError, match="forfeited"):
        GameOutcome(("a", "b", "c"), (1, 2, 3), 1, 0, (1,))


def store_games(path: Path, games: list[Any]) -> ResultsStore:
    store = ResultsStore.open(path)
    ids = [store.upsert_entrant(name, "1", ["./bot"]) for name in ("a", "b", "c")]
    store.start_run(RUN, None, {"test": True}, KEY)
    store.ensure_match(RUN, "m0", (ids[0], ids[1], ids[2]))
    for game in games:
        store.record_game(RUN, "m0", game)
    return store


def test_F1_a_forfeit_is_a_loss_in_the_standings_and_never_a_draw(tmp_path: Path) -> None:
    """Game 0: team 2 forfeits, teams 0 and 1 level (no winner). Game 1: team 0 forfeits
    while ahead, team 1 wins. Game 2: an honest draw at the deal limit (R9.4)."""
    games = [
        replace(make_game(0, winner=None, scores=(4, 4, 9)), forfeited=(2,)),
        replace(make_game(1, winner=1, scores=(12, 7, 5)), forfeited=(0,)),
        make_game(2, winner=None, scores=(3, 3, 3)),
    ]
    with store_games(tmp_path / "results.db", games) as store:
        rows = store.entrant_game_rows(RUN)
        outcomes = {(row.entrant, row.seed): row.outcome for row in rows}
        assert outcomes == {
            ("a@1", 0): "draw",
            ("b@1", 0): "draw",
            ("c@1", 0): "loss",
            ("a@1", 1): "loss",
            ("b@1", 1): "win",
            ("c@1", 1): "loss",
            ("a@1", 2): "draw",
            ("b@1", 2): "draw",
            ("c@1", 2): "draw",
        }
        stored = store.game_outcomes(RUN)
        assert [game.forfeited for game in stored] == [(2,), (0,), ()]
        table = {s.entrant: (s.wins, s.draws, s.losses) for s in standings(rows)}
        assert table == {"a@1": (0, 2, 1), "b@1": (1, 2, 0), "c@1": (0, 1, 2)}
        assert build_report(store, RUN).draws == 1  # only the game nobody forfeited


def test_F1_a_version_6_store_is_upgraded_with_no_forfeits(tmp_path: Path) -> None:
    """Version 7 adds games.forfeited; the games stored before it forfeited nothing."""
    path = tmp_path / "v6.db"
    with store_games(path, [make_game(0), make_game(1, winner=None)]):
        pass
    conn = sqlite3.connect(path)
    conn.execute("ALTER TABLE games DROP COLUMN forfeited")
    conn.execute("PRAGMA user_version=6")
    conn.commit()
    conn.close()
    with ResultsStore.open(path) as store:
        assert [game.forfeited for game in store.game_outcomes(RUN)] == [(), ()]
        assert [row.outcome for row in store.entrant_game_rows(RUN)][3:] == ["draw"] * 3
    with ResultsStore.open(tmp_path / "new.db"):
        pass
    columns = []
    for db in (path, tmp_path / "new.db"):
        conn = sqlite3.connect(db)
        columns.append(list(conn.execute("PRAGMA table_xinfo(games)")))
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        conn.close()
    assert columns[0] == columns[1]


def test_F1_games_by_hand_name_the_teams_that_forfeited() -> None:
    """The statistics run by hand (arena.stats.byhand) read a game's ``forfeited`` too."""
    from arena.stats.byhand import games_from_json

    (game,) = games_from_json(
        [
            {
                "seed": 1,
                "entrants_by_team": ["a", "b", "c"],
                "scores": [9, 3, 3],
                "winner": 1,
                "forfeited": [0],
            }
        ]
    )
    assert game.forfeited == (0,) and finishing_positions(game) == (2, 0, 1)
    (plain,) = games_from_json(
        [{"seed": 1, "entrants_by_team": ["a", "b", "c"], "scores": [9, 3, 3], "winner": 0}]
    )
    assert plain.forfeited == ()
