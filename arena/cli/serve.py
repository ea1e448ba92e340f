"""``arena serve``: host a contest: uploads, a ladder that keeps playing, its pages."""

from __future__ import annotations

from typing import Annotated

import typer

from .cluster import (
    NO_CLUSTER,
    ClusterFlags,
    with_cluster_flags,
)
from .common import (
    DEFAULT_BOT_FLAGS,
    DEFAULT_DB,
    BotFlags,
    DbOption,
    DecisionOption,
    OverageOption,
    console,
    err_console,
    fail,
    reap_leftovers,
    with_bot_flags,
)
from .playing import JobsOption, claim_db


@with_cluster_flags()
@with_bot_flags(build=False)
def serve(
    db: DbOption = DEFAULT_DB,
    host: Annotated[str, typer.Option(help="The address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="The port (0: any free one).")] = 8000,
    samples: Annotated[
        bool,
        typer.Option(
            "--samples/--no-samples",
            help="Enter the four Python sample bots (random, greedy, lowest, pimc) as the "
            "organiser's, if they are not in yet.",
        ),
    ] = False,
    sample: Annotated[
        list[str] | None,
        typer.Option("--sample", metavar="NAME", help="Enter this sample bot only (repeatable)."),
    ] = None,
    games: Annotated[
        int,
        typer.Option(help="Games per seating in each ladder round, and in each validation match."),
    ] = 1,
    validation_matches: Annotated[
        int,
        typer.Option(
            help="Validation matches an upload plays, each shaped as a ladder match (as "
            "arena submit checks a bot)."
        ),
    ] = 2,
    jobs: JobsOption = 0,
    referees: Annotated[
        int,
        typer.Option(
            help="Referee processes (default: as arena run chooses; 1: in this process).",
            show_default=False,
        ),
    ] = 0,
    rate: Annotated[
        float,
        typer.Option(
            help="Requests per minute per token after a burst (per address: four times as many)."
        ),
    ] = 120.0,
    burst: Annotated[
        int, typer.Option(help="Requests at once per token (per address: four times as many).")
    ] = 30,
    uploads_per_day: Annotated[
        int, typer.Option(help="Uploads a contestant may make in any 24 hours.")
    ] = 20,
    build_minutes_per_day: Annotated[
        float,
        typer.Option(help="Minutes of building and checking a contestant may use in 24 hours."),
    ] = 30.0,
    build_timeout: Annotated[
        float, typer.Option(help="Seconds one upload's build and validation may take.")
    ] = 900.0,
    queue: Annotated[
        int, typer.Option(help="Uploads waiting or building at once, all contestants together.")
    ] = 4,
    trusted_proxy: Annotated[
        list[str] | None,
        typer.Option(
            "--trusted-proxy",
            metavar="ADDRESS",
            help="A reverse proxy's address or network whose X-Forwarded-For is believed "
            "(repeatable; default: none, the header is ignored).",
        ),
    ] = None,
    compare_max_games: Annotated[
        int,
        typer.Option(
            help="Games at most in a new version's comparison with its previous one, if the "
            "sequential test has not decided before."
        ),
    ] = 3000,
    watchdog: Annotated[
        float,
        typer.Option(help="Seconds without a game before the ladder says why (log, live page)."),
    ] = 300.0,
    cluster_flags: ClusterFlags = NO_CLUSTER,
    decision_ms: DecisionOption = 1000,
    overage_ms: OverageOption = 10_000,
    join_timeout: Annotated[float, typer.Option(help="Seconds to join after launch.")] = 10.0,
    bot_flags: BotFlags = DEFAULT_BOT_FLAGS,
) -> None:
    """Host a contest: uploads checked as arena submit does, a ladder that keeps playing,
    a leaderboard, every game's replay. Ctrl-C stops it; the same command resumes it."""
    import os

    # Before numpy is first imported: a BLAS thread pool in a process that forks to start
    # bots can deadlock it (the statistics run in a process of their own anyway).
    for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")
    reap_leftovers()

    from arena.referee.table import TableSettings
    from arena.serve.builds import BuildLimits
    from arena.serve.connections import parse_networks
    from arena.serve.server import add_samples, ensure_admin_token
    from arena.serve.server import serve as serve_contest
    from arena.serve.service import ServeConfig
    from arena.tournament.executor import MatchExecutor
    from arena.tournament.local import local_executor
    from arena.tournament.runner import RunBusyError
    from arena.tournament.split import default_referee_processes

    if games < 1:
        fail("--games must be at least 1")
    if validation_matches < 1 or uploads_per_day < 1 or queue < 1:
        fail("--validation-matches, --uploads-per-day and --queue must be at least 1")
    try:
        parse_networks(trusted_proxy or ())
    except ValueError as error:
        fail(f"--trusted-proxy: {error}")
    claim_db(db)
    options, remote, sandboxed = cluster_flags.bots(bot_flags)
    settings = TableSettings(
        decision_ms=decision_ms, overage_ms=overage_ms, join_timeout_s=join_timeout
    )
    from arena.serve.server import SAMPLES

    chosen = tuple(SAMPLES if samples else ()) + tuple(sample or ())
    if chosen:
        try:
            added = add_samples(db, tuple(dict.fromkeys(chosen)))
        except (LookupError, OSError, ValueError) as error:
            fail(str(error))
        for label in added:
            console.print(f"entered {label}", highlight=False, markup=False)
    token = ensure_admin_token(db)
    if token is not None:
        console.print(
            f"admin token (shown once, stored hashed): {token}", highlight=False, markup=False
        )
    cores = os.cpu_count() or 1
    tables = jobs or cores
    processes_n = referees
    if not referees and remote is None:
        processes_n, hint = default_referee_processes(tables, cores)
        if hint is not None:
            err_console.print(hint, highlight=False, markup=False, soft_wrap=True)

    def executor() -> MatchExecutor:
        if remote is not None:
            return remote
        return local_executor(tables, processes_n, settings.join_timeout_s)

    config = ServeConfig(
        db_path=db,
        executor=executor,
        games=games,
        validation_matches=validation_matches,
        settings=settings,
        options=options,
        prepare_locally=remote is None,
        match_sandbox=None if remote is None else sandboxed,
        rate_per_minute=rate,
        rate_burst=burst,
        builds=BuildLimits(
            queue=queue,
            uploads_per_day=uploads_per_day,
            build_minutes_per_day=build_minutes_per_day,
            build_timeout_s=build_timeout,
        ),
        compare_max_games=compare_max_games,
        watchdog_s=watchdog,
        trusted_proxies=tuple(trusted_proxy or ()),
        on_notice=lambda line: err_console.print(line, highlight=False, markup=False),
    )

    def listening(url: str) -> None:
        console.print(f"serving the contest on {url}", highlight=False, markup=False)

    try:
        serve_contest(config, host, port, on_listening=listening)
    except RunBusyError as error:
        fail(str(error))
    except OSError as error:
        fail(f"cannot listen on {host}:{port}: {error}")
    console.print("stopped; the same command resumes the ladder", highlight=False)
