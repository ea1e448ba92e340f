"""The ``arena`` command line: it parses options, calls one library function, renders."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.table import Table as RichTable

app = typer.Typer(
    help="Schmier Arena: run card-playing bots against each other.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
bench_app = typer.Typer(help="Benchmarks that print figures.", no_args_is_help=True)
app.add_typer(bench_app, name="bench")

console = Console()
err_console = Console(stderr=True)

TEAM_LABELS = ("team 0 (seats 0, 3)", "team 1 (seats 1, 4)", "team 2 (seats 2, 5)")


def fail(message: str, code: int = 2) -> NoReturn:
    """A clear one-line error and a non-zero exit, never a traceback."""
    err_console.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(code)


@app.command()
def play(
    entrants: Annotated[
        list[str],
        typer.Argument(help="Three bots (executable or directory with bot.toml), one per team."),
    ],
    seed: Annotated[int, typer.Option(help="The game's seed: it decides every deal.")] = 1,
    out: Annotated[Path, typer.Option(help="Where the record and the seat logs go.")] = Path(
        "arena-results"
    ),
    manual: Annotated[
        list[int] | None,
        typer.Option(help="Leave this seat open for a bot you start by hand (repeatable)."),
    ] = None,
    decision_ms: Annotated[int, typer.Option(help="Time per decision (ms).")] = 1000,
    overage_ms: Annotated[int, typer.Option(help="Overage bank per game (ms).")] = 10_000,
) -> None:
    """Play one game between three bots over gRPC and print the result."""
    from arena.bots import BotSpecError, load_bot
    from arena.play import play_one_game
    from arena.referee.match import ManualSeat
    from arena.referee.table import TableSettings

    if len(entrants) != 3:
        fail(f"play takes three entrants (one per team), not {len(entrants)}")
    try:
        specs = [load_bot(path) for path in entrants]
    except BotSpecError as error:
        fail(str(error))
    manual_seats = frozenset(manual or ())
    if any(not 0 <= s <= 5 for s in manual_seats):
        fail("R1.1: seats are 0..5")

    def show_manual(seats: list[ManualSeat]) -> None:
        for seat in seats:
            console.print(
                f"seat {seat.seat} is open: start your bot with "
                f"ARENA_ADDRESS={seat.address} ARENA_TOKEN={seat.token}",
                highlight=False,
            )

    settings = TableSettings(decision_ms=decision_ms, overage_ms=overage_ms)
    result = play_one_game(specs, seed, out, settings, manual_seats, show_manual)
    report = result.report
    table = RichTable(title=f"game seed {seed}: {report.deals} deals")
    table.add_column("team")
    table.add_column("bot")
    table.add_column("score", justify="right")
    table.add_column("faults", justify="right")
    for team in range(3):
        faults = report.seats[team].faults + report.seats[team + 3].faults
        mark = " (winner)" if report.winner == team else ""
        table.add_row(
            TEAM_LABELS[team] + mark,
            f"{specs[team].name}@{specs[team].version}",
            str(report.scores[team]),
            str(faults),
        )
    console.print(table)
    console.print("result: " + ("draw" if report.winner is None else f"team {report.winner} wins"))
    for fault in report.faults:
        console.print(
            f"fault: seat {fault.seat} {fault.kind.value}: {fault.reason}", highlight=False
        )
    console.print(f"record: {result.record_path}", highlight=False)
    console.print(f"seat logs: {result.log_dir}", highlight=False)


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
            f"round: {r.games} games in {r.seconds:.2f} s, "
            f"{r.decisions_per_second:,.0f} decisions/s",
            highlight=False,
        )
    console.print(f"{median.games_per_second:.1f} games/s (median round)", highlight=False)
    console.print(f"{median.decisions_per_second:.0f} decisions/s", highlight=False)
    console.print(f"{median.deals_per_game:.1f} deals/game", highlight=False)


def main() -> None:
    app()
