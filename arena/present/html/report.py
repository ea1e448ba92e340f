"""A run's report as one self-contained HTML page (``arena report --html``), with a replay
page per game beside it.

The page shows what the text report shows, from the same :class:`RunReport` (ratings,
standings and head-to-head with their intervals over game seeds are never recomputed here),
and adds what a table cannot: interval bars, the head-to-head matrix as a heat map, faults
per entrant and kind, decision-time distributions and a link to every game's replay.

The page makes no network request: CSS, script and figures (SVG) are inline, a strict
Content-Security-Policy forbids anything else, and it works opened from ``file://``. Every
entrant label is bot text: it is escaped in markup (``html.escape``) and in the embedded
JSON (``<``, ``>`` and ``&`` as ``\\u003c`` …), and the script inserts text with
``textContent`` only.

Replays are separate files in ``<report stem>_games/<game id>.html``, linked relatively so
that the page and its directory can be moved or sent together. A run of more than
``REPLAY_ALL_UP_TO`` games gets replay files for its ``INSTRUCTIVE_GAMES`` most instructive
games only (faults, upsets, close finishes); a search box finds any game by id and says
whether it has a replay.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal, TypedDict, Unpack
from urllib.parse import quote

import numpy as np

from arena.present.display import (
    mixed_builds_lines,
    percent_interval,
    rating_cell,
    rating_interval,
    rating_notes,
)
from arena.present.html.page import content_security_policy, script_json
from arena.present.html.page import escape as _e
from arena.tournament.report import INTERVALS, PAR, RunReport, build_report
from arena.tournament.store import ResultsStore, StoredGame

__all__ = [
    "CLOSE_MARGIN",
    "INSTRUCTIVE_GAMES",
    "REPLAY_ALL_UP_TO",
    "DecisionTimes",
    "ReplayChoice",
    "ReportPage",
    "WrittenReport",
    "collect_page",
    "instructive_games",
    "page_document",
    "render_report",
    "replay_directory",
    "write_page",
    "write_replays",
    "write_report",
    "written_report",
]

# Up to this many games every game gets its replay file (a few hundred kilobytes each);
# above it, a report of a long run would weigh gigabytes and take as long to write as to
# play: only the most instructive games get one.
REPLAY_ALL_UP_TO: Final = 200
INSTRUCTIVE_GAMES: Final = 60
# A finish this close (winner's score minus the next best team's) could have gone the
# other way on one deal: one deal moves a score by up to six points (R6, R8).
CLOSE_MARGIN: Final = 2

Reason = Literal["faults", "upset", "close"]
REASON_TEXT: Final[dict[str, str]] = {
    "faults": "faults",
    "upset": "upset",
    "close": "close finish",
}

# The quantiles a decision-time row draws: whiskers, box, median.
QUANTILES: Final = (0.1, 0.25, 0.5, 0.75, 0.9)


@dataclass(frozen=True)
class DecisionTimes:
    """How long one entrant took to decide, in seconds."""

    entrant: str
    samples: int  # decisions, or seat-games with ``per_seat_game``
    quantiles: tuple[float, ...]  # at QUANTILES
    largest: float


@dataclass(frozen=True)
class ReportPage:
    """Everything the page shows, gathered from the results store."""

    report: RunReport
    games: list[StoredGame]
    faults: dict[str, dict[str, int]]  # entrant → fault kind → count
    times: list[DecisionTimes]
    # True when some game of the run times none of its decisions (decision_times): each
    # sample is then one seat's mean over one game (seat_stats), and the largest is the
    # slowest single decision.
    per_seat_game: bool
    # Game id → why it is worth watching; every game of a small run, reasons or not.
    instructive: dict[int, tuple[Reason, ...]] = field(default_factory=dict)
    replays: dict[int, str] = field(default_factory=dict)  # game id → relative link


@dataclass(frozen=True)
class WrittenReport:
    path: Path
    replay_dir: Path
    replays: int
    games: int


def replay_directory(report_path: Path) -> Path:
    """Where the replays of the report at ``report_path`` go: ``<stem>_games`` beside it."""
    return report_path.with_name(f"{report_path.stem}_games")


class ReplayChoice(TypedDict, total=False):
    """Which games of a page get replay files, and who hears of each one written."""

    replay_all_up_to: int  # a page of at most this many games replays all (REPLAY_ALL_UP_TO)
    instructive_limit: int  # else its most instructive games, this many (INSTRUCTIVE_GAMES)
    progress: Callable[[int, int], None] | None  # ``progress(done, total)``


def write_report(
    store: ResultsStore,
    run_id: str | None,
    path: Path,
    log_root: Path | None = None,
    **choice: Unpack[ReplayChoice],
) -> WrittenReport:
    """Write the report of ``run_id`` (default: the latest run) to ``path`` and its replays.

    A replay replays its game, and the other seatings of its deals, through the engine
    with every seat's view at every step, which takes a while: ``progress(done, total)``
    hears of each one written. (Writing them in several processes was measured slower on
    a loaded two-core machine: each process imports the arena and its libraries first.)
    Raises ``UnknownRunError`` when there is no such run.
    """
    return write_page(store, run_id, path, render_report, log_root, **choice)


def write_page(
    store: ResultsStore,
    run_id: str | None,
    path: Path,
    render: Callable[[ReportPage], str],
    log_root: Path | None = None,
    **choice: Unpack[ReplayChoice],
) -> WrittenReport:
    """Write the page ``render`` makes of run ``run_id``'s data (``collect_page``) to
    ``path``, its games' replays beside it (``write_replays``)."""
    page = write_replays(store, collect_page(store, run_id), path, log_root, **choice)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(page), encoding="utf-8")
    return written_report(page, path)


