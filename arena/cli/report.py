"""``arena report``: ratings, standings and head-to-head of a stored run."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import DEFAULT_DB, DbOption, JsonOption, WideOption, show_report


def report(
    run_id: Annotated[str | None, typer.Argument(help="The run (default: the latest).")] = None,
    db: DbOption = DEFAULT_DB,
    as_json: JsonOption = False,
    wide: WideOption = False,
) -> None:
    """Ratings, standings and head-to-head of a stored run."""
    show_report(db, run_id, as_json, wide)
