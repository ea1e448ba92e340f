"""The ``arena`` command line: it parses options, calls one library function, renders."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from arena.safe_text import literal

if TYPE_CHECKING:
    from arena.bots import BotSpec, Limits
    from arena.tournament.results import ResultsStore

app = typer.Typer(
    help="Schmier Arena: run card-playing bots against each other.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
bench_app = typer.Typer(help="Benchmarks that print figures.", no_args_is_help=True)
app.add_typer(bench_app, name="bench")

# soft_wrap: messages and paths stay on one line whatever the terminal's width.
console = Console(soft_wrap=True)
err_console = Console(stderr=True, soft_wrap=True)

TEAM_LABELS = ("team 0 (seats 0, 3)", "team 1 (seats 1, 4)", "team 2 (seats 2, 5)")


def fail(message: str, code: int = 2) -> NoReturn:
    """A clear one-line error and a non-zero exit, never a traceback.

    The message often quotes a bot (its name, an answer, its manifest): it is printed
    literally, control characters made visible, never read as markup.
    """
    err_console.print(Text.assemble(("error:", "bold red"), " ", literal(message)))
    raise typer.Exit(code)


@app.command()
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
    sandbox: SandboxOption = True,
    workdir_mb: WorkdirOption = 64,
    memory_mb: MemoryOption = 2048,
    cpu_seconds: CpuOption = 600,
    processes: ProcessesOption = 256,
    log_kb: LogOption = 1024,
    build: BuildOption = True,
) -> None:
    """Play one game between three bots over gRPC and print the result."""
    reap_leftovers()
    from arena.play import play_one_game
    from arena.referee.match import ManualSeat
    from arena.referee.table import TableSettings

    if len(entrants) != 3:
        fail(f"play takes three entrants (one per team), not {len(entrants)}")
    specs = load_entrants(entrants)
    if seed is not None:
        from arena.tournament.schedule import seed_warning

        err_console.print(seed_warning(seed), highlight=False, markup=False)
    build_entrants(specs, out / "logs", build)
    manual_seats = frozenset(manual or ())
    if any(not 0 <= s <= 5 for s in manual_seats):
        fail("R1.1: seats are 0..5")

    def show_manual(seats: list[ManualSeat]) -> None:
        for seat in seats:
            console.print(
                f"seat {seat.seat} is open: start your bot with "
                f"ARENA_ADDRESS={seat.address} ARENA_TOKEN={seat.token}",
                highlight=False,
                markup=False,
            )

    settings = TableSettings(decision_ms=decision_ms, overage_ms=overage_ms)
    sandbox = check_sandbox(sandbox, workdir_mb)
    limits = bot_limits(memory_mb, cpu_seconds, processes, log_kb)
    result = play_one_game(
        specs, seed, out, settings, manual_seats, show_manual, sandbox, limits, workdir_mb * _MiB
    )
    report = result.report
    dealt = "secret deal" if seed is None else f"game seed {seed}"
    table = RichTable(title=f"{dealt}: {report.deals} deals")
    table.add_column("team")
    table.add_column("bot")
    table.add_column("score", justify="right")
    table.add_column("faults", justify="right")
    for team in range(3):
        faults = report.seats[team].faults + report.seats[team + 3].faults
        mark = " (winner)" if report.winner == team else ""
        table.add_row(
            TEAM_LABELS[team] + mark,
            literal(f"{specs[team].name}@{specs[team].version}"),
            str(report.scores[team]),
            str(faults),
        )
    console.print(table)
    console.print("result: " + ("draw" if report.winner is None else f"team {report.winner} wins"))
    for fault in report.faults:
        console.print(literal(f"fault: seat {fault.seat} {fault.kind.value}: {fault.reason}"))
    console.print(f"record: {result.record_path}", highlight=False, markup=False)
    console.print(f"seat logs: {result.log_dir}", highlight=False, markup=False)


DEFAULT_ENTRANTS = ("random", "greedy", "lowest")
DEFAULT_DB = Path("arena-results") / "arena.db"
DEFAULT_REGISTRY = Path("arena-results") / "registry"
RegistryOption = Annotated[Path, typer.Option(help="The local bot registry.")]
SandboxOption = Annotated[
    bool,
    typer.Option(
        "--sandbox/--no-sandbox",
        help="Run each bot in bubblewrap (where it works): its own capped working dir, its "
        "code and the system read-only, no network. --no-sandbox: the bots are trusted code.",
    ),
]
WorkdirOption = Annotated[
    int,
    typer.Option(help="Size cap of a sandboxed bot's working dir (also of its /tmp) (MiB)."),
]


DecisionOption = Annotated[int, typer.Option(help="Time per decision (ms).")]
OverageOption = Annotated[int, typer.Option(help="Overage bank per game (ms).")]
MemoryOption = Annotated[
    int,
    typer.Option(
        help="Memory limit per bot (all its processes), MiB: a memory cgroup where the "
        "machine has one, else the address space of each process."
    ),
]
CpuOption = Annotated[int, typer.Option(help="CPU-time limit per bot process (seconds).")]
ProcessesOption = Annotated[int, typer.Option(help="Processes and threads per bot (cgroup).")]
LogOption = Annotated[int, typer.Option(help="Log kept per seat (KiB).")]


_MiB = 1024 * 1024


def bot_limits(memory_mb: int, cpu_seconds: int, processes: int, log_kb: int) -> Limits:
    from arena.bots import Limits

    return Limits(
        memory_bytes=memory_mb * _MiB,
        cpu_seconds=cpu_seconds,
        processes=processes,
        log_bytes=log_kb * 1024,
    )


def check_sandbox(sandbox: bool, workdir_mb: int = 64) -> bool:
    """Whether the bots run sandboxed; when not, one line on stderr says what that means."""
    from arena.bots.sandbox import TRUSTED_LINE, sandbox_problem

    if workdir_mb < 1:
        fail("--workdir-mb must be at least 1")
    problem = "--no-sandbox" if not sandbox else sandbox_problem()
    if problem is None:
        return True
    err_console.print(f"warning: {problem}: {TRUSTED_LINE}", highlight=False, markup=False)
    return False


def reap_leftovers() -> None:
    """Before launching bots: kill what an arena that died left running, and say so."""
    from arena.bots.reaper import reap

    line = reap()
    if line is not None:  # on stderr, so that --json output stays clean
        err_console.print(line, highlight=False, markup=False)


def load_entrants(names: list[str], registry_root: Path = DEFAULT_REGISTRY) -> list[BotSpec]:
    """Entrants from paths (an executable or a directory with bot.toml) or registered names."""
    from arena.bots import BotSpecError, load_bot
    from arena.registry import Registry, RegistryError

    registry = Registry(registry_root)
    specs = []
    for name in names:
        try:
            if Path(name).exists() or "/" in name:
                specs.append(load_bot(name))
            else:
                specs.append(registry.load(registry.find(name)))
        except (BotSpecError, RegistryError) as error:
            fail(str(error))
    return specs


BuildOption = Annotated[
    bool, typer.Option(help="Run each bot's build command (from its bot.toml) first.")
]


def build_entrants(specs: list[BotSpec], log_dir: Path, build: bool) -> None:
    """Build the bots whose manifest says how, once, before they play."""
    from arena.bots import BotBuildError, build_bot

    if not build:
        return
    for spec in {s.directory: s for s in specs if s.build}.values():
        log = log_dir / f"build-{spec.name}.log"
        # On stderr, so that --json output stays clean.
        err_console.print(literal(f"building {spec.name}: {' '.join(spec.build or ())}"))
        try:
            build_bot(spec, log)
        except BotBuildError as error:
            err_console.print(literal(error.log_tail.rstrip(), keep_newlines=True))
            fail(f"{spec.name} did not build: {str(error).splitlines()[0]} (log: {log})")


def open_store(db: Path, create: bool = True) -> ResultsStore:
    from arena.tournament.results import ResultsStore, ResultsStoreError

    try:
        return ResultsStore.open(db, create=create)
    except ResultsStoreError as error:
        fail(str(error))


@app.command()
def run(
    entrants: Annotated[
        list[str] | None,
        typer.Argument(help="Bots (executable or directory with bot.toml); default: the samples."),
    ] = None,
    games: Annotated[int, typer.Option(help="Games per seating.")] = 10,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Reproduce a run: anyone who knows the seed can know every card "
            "(default: a secret key, kept in the database)."
        ),
    ] = None,
    jobs: Annotated[int, typer.Option(help="Matches played at once (default: CPUs).")] = 0,
    db: Annotated[Path, typer.Option(help="The results database.")] = DEFAULT_DB,
    decision_ms: DecisionOption = 1000,
    overage_ms: OverageOption = 10_000,
    resume: Annotated[
        bool,
        typer.Option(help="Accepted for clarity: the same command always resumes its run."),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    all_registered: Annotated[
        bool, typer.Option(help="Add every registered bot (newest version of each name).")
    ] = False,
    registry: RegistryOption = DEFAULT_REGISTRY,
    sandbox: SandboxOption = True,
    workdir_mb: WorkdirOption = 64,
    memory_mb: MemoryOption = 2048,
    cpu_seconds: CpuOption = 600,
    processes: ProcessesOption = 256,
    log_kb: LogOption = 1024,
    build: BuildOption = True,
) -> None:
    """Play a round-robin tournament (duplicate deals) and report win rates.

    Running the same command again resumes the run: only missing games are played.
    """
    reap_leftovers()
    import os

    from arena.referee.table import TableSettings
    from arena.tournament.results import ResultsStoreError
    from arena.tournament.runner import RunBusyError, RunConfig, RunInterrupted, run_tournament
    from arena.tournament.schedule import ScheduleError

    names = list(entrants or [])
    if all_registered:
        from arena.registry import Registry

        names += [entry.label() for entry in Registry(registry).latest()]
    if not names:
        from arena.bots.samples import sample_bot

        names = [str(sample_bot(name)) for name in DEFAULT_ENTRANTS]
    specs = load_entrants(names, registry)
    labels = [f"{spec.name}@{spec.version}" for spec in specs]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        fail(f"an entrant is given twice: {', '.join(repeated)} (same name and version)")
    if len(specs) < 2:
        fail("a tournament needs at least two entrants")
    if games < 1:
        fail("--games must be at least 1")
    open_store(db).close()  # a clear error now for a file that is not a results database
    if seed is not None:
        from arena.tournament.schedule import seed_warning

        err_console.print(seed_warning(seed), highlight=False, markup=False)
    build_entrants(specs, db.parent / "logs", build)
    config = RunConfig(
        entrants=tuple(specs),
        games=games,
        seed=seed,
        jobs=jobs or os.cpu_count() or 1,
        db_path=db,
        settings=TableSettings(decision_ms=decision_ms, overage_ms=overage_ms),
        limits=bot_limits(memory_mb, cpu_seconds, processes, log_kb),
        sandbox=check_sandbox(sandbox, workdir_mb),
        workdir_bytes=workdir_mb * _MiB,
    )
    from arena.display import RunProgressBar

    try:
        with RunProgressBar(console, enabled=not as_json) as bar:
            summary = run_tournament(config, db.parent / "logs", bar.update)
    except (RunBusyError, ResultsStoreError) as error:
        fail(str(error))
    except OSError as error:  # e.g. the disk filled up: what was committed is kept
        fail(f"{error}; every game stored so far is kept, run the same command to resume")
    except RunInterrupted as stopped:
        err_console.print(
            f"interrupted: {stopped.summary.played} games played in this session are stored; "
            "run the same command again to resume",
            highlight=False,
        )
        raise typer.Exit(130) from None
    except ScheduleError as error:
        fail(str(error))
    if not as_json:
        console.print(
            f"run {summary.run_id}: {summary.played} games played, "
            f"{summary.skipped} already stored; results in {db}",
            highlight=False,
            markup=False,
        )
    show_report(db, summary.run_id, as_json)


def show_report(db: Path, run_id: str | None, as_json: bool) -> None:
    import json

    from arena.display import render_report
    from arena.tournament.report import UnknownRunError, build_report

    with open_store(db, create=False) as store:
        try:
            report = build_report(store, run_id)
        except UnknownRunError as error:
            fail(str(error))
    if as_json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        render_report(console, report)


@app.command()
def report(
    run_id: Annotated[str | None, typer.Argument(help="The run (default: the latest).")] = None,
    db: Annotated[Path, typer.Option(help="The results database.")] = DEFAULT_DB,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Standings and head-to-head of a stored run."""
    show_report(db, run_id, as_json)