def written_report(page: ReportPage, path: Path) -> WrittenReport:
    return WrittenReport(path, replay_directory(path), len(page.replays), len(page.games))


def write_replays(
    store: ResultsStore,
    page: ReportPage,
    path: Path,
    log_root: Path | None = None,
    **choice: Unpack[ReplayChoice],
) -> ReportPage:
    """Write the replays of ``page``'s games (all of them, or the most instructive) beside
    the page to be written at ``path``; the page with its links to them."""
    from arena.present.html.replay import write_replay
    from arena.tournament.bundle import game_bundle

    instructive_limit = choice.get("instructive_limit", INSTRUCTIVE_GAMES)
    progress = choice.get("progress")
    if len(page.games) <= choice.get("replay_all_up_to", REPLAY_ALL_UP_TO):
        chosen = {game.id: reasons_of(game, page) for game in page.games}
    else:
        chosen = instructive_games(page.games, entrant_strength(page.report), instructive_limit)
    replay_dir = replay_directory(path)
    replay_dir.mkdir(parents=True, exist_ok=True)
    replays: dict[int, str] = {}
    for done, game_id in enumerate(chosen, start=1):
        write_replay(game_bundle(store, game_id, log_root), replay_dir / f"{game_id}.html")
        replays[game_id] = f"{quote(replay_dir.name)}/{game_id}.html"
        if progress is not None:
            progress(done, len(chosen))
    return dataclasses.replace(page, instructive=chosen, replays=replays)


def collect_page(store: ResultsStore, run_id: str | None = None) -> ReportPage:
    """The page's data for ``run_id`` (default: the latest run), without replays."""
    report = build_report(store, run_id)
    games = store.games(report.run.id)
    times, per_seat_game = _decision_times(store, report.run.id, games)
    return ReportPage(
        report=report,
        games=games,
        faults=store.fault_counts_by_entrant(report.run.id),
        times=times,
        per_seat_game=per_seat_game,
    )


def _decision_times(
    store: ResultsStore, run_id: str, games: Sequence[StoredGame]
) -> tuple[list[DecisionTimes], bool]:
    """Per decision (the store's decision_times, no record opened) when every game of the
    run times some of its decisions, else per seat and game from seat_stats: one
    distribution never mixes the two."""
    if games and store.untimed_games(run_id) == 0:
        return _distributions(store.decision_seconds(run_id), {}), False
    samples: dict[str, list[float]] = {}
    largest: dict[str, float] = {}
    for times in store.seat_times(run_id):
        if times.decisions:
            samples.setdefault(times.entrant, []).append(times.seconds_total / times.decisions)
            largest[times.entrant] = max(largest.get(times.entrant, 0.0), times.seconds_max)
    return _distributions(samples, largest), True


def _distributions(
    samples: dict[str, list[float]], largest: dict[str, float]
) -> list[DecisionTimes]:
    result = []
    for entrant, values in sorted(samples.items()):
        if not values:
            continue
        quantiles = np.quantile(np.array(values), QUANTILES)
        result.append(
            DecisionTimes(
                entrant=entrant,
                samples=len(values),
                quantiles=tuple(float(q) for q in quantiles),
                largest=largest.get(entrant, max(values)),
            )
        )
    return result


# -- which games are worth watching -------------------------------------------------------------


def entrant_strength(report: RunReport) -> dict[str, float]:
    """Each entrant's strength as the report ranks it: its rating (beyond the rated field,
    its bound), else its win rate."""
    if report.ratings:
        return {r.entrant: r.ranked_by for r in report.ratings}
    return {s.entrant: s.win_rate for s in report.standings}


def _margin(game: StoredGame) -> int | None:
    """The winner's lead over the next best team; None for a draw."""
    if game.winner is None:
        return None
    others = [score for team, score in enumerate(game.scores) if team != game.winner]
    return game.scores[game.winner] - max(others)


