"""``arena logs``: where each seat's bot wrote its output, or one seat's log itself."""

from __future__ import annotations

import re
from typing import Annotated

import typer

from arena.present.safe_text import literal

from .common import DEFAULT_DB, DbOption, console, fail, open_store

LATEST = "latest"


def logs(
    what: Annotated[
        str,
        typer.Argument(
            metavar="RUN|latest|GAME",
            help="A run (as arena report shows it), 'latest' for the newest run, or a game id "
            "(as arena replay takes it): that game's seating only.",
        ),
    ],
    game: Annotated[
        int | None,
        typer.Argument(
            help="After a run: a game id of it, for its seating's six logs. After a game id: "
            "a seat 0..5, for its log."
        ),
    ] = None,
    seat: Annotated[
        int | None, typer.Argument(help="After a run and a game id: a seat 0..5, for its log.")
    ] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """List the seat logs of a run (or of one game's seating), or print one seat's log.

    A seat's log holds what its bot wrote during its match: its standard error, and its
    standard output too unless it speaks stdio (whose standard output is the protocol),
    up to the log's cap. The arena adds a line of its own, starting "[arena]", only where
    it cut the log at the cap or could not start the bot. Logs lie under
    <db stem>-logs/RUN/MATCH/seat<N>.log.
    """
    from arena.tournament.bundle import seat_logs

    with open_store(db, create=False) as store:
        run_id: str | None = what
        if what == LATEST:
            run_id = store.latest_run_id()
            if run_id is None:
                fail(f"{db} holds no run yet")
        elif store.run(what) is None:
            # Not a run: a game id, whose run is found from it (run ids are hexadecimal, so
            # a run is looked for first, and a number that is no run is a game).
            if not re.fullmatch(r"[0-9]{1,18}", what):
                fail(f"no run {what!r} in {db} (give a run, 'latest' or a game id)")
            try:
                run_id = store.game(int(what)).run_id
            except KeyError:
                fail(f"no run and no game {what} in {db}")
            game, seat = int(what), game
        assert run_id is not None
        if seat is not None and not 0 <= seat <= 5:
            fail("R1.1: seats are 0..5")
        try:
            found = seat_logs(store, run_id, game)
        except KeyError as error:
            fail(str(error.args[0]))
    if seat is not None:
        (log,) = (entry for entry in found if entry.seat == seat)
        try:
            text = log.path.read_text(encoding="utf-8", errors="replace")
        except OSError as error:
            fail(f"cannot read {log.path}: {error.strerror or error}")
        # The bot's own text: shown literally, control characters made visible.
        console.print(literal(text.rstrip("\n"), keep_newlines=True))
        return
    if not found:
        fail(f"run {run_id} has stored no game yet, so no seat's log is known")
    for entry in found:
        size = f"{entry.path.stat().st_size:>8} B" if entry.path.is_file() else " missing"
        line = f"{entry.match_key}  seat {entry.seat}  {size}  {entry.entrant}  {entry.path}"
        console.print(literal(line))
