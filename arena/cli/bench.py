"""``arena bench …``: benchmarks that print figures."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import RoundsOption, SandboxOption, check_sandbox, console, fail, reap_leftovers

bench_app = typer.Typer(help="Benchmarks that print figures.", no_args_is_help=True)


def print_lines(lines: list[str]) -> None:
    for line in lines:
        console.print(line, highlight=False)


CpuAgainstOption = Annotated[
    str,
    typer.Option(
        help="A git revision whose referee, SDK and bots play the CPU-per-decision rounds "
        "in alternation with this tree's (the same games), e.g. 4c9cbd7.",
        show_default=False,
    ),
]


def print_cpu_lines(games: int, seed: int, rounds: int, sandbox: bool, against: str) -> None:
    """CPU per decision of the referee, a Python SDK bot and the strategies (``arena.bench.cpu``):
    this tree's rounds, or this tree's and ``against``'s in alternation."""
    import tempfile
    from pathlib import Path

    from arena.bench.cpu import (
        CHANNELS,
        channel_lines,
        compare_cpu,
        comparison_lines,
        cpu_lines,
        cpu_round,
    )

    if against:
        try:
            ours, theirs = compare_cpu(against, games, seed, rounds, sandbox)
        except ValueError as error:
            fail(str(error))
        print_lines(comparison_lines(against, ours, theirs))
        return
    measured = {}
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as logs:
        for channel in CHANNELS:
            measured[channel] = [
                cpu_round(games, seed, Path(logs) / f"{channel}{i}", sandbox, channel)
                for i in range(rounds)
            ]
    print_lines(channel_lines(measured["grpc"], measured["stdio"]))
    for channel in CHANNELS:
        print_lines(cpu_lines("this tree", measured[channel]))


@bench_app.command("engine")
def bench_engine_command(
    games: Annotated[int, typer.Option(help="Games per round.")] = 300,
    rounds: Annotated[
        int | None,
        typer.Option(
            help="Rounds; the median round is reported. Default 5, or 9 with --against "
            "(single rounds of a comparison swing widely even in CPU seconds).",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="First game seed.")] = 1,
    against: Annotated[
        str,
        typer.Option(
            help="A git revision whose engine plays the same rounds in alternation "
            "(e.g. eb3dbeb); the ratio of decisions/s is printed."
        ),
    ] = "",
    positions: Annotated[
        int, typer.Option(help="Positions at which Game.copy() and determinization are timed.")
    ] = 50,
) -> None:
    """Play complete games between random legal players in one process (no gRPC); the cost
    of Game.copy() and of determinization per call."""
    from arena.bench.engine import bench_engine, compare_engines, engine_lines, search_cost_lines

    if rounds is None:
        rounds = 9 if against else 5
    if against:
        try:
            comparison = compare_engines(against, games, rounds, seed)
        except ValueError as error:
            fail(str(error))
        print_lines(comparison.lines())
    else:
        print_lines(engine_lines(*bench_engine(games, rounds, seed)))
    if positions > 0:
        print_lines(search_cost_lines(positions, seed))


@bench_app.command("referee")
def bench_referee_command(
    games: Annotated[int, typer.Option(help="Games on the table per round.")] = 20,
    seed: Annotated[int, typer.Option(help="First game seed.")] = 1,
    pingpong: Annotated[int, typer.Option(help="Round trips of each bare ping-pong.")] = 5000,
    rounds: RoundsOption = 3,
    sandbox: SandboxOption = True,
    against: CpuAgainstOption = "",
) -> None:
    """One table of six real `random` bot processes over gRPC and over stdio, with decisions/s
    and CPU per decision; in-process and each channel's bare ping-pong beside."""
    reap_leftovers()
    from arena.bench.referee import bench_referee

    sandbox = check_sandbox(sandbox)
    print_lines(bench_referee(games, seed, pingpong, max(1, rounds), sandbox).lines())
    if against:
        print_cpu_lines(games, seed, max(1, rounds), sandbox, against)


@bench_app.command("greedy")
def bench_greedy_command(
    games: Annotated[
        int, typer.Option(help="Games in all (split over the 3 team positions).")
    ] = 300,
    seed: Annotated[int, typer.Option(help="Seed of the games.")] = 1,
    jobs: Annotated[
        int, typer.Option(help="Tables at once (default: CPUs).", show_default=False)
    ] = 0,
) -> None:
    """How often `greedy` beats two `random` teams (par 33%), over gRPC with real processes."""
    reap_leftovers()
    import os

    from arena.bench.greedy import bench_greedy

    print_lines(bench_greedy(games, seed, jobs or os.cpu_count() or 1).lines())


@bench_app.command("pimc")
def bench_pimc_command(
    games: Annotated[int, typer.Option(help="Games (pimc holds seats 0 and 3).")] = 2,
    seed: Annotated[int, typer.Option(help="Seed of the first game.")] = 1,
    budget_ms: Annotated[int, typer.Option(help="pimc's time budget per decision.")] = 200,
) -> None:
    """How fast the `pimc` sample bot decides: decisions/s, median and maximum time per
    decision, in one process against `greedy`."""
    from arena.bench.pimc import bench_pimc

    print_lines(bench_pimc(games, seed, budget_ms).lines())


