"""``arena play``: one game between three bots over gRPC."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .common import (
    DEFAULT_BOT_FLAGS,
    BotFlags,
    DecisionOption,
    OverageOption,
    console,
    fail,
    load_entrants,
    prepare_entrants,
    reap_leftovers,
    with_bot_flags,
)
from .playing import warn_of_seed

if TYPE_CHECKING:
    from arena.referee.match import ManualSeat


@with_bot_flags()
def play(
    entrants: Annotated[
        list[str],
        typer.Argument(help="Three bots (executable or directory with bot.toml), one per team."),
    ],
    seed: Annotated[
        int | None,
        typer.Option(
            help="Reproduce a game: anyone who knows the seed can know every card "
            "(default: a secret deal, kept nowhere)."
        ),
    ] = None,
    out: Annotated[Path, typer.Option(help="Where the record and the seat logs go.")] = Path(
        "arena-results"
    ),
    manual: Annotated[
        list[int] | None,
        typer.Option(help="Leave this seat open for a bot you start by hand (repeatable)."),
    ] = None,
    decision_ms: DecisionOption = 1000,
    overage_ms: OverageOption = 10_000,
    bot_flags: BotFlags = DEFAULT_BOT_FLAGS,
) -> None:
    """Play one game between three bots over gRPC and print the result."""
    reap_leftovers()
    from arena.present.display import render_game
    from arena.referee.policy import ArenaTrouble
    from arena.referee.table import TableSettings
    from arena.tournament.play import play_one_game
    from arena.tournament.store import entrant_label

    if len(entrants) != 3:
        fail(f"play takes three entrants (one per team), not {len(entrants)}")
    specs = load_entrants(entrants)
    warn_of_seed(seed)
    options = bot_flags.options()
    specs = prepare_entrants(specs, options)
    manual_seats = frozenset(manual or ())
    if any(not 0 <= s <= 5 for s in manual_seats):
        fail("R1.1: seats are 0..5")

    def show_manual(seats: list[ManualSeat]) -> None:
        # Every variable docs/PROTOCOL.md §1 lists, as the arena sets them for a seat it
        # launches (ARENA_BOT_DIR: the directory the bot is started from).
        from arena.bots.sandbox import contract_dir

        contract = contract_dir()
        for seat in seats:
            env = {
                "ARENA_ADDRESS": seat.address,
                "ARENA_TOKEN": seat.token,
                "ARENA_SEAT": str(seat.seat),
                "ARENA_SEED": seat.seed,
                "ARENA_PROTO_DIR": "" if contract is None else str(contract),
            }
            words = " ".join(f"{name}={shlex.quote(value)}" for name, value in env.items())
            console.print(
                f"seat {seat.seat} is open: start your bot, from its directory, with\n"
                f'  {words} ARENA_BOT_DIR="$PWD" <your command>',
                highlight=False,
                markup=False,
            )

    settings = TableSettings(decision_ms=decision_ms, overage_ms=overage_ms)
    try:
        result = play_one_game(
            specs,
            seed,
            out,
            settings,
            manual_seats,
            show_manual,
            options.sandbox,
            options.limits,
            options.workdir_bytes,
            options.pass_env,
        )
    except ArenaTrouble as trouble:
        fail(f"{trouble}; no game was played (run the command again)")
    labels = [entrant_label(spec.name, spec.version) for spec in specs]
    render_game(console, result, labels, seed)