@app.command()
def replay(
    game: Annotated[str, typer.Argument(help="A game id in the database, or a record file.")],
    db: Annotated[Path, typer.Option(help="The results database.")] = DEFAULT_DB,
) -> None:
    """Print a game deal by deal, after checking its record through the engine."""
    from arena.engine import ReplayMismatchError
    from arena.engine import replay as replay_record
    from arena.play import read_record
    from arena.render import record_lines

    path = Path(game)
    if path.is_file():
        try:
            record = read_record(path)
        except ValueError as error:
            fail(f"cannot read a game record from {path}: {error}")
    elif re.fullmatch(r"[0-9]{1,18}", game):
        with open_store(db, create=False) as store:
            try:
                record = store.game_record(int(game))
            except KeyError:
                fail(f"no game {game} in {db}")
    else:
        fail(f"{game!r} is neither a record file nor a game id")
    try:
        replay_record(record)
    except ReplayMismatchError as error:
        fail(f"the record does not replay: {error}")
    for line in record_lines(record):
        console.print(literal(line))


@app.command()
def submit(
    path: Annotated[
        Path, typer.Argument(help="The bot: an executable or a directory with bot.toml.")
    ],
    name: Annotated[str | None, typer.Option(help="Register under this name.")] = None,
    games: Annotated[int, typer.Option(help="Games in the validation match.")] = 2,
    registry: RegistryOption = DEFAULT_REGISTRY,
    decision_ms: DecisionOption = 1000,
    join_timeout: Annotated[float, typer.Option(help="Seconds to join after launch.")] = 10.0,
    sandbox: SandboxOption = True,
    workdir_mb: WorkdirOption = 64,
) -> None:
    """Build a bot, check it in a validation match against the sample bots, register it."""
    reap_leftovers()
    from arena.bots import BotSpecError
    from arena.bots.manifest import check_name
    from arena.referee.table import TableSettings
    from arena.registry import Registry
    from arena.submit import submit as submit_bot

    settings = TableSettings(decision_ms=decision_ms, join_timeout_s=join_timeout)
    try:
        if name is not None:  # checked before the match: it becomes a registry directory
            check_name(name, "arena submit", "--name")
        sandbox = check_sandbox(sandbox, workdir_mb)
        result = submit_bot(
            path,
            Registry(registry),
            name=name,
            games=games,
            settings=settings,
            sandbox=sandbox,
            workdir_bytes=workdir_mb * _MiB,
        )
    except BotSpecError as error:
        fail(str(error))
    spec = result.spec
    console.print(literal(f"checked {spec.name}@{spec.version}:"))
    for check in result.checks:
        mark = ("ok  ", "green") if check.passed else ("FAIL", "red")
        detail = f" — {check.detail}" if check.detail else ""
        console.print(Text.assemble("  ", mark, " ", literal(check.name + detail)))
    if not result.accepted:
        if result.log_tail.strip():
            err_console.print("the bot's log ends with:", highlight=False)
            err_console.print(literal(result.log_tail.rstrip(), keep_newlines=True))
        failed = next(c for c in result.checks if not c.passed)
        fail(f"{spec.name} refused: {failed.name} failed: {failed.detail}")
    assert result.entry is not None
    console.print(literal(f"registered {result.entry.label()} in {registry}"))


