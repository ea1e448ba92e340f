"""What the commands that play into a results database share (``arena run``, ``compare``,
``serve``): their ``--jobs``, the checks before the first match, the seed's warning (also
``arena play``'s) and the errors of playing."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from .common import STORED_IS_KEPT, err_console, explain, fail, open_store

JobsOption = Annotated[
    int, typer.Option(help="Matches played at once (default: CPUs).", show_default=False)
]


def claim_db(db: Path) -> None:
    """Before anything is played: a clear error now for a file that is not a results
    database, or for a database another arena is playing into."""
    from arena.tournament.runner import RunBusyError, check_free

    open_store(db).close()
    try:
        check_free(db)
    except RunBusyError as error:
        fail(str(error))


def warn_of_seed(seed: int | None) -> None:
    """A seed given on the command line: one line on stderr says what it gives away."""
    if seed is not None:
        from arena.tournament.schedule import seed_warning

        err_console.print(seed_warning(seed), highlight=False, markup=False)


@contextmanager
def playing_errors(*refused: type[Exception]) -> Iterator[None]:
    """What can go wrong while a command plays into its database, said in one line: the
    database's errors and the command's own (``refused``) as they are; where playing itself
    failed (the disk filled up, the machine could not play a match), that what was
    committed is kept."""
    from arena.tournament.local import RefereeProcessError
    from arena.tournament.runner import MatchUnplayableError, RunBusyError
    from arena.tournament.store import ResultsStoreError

    said: tuple[type[Exception], ...] = (RunBusyError, ResultsStoreError, *refused)
    try:
        yield
    except said as error:
        fail(str(error))
    except (OSError, RefereeProcessError, MatchUnplayableError) as error:
        fail(f"{explain(error)}; {STORED_IS_KEPT}")
