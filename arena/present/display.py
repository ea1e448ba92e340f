"""Rich renderings for the command line: a game's result, the run's progress bar and the
report tables."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from rich.console import Console
from rich.measure import Measurement
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Column, Table
from rich.text import Text

from arena.present.live import LiveProgress
from arena.present.render import result_text
from arena.present.safe_text import literal, printable
from arena.stats.ratings import Rating
from arena.tournament.report import PAR, RunReport
from arena.tournament.runner import RunProgress
from arena.tournament.store import entrant_label

if TYPE_CHECKING:
    from arena.tournament.play import PlayResult
    from arena.tournament.registry import RegisteredBot
    from arena.tournament.submit import SubmitResult

# Wide enough for every column of a report's wide view with the longest labels.
WIDE_LIMIT = 1000

# Entrant labels are name@version: a manifest name (at most 64 characters) and a 12-digit
# version fit; a longer label, e.g. from an older database, is cut rather than wrapped.
LABEL_LIMIT = 80


class RunProgressBar(LiveProgress):
    """Games done/total, games per second, ETA and the current leader."""

    def __init__(self, console: Console, enabled: bool = True) -> None:
        super().__init__(
            Progress(
                TextColumn("[bold]games"),
                BarColumn(bar_width=12),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                # The leader is an entrant's label, bot text: escaped, never read as markup,
                # and the one column cut (…) when the line is narrow: the figures stay whole.
                TextColumn(
                    "leader: {task.fields[leader]}",
                    markup=False,
                    table_column=Column(ratio=1, no_wrap=True, overflow="ellipsis"),
                ),
                console=console,
                disable=not enabled,
                expand=True,
            ),
            enabled,
        )

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
        left = state.total - state.done
        eta = f", ETA {_duration(left * elapsed / played)}" if played and left else ""
        self.plain(
            f"games {state.done}/{state.total}, {rate}, {_duration(elapsed)} so far{eta}, "
            f"leader: {leader}"
        )


def _duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02}:{secs:02}"


def _percent(rate: float) -> str:
    return f"{100 * rate:.1f}"


def percent_interval(low: float | None, high: float | None) -> str:
    # In whole percents: an interval over seeds is not precise beyond that, and it keeps the
    # column narrow. Rates are never negative, so a dash reads as "to". An interval is
    # never a point: where whole percents would print one ("100–100"), more digits.
    if low is None or high is None:
        return "too few seeds"
    for digits in range(4):
        text = f"{100 * low:.{digits}f}–{100 * high:.{digits}f}"
        if f"{100 * low:.{digits}f}" != f"{100 * high:.{digits}f}":
            break
    return text


def _versus_par(low: float | None, high: float | None) -> str:
    if low is None or high is None:
        return "unclear"
    if low > PAR:
        return "[green]above[/]"
    if high < PAR:
        return "[red]below[/]"
    return "unclear"


def _table(title: str) -> Table:
    """A report table: no outer frame, so that 80 columns hold every figure."""
    return Table(title=title, show_edge=False, pad_edge=False)


def _add_label_column(table: Table, header: str) -> None:
    # The only column that may shrink: a long label folds onto a second line (whole, never
    # cut), while every figure keeps its width (no_wrap) and is never cut to "…".
    table.add_column(header, overflow="fold")


def _add_figure_columns(table: Table, headers: Sequence[str]) -> None:
    for header in headers:
        table.add_column(header, justify="right", no_wrap=True)


def _print_table(console: Console, table: Table, wide: bool) -> None:
    """The default view fits the console; the wide one takes the width its columns need, on a
    console of any width (a terminal wraps its lines, a file or a pipe keeps them)."""
    if wide:
        unbounded = console.options.update_width(WIDE_LIMIT)
        natural = Measurement.get(console, unbounded, table).maximum
        if natural > console.width:
            table.width = natural
    console.print(table)


def render_report(console: Console, report: RunReport, wide: bool = False) -> None:
    """A run's report for a terminal of 80 columns or more.

    Headers are short on purpose ("win %", "95% CI") and the secondary columns (wins, draws
    and losses, the interval of the points per deal, bids, faults, decision times, the
    head-to-head counts) are shown only with ``wide``; ``--json`` carries everything.
    """
    run = report.run
    # Two short lines, each whole at 80 columns (the console does not wrap: soft_wrap).
    console.print(
        literal(
            f"Run {run.id} ({run.status}): {report.games} games, {report.draws} draws, "
            f"{report.seeds} game seed{'' if report.seeds == 1 else 's'}; par = {PAR:.1%}"
        )
    )
    console.print("95% intervals over game seeds (duplicate deals, R3.1a): docs/STATISTICS.md")
    if report.stopped:
        console.print(
            "a comparison, stopped by its test: each interval holds at the stop (a "
            "confidence sequence)",
            highlight=False,
            markup=False,
        )
    for line in mixed_builds_lines(report.mixed_builds):
        console.print(literal(line, style="bold red"))
    if report.ratings:
        _render_ratings(console, report, wide)
    _render_standings(console, report, wide)
    if report.head_to_head:
        _render_head_to_head(console, report, wide)
    if report.faults_by_kind:
        faults = ", ".join(f"{kind}: {n}" for kind, n in report.faults_by_kind.items())
        console.print(literal(f"faults by kind: {faults}"))
    for missed in report.missed_joins:
        seats = "1 seat" if missed.seats == 1 else f"{missed.seats} seats"
        console.print(
            literal(f"{missed.entrant} never joined at {seats} (auto-played): {missed.reason}")
        )


def mixed_builds_lines(mixed: dict[str, dict[str, int]]) -> list[str]:
    """One warning line per entrant whose games ran different builds of its version: its
    figures mix two bots (shown before them, in the report and on its page)."""
    return [
        f"warning: {label} ran {len(found)} different builds in this run ("
        + ", ".join(f"{digest}: {games} games" for digest, games in found.items())
        + "): its figures mix them; its build is not reproducible"
        for label, found in mixed.items()
    ]


def _render_ratings(console: Console, report: RunReport, wide: bool) -> None:
    table = _table("Ranking by rating (Bradley–Terry over finishing order, Elo scale, mean 0)")
    _add_figure_columns(table, ["#"])
    _add_label_column(table, "entrant")
    _add_figure_columns(table, ["rating", "95% CI", "games", "seeds"])
    for rank, r in enumerate(report.ratings, start=1):
        table.add_row(
            str(rank),
            literal(r.entrant, LABEL_LIMIT),
            rating_cell(r),
            rating_interval(r),
            str(r.games),
            str(r.seeds),
        )
    _print_table(console, table, wide)
    for line in rating_notes(report.ratings):
        console.print(line, highlight=False, markup=False)


# What an entrant beyond the rated field is, in the rating column and in a note below (the
# notes fit 80 columns).
PLACE_WORDS: Final[dict[str, tuple[str, str]]] = {
    "above": (
        "above",
        "above: never behind any rated entrant: no rating, only a 95% lower bound (>)",
    ),
    "below": (
        "below",
        "below: never ahead of any rated entrant: no rating, only a 95% upper bound (<)",
    ),
    "apart": ("apart", "apart: no pair with a rated entrant either way: no rating"),
}


def rating_cell(r: Rating) -> str:
    """The rating column: the rating, or (beyond the rated field) where the entrant is."""
    return PLACE_WORDS[r.place][0] if r.rating is None else f"{r.rating:+.0f}"


def rating_notes(ratings: Sequence[Rating]) -> list[str]:
    """A line for each kind of entrant beyond the rated field, and the field's centre."""
    places = {r.place for r in ratings} - {"rated"}
    notes = [PLACE_WORDS[place][1] for place in ("above", "below", "apart") if place in places]
    if places:
        notes.append("mean 0: the rated entrants' (the field), whom the others do not move")
    return notes


