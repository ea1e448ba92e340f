"""``arena bench …``: benchmarks that print figures."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import RoundsOption, SandboxOption, check_sandbox, console, reap_leftovers

bench_app = typer.Typer(help="Benchmarks that print figures.", no_args_is_help=True)


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


@bench_app.command("referee")
def bench_referee_command(
    games: Annotated[int, typer.Option(help="Games on the table per round.")] = 20,
    seed: Annotated[int, typer.Option(help="First game seed.")] = 1,
    pingpong: Annotated[int, typer.Option(help="Round trips of each bare ping-pong.")] = 5000,
    rounds: RoundsOption = 3,
    sandbox: SandboxOption = True,
) -> None:
    """One table, six real `random` bot processes over gRPC; in-process and ping-pong beside."""
    reap_leftovers()
    from arena.bench.referee import bench_referee

    sandbox = check_sandbox(sandbox)
    f = bench_referee(games, seed, pingpong, max(1, rounds), sandbox)
    lines = [
        f"round {i}: {r.decisions_per_second:.0f} decisions/s over gRPC; ping-pong "
        f"{r.pingpong_one:.0f} round trips/s with one client process, "
        f"{r.pingpong_six:.0f} with six; ratio {r.ratio:.2f}"
        for i, r in enumerate(f.rounds, 1)
    ]
    lines += [
        f"grpc: {f.games} games × {len(f.rounds)} rounds, {f.decisions} decisions",
        f"{f.decisions_per_second:.0f} decisions/s over gRPC (median round)",
        f"round trip per decision: median {f.median_ms:.3f} ms, p99 {f.p99_ms:.3f} ms",
        f"{f.games_per_second:.2f} games/s over gRPC",
        f"{f.inprocess_decisions_per_second:.0f} decisions/s in-process (same bots, no gRPC)",
        f"{f.pingpong_one:.0f} round trips/s bare gRPC ping-pong, one client process "
        f"({f.pingpong_note})",
        f"{f.pingpong_six:.0f} round trips/s bare gRPC ping-pong, six client processes "
        "taking turns (a table's pattern: the transport's limit for a table)",
        f"ratio to the one-process ping-pong: {f.ratio_one_stream:.2f}",
        f"ratio: {f.ratio:.2f}",
    ]
    for line in lines:
        console.print(line, highlight=False)


@bench_app.command("greedy")
def bench_greedy_command(
    games: Annotated[
        int, typer.Option(help="Games in all (split over the 3 team positions).")
    ] = 300,
    seed: Annotated[int, typer.Option(help="Seed of the games.")] = 1,
    jobs: Annotated[int, typer.Option(help="Tables at once (default: CPUs).")] = 0,
) -> None:
    """How often `greedy` beats two `random` teams (par 33%), over gRPC with real processes."""
    reap_leftovers()
    import os

    from arena.bench.greedy import bench_greedy

    f = bench_greedy(games, seed, jobs or os.cpu_count() or 1)
    low, high = f.interval
    console.print(
        f"greedy vs two random teams: {f.games} games, {f.wins} wins, {f.draws} draws, "
        f"{f.faults} faults, {f.seconds:.1f} s",
        highlight=False,
    )
    console.print(
        f"greedy win rate: {f.win_rate:.1%} (95% interval {low:.1%} – {high:.1%}; par 33.3%)",
        highlight=False,
    )


@bench_app.command("tournament")
def bench_tournament_command(
    games: Annotated[int, typer.Option(help="Games per seating.")] = 10,
    jobs: Annotated[int, typer.Option(help="Tables at once (default: CPUs).")] = 0,
    seed: Annotated[int, typer.Option(help="Seed of the run.")] = 1,
    rounds: RoundsOption = 3,
    sandbox: SandboxOption = True,
) -> None:
    """A run of the Python sample bots; then the same run one table at a time."""
    reap_leftovers()
    import os

    from arena.bench.tournament import bench_tournament

    sandbox = check_sandbox(sandbox)
    f = bench_tournament(games, jobs or os.cpu_count() or 1, seed, max(1, rounds), sandbox)
    lines = [
        f"round {i}: {r.summary.played} games, {r.summary.decisions} decisions in "
        f"{r.summary.wall_seconds:.1f} s with {f.jobs} tables; {r.games_per_second:.2f} games/s; "
        f"one table alone {r.single_games_per_second:.2f} games/s; scaling {r.scaling:.2f}; "
        f"start-up share {r.startup_share:.1%}"
        for i, r in enumerate(f.rounds, 1)
    ]
    lines += [
        f"{f.games_per_second:.2f} games/s with {f.jobs} tables (median round)",
        f"{f.decisions_per_second:.0f} decisions/s",
        f"start-up share of wall time: {f.startup_share:.1%} "
        f"(table slots waiting for bots to be launched and join; "
        f"{f.launch_seconds:.2f} s spent launching)",
        f"one table alone: {f.single_games_per_second:.2f} games/s",
        f"CPU kept busy: {f.cores_busy:.2f} cores with {f.jobs} tables, "
        f"{f.single_cores_busy:.2f} with one table, of {f.cores}; so {f.jobs} tables "
        f"can reach at most {f.scaling_ceiling:.2f} of one table × {f.jobs}"
        if f.cpu_counted
        else "CPU kept busy: unknown (sandboxed bots' CPU is counted only in cgroups, "
        "which this machine does not let the arena make; --no-sandbox counts it)",
        f"scaling: {f.scaling:.2f} of one table × {f.jobs}",
    ]
    for line in lines:
        console.print(line, highlight=False)