@app.command()
def bots(
    registry: RegistryOption = DEFAULT_REGISTRY,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """The registered bots and their versions."""
    import json

    from arena.registry import Registry, RegistryError
    from arena.registry import as_json as entries_json

    try:
        entries = Registry(registry).entries()
    except RegistryError as error:
        fail(str(error))
    if as_json:
        print(json.dumps(entries_json(entries), indent=2))
        return
    if not entries:
        console.print(
            f"no registered bots in {registry} (add one with `arena submit PATH`)",
            highlight=False,
            markup=False,
        )
        return
    table = RichTable(title=literal(f"Registered bots ({registry})"))
    for column in ("name", "version", "registered", "path"):
        table.add_column(column)
    for entry in entries:
        # The index is a file anyone may edit: every cell is shown literally.
        cells = (entry.name, entry.version, entry.registered_at, entry.path)
        table.add_row(*map(literal, cells))
    console.print(table)


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


@bench_app.command("referee")
def bench_referee_command(
    games: Annotated[int, typer.Option(help="Games on the table per round.")] = 20,
    seed: Annotated[int, typer.Option(help="First game seed.")] = 1,
    pingpong: Annotated[int, typer.Option(help="Round trips of each bare ping-pong.")] = 5000,
    rounds: Annotated[int, typer.Option(help="Rounds; medians are reported.")] = 3,
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
    rounds: Annotated[int, typer.Option(help="Rounds; medians are reported.")] = 3,
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
