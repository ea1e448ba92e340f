"""``arena logs``: where each seat's bot wrote its output, or one seat's log itself."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.present.safe_text import literal

from .common import DEFAULT_DB, DbOption, console, fail, open_store


def logs(
    run_id: Annotated[str, typer.Argument(metavar="RUN", help="The run (as arena report shows).")],
    game: Annotated[
        int | None, typer.Argument(help="A game id of the run: its seating's six logs.")
    ] = None,
    seat: Annotated[
        int | None, typer.Argument(help="A seat 0..5 of that game: print its log.")
    ] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """List the seat logs of a run (or of one game's seating), or print one seat's log.

    A seat's log holds what its bot wrote to stdout and stderr during its match, after a
    line of the arena's own; it lies under <db stem>-logs/RUN/MATCH/seat<N>.log.
    """
    from arena.tournament.bundle import seat_logs

    if seat is not None and not 0 <= seat <= 5:
        fail("R1.1: seats are 0..5")
    with open_store(db, create=False) as store:
        if store.run(run_id) is None:
            fail(f"no run {run_id!r} in {db}")
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
