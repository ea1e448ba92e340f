"""``arena new``: a starter bot in a language of its author's choice, ready to build and play."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.present.safe_text import literal

from .common import console, fail

LANGUAGE_HELP = (
    "python (the SDK), node (JavaScript, @grpc/grpc-js), cpp (gRPC C++, CMake) or ruby "
    "(Debian's ruby-grpc)."
)


def new(
    name: Annotated[str, typer.Argument(help="The bot's name (letters, digits, _ . -).")],
    lang: Annotated[str, typer.Option("--lang", help=LANGUAGE_HELP)],
    dir: Annotated[
        Path, typer.Option("--dir", help="Where to write the bot's directory, NAME.")
    ] = Path("."),
    protocol: Annotated[
        str,
        typer.Option(
            help="How the bot speaks to the referee: stdio (JSON lines, the fast channel; "
            "python's default) or grpc (the other starters' only one).",
            show_default=False,
        ),
    ] = "",
) -> None:
    """Write a starter bot, DIR/NAME, that builds and answers every decision legally."""
    from arena.starters import StarterError, new_bot

    try:
        target = new_bot(name, lang, dir, protocol)
    except (StarterError, OSError) as error:
        fail(str(error))
    console.print(literal(f"wrote {target} ({lang}): try it with `arena try {target}`"))
    if lang == "node":
        console.print(
            "its build runs `npm ci`, which needs the network: `arena run --build-network …`, "
            "or run `npm ci` in it once (see its README.md)",
            highlight=False,
            markup=False,
        )
