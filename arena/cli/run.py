"""``arena run``: a round-robin tournament, resumable, then its report."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from .cluster import (
    NO_CLUSTER,
    ClusterFlags,
    cluster_errors,
    entrants_to_play,
    with_cluster_flags,
)
from .common import (
    DEFAULT_BOT_FLAGS,
    DEFAULT_DB,
    DEFAULT_REGISTRY,
    BotFlags,
    DbOption,
    DecisionOption,
    JsonOption,
    OverageOption,
    RegistryOption,
    WideOption,
    console,
    err_console,
    fail,
    load_entrants,
    reap_leftovers,
    show_report,
    with_bot_flags,
)
from .playing import JobsOption, claim_db, playing_errors, warn_of_seed
from .report import default_html_path, write_html_report

DEFAULT_ENTRANTS = ("random", "greedy", "lowest")


class Schedule(StrEnum):
    full = "full"
    sampled = "sampled"
    auto = "auto"


@with_cluster_flags()
@with_bot_flags()
def run(
    entrants: Annotated[
        list[str] | None,
        typer.Argument(help="Bots (executable or directory with bot.toml); default: the samples."),
    ] = None,
    games: Annotated[int, typer.Option(help="Games per seating.")] = 10,
    schedule: Annotated[
        Schedule,
        typer.Option(
            help="full: every triple in every seating; sampled: a balanced sample of "
            "--matches matches; auto: full up to 240 matches (7 entrants), else sampled."
        ),
    ] = Schedule.auto,
    matches: Annotated[
        int | None,
        typer.Option(
            help="Matches of a sampled schedule, rounded up to whole triples of six "
            "seatings (default: 30 per entrant)."
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Reproduce a run: anyone who knows the seed can know every card "
            "(default: a secret key, kept in the database)."
        ),
    ] = None,
    jobs: JobsOption = 0,
    referees: Annotated[
        int,
        typer.Option(
            help="Referee processes the --jobs tables are spread over (default: the split "
            "`arena bench tournament` measured on this machine, else two tables per process "
            "on 3 or more CPUs; 1: every table in this process).",
            show_default=False,
        ),
    ] = 0,
    db: DbOption = DEFAULT_DB,
    decision_ms: DecisionOption = 1000,
    overage_ms: OverageOption = 10_000,
    resume: Annotated[
        bool,
        typer.Option(help="Accepted for clarity: the same command always resumes its run."),
    ] = False,
    as_json: JsonOption = False,
    wide: WideOption = False,
    cluster_flags: ClusterFlags = NO_CLUSTER,
    all_registered: Annotated[
        bool, typer.Option(help="Add every registered bot (newest version of each name).")
    ] = False,
    registry: RegistryOption = DEFAULT_REGISTRY,
    bot_flags: BotFlags = DEFAULT_BOT_FLAGS,
    html: Annotated[
        bool,
        typer.Option(
            "--html",
            help="When the run ends, also write its report as one self-contained HTML page "
            "with a replay page per game: <db stem>-report.html beside the database, or "
            "--html-file.",
        ),
    ] = False,
    html_file: Annotated[
        Path | None,
        typer.Option(help="Where --html writes the page (implies --html)."),
    ] = None,
) -> None:
    """Play a round-robin tournament (duplicate deals) and report win rates.

    Running the same command again resumes the run: only missing games are played.
    """
    reap_leftovers()
    import os

    from arena.referee.table import TableSettings
    from arena.tournament.runner import RunConfig, RunInterrupted, run_tournament
    from arena.tournament.schedule import ScheduleError, choose_schedule
    from arena.tournament.store import entrant_label, logs_beside

    names = list(entrants or [])
    if all_registered:
        from arena.tournament.registry import Registry

        names += [entry.label() for entry in Registry(registry).latest()]
    if not names:
        from arena.bots.samples import sample_bot

        names = [str(sample_bot(name)) for name in DEFAULT_ENTRANTS]
    specs = load_entrants(names, registry)
    labels = [entrant_label(spec.name, spec.version) for spec in specs]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        fail(f"an entrant is given twice: {', '.join(repeated)} (same name and version)")
    if len(specs) < 2:
        fail("a tournament needs at least two entrants")
    if games < 1:
        fail("--games must be at least 1")
    if referees < 0:
        fail("--referees must be at least 1, or 0 for the default split")
    try:
        plan = choose_schedule(len(specs), schedule.value, matches)
    except ScheduleError as error:
        fail(str(error))
    claim_db(db)
    warn_of_seed(seed)
    # Said before the bots are built, which can take a while.
    (err_console if as_json else console).print(
        plan.describe(len(specs)), highlight=False, markup=False
    )
    options, executor, sandboxed = cluster_flags.bots(bot_flags)
    specs = entrants_to_play(specs, options, executor)
    jobs = jobs or os.cpu_count() or 1
    if executor is None and jobs > games:
        from arena.tournament.leases import tables_for_deals

        jobs, said = tables_for_deals(jobs, games)
        err_console.print(said, highlight=False, markup=False, soft_wrap=True)
    if not referees and executor is None:
        from arena.tournament.split import default_referee_processes

        referees, hint = default_referee_processes(jobs, os.cpu_count() or 1)
        if hint is not None:
            err_console.print(hint, highlight=False, markup=False, soft_wrap=True)
    config = RunConfig(
        entrants=tuple(specs),
        games=games,
        seed=seed,
        jobs=jobs,
        db_path=db,
        settings=TableSettings(decision_ms=decision_ms, overage_ms=overage_ms),
        limits=options.limits,
        schedule=plan,
        sandbox=sandboxed,
        workdir_bytes=options.workdir_bytes,
        pass_env=options.pass_env,
        referees=referees or 1,
    )
    from arena.present.display import RunProgressBar

    try:
        with (
            playing_errors(ScheduleError),
            cluster_errors(executor),
            RunProgressBar(console, enabled=not as_json) as bar,
        ):
            summary = run_tournament(
                config, logs_beside(db), bar.update, executor=executor, on_notice=bar.note
            )
    except RunInterrupted as stopped:
        err_console.print(
            f"interrupted: {stopped.summary.played} games played in this session are stored; "
            "run the same command again to resume",
            highlight=False,
        )
        raise typer.Exit(130) from None
    if not as_json:
        console.print(
            f"run {summary.run_id}: {summary.played} games played, "
            f"{summary.skipped} already stored; results in {db}",
            highlight=False,
            markup=False,
        )
    show_report(db, summary.run_id, as_json, wide)
    if html or html_file is not None:
        write_html_report(db, summary.run_id, html_file or default_html_path(db), as_json)