def _upset_gap(game: StoredGame, strength: dict[str, float]) -> float:
    """How much stronger than the winner the strongest beaten entrant is (0: no upset)."""
    if game.winner is None:
        return 0.0
    winner = game.entrants_by_team[game.winner]
    beaten = [strength.get(name, 0.0) for name in game.entrants_by_team if name != winner]
    return max([0.0, *(s - strength.get(winner, 0.0) for s in beaten)])


def _reasons(game: StoredGame, strength: dict[str, float]) -> tuple[Reason, ...]:
    reasons: list[Reason] = []
    if game.faults:
        reasons.append("faults")
    if _upset_gap(game, strength) > 0.0:
        reasons.append("upset")
    margin = _margin(game)
    if margin is None or margin <= CLOSE_MARGIN:
        reasons.append("close")
    return tuple(reasons)


def reasons_of(game: StoredGame, page: ReportPage) -> tuple[Reason, ...]:
    return _reasons(game, entrant_strength(page.report))


def instructive_games(
    games: Sequence[StoredGame], strength: dict[str, float], limit: int
) -> dict[int, tuple[Reason, ...]]:
    """The ``limit`` games most worth watching, with why, in the order they were stored.

    Three queues, each best first: games with faults (most faults first), upsets (the
    largest gap in strength first) and close finishes (draws, then the smallest margin).
    They are taken from in turn so that no kind crowds out the others; a game in several
    queues counts once.
    """
    faulty = sorted((g for g in games if g.faults), key=lambda g: (-g.faults, g.id))
    upsets = sorted(
        (g for g in games if _upset_gap(g, strength) > 0.0),
        key=lambda g: (-_upset_gap(g, strength), g.id),
    )
    close = sorted(
        (g for g in games if (_margin(g) or 0) <= CLOSE_MARGIN),
        key=lambda g: (g.winner is not None, _margin(g) or 0, g.id),
    )
    chosen: dict[int, StoredGame] = {}
    queues = [iter(faulty), iter(upsets), iter(close)]
    while queues and len(chosen) < limit:
        for queue in list(queues):
            game = next((g for g in queue if g.id not in chosen), None)
            if game is None:
                queues.remove(queue)
            elif len(chosen) < limit:
                chosen[game.id] = game
    return {
        game.id: _reasons(game, strength) for game in sorted(chosen.values(), key=lambda g: g.id)
    }


# -- rendering ----------------------------------------------------------------------------------


def _percent(rate: float) -> str:
    return f"{100 * rate:.1f}"


def _entrant_order(report: RunReport) -> list[str]:
    """Entrants in the report's ranking: by rating where it has ratings, else by win rate."""
    ranked = [r.entrant for r in report.ratings] or [s.entrant for s in report.standings]
    rest = sorted({h.a for h in report.head_to_head} - set(ranked))
    return ranked + rest


def _interval_bar(
    value: float,
    low: float,
    high: float,
    scale: Callable[[float], float],
    reference: float | None = None,
    label: str = "",
) -> str:
    """An interval as an SVG bar on a 0..100 wide axis: the interval, its point, a reference."""
    x_low, x_high, x = scale(low), scale(high), scale(value)
    parts = [
        f'<svg class="bar" viewBox="0 0 100 14" preserveAspectRatio="none" role="img" '
        f'aria-label="{_e(label)}">',
        '<rect class="track" x="0" y="6" width="100" height="2"/>',
    ]
    if reference is not None:
        r = scale(reference)
        parts.append(f'<rect class="ref" x="{r - 0.4:.2f}" y="0" width="0.8" height="14"/>')
    parts += [
        f'<rect class="ci" x="{x_low:.2f}" y="3" width="{max(x_high - x_low, 0.6):.2f}" '
        'height="8" rx="1"/>',
        f'<rect class="point" x="{x - 0.9:.2f}" y="1" width="1.8" height="12"/>',
        "</svg>",
    ]
    return "".join(parts)


def _linear(low: float, high: float) -> Callable[[float], float]:
    span = (high - low) or 1.0
    return lambda v: 100.0 * (v - low) / span


