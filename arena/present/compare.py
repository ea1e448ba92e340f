"""``arena compare`` on the terminal: the live line of the test, then its verdict."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from arena.present.live import LiveProgress
from arena.present.safe_text import literal
from arena.stats.comparison import CompareOutcome

# Entrant labels are name@version; longer ones (from an older database) are cut.
LABEL_LIMIT = 80

# {margin}: the test's margin, as a share of team pairs ("not better" is no claim that the
# two are equal: NEW may still be ahead by less than the margin).
VERDICT_LINES = {
    "better": ("NEW is better than BASE", "bold green"),
    "not better": ("NEW is not better than BASE by {margin} or more", "bold red"),
    "undecided": ("undecided: the cap came first", "bold yellow"),
}


def unit_name(outcome: CompareOutcome, count: int | None = None) -> str:
    """What the comparison's units are called: "swap pairs" or "seed groups"."""
    word = "swap pair" if outcome.design == "pairs" else "seed group"
    return word if count == 1 else word + "s"


def sprt_figures(outcome: CompareOutcome) -> str:
    """The test's position in one short line: units, mean score, the ratio and its bounds
    (and, while the ratio is floored, the bet on "better")."""
    state = outcome.state
    figures = (
        f"{state.units} {'pairs' if outcome.design == 'pairs' else 'groups'}, "
        f"{state.estimate:.1%}, LLR {state.llr:+.2f} in ({state.lower:+.2f}, {state.upper:+.2f})"
    )
    if state.bet_better is not None:
        figures += f", bet {state.bet_better:+.2f} of {state.bet_bound:.2f}"
    return figures


def stopped_by(outcome: CompareOutcome) -> str:
    """The evidence that stopped the test, in words: the ratio or the bet, and which bound;
    the cap for an undecided comparison ("" while it plays on)."""
    state, test = outcome.state, outcome.test
    if state.decided_by == "bet":
        if outcome.verdict == "better":
            return (
                f"the bet against 'even' reached its bound, log-wealth "
                f"{state.bet_better:+.2f} of {state.bet_bound:.2f}"
            )
        return (
            f"the bet against 'ahead by {test.margin:g}' reached its bound, "
            f"{state.bet_not_better:+.2f} of {state.bet_bound_not_better:.2f}"
        )
    if state.decided_by == "ratio":
        side, bound = (
            ("upper", state.upper) if outcome.verdict == "better" else ("lower", state.lower)
        )
        return (
            f"the log-likelihood ratio reached its {side} bound: {state.llr:+.2f} of {bound:+.2f}"
        )
    return f"the cap of {outcome.max_games} games came first" if outcome.finished else ""


def evidence_lines(outcome: CompareOutcome) -> list[str]:
    """What stopped the test, then the ratio with the test's settings (lines that fit 80
    columns)."""
    state, test = outcome.state, outcome.test
    ratio = (
        f"LLR {state.llr:+.2f}, bounds {state.lower:+.2f} and {state.upper:+.2f} "
        f"(margin {test.margin:g}, alpha {test.alpha:g}, beta {test.beta:g})"
    )
    stopped = stopped_by(outcome)
    return [f"stopped: {stopped}", ratio] if stopped else [ratio]


class CompareProgressLine(LiveProgress):
    """Games stored of the cap, time, and the test: the log-likelihood ratio in its bounds.

    Fits 80 columns: ``compare 48/3000 games 0:00:35 8 groups, 99.0%, LLR +3.76 in (-2.20,
    +2.20)``.
    """

    def __init__(self, console: Console, enabled: bool = True) -> None:
        super().__init__(
            Progress(
                # No bar: the cap is far away, the ratio's bounds are what draw near.
                TextColumn("[bold]compare"),
                MofNCompleteColumn(),
                TextColumn("games"),
                TimeElapsedColumn(),
                TextColumn("{task.fields[test]}", markup=False),
                console=console,
                disable=not enabled,
            ),
            enabled,
        )

    def update(self, outcome: CompareOutcome) -> None:
        figures = sprt_figures(outcome)
        if self.task is None:
            self.task = self.progress.add_task(
                "compare", total=outcome.max_games, completed=outcome.games, test=figures
            )
        self.progress.update(self.task, completed=outcome.games, test=figures)
        self.plain(f"compare {outcome.games}/{outcome.max_games} games, {figures}")


def verdict_meaning(outcome: CompareOutcome) -> list[str]:
    """What the verdict says, in plain words (two lines that fit 80 columns): which of the
    test's two hypotheses the games favour, not a measured size (the estimate and its
    interval say how far ahead NEW is)."""
    test = outcome.test
    ahead = f"'NEW ahead in {0.5 + test.margin:.0%} of team pairs'"
    if outcome.verdict == "better":
        return [
            f"the games favour {ahead} over 'even'",
            f"(were the two even, {test.alpha:.0%} of comparisons would say better)",
        ]
    if outcome.verdict == "not better":
        return [
            f"the games favour 'even' over {ahead}",
            f"(NEW may be ahead by less; were it ahead by {test.margin:g}, "
            f"{test.beta:.0%} would say not better)",
        ]
    return [f"neither {ahead} nor 'even'", "was favoured enough before the cap"]


def interval_line(outcome: CompareOutcome) -> str:
    """The score's interval: the confidence sequence over the units the verdict counts."""
    if outcome.interval is None:
        return f"95% interval: none yet ({outcome.units} units)"
    low, high = outcome.interval
    # A confidence sequence: it holds however the test stopped (docs/STATISTICS.md).
    return f"95% interval {low:.1%}–{high:.1%} over {outcome.units} seeds, valid at the stop"


def units_lines(outcome: CompareOutcome) -> list[str]:
    """The units and games the verdict counts, and those played past it."""
    units, past = outcome.units, outcome.past_decision
    lines = [
        f"{units} {unit_name(outcome, units)}, {outcome.counted_games} games counted "
        f"({outcome.games} stored, {outcome.played} played now, cap {outcome.max_games})"
    ]
    if past:
        lines.append(f"{past} more {unit_name(outcome, past)} played after it: stored, not counted")
    return lines


def render_compare(console: Console, outcome: CompareOutcome, report_command: str) -> None:
    """The verdict, the estimate with its confidence sequence, and what stands behind it.

    ``report_command``: how to read the comparison's run as a report.
    """
    text, style = VERDICT_LINES[outcome.verdict]
    console.print(Text(text.format(margin=f"{outcome.test.margin:g}"), style=style))
    console.print(Text.assemble("  NEW:  ", literal(outcome.new, LABEL_LIMIT)))
    console.print(Text.assemble("  BASE: ", literal(outcome.base, LABEL_LIMIT)))
    state = outcome.state
    lines = [
        *("  " + line for line in verdict_meaning(outcome)),
        f"  NEW ahead of BASE in {state.estimate:.1%} of their team pairs (ties half)",
        "  " + interval_line(outcome),
        *("  " + line for line in units_lines(outcome)),
        *("  " + line for line in evidence_lines(outcome)),
        f"  stored as run {outcome.run_id}: {report_command}",
    ]
    for line in lines:
        console.print(line, highlight=False, markup=False)
