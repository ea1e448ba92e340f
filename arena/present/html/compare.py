"""A comparison's page (``arena compare NEW BASE --html FILE``): the verdict in plain words,
the score with its interval, the test's settings, the log-likelihood ratio after each
unit against its two bounds, and then the games as the run report lists them.

Every figure is the comparison's own: the verdict, score, interval and ratio are those of
the ``CompareOutcome`` that ``arena compare`` prints, and the ratio's path is recomputed
from the stored games by the same code (``UnitTally`` groups them and scores each unit,
``Sprt.state`` weighs the units so far), never by a test of the page's own.

Like the run report, the page makes no request (inline CSS and SVG, the games list's one
script by its hash) and shows entrant names escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Final, Unpack

from arena.present.compare import stopped_by, unit_name
from arena.stats.comparison import CompareOutcome, UnitTally
from arena.stats.sequential import SprtState
from arena.tournament.store import ResultsStore

from .page import escape as _e
from .report import (
    ReplayChoice,
    ReportPage,
    WrittenReport,
    _games_section,
    _interval_bar,
    _linear,
    page_document,
    write_page,
)

__all__ = [
    "VERDICT_TEXT",
    "llr_path",
    "render_compare_page",
    "verdict_explanation",
    "write_compare_page",
]

# The verdict in plain words: what the evidence says, never a measured share.
VERDICT_TEXT: Final[dict[str, str]] = {
    "better": "Better: the games favour “NEW ahead by the margin” over “equally strong”.",
    "not better": "Not better by the margin: the games favour “equally strong” over “NEW "
    "ahead by the margin”.",
    "undecided": "Undecided: the evidence does not say either way yet.",
}


def llr_path(store: ResultsStore, outcome: CompareOutcome) -> list[SprtState]:
    """The test's state after each unit the verdict counts, in the order the test looked
    (seed order): ``Sprt.path`` of the stored units' scores up to the decision; its last
    entry is ``outcome.state``."""
    tally = UnitTally(outcome.new, outcome.base, outcome.design)
    for game in store.game_outcomes(outcome.run_id):
        tally.add(game)
    return outcome.test.path(tally.scores())[: outcome.units]


def write_compare_page(
    store: ResultsStore,
    outcome: CompareOutcome,
    path: Path,
    log_root: Path | None = None,
    **choice: Unpack[ReplayChoice],
) -> WrittenReport:
    """Write the page of the comparison ``outcome`` to ``path``, its games' replays beside
    it as the run report's (``<stem>_games/``)."""

    def render(page: ReportPage) -> str:
        return render_compare_page(page, outcome, llr_path(store, outcome))

    return write_page(store, outcome.run_id, path, render, log_root, **choice)


def _percent(value: float) -> str:
    return f"{100 * value:.1f} %"


def verdict_explanation(outcome: CompareOutcome) -> str:
    """What the verdict rests on (the evidence that actually stopped the test), and what
    it does not say."""
    test = outcome.test
    margin = f"{test.margin:g}"
    weighed = (
        "The test weighed two answers: the two are equally strong (an expected score of "
        f"0.5), or NEW is ahead by the margin ({margin} above that). "
    )
    counted = (
        f"It looked after every {unit_name(outcome, 1)} and stopped at the "
        f"{_ordinal(outcome.units)}"
        + (
            f" (the {outcome.past_decision} played after it in the same batch are stored, "
            "not counted)"
            if outcome.past_decision
            else ""
        )
        + ". "
    )
    if outcome.verdict == "better":
        return (
            weighed + "The games favoured the second strongly enough to stop: "
            f"{stopped_by(outcome)}. " + counted + "Were the two equally strong, a test "
            f"like this would say “better” in at most {_percent(test.alpha)} of comparisons "
            "(alpha). It does not measure how far ahead NEW is: that is the score below, "
            "with its interval."
        )
    if outcome.verdict == "not better":
        return (
            weighed + "The games favoured the first strongly enough to stop: "
            f"{stopped_by(outcome)}. " + counted + "Were NEW ahead by the margin, a test "
            f"like this would say “not better” in at most {_percent(test.beta)} of "
            "comparisons (beta). NEW may still be a little ahead, level or behind: see the "
            "score and its interval."
        )
    if outcome.finished:
        return (
            f"The comparison reached its cap of {outcome.max_games} games (--max-games) "
            "before the evidence reached a bound. Raise --max-games and run the same command "
            "to continue it."
        )
    return "The evidence has reached neither bound yet: the comparison goes on."