def _ratings_section(report: RunReport) -> str:
    if not report.ratings:
        return ""
    # Open or unknown bounds (None) reach the edge of the axis, which spans every figure.
    known = [v for r in report.ratings for v in (r.low, r.rating, r.high) if v is not None]
    lowest, highest = min(known, default=-100.0), max(known, default=100.0)
    margin = 0.05 * ((highest - lowest) or 100.0)
    scale = _linear(lowest - margin, highest + margin)
    rows = []
    for rank, r in enumerate(report.ratings, start=1):
        interval = rating_interval(r)
        low = lowest - margin if r.low is None else r.low
        high = highest + margin if r.high is None else r.high
        # Beyond the rated field there is no point to draw: the bar is its one-sided bound.
        point = r.rating if r.rating is not None else low if r.place == "above" else high
        drawn = not r.too_few_seeds and r.place != "apart"
        bar = _interval_bar(point, low, high, scale, 0.0, interval) if drawn else ""
        rows.append(
            f'<tr data-entrant="{_e(r.entrant)}" data-place="{r.place}" '
            f'data-rating="{_bound(r.rating)}" '
            f'data-low="{_bound(r.low)}" data-high="{_bound(r.high)}">'
            f'<td class="num">{rank}</td><td class="name">{_e(r.entrant)}</td>'
            f'<td class="num rating">{_e(rating_cell(r))}</td>'
            f'<td class="num ci">{_e(interval)}</td><td class="barcell">{bar}'
            f'</td><td class="num">{r.games}</td><td class="num">{r.seeds}</td></tr>'
        )
    notes = "".join(f"<p>{_e(note)}.</p>" for note in rating_notes(report.ratings))
    return (
        '<section id="ratings"><h2>Ranking by rating</h2>'
        "<p>Bradley–Terry over finishing order, Elo scale, the field's mean at 0 (the line); "
        "400 more is ten times the odds of finishing ahead.</p>"
        '<div class="scroll"><table><thead><tr><th>#</th><th>entrant</th><th>rating</th>'
        "<th>95% CI</th><th>interval</th><th>games</th><th>seeds</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>{notes}</section>"
    )


def _rate_bar(
    rate: float, low: float | None, high: float | None, scale: Callable[[float], float], text: str
) -> str:
    """A rate's interval bar against par; none where there are too few seeds for one."""
    if low is None or high is None:
        return ""
    return _interval_bar(rate, low, high, scale, PAR, text + " %")


def _bound(value: float | None) -> str:
    """An interval's bound for a data attribute: empty where there is none (open, or too
    few seeds), never the text "None"."""
    return "" if value is None else repr(value)


def _versus_par(low: float | None, high: float | None) -> tuple[str, str]:
    if low is None or high is None:
        return "unclear", "unclear"
    if low > PAR:
        return "above", "above"
    if high < PAR:
        return "below", "below"
    return "unclear", "unclear"


def _standings_section(report: RunReport) -> str:
    scale = _linear(0.0, 1.0)
    rows = []
    for rank, s in enumerate(report.standings, start=1):
        interval = percent_interval(s.ci_low, s.ci_high)
        word, css = _versus_par(s.ci_low, s.ci_high)
        decision = "–" if s.mean_decision_ms is None else f"{s.mean_decision_ms:.1f}"
        bids = "–" if not s.bids_made else f"{s.bids_won}/{s.bids_made}"
        rows.append(
            f'<tr data-entrant="{_e(s.entrant)}" data-win-rate="{s.win_rate!r}" '
            f'data-ci-low="{_bound(s.ci_low)}" data-ci-high="{_bound(s.ci_high)}">'
            f'<td class="num">{rank}</td><td class="name">{_e(s.entrant)}</td>'
            f'<td class="num">{s.games}</td><td class="num">{s.seeds}</td>'
            f'<td class="num">{s.wins}/{s.draws}/{s.losses}</td>'
            f'<td class="num rate">{_percent(s.win_rate)}</td><td class="num ci">{interval}</td>'
            f'<td class="barcell">'
            f"{_rate_bar(s.win_rate, s.ci_low, s.ci_high, scale, interval)}</td>"
            f'<td class="par {css}">{word}</td>'
            f'<td class="num">{s.points_per_deal:.2f}</td><td class="num">{bids}</td>'
            f'<td class="num">{s.faults}</td><td class="num">{decision}</td></tr>'
        )
    title = "Standings by win rate" + (" (the ranking is by rating)" if report.ratings else "")
    return (
        f'<section id="standings"><h2>{title}</h2>'
        f"<p>Win rate with draws as half; the bar is its 95% interval on 0–100 %, the line is "
        f"par ({_percent(PAR)} %: three teams).</p>"
        '<div class="scroll"><table><thead><tr><th>#</th><th>entrant</th><th>games</th>'
        "<th>seeds</th><th>W/D/L</th><th>win %</th><th>95% CI</th><th>interval</th>"
        "<th>vs par</th><th>pts/deal</th><th>bids won</th><th>faults</th><th>ms/dec</th>"
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div></section>"
    )