@bench_app.command("tournament")
def bench_tournament_command(
    games: Annotated[int, typer.Option(help="Games per seating.")] = 10,
    jobs: Annotated[
        int, typer.Option(help="Tables at once (default: CPUs).", show_default=False)
    ] = 0,
    seed: Annotated[int, typer.Option(help="Seed of the run.")] = 1,
    rounds: RoundsOption = 3,
    sandbox: SandboxOption = True,
    against: CpuAgainstOption = "",
    cpu_games: Annotated[
        int, typer.Option(help="Games of the table whose CPU per decision is measured.")
    ] = 20,
    record: Annotated[
        bool,
        typer.Option(
            help="Record the faster split (one referee, or spread over referee processes) "
            "as arena run's default on this machine, in the user's cache directory."
        ),
    ] = True,
) -> None:
    """The sample bots in a run on one referee, one table at a time, and over referee processes."""
    reap_leftovers()
    import os

    from arena.bench.tournament import bench_tournament
    from arena.tournament.split import record_split, split_path

    sandbox = check_sandbox(sandbox)
    figures = bench_tournament(games, jobs or os.cpu_count() or 1, seed, max(1, rounds), sandbox)
    print_lines(figures.lines())
    split = figures.split
    if record and split is not None:
        path = split_path()
        try:
            record_split(path, split)
        except OSError as error:
            fail(f"cannot record the measured split in {path}: {error}")
        print_lines([f"recorded as arena run's default: {split.describe()}; in {path}"])
    print_cpu_lines(cpu_games, seed, max(1, rounds), sandbox, against)


@bench_app.command("stats")
def bench_stats_command(
    runs: Annotated[
        int, typer.Option(help="Fresh runs of each world and seed count (win rates).")
    ] = 400,
    rating_runs: Annotated[
        int, typer.Option(help="Fresh runs whose ratings are fitted, per world and seed count.")
    ] = 150,
    tests: Annotated[int, typer.Option(help="Sequential tests per case.")] = 400,
    groups: Annotated[
        int,
        typer.Option(help="Seed groups of real games per pair of bots (six games each; 0: none)."),
    ] = 40,
    margin: Annotated[float, typer.Option(help="The sequential test's margin.")] = 0.05,
    alpha: Annotated[float, typer.Option(help="The test's false-positive rate.")] = 0.05,
    beta: Annotated[float, typer.Option(help="The test's false-negative rate.")] = 0.05,
    max_games: Annotated[
        int, typer.Option(help="Games after which a test counts as undecided.")
    ] = 10_000,
    seed: Annotated[int, typer.Option(help="Seed of the simulations and first game seed.")] = 1,
    jobs: Annotated[int, typer.Option(help="Processes (default: CPUs).", show_default=False)] = 0,
) -> None:
    """Check every interval the arena prints and arena compare's test on simulated worlds
    of known truth (and real games where the engine's variance matters); exit 1 when a cell
    falls short of its promise beyond its noise."""
    import os

    from arena.bench.stats import StudySize, bench_stats

    try:
        size = StudySize(
            runs=runs,
            rating_runs=rating_runs,
            tests=tests,
            groups=groups,
            margin=margin,
            alpha=alpha,
            beta=beta,
            max_games=max_games,
            seed=seed,
            jobs=jobs or os.cpu_count() or 1,
        )
    except ValueError as error:
        fail(str(error))
    figures = bench_stats(size)
    print_lines(figures.lines())
    if figures.shortfalls:
        raise typer.Exit(1)


@bench_app.command("cluster")
def bench_cluster_command(
    games: Annotated[int, typer.Option(help="Games per match.")] = 2,
    matches: Annotated[int, typer.Option(help="Matches of the run (a sampled schedule).")] = 24,
    tables: Annotated[
        int, typer.Option(help="Tables at once: the local run's and each cluster's in all.")
    ] = 2,
    seed: Annotated[int, typer.Option(help="Seed of the run.")] = 1,
    rounds: RoundsOption = 1,
    sandbox: SandboxOption = True,
) -> None:
    """The same run locally and on a local Dask cluster of 1 and 2 workers (needs the
    cluster extra): games/s as ratios, the CPU each keeps busy, the overhead per match."""
    reap_leftovers()
    try:
        from arena.bench.cluster import bench_cluster
    except ImportError as error:
        fail(f"bench cluster needs Dask ({error}): pip install 'schmier-arena[cluster]'")
    if tables < 2 or tables % 2:
        fail("--tables must be even and at least 2 (two workers share them)")
    sandbox = check_sandbox(sandbox)
    print_lines(bench_cluster(games, matches, tables, seed, max(1, rounds), sandbox).lines())


@bench_app.command("channels")
def bench_channels_command(
    slot_ms: Annotated[
        list[float] | None,
        typer.Option("--slot-ms", help="Slot lengths to try (repeatable). Default 100, 30, 10."),
    ] = None,
    bits: Annotated[int, typer.Option(help="Random bits sent per kind and slot length.")] = 200,
    seed: Annotated[int, typer.Option(help="Seed of the random bits.")] = 1,
    kind: Annotated[
        list[str] | None,
        typer.Option("--kind", help="Only these classes (repeatable). Default: every class."),
    ] = None,
) -> None:
    """What every class of covert channel carries between two sandboxed seats (partners,
    and two tables): the classes the sandbox closes must carry nothing (exit status 1 if
    one does); for the others, raw rate, error rate and capacity."""
    reap_leftovers()
    from arena.bench.channels import KINDS, bench_channels

    if bits < 8:
        fail("--bits must be at least 8")
    unknown = sorted(set(kind or ()) - set(KINDS))
    if unknown:
        fail(f"unknown class {', '.join(unknown)}; the classes: {', '.join(KINDS)}")
    try:
        report = bench_channels(slot_ms or [100.0, 30.0, 10.0], bits, seed, kind)
    except RuntimeError as error:
        fail(str(error))
    print_lines(report.lines())
    if report.leaks:
        raise typer.Exit(1)
