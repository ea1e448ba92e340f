"""``arena bots``: the registered bots and their versions."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import DEFAULT_REGISTRY, RegistryOption, console, fail


def bots(
    registry: RegistryOption = DEFAULT_REGISTRY,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """The registered bots and their versions."""
    import json

    from arena.present.display import render_bots
    from arena.tournament.registry import Registry, RegistryError
    from arena.tournament.registry import as_json as entries_json

    try:
        entries = Registry(registry).entries()
    except RegistryError as error:
        fail(str(error))
    if as_json:
        print(json.dumps(entries_json(entries), indent=2))
        return
    render_bots(console, entries, registry)
