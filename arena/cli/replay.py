"""``arena replay``: a game deal by deal, checked through the engine first."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer

from arena.present.safe_text import literal

from .common import DEFAULT_DB, DbOption, console, fail, open_store


def replay(
    game: Annotated[str, typer.Argument(help="A game id in the database, or a record file.")],
    db: DbOption = DEFAULT_DB,
) -> None:
    """Print a game deal by deal, after checking its record through the engine."""
    from arena.engine import ReplayMismatchError
    from arena.engine import replay as replay_record
    from arena.present.render import record_lines
    from arena.tournament.play import read_record

    path = Path(game)
    if path.is_file():
        try:
            record = read_record(path)
        except ValueError as error:
            fail(f"cannot read a game record from {path}: {error}")
    elif re.fullmatch(r"[0-9]{1,18}", game):
        with open_store(db, create=False) as store:
            try:
                record = store.game_record(int(game))
            except KeyError:
                fail(f"no game {game} in {db}")
    else:
        fail(f"{game!r} is neither a record file nor a game id")
    try:
        replay_record(record)
    except ReplayMismatchError as error:
        fail(f"the record does not replay: {error}")
    for line in record_lines(record):
        console.print(literal(line))