def _heat_colour(rate: float) -> tuple[str, str]:
    """Background and text colour of a head-to-head cell: red below ½, blue above."""
    low, mid, high = (178, 24, 43), (247, 247, 247), (33, 102, 172)
    end, t = (high, 2 * rate - 1) if rate >= 0.5 else (low, 1 - 2 * rate)
    rgb = tuple(round(m + (e - m) * t) for m, e in zip(mid, end, strict=True))
    return f"rgb({rgb[0]},{rgb[1]},{rgb[2]})", "#fff" if t > 0.6 else "#111"


def _head_to_head_section(report: RunReport) -> str:
    if not report.head_to_head:
        return ""
    order = _entrant_order(report)
    cell = {(h.a, h.b): h for h in report.head_to_head}
    header = "".join(
        f'<th class="col" title="{_e(name)}" scope="col">{number}</th>'
        for number, name in enumerate(order, start=1)
    )
    rows = []
    for number, a in enumerate(order, start=1):
        cells = []
        for b in order:
            h = cell.get((a, b))
            if h is None:
                cells.append('<td class="none">' + ("" if a == b else "–") + "</td>")
                continue
            background, colour = _heat_colour(h.rate)
            title = (
                f"{a}'s team ahead of {b}'s in {_percent(h.rate)} % of {h.pairs} team pairs "
                f"of {h.games} shared games "
                f"(ties half; 95% CI {percent_interval(h.ci_low, h.ci_high)}, "
                f"{h.seeds} seeds; {h.a_ahead} ahead, {h.ties} ties, {h.b_ahead} behind)"
            )
            cells.append(
                f'<td class="heat" style="background:{background};color:{colour}" '
                f'data-a="{_e(a)}" data-b="{_e(b)}" data-rate="{h.rate!r}" '
                f'data-games="{h.games}" title="{_e(title)}">{100 * h.rate:.0f}</td>'
            )
        rows.append(f'<tr><th scope="row" class="name">{number}. {_e(a)}</th>{"".join(cells)}</tr>')
    return (
        '<section id="head-to-head"><h2>Head to head</h2>'
        "<p>Row A, column B: how often A finished ahead of B in the games they shared, in "
        "percent (ties half); blue above 50, red below. Hover a cell for its games and "
        "interval.</p>"
        f'<div class="scroll"><table class="matrix"><thead><tr><th>A \\ B</th>{header}</tr>'
        f"</thead><tbody>{''.join(rows)}</tbody></table></div></section>"
    )


def _faults_section(page: ReportPage) -> str:
    if not page.report.faults_by_kind:
        return '<section id="faults"><h2>Faults</h2><p>No faults in this run.</p></section>'
    kinds = sorted(page.report.faults_by_kind)
    header = "".join(f"<th>{_e(kind)}</th>" for kind in kinds)
    rows = []
    for entrant in _entrant_order(page.report):
        counts = page.faults.get(entrant, {})
        cells = "".join(
            f'<td class="num" data-kind="{_e(kind)}">{counts.get(kind, 0)}</td>' for kind in kinds
        )
        rows.append(
            f'<tr data-entrant="{_e(entrant)}"><td class="name">{_e(entrant)}</td>{cells}'
            f'<td class="num total">{sum(counts.values())}</td></tr>'
        )
    totals = "".join(f'<td class="num">{page.report.faults_by_kind[k]}</td>' for k in kinds)
    return (
        '<section id="faults"><h2>Faults</h2><p>Faults per entrant and kind: each one a '
        "decision the referee played for the bot (the fault policy).</p>"
        f'<div class="scroll"><table><thead><tr><th>entrant</th>{header}<th>total</th></tr>'
        f"</thead><tbody>{''.join(rows)}</tbody><tfoot><tr><th>all</th>{totals}"
        f'<td class="num">{sum(page.report.faults_by_kind.values())}</td></tr></tfoot>'
        "</table></div></section>"
    )


def _format_seconds(seconds: float) -> str:
    ms = 1000.0 * seconds
    return f"{ms:.2f} ms" if ms < 10 else f"{ms:.0f} ms"


def _decade(exponent: int) -> str:
    """10 ** exponent seconds as an axis label: 10 µs, 0.1 ms, 1 ms, 1 s."""
    if exponent >= 0:
        return f"{10**exponent} s"
    if exponent >= -3:
        return f"{10 ** (exponent + 3)} ms"
    return f"{10 ** (exponent + 6)} µs"


