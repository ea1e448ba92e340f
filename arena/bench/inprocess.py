"""Python bot objects playing matches on the one table in this process (the in-process channel).

Each seat is an ``InProcessChannel`` (``arena.seats.inprocess``): the bot is called
directly, with no transport, on the real table with its clock and fault policy.
``arena bench referee`` measures what the transports cost against it; ``arena bench
stats``, ``arena bench pimc`` and tests evaluate Python bots with it
(``play_game_in_process``).
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.engine import Game
from arena.referee.result import GameResult
from arena.referee.table import Table, TableSettings
from arena.sdk.bot import Bot
from arena.seats.inprocess import InProcessChannel
from arena.wire.loop import run as run_loop

__all__ = [
    "InProcessMatch",
    "load_python_bot",
    "play_game_in_process",
    "play_in_process",
]


def load_python_bot(directory: Path) -> Bot:
    """Instantiate the ``Bot`` subclass defined in ``directory/bot.py``."""
    path = directory / "bot.py"
    name = f"_arena_bot_{directory.name}_{abs(hash(path))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    for value in vars(module).values():
        if inspect.isclass(value) and issubclass(value, Bot) and value is not Bot:
            return value()
    raise ImportError(f"{path} defines no Bot subclass")


TEAM_NAMES = ("team 0", "team 1", "team 2")


@dataclass(frozen=True)
class InProcessMatch:
    """A match played in-process: its table (faults, the last game) and each game's result."""

    table: Table
    results: list[GameResult]


async def play_in_process(
    bots: Sequence[Bot],
    seeds: Sequence[int],
    settings: TableSettings | None = None,
    raise_errors: bool = True,
    first_index: int = 0,
) -> InProcessMatch:
    """A match on the one table, seat s played by ``bots[s]``; game k of the match is
    ``seeds[k]`` with index ``first_index + k``."""
    channels = [InProcessChannel(seat, bot, raise_errors) for seat, bot in enumerate(bots)]
    table = Table("in-process", channels, list(seeds), settings or TableSettings(), TEAM_NAMES)
    results: list[GameResult] = []
    await table.open()
    try:
        for k, seed in enumerate(seeds):
            results.append(await table.play_game(first_index + k, seed))
    finally:
        await table.close("finished")
    return InProcessMatch(table, results)


def play_game_in_process(bots: Sequence[Bot], seed: int, game_index: int = 0) -> Game:
    """One game from a test seed (for benchmarks and tests: guessable) on the one table,
    with its clock and fault policy; seat s is played by ``bots[s]``. An illegal answer
    gets the fallback; an exception of a bot's propagates."""
    match = run_loop(play_in_process(bots, [seed], first_index=game_index))
    assert match.table.game is not None
    return match.table.game
