"""``arena try``: a bot answers recorded requests of real games, one by one, without a game."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from arena.present.safe_text import literal

from .common import (
    DEFAULT_BOT_FLAGS,
    BotFlags,
    DecisionOption,
    OverageOption,
    console,
    err_console,
    fail,
    load_entrants,
    prepare_entrants,
    reap_leftovers,
    with_bot_flags,
)

if TYPE_CHECKING:
    from arena.referee.trial import Exchange, TrialResult

DEFAULT_TRY_REQUESTS = 28  # arena.referee.trial.DEFAULT_REQUESTS: two of each case


@with_bot_flags()
def try_bot(
    bot: Annotated[
        str, typer.Argument(help="The bot: an executable or a directory with bot.toml.")
    ],
    requests: Annotated[
        int,
        typer.Option(
            help="How many requests: each decision kind and its edge cases in turn (the "
            "dealer's pick-up, a left bauer or the joker led, the joker in hand …)."
        ),
    ] = DEFAULT_TRY_REQUESTS,
    decision_ms: DecisionOption = 1000,
    overage_ms: OverageOption = 10_000,
    out: Annotated[Path, typer.Option(help="Where the bot's log goes (logs/try-…/).")] = Path(
        "arena-results"
    ),
    bot_flags: BotFlags = DEFAULT_BOT_FLAGS,
) -> None:
    """Start a bot as a real seat and put recorded requests of real games to it; say which
    answers were illegal, late or malformed (exit status 1 if any was)."""
    reap_leftovers()
    from arena.bots.manifest import read_log_tail
    from arena.referee.table import TableSettings
    from arena.referee.trial import try_bot as run_trial

    if requests < 1:
        fail("--requests must be at least 1")
    options = bot_flags.options()
    (spec,) = prepare_entrants(load_entrants([bot]), options)
    log_dir = out / "logs" / f"try-{time.strftime('%Y%m%d-%H%M%S')}-{spec.name}"
    settings = TableSettings(decision_ms=decision_ms, overage_ms=overage_ms)
    result = run_trial(
        spec,
        log_dir,
        requests,
        settings,
        options.sandbox,
        options.limits,
        options.workdir_bytes,
        options.pass_env,
    )
    for exchange in result.exchanges:
        console.print(_exchange_line(exchange, result.requests))
    _render_summary(result)
    if not result.passed:
        assert result.log_path is not None
        tail = read_log_tail(result.log_path).rstrip()
        if tail:
            err_console.print("the bot's log ends with:", highlight=False)
            err_console.print(literal(tail, keep_newlines=True))
        raise typer.Exit(1)


def _exchange_line(exchange: Exchange, total: int) -> Text:
    """``3/28 name trump (R5.1): trump H in 2 ms: ok``; bot text is printed literally."""
    case = exchange.scenario.case
    timing = "" if exchange.seconds is None else f" in {exchange.seconds * 1000:.0f} ms"
    answer = exchange.answer or "nothing"
    if answer == "discard":  # the engine's text of an empty discard (R5.2 allows it)
        answer = "discard no card"
    style = "green" if exchange.passed else "bold red"
    line = Text.assemble(
        f"{exchange.index}/{total} {case.kind.value}: {case.name} ({case.rules}): ",
        literal(answer, 80),
        f"{timing}: ",
        (exchange.verdict, style),
    )
    if exchange.reason:
        line.append(": ")
        line.append(literal(exchange.reason, 300))
    return line


def _render_summary(result: TrialResult) -> None:
    log = literal(str(result.log_path))
    if not result.joined:
        console.print(Text.assemble(("not joined: ", "bold red"), literal(result.problem)))
        console.print(Text.assemble("log: ", log))
        return
    faults = result.faults
    asked = len(result.exchanges)
    if faults:
        counts: dict[str, int] = {}
        for exchange in faults:
            counts[exchange.verdict] = counts.get(exchange.verdict, 0) + 1
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items()))
        summary = Text.assemble(
            (f"{len(faults)} of {asked} answers were wrong or late", "bold red"), f" ({kinds})"
        )
    else:
        summary = Text(f"all {asked} answers legal and in time", style="green")
    console.print(summary)
    if result.problem:
        console.print(Text.assemble(("stopped early: ", "bold red"), literal(result.problem)))
    if result.exited_cleanly:
        console.print("the bot exited by itself after the match's end, status 0")
    elif result.exited_by_itself:
        status = f"the bot exited with status {result.exit_status} after the match's end"
        console.print(Text(status, style="bold red"))
    else:
        console.print(
            Text(
                "the bot did not exit within 2 s of the match's end (docs/PROTOCOL.md §2): "
                "it was stopped",
                style="bold red",
            )
        )
    console.print(Text.assemble("log: ", log))
