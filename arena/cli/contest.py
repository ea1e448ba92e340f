"""``arena contest``: the contest's contestants and the organiser's token."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import DEFAULT_DB, DbOption, console, fail

contest_app = typer.Typer(
    help="A contest's contestants and tokens (arena serve hosts it).", no_args_is_help=True
)


@contest_app.command()
def add(
    name: Annotated[str, typer.Argument(help="The contestant: also their bot's name.")],
    db: DbOption = DEFAULT_DB,
) -> None:
    """Add a contestant and print their token, once (it is stored hashed)."""
    from arena.bots import BotSpecError
    from arena.bots.manifest import check_name
    from arena.serve.contest import ContestError, ContestStore

    try:
        check_name(name, "arena contest add", "NAME")
    except BotSpecError as error:
        fail(str(error))
    contest = ContestStore.open(db)
    try:
        token = contest.add_contestant(name)
    except ContestError as error:
        fail(str(error))
    finally:
        contest.close()
    console.print(f"token for {name} (shown once): {token}", highlight=False, markup=False)


@contest_app.command()
def admin(db: DbOption = DEFAULT_DB) -> None:
    """Make a new organiser's token (the previous one stops working) and print it once."""
    from arena.serve.contest import ContestStore

    contest = ContestStore.open(db)
    try:
        token = contest.new_admin_token()
    finally:
        contest.close()
    console.print(f"admin token (shown once): {token}", highlight=False, markup=False)


@contest_app.command(name="list")
def list_(db: DbOption = DEFAULT_DB) -> None:
    """The contestants, their newest versions and whether they play."""
    from arena.present.safe_text import literal
    from arena.serve.contest import ContestStore

    contest = ContestStore.open(db)
    try:
        laddered = {v.contestant: v for v in contest.laddered()}
        for who in contest.contestants():
            version = laddered.get(who.name)
            state = "banned" if who.banned else (version.version if version else "no version")
            kind = "house" if who.house else "contestant"
            console.print(literal(f"{who.name}  {kind}  {state}"))
    finally:
        contest.close()