def rating_interval(r: Rating) -> str:
    # Ratings may be negative: "to" rather than a dash that would read as a minus. A side
    # without a bound reads "> +484"; never a point: more digits where whole ones collide.
    if r.too_few_seeds:
        return "too few seeds"
    if r.low is None and r.high is None:
        return "none" if r.place == "apart" else "unbounded"
    if r.high is None:
        return f"> {r.low:+.0f}"
    if r.low is None:
        return f"< {r.high:+.0f}"
    for digits in range(4):
        low, high = f"{r.low:+.{digits}f}", f"{r.high:+.{digits}f}"
        if low != high:
            break
    return f"{low} to {high}"


def _render_standings(console: Console, report: RunReport, wide: bool) -> None:
    # With ratings the ranking is theirs: a win rate depends on whom an entrant happened to meet.
    title = "Standings by win rate" + (
        " (the ranking is by rating, above)" if report.ratings else ""
    )
    table = _table(title)  # teams: the teams it held, two in a game where it held two
    _add_figure_columns(table, ["#"])
    _add_label_column(table, "entrant")
    _add_figure_columns(table, ["teams", "seeds"])
    if wide:
        _add_figure_columns(table, ["wins", "draws", "losses"])
    _add_figure_columns(table, ["win %", "95% CI"])
    table.add_column("vs par", no_wrap=True)
    _add_figure_columns(table, ["pts/deal"])
    if wide:
        _add_figure_columns(table, ["95% CI", "bids won", "faults", "ms/dec"])
    for rank, s in enumerate(report.standings, start=1):
        cells: list[str | Text] = [str(rank), literal(s.entrant, LABEL_LIMIT)]
        cells += [str(s.games), str(s.seeds)]
        if wide:
            cells += [str(s.wins), str(s.draws), str(s.losses)]
        cells += [
            _percent(s.win_rate),
            percent_interval(s.ci_low, s.ci_high),
            _versus_par(s.ci_low, s.ci_high),
            f"{s.points_per_deal:.2f}",
        ]
        if wide:
            low, high = s.points_per_deal_low, s.points_per_deal_high
            cells += [
                "-" if low is None or high is None else f"{low:.2f} to {high:.2f}",
                "-" if not s.bids_made else f"{s.bids_won}/{s.bids_made}",
                str(s.faults),
                "-" if s.mean_decision_ms is None else f"{s.mean_decision_ms:.1f}",
            ]
        table.add_row(*cells)
    _print_table(console, table, wide)


