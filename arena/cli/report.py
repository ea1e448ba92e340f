"""``arena report``: ratings, standings and head-to-head of a stored run, in the terminal
and, with ``--html``, as a page to open in a browser or send round."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .common import (
    DEFAULT_DB,
    DbOption,
    JsonOption,
    WideOption,
    console,
    err_console,
    fail,
    open_store,
    show_report,
)

if TYPE_CHECKING:
    from arena.stats.comparison import CompareOutcome


def report(
    run_id: Annotated[str | None, typer.Argument(help="The run (default: the latest).")] = None,
    db: DbOption = DEFAULT_DB,
    as_json: JsonOption = False,
    wide: WideOption = False,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            help="Also write the report as one self-contained HTML page to this file, with "
            "a replay page per game in <its stem>_games/ beside it.",
        ),
    ] = None,
) -> None:
    """Ratings, standings and head-to-head of a stored run."""
    show_report(db, run_id, as_json, wide)
    if html is not None:
        write_html_report(db, run_id, html, as_json)


def default_html_path(db: Path) -> Path:
    """Where ``arena run --html`` writes its page: ``<db stem>-report.html`` beside the
    database (``arena-results/arena-report.html`` by default)."""
    return db.with_name(f"{db.stem}-report.html")


def write_html_report(
    db: Path,
    run_id: str | None,
    path: Path,
    as_json: bool,
    comparison: CompareOutcome | None = None,
) -> None:
    """Write the run's HTML report and its replays; one line names the page (on stderr
    with ``--json``, so that the output stays JSON). With ``comparison`` (the outcome
    ``arena compare`` printed), the page is the comparison's."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from arena.present.html.compare import write_compare_page
    from arena.present.html.report import write_report
    from arena.tournament.report import UnknownRunError

    # Transient: once the page is written its one line is what stays on screen.
    bar = Progress(
        TextColumn("replays"),
        BarColumn(bar_width=20),
        MofNCompleteColumn(),
        console=console,
        transient=True,
        disable=as_json,
    )
    task = bar.add_task("replays", total=None)
    with open_store(db, create=False) as store, bar:

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        try:
            written = (
                write_report(store, run_id, path, progress=progress)
                if comparison is None
                else write_compare_page(store, comparison, path, progress=progress)
            )
        except UnknownRunError as error:
            fail(str(error))
        except OSError as error:
            fail(f"cannot write the report page {path}: {error}")
    replays = (
        "every game"
        if written.replays == written.games
        else f"{written.replays} of {written.games} games"
    )
    (err_console if as_json else console).print(
        f"{'report' if comparison is None else 'comparison'} page: {written.path} "
        f"(replays of {replays} in {written.replay_dir})",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