def _ordinal(number: int) -> str:
    """1st, 2nd, 3rd, 4th … 11th, 12th, 13th … 21st."""
    suffix = (
        "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    )
    return f"{number}{suffix}"


def _verdict_section(outcome: CompareOutcome) -> str:
    return (
        f'<section id="verdict" class="verdict {outcome.verdict.replace(" ", "-")}" '
        f'data-verdict="{_e(outcome.verdict)}"><p class="verdict-line">'
        f"{_e(VERDICT_TEXT[outcome.verdict])}</p><p>{_e(verdict_explanation(outcome))}</p></section>"
    )


def _figures_section(outcome: CompareOutcome) -> str:
    state, test = outcome.state, outcome.test
    bounds = ("", "")  # for the data attributes: empty where there is no interval
    if outcome.interval is None:
        interval, bar = f"none yet ({state.units} units)", ""
    else:
        bounds = (repr(outcome.interval[0]), repr(outcome.interval[1]))
        low, high = outcome.interval
        interval = f"{100 * low:.1f}–{100 * high:.1f} %"
        scale = _linear(min(low, 0.5) - 0.05, max(high, 0.5) + 0.05)
        bar = _interval_bar(state.estimate, low, high, scale, 0.5, f"95% interval {interval}")
    # (key, name, as shown, what it is, the exact value for a machine to read)
    rows: list[tuple[str, str, str, str, object]] = [
        (
            "score",
            "score",
            _percent(state.estimate),
            "the share of NEW-versus-BASE team pairs in which NEW finished ahead (a tie "
            f"counts half), averaged over the {unit_name(outcome)}: 50 % when the two are "
            "equally strong, whatever the cards",
            state.estimate,
        ),
        (
            "interval",
            "95 % interval",
            interval,
            f'<div class="scorebar">{bar}</div>of the score over the {state.units} seeds the '
            "verdict counts: a confidence sequence, which holds however and whenever the test "
            "stopped (an interval computed as if the number of units had been fixed covers too "
            "little at a stop); the line is 50 %",
            None,
        ),
        (
            "margin",
            "margin",
            f"{test.margin:g}",
            "the smallest lead the test looks for: “better” weighs an expected score of "
            f"0.5 + {test.margin:g} against 0.5",
            test.margin,
        ),
        (
            "alpha",
            "alpha",
            f"{test.alpha:g}",
            "the chance of “better” when the two are equally strong",
            test.alpha,
        ),
        (
            "beta",
            "beta",
            f"{test.beta:g}",
            "the chance of “not better” when NEW is ahead by the margin",
            test.beta,
        ),
        (
            "llr",
            "log-likelihood ratio",
            f"{state.llr:+.2f}",
            f"the evidence so far; the test stops at {state.lower:+.2f} (not better) or "
            f"{state.upper:+.2f} (better)",
            state.llr,
        ),
        (
            "units",
            unit_name(outcome),
            str(state.units),
            (
                "one game seed in a seating of {NEW, NEW, BASE} or {NEW, BASE, BASE} and in "
                "its mirror, NEW and BASE swapped: two games on the same cards (R3.1a)"
                if outcome.design == "pairs"
                else "one game seed in every seating of {NEW, NEW, BASE} and {NEW, BASE, "
                "BASE}: six games on the same cards (R3.1a)"
            ),
            state.units,
        ),
        (
            "games",
            "games",
            str(outcome.counted_games),
            f"games the verdict counts; {outcome.games} stored (the cap is {outcome.max_games})",
            outcome.games,
        ),
    ]
    if state.bet_better is not None and state.bet_not_better is not None:
        rows.append(
            (
                "bet",
                "bets",
                f"{state.bet_better:+.2f} / {state.bet_not_better:+.2f}",
                "while every unit lies on one side of 50 % or of 50 % + margin, the ratio is "
                "floored, so the test also bets: the log-wealth of betting against “equally "
                f"strong” (better at {state.bet_bound:.2f}) and against “ahead by the margin” "
                f"(not better at {state.bet_bound_not_better:.2f})",
                state.bet_better,
            )
        )
    body = "".join(
        f'<tr data-figure="{key}"'
        + ("" if value is None else f' data-value="{value!r}"')
        + f'><th scope="row">{name}</th><td class="num figure">{_e(shown)}</td>'
        f'<td class="what">{what}</td></tr>'
        for key, name, shown, what, value in rows
    )
    return (
        '<section id="figures"><h2>The figures</h2>'
        f'<div class="scroll"><table data-low="{bounds[0]}" data-high="{bounds[1]}">'
        f"<tbody>{body}</tbody></table></div></section>"
    )


# The chart's drawing area, in SVG units (it scales to the page's width).
_WIDTH: Final = 640
_HEIGHT: Final = 260
_LEFT: Final = 44
_RIGHT: Final = 130
_TOP: Final = 12
_BOTTOM: Final = 30


def llr_chart(path: Sequence[SprtState], lower: float, upper: float) -> str:
    """The ratio after each unit (unit 0: no evidence, 0) against its two bounds."""
    values = [0.0, *(state.llr for state in path)]
    low = min(lower, *values)
    high = max(upper, *values)
    pad = 0.08 * (high - low)
    low, high = low - pad, high + pad
    groups = max(len(path), 1)

    def x(group: int) -> float:
        return _LEFT + group * (_WIDTH - _LEFT - _RIGHT) / groups

    def y(llr: float) -> float:
        return _TOP + (high - llr) * (_HEIGHT - _TOP - _BOTTOM) / (high - low)

    right = _WIDTH - _RIGHT
    parts = [
        f'<svg class="llr" viewBox="0 0 {_WIDTH} {_HEIGHT}" role="img" '
        f'aria-label="log-likelihood ratio after each of {len(path)} units, between '
        f'{lower:+.2f} and {upper:+.2f}" data-units="{len(path)}" '
        f'data-lower="{lower!r}" data-upper="{upper!r}">',
        f'<line class="zero" x1="{_LEFT}" x2="{right}" y1="{y(0):.1f}" y2="{y(0):.1f}"/>',
    ]
    for name, bound, word in (("upper", upper, "better"), ("lower", lower, "not better")):
        parts.append(
            f'<line class="bound {name}" data-bound="{name}" data-value="{bound!r}" '
            f'x1="{_LEFT}" x2="{right}" y1="{y(bound):.1f}" y2="{y(bound):.1f}"/>'
            f'<text class="bound-label {name}" x="{right + 4}" y="{y(bound) + 4:.1f}">'
            f"{word} {bound:+.2f}</text>"
        )
    parts.append(
        f'<text class="tick" x="{_LEFT - 4}" y="{y(0) + 4:.1f}" text-anchor="end">0</text>'
        f'<text class="tick" x="{_LEFT}" y="{_HEIGHT - 10}">0</text>'
        f'<text class="tick" x="{x(groups):.1f}" y="{_HEIGHT - 10}" text-anchor="end">'
        f"{len(path)} units</text>"
    )
    if path:
        points = " ".join(f"{x(group):.1f},{y(llr):.1f}" for group, llr in enumerate(values))
        parts.append(f'<polyline class="path" points="{points}"/>')
        bets = [
            f"{x(group):.1f},{y(max(low, min(high, state.bet_better))):.1f}"
            for group, state in enumerate(path, start=1)
            if state.bet_better is not None
        ]
        if bets:  # the bet against "equally strong", while the ratio was floored
            parts.append(f'<polyline class="bet" points="{" ".join(bets)}"/>')
        for group, state in enumerate(path, start=1):
            parts.append(
                f'<circle class="point" data-unit="{group}" data-llr="{state.llr!r}" '
                f'cx="{x(group):.1f}" cy="{y(state.llr):.1f}" r="3"><title>after unit '
                f"{group}: LLR {state.llr:+.2f}, score {_percent(state.estimate)}</title>"
                "</circle>"
            )
    parts.append("</svg>")
    return "".join(parts)


def _chart_section(path: Sequence[SprtState], outcome: CompareOutcome) -> str:
    state = outcome.state
    note = (
        f"No {unit_name(outcome, 1)} is complete yet."
        if not path
        else f"After each {unit_name(outcome, 1)} (in seed order), the log-likelihood ratio "
        "of “ahead by the margin” against “equally strong”: the test stops when it reaches a bound "
        f"(it looks after each unit). Above {state.upper:+.2f}: better; below "
        f"{state.lower:+.2f}: not better. Dashed: while every unit lay on one side, the "
        f"log-wealth of betting against “equally strong” (better at {state.bet_bound:.2f})."
    )
    return (
        f'<section id="llr"><h2>The evidence, unit by unit</h2><p>{_e(note)}</p>'
        f'<div class="chart">{llr_chart(path, state.lower, state.upper)}</div></section>'
    )


STYLE: Final = """
.verdict { border: 2px solid var(--line); border-radius: .5rem; padding: .5rem .8rem;
  margin: .8rem 0; max-width: 60rem; }
.verdict.better { border-color: var(--good); background: #eef8f0; }
.verdict.not-better { border-color: var(--bad); background: #fbeeee; }
.verdict.undecided { border-color: #b58105; background: #fdf6e3; }
.verdict-line { font-size: 1.2rem; font-weight: 600; }
#figures th { color: var(--muted); font-weight: 600; white-space: nowrap; }
#figures td.figure { font-size: 1.05rem; font-weight: 600; }
.scorebar { max-width: 16rem; margin-bottom: .2rem; }
.chart { max-width: 52rem; }
svg.llr { display: block; width: 100%; height: auto; font-size: 14px; }
svg.llr .zero { stroke: #bbb; }
svg.llr .bound { stroke-width: 1.5; stroke-dasharray: 6 4; }
svg.llr .bound.upper { stroke: var(--good); } svg.llr .bound.lower { stroke: var(--bad); }
svg.llr .bound-label.upper { fill: var(--good); } svg.llr .bound-label.lower { fill: var(--bad); }
svg.llr .path { fill: none; stroke: var(--accent); stroke-width: 2; }
svg.llr .bet { fill: none; stroke: var(--accent); stroke-width: 1.5; stroke-dasharray: 4 3; }
svg.llr .point { fill: var(--accent); }
svg.llr .tick { fill: var(--muted); }
@media (max-width: 600px) {
  #figures tr { display: grid; grid-template-columns: auto 1fr; }
  #figures td.what { grid-column: 1 / -1; border-bottom: 1px solid var(--line); }
  #figures th, #figures td.figure { border-bottom: 0; }
}
"""


def render_compare_page(
    page: ReportPage, outcome: CompareOutcome, path: Sequence[SprtState]
) -> str:
    """The comparison's page: one HTML document that needs nothing but itself."""
    header = (
        f'<h1>Comparison: <span class="name" data-role="new">{_e(outcome.new)}</span> '
        f'against <span class="name" data-role="base">{_e(outcome.base)}</span></h1>'
        f'<p id="summary">NEW is {_e(outcome.new)}, BASE is {_e(outcome.base)}; stored as run '
        f"{_e(outcome.run_id)} (<code>arena report {_e(outcome.run_id)}</code> reads it).</p>"
        '<nav><a href="#verdict">Verdict</a><a href="#figures">Figures</a>'
        '<a href="#llr">The evidence</a><a href="#games">Games</a></nav>'
    )
    sections = [
        _verdict_section(outcome),
        _figures_section(outcome),
        _chart_section(path, outcome),
        _games_section(page),
    ]
    return page_document(f"Comparison {outcome.run_id} — Schmier Arena", header, sections, STYLE)
