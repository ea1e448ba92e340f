"""Rich renderings for the command line: a game's result, the run's progress bar and the
report tables."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from arena.present.safe_text import literal, printable
from arena.tournament.report import PAR, RunReport
from arena.tournament.results import entrant_label
from arena.tournament.runner import RunProgress

if TYPE_CHECKING:
    from arena.tournament.play import PlayResult
    from arena.tournament.registry import RegisteredBot
    from arena.tournament.submit import SubmitResult

# Entrant labels are name@version: a manifest name (at most 64 characters) and a 12-digit
# version fit; a longer label, e.g. from an older database, is cut rather than wrapped.
LABEL_LIMIT = 80


class RunProgressBar:
    """Games done/total, games per second, ETA and the current leader."""

    def __init__(self, console: Console, enabled: bool = True) -> None:
        self.enabled = enabled
        self.progress = Progress(
            TextColumn("[bold]games"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            # The leader is an entrant's label, bot text: escaped, and never read as markup.
            TextColumn("leader: {task.fields[leader]}", markup=False),
            console=console,
            disable=not enabled,
        )
        self.task: TaskID | None = None

    def __enter__(self) -> RunProgressBar:
        self.progress.__enter__()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.progress.__exit__(kind, value, traceback)

    def update(self, state: RunProgress) -> None:
        import time

        played = state.done - state.already_done
        elapsed = max(1e-9, time.monotonic() - state.started)
        rate = f"{played / elapsed:.2f} games/s"
        leader = printable(state.leader, LABEL_LIMIT + 8)  # with its " (NN%)"
        if self.task is None:
            self.task = self.progress.add_task(
                "run", total=state.total, completed=state.done, rate=rate, leader=leader
            )
        self.progress.update(self.task, completed=state.done, rate=rate, leader=leader)


def render_report(console: Console, report: RunReport) -> None:
    run = report.run
    table = Table(
        title=f"Run {run.id} ({run.status}): {report.games} games, {report.draws} draws; "
        f"par = {PAR:.1%}",
    )
    for column, justify in [
        ("#", "right"),
        ("entrant", "left"),
        ("games", "right"),
        ("wins", "right"),
        ("draws", "right"),
        ("win rate, 95% interval", "right"),
        ("vs par", "left"),
        ("pts/deal", "right"),
        ("bids won", "right"),
        ("faults", "right"),
        ("ms/dec", "right"),
    ]:
        table.add_column(column, justify=justify, no_wrap=column == "entrant")  # type: ignore[arg-type]
    for rank, s in enumerate(report.standings, start=1):
        if s.ci_low > PAR:
            verdict = "[green]above[/]"
        elif s.ci_high < PAR:
            verdict = "[red]below[/]"
        else:
            verdict = "unclear"
        bids = "-" if not s.bids_made else f"{s.bids_won}/{s.bids_made}"
        table.add_row(
            str(rank),
            literal(s.entrant, LABEL_LIMIT),
            str(s.games),
            str(s.wins),
            str(s.draws),
            f"{s.win_rate:.1%} ({s.ci_low:.0%}–{s.ci_high:.0%})",
            verdict,
            f"{s.points_per_deal:.2f}",
            bids,
            str(s.faults),
            "-" if s.mean_decision_ms is None else f"{s.mean_decision_ms:.1f}",
        )
    console.print(table)
    if report.head_to_head:
        h2h = Table(title="Head to head: how often A finished ahead of B in shared games")
        for column in ("A", "B", "games", "A ahead", "ties", "B ahead", "A's rate, 95% interval"):
            h2h.add_column(column, no_wrap=column in ("A", "B"))
        for h in report.head_to_head:
            if h.a >= h.b:
                continue  # each pair once; (B, A) is the mirror image
            h2h.add_row(
                literal(h.a, LABEL_LIMIT),
                literal(h.b, LABEL_LIMIT),
                str(h.games),
                str(h.a_ahead),
                str(h.ties),
                str(h.b_ahead),
                f"{h.rate:.1%} ({h.ci_low:.0%}–{h.ci_high:.0%})",
            )
        console.print(h2h)
    if report.faults_by_kind:
        faults = ", ".join(f"{kind}: {n}" for kind, n in report.faults_by_kind.items())
        console.print(literal(f"faults by kind: {faults}"))


TEAM_LABELS = ("team 0 (seats 0, 3)", "team 1 (seats 1, 4)", "team 2 (seats 2, 5)")


def render_game(
    console: Console, result: PlayResult, labels: Sequence[str], seed: int | None
) -> None:
    """One game's result (``arena play``): the teams' scores and faults, where it is kept.

    ``labels``: the entrant of each team, as ``name@version``.
    """
    report = result.report
    dealt = "secret deal" if seed is None else f"game seed {seed}"
    table = Table(title=f"{dealt}: {report.deals} deals")
    table.add_column("team")
    table.add_column("bot")
    table.add_column("score", justify="right")
    table.add_column("faults", justify="right")
    for team in range(3):
        faults = report.seats[team].faults + report.seats[team + 3].faults
        mark = " (winner)" if report.winner == team else ""
        table.add_row(
            TEAM_LABELS[team] + mark,
            literal(labels[team]),
            str(report.scores[team]),
            str(faults),
        )
    console.print(table)
    console.print("result: " + ("draw" if report.winner is None else f"team {report.winner} wins"))
    for fault in report.faults:
        console.print(literal(f"fault: seat {fault.seat} {fault.kind.value}: {fault.reason}"))
    console.print(f"record: {result.record_path}", highlight=False, markup=False)
    console.print(f"seat logs: {result.log_dir}", highlight=False, markup=False)


def render_checks(console: Console, result: SubmitResult) -> None:
    """What ``arena submit`` checked of a bot, one line per check."""
    spec = result.spec
    console.print(literal(f"checked {entrant_label(spec.name, spec.version)}:"))
    for check in result.checks:
        mark = ("ok  ", "green") if check.passed else ("FAIL", "red")
        detail = f" — {check.detail}" if check.detail else ""
        console.print(Text.assemble("  ", mark, " ", literal(check.name + detail)))


def render_bots(console: Console, entries: Sequence[RegisteredBot], registry: Path) -> None:
    """The registered bots (``arena bots``)."""
    if not entries:
        console.print(
            f"no registered bots in {registry} (add one with `arena submit PATH`)",
            highlight=False,
            markup=False,
        )
        return
    table = Table(title=literal(f"Registered bots ({registry})"))
    for column in ("name", "version", "registered", "path"):
        table.add_column(column)
    for entry in entries:
        # The index is a file anyone may edit: every cell is shown literally.
        cells = (entry.name, entry.version, entry.registered_at, entry.path)
        table.add_row(*map(literal, cells))
    console.print(table)
