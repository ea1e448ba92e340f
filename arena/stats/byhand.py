"""Running a statistics module by hand: ``python -m arena.stats.MODULE FILE.json``.

Games in a file are a JSON list of objects, one a game::

    {"seed": 3, "entrants_by_team": ["v2", "v2", "v1"], "scores": [21, 9, 14], "winner": 0}

``winner`` is the winning team (0, 1 or 2), ``null`` for a draw; ``seed`` is the game seed
the game was dealt from (its game index, R3.1a), which groups duplicate games; an optional
``forfeited`` lists the teams that forfeited the game (the referee's rule F1), each a
loss placed behind the others. What a module
prints is JSON, so that it can be compared with another program's figures.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .rates import GameOutcome

__all__ = ["games_from_json", "parser", "print_json", "read_json"]


def parser(module: str, doc: str | None, input_help: str) -> argparse.ArgumentParser:
    """The module's argument parser: its first paragraph as the description, one input file."""
    summary = (doc or "").strip().split("\n\n")[0]
    command = argparse.ArgumentParser(prog=f"python -m {module}", description=summary)
    command.add_argument("file", type=Path, help=input_help)
    return command


def read_json(path: Path) -> Any:
    """The file's JSON, ``-`` for standard input."""
    return json.load(sys.stdin) if str(path) == "-" else json.loads(path.read_text())


def games_from_json(games: Sequence[dict[str, Any]]) -> list[GameOutcome]:
    """Games as the module's doc describes them; a game that is not one raises ValueError."""
    outcomes = []
    for number, game in enumerate(games):
        try:
            by_team = tuple(str(name) for name in game["entrants_by_team"])
            scores = tuple(int(score) for score in game["scores"])
            winner = game.get("winner")
            if len(by_team) != 3 or len(scores) != 3:
                raise ValueError("three teams")
            outcome = GameOutcome(
                (by_team[0], by_team[1], by_team[2]),
                (scores[0], scores[1], scores[2]),
                None if winner is None else int(winner),
                int(game["seed"]),
                tuple(int(team) for team in game.get("forfeited", ())),
            )
            outcomes.append(outcome)
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"game {number} of the file is not a game ({error})") from error
    return outcomes


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {key: _plain(item) for key, item in dataclasses.asdict(value).items()}
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def print_json(value: Any) -> None:
    """Dataclasses, lists and numbers as indented JSON on standard output."""
    json.dump(_plain(value), sys.stdout, indent=2)
    print()