def _render_head_to_head(console: Console, report: RunReport, wide: bool) -> None:
    # The same quantity as arena compare's score (docs/TOURNAMENTS.md).
    table = _table("Head to head: A's share of A-against-B team pairs (A ahead; ties half)")
    _add_label_column(table, "A")
    _add_label_column(table, "B")
    _add_figure_columns(table, ["games", "pairs", "seeds"])
    if wide:
        _add_figure_columns(table, ["A ahead", "ties", "B ahead"])
    _add_figure_columns(table, ["A %", "95% CI"])
    for h in report.head_to_head:
        if h.a >= h.b:
            continue  # each pair once; (B, A) is the mirror image
        cells: list[str | Text] = [literal(h.a, LABEL_LIMIT), literal(h.b, LABEL_LIMIT)]
        cells += [str(h.games), str(h.pairs), str(h.seeds)]
        if wide:
            cells += [str(h.a_ahead), str(h.ties), str(h.b_ahead)]
        cells += [_percent(h.rate), percent_interval(h.ci_low, h.ci_high)]
        table.add_row(*cells)
    _print_table(console, table, wide)


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
    teams = [f"team {t}" for t in range(3)]
    said = result_text(report.winner, report.forfeited, teams, report.record.get("forfeit_deals"))
    console.print("result: " + said)
    for fault in report.faults:
        console.print(literal(f"fault: seat {fault.seat} {fault.kind.value}: {fault.reason}"))
    console.print(f"record: {result.record_path}", highlight=False, markup=False)
    console.print(f"seat logs: {result.log_dir}", highlight=False, markup=False)


def render_checks(console: Console, result: SubmitResult) -> None:
    """What ``arena submit`` checked of a bot, one line per check."""
    spec = result.spec
    console.print(literal(f"checked {entrant_label(spec.name, spec.version)}:"))
    for check in result.checks:
        if check.passed is None:
            mark = ("--  ", "yellow")  # not run: what it checks could not be seen
        else:
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
