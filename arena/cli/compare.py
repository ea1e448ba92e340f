"""``arena compare NEW BASE``: is NEW better than BASE? Play until a sequential test decides.

Exit status: 0 when NEW is better, 1 when it is not, 3 when the cap came first (undecided);
2 is an error, as for every command, and 130 an interruption. A script can gate a release on
``arena compare new/ old/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Final

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
    OverageOption,
    RegistryOption,
    console,
    err_console,
    fail,
    load_entrants,
    reap_leftovers,
    with_bot_flags,
)
from .playing import JobsOption, claim_db, playing_errors, warn_of_seed
from .report import write_html_report

EXIT_CODES: Final = {"better": 0, "not better": 1, "undecided": 3}


@with_cluster_flags()
@with_bot_flags()
def compare(
    new: Annotated[
        str,
        typer.Argument(
            metavar="NEW", help="The candidate: a bot directory, executable or registered name."
        ),
    ],
    base: Annotated[
        str, typer.Argument(metavar="BASE", help="What it must beat, given the same way.")
    ],
    margin: Annotated[
        float,
        typer.Option(
            help="The smallest improvement worth detecting: the share of NEW-versus-BASE team "
            "pairs NEW finishes ahead in is 0.5 + margin under 'better', 0.5 under 'not better'."
        ),
    ] = 0.05,
    alpha: Annotated[
        float, typer.Option(help="Chance of 'better' when the two are equally strong.")
    ] = 0.05,
    beta: Annotated[
        float, typer.Option(help="Chance of 'not better' when NEW is better by the margin.")
    ] = 0.05,
    max_games: Annotated[
        int,
        typer.Option(help="Stop undecided after this many games (two per swap pair)."),
    ] = 3000,  # compare.DEFAULT_MAX_GAMES (the CLI imports no statistics before it runs)
    design: Annotated[
        str,
        typer.Option(
            help="pairs: each seed in one seating and its mirror, NEW and BASE swapped (two "
            "games); groups: each seed in all six seatings. Pairs needed fewer games "
            "(docs/STATISTICS.md)."
        ),
    ] = "pairs",  # compare.DEFAULT_DESIGN
    batch: Annotated[
        int | None,
        typer.Option(
            help="The most units (pairs or groups) one batch of matches plays; the test "
            "looks after every unit, and a batch plays about as many as it is likely to "
            "need [default: 24 games' worth: 12 pairs, 4 groups].",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Reproduce a comparison: anyone who knows the seed can know every card "
            "(default: a secret key, kept in the database)."
        ),
    ] = None,
    run_id: Annotated[
        str | None,
        typer.Option(help="Name the comparison's run (default: derived from what it plays)."),
    ] = None,
    jobs: JobsOption = 0,
    db: DbOption = DEFAULT_DB,
    decision_ms: DecisionOption = 1000,
    overage_ms: OverageOption = 10_000,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the verdict and its figures as JSON.")
    ] = False,
    registry: RegistryOption = DEFAULT_REGISTRY,
    bot_flags: BotFlags = DEFAULT_BOT_FLAGS,
    cluster_flags: ClusterFlags = NO_CLUSTER,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            help="Also write the comparison as one self-contained HTML page to this file: "
            "the verdict and the evidence that stopped the test, the score and its interval, "
            "the log-likelihood ratio after each unit, and the games with replays beside it "
            "(as arena report --html).",
        ),
    ] = None,
) -> None:
    """Is NEW better than BASE? Play duplicate swap pairs until a sequential test decides.

    A swap pair is one deal seed in a seating of {NEW,NEW,BASE} or {NEW,BASE,BASE} and in its
    mirror, NEW and BASE swapped (two games; --design groups: all six seatings). After every
    unit a sequential test on the units' scores says "better", "not better", or plays on;
    at --max-games it stops undecided. Everything is stored like
    a run (arena report reads it); the same command resumes the same comparison.
    Exit status: 0 better, 1 not better, 3 undecided, 2 error.
    """
    reap_leftovers()
    import os

    from arena.referee.table import TableSettings
    from arena.stats.sequential import Sprt
    from arena.tournament.compare import (
        CompareConfig,
        CompareError,
        compare_schedule,
        run_compare,
    )
    from arena.tournament.runner import RunInterrupted
    from arena.tournament.schedule import ScheduleError
    from arena.tournament.store import logs_beside

    try:
        test = Sprt(margin=margin, alpha=alpha, beta=beta)
    except ValueError as error:
        fail(str(error))
    if design not in ("pairs", "groups"):
        fail(f"--design is pairs or groups, not {design!r}")
    if run_id is not None and not run_id.strip():
        fail("--run-id must not be empty")
    specs = load_entrants([new, base], registry)
    claim_db(db)
    options, executor, sandboxed = cluster_flags.bots(bot_flags)
    config = CompareConfig(
        entrants=tuple(specs),
        games=0,  # each batch sets how far it plays
        seed=seed,
        jobs=jobs or os.cpu_count() or 1,
        db_path=db,
        settings=TableSettings(decision_ms=decision_ms, overage_ms=overage_ms),
        limits=options.limits,
        sandbox=sandboxed,
        workdir_bytes=options.workdir_bytes,
        pass_env=options.pass_env,
        schedule=compare_schedule("pairs" if design == "pairs" else "groups"),
        test=test,
        max_games=max_games,
        batch=batch,
        name=run_id,
    )
    from arena.tournament.compare import check_config

    try:
        check_config(config)
    except CompareError as error:
        fail(str(error))
    warn_of_seed(seed)
    import dataclasses

    config = dataclasses.replace(config, entrants=tuple(entrants_to_play(specs, options, executor)))
    from arena.present.compare import CompareProgressLine, render_compare

    try:
        with (
            playing_errors(CompareError, ScheduleError),
            cluster_errors(executor),
            CompareProgressLine(console, enabled=not as_json) as line,
        ):
            outcome = run_compare(
                config, logs_beside(db), line.update, executor, on_notice=line.note
            )
    except RunInterrupted:
        err_console.print(
            "interrupted: every finished game is stored; "
            "run the same command again to resume the comparison",
            highlight=False,
        )
        raise typer.Exit(130) from None
    if as_json:
        import json

        print(json.dumps(outcome.to_json(), indent=2))
    else:
        where = "" if db == DEFAULT_DB else f" --db {db}"
        render_compare(console, outcome, f"arena report {outcome.run_id}{where}")
    if html is not None:
        write_html_report(db, outcome.run_id, html, as_json, comparison=outcome)
    raise typer.Exit(EXIT_CODES[outcome.verdict])
