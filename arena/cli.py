"""The ``arena`` command line: it parses options, calls one library function, renders."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

app = typer.Typer(
    help="Schmier Arena: run card-playing bots against each other.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
bench_app = typer.Typer(help="Benchmarks that print figures.", no_args_is_help=True)
app.add_typer(bench_app, name="bench")

console = Console()


@bench_app.command("engine")
def bench_engine_command(
    games: Annotated[int, typer.Option(help="Games per round.")] = 300,
    rounds: Annotated[int, typer.Option(help="Rounds; the median round is reported.")] = 5,
    seed: Annotated[int, typer.Option(help="First game seed.")] = 1,
) -> None:
    """Play complete games between random legal players in one process (no gRPC)."""
    from arena.bench.engine import bench_engine

    median, rounds_run = bench_engine(games, rounds, seed)
    for r in rounds_run:
        console.print(
            f"round: {r.games} games in {r.seconds:.2f} s, {r.decisions_per_second:,.0f} decisions/s",
            highlight=False,
        )
    console.print(f"{median.games_per_second:.1f} games/s (median round)", highlight=False)
    console.print(f"{median.decisions_per_second:.0f} decisions/s", highlight=False)
    console.print(f"{median.deals_per_game:.1f} deals/game", highlight=False)


def main() -> None:
    app()
