"""An arranged game, end to end: its record holds its start, and ``arena replay`` accepts it.

A game started from a hand-built first deal and given scores (``Game.arranged``), played
out, written as a record file and stored in a results database; ``arena replay`` checks
both through the engine (R3.1a, R8) and refuses them once their start scores are changed.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from engine.helpers import SWEEP_HANDS
from typer.testing import CliRunner, Result

from arena.cli import app
from arena.engine import Game, to_record
from arena.engine.randomplay import random_action
from arena.tournament.play import read_record, write_record
from arena.tournament.store import ResultsStore

from .test_results import KEY, RUN, make_game

# A hand-built first deal: seat 0 holds the top hearts, the dealer is seat 5.
HANDS = SWEEP_HANDS
START = (17, -3, 20)


def arranged_record() -> dict[str, Any]:
    game = Game.arranged(HANDS, dealer=5, scores=START, seed=41)
    rng = random.Random(41)
    while not game.is_over:
        game.apply(random_action(game, rng))
    return to_record(game, {"players": ["north", "east", "south", "west", "up", "down"]})


def replay_command(*args: str) -> Result:
    return CliRunner().invoke(app, ["replay", *args], env={"COLUMNS": "200"})


def test_an_arranged_record_says_where_it_started() -> None:
    record = arranged_record()
    assert record["arranged"] is True and record["start_scores"] == list(START)
    assert record["deals"][0]["hands"][0] == ["JD", "TH", "JH", "QH", "KH", "AH"]
    assert record["result"] is not None


def test_arena_replay_checks_an_arranged_record_file(tmp_path: Path) -> None:
    record = arranged_record()
    path = write_record(record, tmp_path / "arranged.json.gz")
    assert read_record(path) == record
    result = replay_command(str(path))
    assert result.exit_code == 0, result.output
    assert "seat 0 holds JD TH JH QH KH AH" in result.output  # the hand-built deal

    moved = write_record(dict(record, start_scores=[17, -3, 19]), tmp_path / "moved.json.gz")
    refused = replay_command(str(moved))
    assert refused.exit_code != 0
    assert "does not replay" in refused.output


@pytest.mark.parametrize("tamper", [False, True])
def test_arena_replay_checks_an_arranged_game_in_the_database(tmp_path: Path, tamper: bool) -> None:
    record = arranged_record()
    if tamper:
        record["arranged"] = False  # as a record before version 3 said of such a game
    db = tmp_path / "results.db"
    with ResultsStore.open(db) as store:
        store.start_run(RUN, None, {}, KEY)
        entrant = store.upsert_entrant("bot", "1", ["bot"])
        store.ensure_match(RUN, "m0", (entrant, entrant, entrant))
        game_id = store.record_game(RUN, "m0", make_game(0, record=record))
    result = replay_command(str(game_id), "--db", str(db))
    if tamper:
        assert result.exit_code != 0 and "arranged" in result.output
    else:
        assert result.exit_code == 0, result.output