def _times_section(page: ReportPage) -> str:
    if not page.times:
        return ""
    floor = 1e-5  # 10 µs: faster is measurement noise, and a log axis needs a floor
    values = [q for t in page.times for q in t.quantiles] + [t.largest for t in page.times]
    low = math.floor(math.log10(max(floor, min(values))))
    high = max(low + 1, math.ceil(math.log10(max(floor, max(values)))))

    def x(seconds: float) -> float:
        return 100.0 * (math.log10(max(floor, seconds)) - low) / (high - low)

    rank = {name: number for number, name in enumerate(_entrant_order(page.report))}
    rows = []
    for t in sorted(page.times, key=lambda t: (rank.get(t.entrant, len(rank)), t.entrant)):
        p10, p25, p50, p75, p90 = (x(q) for q in t.quantiles)
        summary = (
            f"median {_format_seconds(t.quantiles[2])}, 90% under "
            f"{_format_seconds(t.quantiles[4])}, slowest {_format_seconds(t.largest)}"
        )
        svg = (
            f'<svg class="box" viewBox="0 0 100 14" preserveAspectRatio="none" role="img" '
            f'aria-label="{_e(summary)}">'
            f'<rect class="whisker" x="{p10:.2f}" y="6.5" width="{max(p90 - p10, 0.3):.2f}" '
            'height="1"/>'
            f'<rect class="ci" x="{p25:.2f}" y="2" width="{max(p75 - p25, 0.6):.2f}" '
            'height="10"/>'
            f'<rect class="point" x="{p50 - 0.5:.2f}" y="1" width="1" height="12"/>'
            f'<rect class="max" x="{x(t.largest) - 0.6:.2f}" y="5" width="1.2" height="4"/>'
            "</svg>"
        )
        rows.append(
            f'<tr data-entrant="{_e(t.entrant)}" data-median="{t.quantiles[2]!r}">'
            f'<td class="name">{_e(t.entrant)}</td><td class="num">{t.samples}</td>'
            f'<td class="boxcell">{svg}<div class="times-summary">{summary}</div></td></tr>'
        )
    step = 1 if high - low <= 4 else 2  # labels that do not run into each other
    ticks = "".join(
        f'<span style="left:{100 * (d - low) / (high - low):.2f}%">{_decade(d)}</span>'
        for d in range(low, high + 1, step)
    )
    what = (
        "Each sample is one seat's mean over one game (the records do not time every "
        "decision); the slowest mark is the slowest single decision."
        if page.per_seat_game
        else "Each sample is one decision."
    )
    unit = "seat-games" if page.per_seat_game else "decisions"
    return (
        '<section id="times"><h2>Decision times</h2>'
        f"<p>{what} Log scale; whiskers from the 10th to the 90th percentile, the box from "
        "the 25th to the 75th, the bar is the median, the small mark the slowest.</p>"
        f'<div class="scroll"><table><thead><tr><th>entrant</th><th>{unit}</th>'
        f'<th>distribution<div class="axis">{ticks}</div></th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div></section>"
    )


def _game_row(game: StoredGame, page: ReportPage, index: dict[str, int]) -> str:
    href = page.replays.get(game.id)
    link = (
        f'<a class="replay" href="{_e(href)}">game {game.id}</a>'
        if href
        else f"game {game.id} <small>(no replay file)</small>"
    )
    teams = "".join(
        f'<td class="team{" winner" if game.winner == team else ""}">'
        f'<span class="name">{_e(name)}</span> <b>{game.scores[team]}</b></td>'
        for team, name in enumerate(game.entrants_by_team)
    )
    reasons = ", ".join(REASON_TEXT[r] for r in page.instructive.get(game.id, ()))
    entrants = " ".join(str(index[name]) for name in game.entrants_by_team)
    return (
        f'<tr data-game="{game.id}" data-entrants="{entrants}"><td class="game">{link}</td>'
        f'<td class="num">{game.game_index}</td>{teams}'
        f'<td class="num">{game.deals}</td><td class="num">{game.faults}</td>'
        f"<td>{reasons}</td></tr>"
    )


