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
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            help="Write the game as one self-contained HTML page (it opens offline) to this "
            "file instead of printing it.",
            dir_okay=False,
        ),
    ] = None,
    logs: Annotated[
        Path | None,
        typer.Option(
            "--logs",
            help="With --html and a record file: the directory of its seat logs (seat0.log "
            "…). Default: where arena play wrote them, logs/<match id> beside the record's "
            "games directory.",
            file_okay=False,
        ),
    ] = None,
) -> None:
    """Print a game deal by deal, after checking its record through the engine."""
    from arena.engine import ReplayMismatchError
    from arena.engine import replay as replay_record
    from arena.present.html.replay import bundle_of_record, record_log_dir, write_replay
    from arena.present.render import record_lines
    from arena.tournament.bundle import GameBundle, game_bundle
    from arena.tournament.play import read_record

    path = Path(game)
    bundle: GameBundle | None = None
    log_note = ""
    if path.is_file():
        try:
            record = read_record(path)
        except ValueError as error:
            fail(f"cannot read a game record from {path}: {error}")
        if html is not None:
            log_dir = logs if logs is not None else record_log_dir(record, path)
            if log_dir is not None and not log_dir.is_dir():
                fail(f"no log directory {log_dir}")
            bundle = bundle_of_record(record, path.name, log_dir)
            log_note = "" if log_dir is None else f" (seat logs from {log_dir})"
    elif re.fullmatch(r"[0-9]{1,18}", game):
        with open_store(db, create=False) as store:
            try:
                record = store.game_record(int(game))
                if html is not None:
                    bundle = game_bundle(store, int(game))
            except KeyError:
                fail(f"no game {game} in {db}")
    else:
        fail(f"{game!r} is neither a record file nor a game id")
    if html is not None and bundle is not None:
        try:
            write_replay(bundle, html)
        except ReplayMismatchError as error:
            fail(f"the record does not replay: {error}")
        except OSError as error:
            fail(f"cannot write {html}: {error.strerror or error}")
        console.print(literal(f"replay page: {html}{log_note}"))
        return
    try:
        replay_record(record)
    except ReplayMismatchError as error:
        fail(f"the record does not replay: {error}")
    for line in record_lines(record):
        console.print(literal(line))
