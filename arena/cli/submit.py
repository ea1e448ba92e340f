"""``arena submit``: build a bot, validate it in a match, register it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.present.safe_text import literal

from .common import (
    DEFAULT_BOT_FLAGS,
    DEFAULT_REGISTRY,
    BotFlags,
    DecisionOption,
    RegistryOption,
    console,
    err_console,
    fail,
    reap_leftovers,
    with_bot_flags,
)


@with_bot_flags(build=False)
def submit(
    path: Annotated[
        Path, typer.Argument(help="The bot: an executable or a directory with bot.toml.")
    ],
    name: Annotated[str | None, typer.Option(help="Register under this name.")] = None,
    games: Annotated[int, typer.Option(help="Games in the validation match.")] = 2,
    registry: RegistryOption = DEFAULT_REGISTRY,
    decision_ms: DecisionOption = 1000,
    join_timeout: Annotated[float, typer.Option(help="Seconds to join after launch.")] = 10.0,
    bot_flags: BotFlags = DEFAULT_BOT_FLAGS,
) -> None:
    """Build a bot, check it in a validation match against the sample bots, register it."""
    reap_leftovers()
    from arena.bots import BotSpecError
    from arena.bots.build import NETWORK_HINT, needs_network
    from arena.bots.manifest import check_name
    from arena.present.display import render_checks
    from arena.referee.table import TableSettings
    from arena.tournament.registry import Registry, RegistryError
    from arena.tournament.submit import submit as submit_bot

    settings = TableSettings(decision_ms=decision_ms, join_timeout_s=join_timeout)
    try:
        if name is not None:  # checked before the match: it becomes a registry directory
            check_name(name, "arena submit", "--name")
        options = bot_flags.options()
        result = submit_bot(
            path, Registry(registry), name=name, games=games, settings=settings, options=options
        )
    except (BotSpecError, RegistryError) as error:
        fail(str(error))
    render_checks(console, result)
    spec = result.spec
    if not result.accepted:
        if result.log_tail.strip():
            err_console.print("the bot's log ends with:", highlight=False)
            err_console.print(literal(result.log_tail.rstrip(), keep_newlines=True))
        failed = next((c for c in result.checks if c.passed is False), None)
        if failed is None:  # the arena could not run the match: nothing was judged
            fail(f"{spec.name} could not be checked: {result.checks[-1].detail}")
        built = failed.name == "builds" and needs_network(result.log_tail, options)
        hint = f"; {NETWORK_HINT}" if built else ""
        fail(f"{spec.name} refused: {failed.name} failed: {failed.detail}{hint}")
    assert result.entry is not None
    console.print(literal(f"registered {result.entry.label()} in {registry}"))