def _games_section(page: ReportPage) -> str:
    shown = [g for g in page.games if g.id in page.instructive]
    every = len(shown) == len(page.games)
    intro = (
        "Every game, with a link to its replay (a page of its own beside this one)."
        if every
        else f"The {len(shown)} most instructive of the run's {len(page.games)} games have a "
        "replay: games with faults, upsets (an entrant beating one ranked above it) and close "
        f"finishes (a draw or a lead of {CLOSE_MARGIN} points or less). Find any game by id "
        "below."
    )
    entrants = sorted({name for g in page.games for name in g.entrants_by_team})
    index = {name: i for i, name in enumerate(entrants)}
    # Filtering by entrant is offered where it can hide a game: some game lacks an entrant.
    filterable = any(len(set(g.entrants_by_team)) < len(entrants) for g in page.games)
    choices = "".join(
        f'<option value="{number}">{_e(name)}</option>' for number, name in enumerate(entrants)
    )
    entrant_filter = (
        '<p><label for="entrant-filter">Games of:</label> <select id="entrant-filter">'
        f'<option value="">every entrant</option>{choices}</select> '
        '<span id="filter-note" role="status"></span></p>'
        if filterable
        else ""
    )
    data = {
        "entrants": entrants,
        # [id, seed, entrant index per team, scores, winner, deals, faults, replay link]
        "games": [
            [
                g.id,
                g.game_index,
                [index[name] for name in g.entrants_by_team],
                list(g.scores),
                g.winner,
                g.deals,
                g.faults,
                page.replays.get(g.id),
            ]
            for g in page.games
        ],
    }
    return (
        '<section id="games"><h2>Games</h2>'
        f"<p>{intro} The winner's team is marked; the seed is the game seed the deals came "
        "from (the same cards at every seating, R3.1a).</p>"
        '<p><label for="game-search">Find a game by id:</label> '
        '<input id="game-search" type="search" inputmode="numeric" autocomplete="off" '
        'placeholder="game id"> <span id="search-note" role="status"></span></p>'
        f"{entrant_filter}"
        '<div class="scroll"><table id="game-table"><thead><tr><th>game</th><th>seed</th>'
        "<th>team 0</th><th>team 1</th><th>team 2</th><th>deals</th><th>faults</th>"
        f'<th>worth watching</th></tr></thead><tbody id="game-rows">'
        f"{''.join(_game_row(g, page, index) for g in shown)}</tbody>"
        '<tbody id="search-rows" hidden></tbody></table></div>'
        f'<script type="application/json" id="games-data">{script_json(data)}</script>'
        "</section>"
    )


STYLE: Final = """
:root { --ink:#1d1d1f; --muted:#5f6368; --line:#d9dce1; --accent:#2166ac; --bad:#b2182b;
  --good:#1a7f37; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
* { box-sizing: border-box; }
body { margin: 0 auto; padding: 1rem; max-width: 84rem; color: var(--ink); background: #fff;
  line-height: 1.4; }
h1 { font-size: 1.5rem; margin: 0 0 .3rem; overflow-wrap: anywhere; }
h2 { font-size: 1.15rem; margin: 1.6rem 0 .4rem; }
p { margin: .3rem 0; max-width: 60rem; }
nav { display: flex; flex-wrap: wrap; gap: .2rem 1rem; margin: .6rem 0; }
nav a, a { color: var(--accent); }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-size: .9rem; }
th, td { padding: .25rem .45rem; border-bottom: 1px solid var(--line); text-align: left;
  vertical-align: middle; }
thead th { font-weight: 600; color: var(--muted); white-space: nowrap; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.name { overflow-wrap: anywhere; min-width: 8rem; max-width: 22rem; }
.barcell { min-width: 9rem; width: 14rem; }
.boxcell { min-width: 14rem; width: 22rem; }
svg.bar, svg.box { display: block; width: 100%; height: 14px; }
.track { fill: #eceff3; } .ref { fill: #888; } .ci { fill: #9ecae1; }
.point { fill: var(--accent); } .whisker { fill: #6b7785; } .max { fill: var(--bad); }
.par.above { color: var(--good); font-weight: 600; } .par.below { color: var(--bad); }
table.matrix td.heat { text-align: center; min-width: 2.6rem; font-variant-numeric: tabular-nums; }
table.matrix th.col { text-align: center; }
table.matrix td.none { background: #f1f1f1; text-align: center; color: var(--muted); }
.axis { position: relative; height: 1.1rem; font-weight: 400; font-size: .7rem; }
.axis span { position: absolute; transform: translateX(-50%); white-space: nowrap; }
.axis span:first-child { transform: none; } .axis span:last-child { transform: translateX(-100%); }
td.team .name { display: inline; } td.team.winner { background: #e7f3e9; font-weight: 600; }
td.team { min-width: 9rem; overflow-wrap: anywhere; }
input[type=search] { font: inherit; padding: .2rem .4rem; width: 10rem; }
small { color: var(--muted); }
td.game { white-space: nowrap; }
.times-summary { font-size: .8rem; color: var(--muted); overflow-wrap: normal; }
select { font: inherit; max-width: 100%; }
@media (max-width: 600px) {
  body { padding: .6rem; } table { font-size: .8rem; } .barcell { min-width: 6rem; width: 8rem; }
  .boxcell { min-width: 11rem; }
  .name { min-width: 6rem; }
}
"""

