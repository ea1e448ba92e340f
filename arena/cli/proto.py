"""``arena proto``: the contract bots speak, printed or written where a build expects it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from arena.present.safe_text import literal

from .common import console, fail


def proto(
    out: Annotated[
        Path | None,
        typer.Option(
            help="Write it to OUT/arena/v1/arena.proto (protoc's -I OUT) instead of printing it."
        ),
    ] = None,
) -> None:
    """Print the contract bots speak (arena/v1/arena.proto), or write it under --out.

    Every bot and every build also finds it in $ARENA_PROTO_DIR.
    """
    from arena.starters import StarterError, contract_file, write_contract

    try:
        if out is None:
            sys.stdout.write(contract_file().read_text(encoding="utf-8"))
            return
        written = write_contract(out)
    except (StarterError, OSError) as error:
        fail(str(error))
    console.print(literal(f"wrote {written}"))
