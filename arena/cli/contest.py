"""``arena contest``: the contest's contestants and the organiser's token."""

from __future__ import annotations

from pathlib import Path
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
        contest = ContestStore.open(db)
    except (BotSpecError, ContestError) as error:
        fail(str(error))
    try:
        token = contest.add_contestant(name)
    except ContestError as error:
        fail(str(error))
    finally:
        contest.close()
    console.print(f"token for {name} (shown once): {token}", highlight=False, markup=False)


@contest_app.command()
def enter(
    name: Annotated[str, typer.Argument(help="The house entrant's name.")],
    bot: Annotated[Path, typer.Argument(help="A bot directory (with bot.toml) or executable.")],
    db: DbOption = DEFAULT_DB,
) -> None:
    """Enter a bot of the organiser's own as a house entrant (no token, no validation: the
    organiser vouches for it); a running server's ladder takes it in at its next round."""
    from arena.bots import BotSpecError
    from arena.bots.manifest import check_name
    from arena.serve.contest import ContestError
    from arena.serve.server import enter_house_bot
    from arena.tournament.registry import RegistryError

    try:
        check_name(name, "arena contest enter", "NAME")
        label = enter_house_bot(db, name, bot)
    except (BotSpecError, ContestError, RegistryError, ValueError, OSError) as error:
        fail(str(error))
    console.print(f"entered {label}", highlight=False, markup=False)


@contest_app.command()
def admin(db: DbOption = DEFAULT_DB) -> None:
    """Make a new organiser's token (the previous one stops working) and print it once."""
    from arena.serve.contest import ContestError, ContestStore

    try:
        contest = ContestStore.open(db)
    except ContestError as error:
        fail(str(error))
    try:
        token = contest.new_admin_token()
    finally:
        contest.close()
    console.print(f"admin token (shown once): {token}", highlight=False, markup=False)


@contest_app.command(name="list")
def list_(db: DbOption = DEFAULT_DB) -> None:
    """The contestants, their newest versions and whether they play."""
    from arena.present.safe_text import literal
    from arena.serve.contest import ContestError, ContestStore

    try:
        contest = ContestStore.open(db)
    except ContestError as error:
        fail(str(error))
    try:
        newest = {v.contestant: v for v in contest.versions()}
        for who in contest.contestants():
            version = newest.get(who.name)
            if who.banned:
                state = "banned"
            elif version is None:
                state = "no version"
            elif version.retired:
                state = f"{version.version} retired"
            elif version.suspended is not None:
                state = f"{version.version} suspended: {version.suspended}"
            else:
                state = version.version
            kind = "house" if who.house else "contestant"
            console.print(literal(f"{who.name}  {kind}  {state}"))
    finally:
        contest.close()


ServerOption = Annotated[str, typer.Option(help="The contest server's URL.")]
AdminTokenOption = Annotated[
    str | None,
    typer.Option(help="The admin token (default: $ARENA_ADMIN_TOKEN).", show_default=False),
]


def _admin(server: str, token: str | None, action: str, body: dict[str, object]) -> None:
    """One organiser's request to a running server; its answer printed as JSON."""
    import json
    import os

    import httpx

    token = token or os.environ.get("ARENA_ADMIN_TOKEN")
    if not token:
        fail("the admin token is needed: --token TOKEN or $ARENA_ADMIN_TOKEN")
    try:
        response = httpx.post(
            f"{server.rstrip('/')}/api/admin/{action}",
            json=body,
            headers={"Authorization": f"Bearer {token}"},
            timeout=60,
        )
        answer = response.json()
    except (httpx.HTTPError, ValueError) as error:
        fail(f"cannot reach {server}: {error}")
    if response.status_code != 200:
        fail(f"the server refused it ({response.status_code}): {answer.get('error')}")
    console.print(json.dumps(answer), highlight=False, markup=False)


@contest_app.command()
def retire(
    name: Annotated[str, typer.Argument(help="The contestant.")],
    server: ServerOption,
    version: Annotated[
        str | None, typer.Option(help="One version (default: every version).")
    ] = None,
    token: AdminTokenOption = None,
) -> None:
    """Take a contestant's version (or all of them) out of the ladder; its games stay."""
    _admin(server, token, "retire", {"name": name, "version": version})


@contest_app.command()
def ban(
    name: Annotated[str, typer.Argument(help="The contestant.")],
    server: ServerOption,
    unban: Annotated[bool, typer.Option("--unban", help="Lift the ban.")] = False,
    token: AdminTokenOption = None,
) -> None:
    """Ban a contestant: their bot leaves the ladder and their token writes nothing."""
    _admin(server, token, "ban", {"name": name, "banned": not unban})


@contest_app.command()
def pause(
    server: ServerOption,
    resume: Annotated[bool, typer.Option("--resume", help="Play again.")] = False,
    token: AdminTokenOption = None,
) -> None:
    """Pause the ladder (the round under way finishes), or resume it."""
    _admin(server, token, "pause", {"paused": not resume})


@contest_app.command()
def reinstate(
    name: Annotated[str, typer.Argument(help="The contestant.")],
    version: Annotated[str, typer.Option(help="The suspended version.")],
    server: ServerOption,
    token: AdminTokenOption = None,
) -> None:
    """Lift a version's suspension: it plays again if it is its contestant's newest."""
    _admin(server, token, "reinstate", {"name": name, "version": version})