# The search box: finds games by id in the embedded list; every string goes in as text.
SCRIPT: Final = """
(() => {
  const data = JSON.parse(document.getElementById("games-data").textContent);
  const input = document.getElementById("game-search");
  const featured = document.getElementById("game-rows");
  const found = document.getElementById("search-rows");
  const note = document.getElementById("search-note");
  const filter = document.getElementById("entrant-filter");  // absent: nothing to filter
  const filterNote = document.getElementById("filter-note");
  const LIMIT = 50;
  // The entrant the games are filtered by (an index into data.entrants), or null.
  const chosen = () => (filter && filter.value !== "" ? Number(filter.value) : null);
  const plays = (teams, who) => who === null || teams.includes(who);
  function cell(row, text, className) {
    const td = row.insertCell();
    td.textContent = text;
    if (className) td.className = className;
    return td;
  }
  function show(game) {
    const [id, seed, teams, scores, winner, deals, faults, replay] = game;
    const row = document.createElement("tr");
    row.dataset.game = String(id);
    row.dataset.entrants = teams.join(" ");
    const first = row.insertCell();
    first.className = "game";
    if (replay) {
      const link = document.createElement("a");
      link.className = "replay";
      link.href = replay;
      link.textContent = "game " + id;
      first.append(link);
    } else {
      first.textContent = "game " + id + " ";
      const small = document.createElement("small");
      small.textContent = "(no replay file)";
      first.append(small);
    }
    cell(row, String(seed), "num");
    teams.forEach((entrant, team) => {
      const td = cell(row, data.entrants[entrant] + " " + scores[team],
                      "team" + (winner === team ? " winner" : ""));
      td.title = data.entrants[entrant];
    });
    cell(row, String(deals), "num");
    cell(row, String(faults), "num");
    cell(row, winner === null ? "draw" : "");
    found.append(row);
  }
  function search() {
    const query = input.value.trim();
    found.replaceChildren();
    if (!query) {
      featured.hidden = false; found.hidden = true; note.textContent = ""; return;
    }
    const who = chosen();
    const matches = data.games.filter((g) => String(g[0]).startsWith(query) && plays(g[2], who));
    matches.slice(0, LIMIT).forEach(show);
    featured.hidden = true; found.hidden = false;
    note.textContent = matches.length === 0 ? "no game with that id"
      : matches.length > LIMIT ? matches.length + " games, the first " + LIMIT + " shown"
      : matches.length + (matches.length === 1 ? " game" : " games");
  }
  input.addEventListener("input", search);
  // The games list by entrant: rows of games the chosen entrant did not play are hidden.
  function applyFilter() {
    const who = chosen();
    let shown = 0;
    for (const row of featured.rows) {
      row.hidden = !plays(row.dataset.entrants.split(" ").map(Number), who);
      if (!row.hidden) shown += 1;
    }
    filterNote.textContent = who === null ? ""
      : shown + " of " + featured.rows.length + " listed games are " +
        data.entrants[who] + "'s";
    search();
  }
  if (filter) filter.addEventListener("change", applyFilter);
})();
"""


def render_report(page: ReportPage) -> str:
    """The report page: one HTML document that needs nothing but itself."""
    report = page.report
    run = report.run
    seeds = f"{report.seeds} game seed{'' if report.seeds == 1 else 's'}"
    sections = [
        _ratings_section(report),
        _standings_section(report),
        _head_to_head_section(report),
        _faults_section(page),
        _times_section(page),
        _games_section(page),
    ]
    links = [
        ("ratings", "Ratings", bool(report.ratings)),
        ("standings", "Standings", True),
        ("head-to-head", "Head to head", bool(report.head_to_head)),
        ("faults", "Faults", True),
        ("times", "Decision times", bool(page.times)),
        ("games", "Games", True),
    ]
    nav = "".join(f'<a href="#{anchor}">{text}</a>' for anchor, text, shown in links if shown)
    header = (
        f'<h1>Run {_e(run.id)}</h1><p id="summary">{_e(run.status)}, started '
        f"{_e(run.created_at)}: {report.games} games, {report.draws} draws, {seeds}; "
        f"par = {100 * PAR:.1f} %.</p>"
        f"<p>95% intervals {_e(intervals_method(report))}; the same figures as "
        "<code>arena report</code>.</p>"
        + "".join(
            f'<p role="alert"><strong>{_e(line)}</strong></p>'
            for line in mixed_builds_lines(report.mixed_builds)
        )
        + f"<nav>{nav}</nav>"
    )
    return page_document(f"Run {run.id} — Schmier Arena report", header, sections)


def intervals_method(report: RunReport) -> str:
    """How the page's intervals were computed, in words (a comparison's know its stop)."""
    if report.stopped:
        return f"of this comparison's rates: {INTERVALS['stopped_method']}"
    return str(INTERVALS["method"])


def page_document(title: str, header: str, sections: Sequence[str], style: str = "") -> str:
    """A page of the report's kind: its style (and ``style``), ``header`` and ``sections``
    as given (markup, escaped by the caller), and the games list's script."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy(SCRIPT)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title>"
        f"<style>{STYLE}{style}</style></head><body>"
        f"<header>{header}</header><main>{''.join(sections)}</main>"
        f"<script>{SCRIPT}</script></body></html>\n"
    )
