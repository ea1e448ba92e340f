"""The contest's pages, rendered on the server from the same typed values as its JSON API.

No page runs a script or loads anything: the Content-Security-Policy (sent as a header
and in the page) allows inline styles only, and forms only to this server. Every text a
bot or a contestant chose (names, check details, build logs) goes through the one
escaping helper of the pages (``arena.present.html.page.escape``). A contestant's own
logs and reasons show only on the pages their token opens (a form posts it: no cookie,
no login). The replay of a game is the existing replay page
(:mod:`arena.present.html.replay`), with its own policy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from arena.present.html.page import escape as e

from .figures import Comparison
from .service import (
    CheckRow,
    ContestantView,
    EntrantRow,
    Leaderboard,
    LiveView,
    SeatLog,
    UploadAnswer,
    VersionRow,
)

# In the page; the header adds frame-ancestors, which a <meta> policy cannot carry.
META_POLICY: Final = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; "
    "base-uri 'none'"
)
PAGE_POLICY: Final = META_POLICY + "; frame-ancestors 'none'"

STYLE: Final = """
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d232a;background:#f7f8fa}
header,main{max-width:72rem;margin:0 auto;padding:.6rem 1rem}
header{border-bottom:1px solid #d8dde3;background:#fff}
nav a{margin-right:1rem}
h1{font-size:1.4rem;margin:.3rem 0}
h2{font-size:1.1rem;margin:1.2rem 0 .4rem}
.box{overflow-x:auto;background:#fff;border:1px solid #d8dde3;border-radius:4px}
table{border-collapse:collapse;width:100%}
th,td{padding:.3rem .6rem;text-align:left;border-bottom:1px solid #eceff2;white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
pre{white-space:pre-wrap;word-break:break-all;background:#fff;border:1px solid #d8dde3;
padding:.5rem;max-height:20rem;overflow:auto}
.ok{color:#1b7a3a}.fail{color:#b3261e}.muted{color:#66707a}.warn{color:#8a5300}
form p{margin:.5rem 0}
"""

_TOKEN_NOTE: Final = (
    '<p class="muted">The token is sent with the form each time: the site keeps no login, '
    "so no other site can act in your name.</p>"
)


def document(title: str, body: str, *, refresh: int | None = None) -> str:
    meta = f'<meta http-equiv="refresh" content="{refresh}">' if refresh else ""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{META_POLICY}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
        f"{meta}<title>{e(title)}</title><style>{STYLE}</style></head><body>"
        '<header><nav><a href="/">Leaderboard</a><a href="/live">Live</a>'
        '<a href="/upload">Upload</a><a href="/api">API</a></nav>'
        f"<h1>{e(title)}</h1></header><main>{body}</main></body></html>\n"
    )


def refused_page(line: str) -> str:
    return document("Refused", f"<p>{e(line)}</p>")


def _rating(entry: EntrantRow) -> tuple[str, str]:
    if entry.rating is None:
        # Beyond the rated field (unbeaten or winless): its one bound, where seeds give it.
        if entry.place == "above" and entry.low is not None and not entry.too_few_seeds:
            return "above", f"> {entry.low:+.0f}"
        if entry.place == "below" and entry.high is not None and not entry.too_few_seeds:
            return "below", f"< {entry.high:+.0f}"
        return (
            "above" if entry.place == "above" else "below" if entry.place == "below" else "–"
        ), ""
    if entry.too_few_seeds:
        interval = "too few seeds"
    else:
        lo = "open" if entry.low is None else f"{entry.low:+.0f}"
        hi = "open" if entry.high is None else f"{entry.high:+.0f}"
        interval = f"[{lo}, {hi}]"
    return f"{entry.rating:+.0f}", interval


def _stalled(line: str | None) -> str:
    return "" if line is None else f'<p id="stalled" class="warn">The ladder: {e(line)}.</p>'


def leaderboard_page(board: Leaderboard) -> str:
    rows = []
    for entry in board.entrants:
        rating, interval = _rating(entry)
        name = e(entry.contestant)
        rows.append(
            "<tr>"
            f'<td class="num">{entry.rank}</td>'
            f'<td><a href="/contestants/{name}">{name}</a></td>'
            f"<td><code>{e(entry.version)}</code></td>"
            f'<td class="num">{rating}</td><td>{e(interval)}</td>'
            f'<td class="num">{entry.games}</td>'
            f'<td class="num">{100 * entry.win_rate:.1f} %</td>'
            f'<td class="num">{entry.faults}</td></tr>'
        )
    table = (
        '<div class="box"><table id="leaderboard"><thead><tr><th class="num">#</th>'
        '<th>contestant</th><th>last version</th><th class="num">rating</th>'
        '<th>95 % interval</th><th class="num">games</th><th class="num">win rate</th>'
        '<th class="num">faults</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table></div>"
    )
    state = "paused" if board.paused else "playing"
    summary = (
        f'<p id="summary">Ladder run <code>{e(board.run_id)}</code>: {state}; '
        f"{board.games} games, {board.seeds} game seeds. Ratings on the Elo scale "
        "(the rated field's mean at 0) with 95 % intervals over game seeds, from the same code as "
        "<code>arena report</code>.</p>"
    )
    return document("Schmier Arena contest", summary + _stalled(board.stalled) + table)


def _state(version: VersionRow) -> str:
    if version.state == "suspended":
        return f"suspended: {version.suspended}"
    return version.state


def _checks(checks: Sequence[CheckRow]) -> str:
    if not checks:
        return ""
    return (
        '<ul class="checks">'
        + "".join(
            f"<li>{_mark(c.passed)} {e(c.name)}{': ' + e(c.detail) if c.detail else ''}</li>"
            for c in checks
        )
        + "</ul>"
    )


def _comparison(compare: Comparison) -> str:
    interval = compare.interval
    shown = (
        f"[{100 * interval[0]:.1f} %, {100 * interval[1]:.1f} %]"
        if interval
        else "too few seed groups"
    )
    going = (
        "decided"
        if compare.verdict != "undecided"
        else ("stopped at its cap" if compare.finished else "still playing")
    )
    return (
        f'<p id="comparison"><code>{e(compare.new)}</code> against '
        f"<code>{e(compare.base)}</code>: {compare.units} seed groups, score "
        f"{100 * compare.estimate:.1f} % (95 % interval {e(shown)}), sequential test "
        f"verdict: {e(compare.verdict)} ({going}; LLR {compare.llr:.2f} in "
        f"[{compare.lower:.2f}, {compare.upper:.2f}]), as "
        "<code>arena compare</code> computes it.</p>"
    )


def contestant_page(data: ContestantView) -> str:
    name = e(data.name)
    parts = [
        f"<p>{'house entrant' if data.house else 'contestant'}"
        f"{' — banned' if data.banned else ''}"
        f"{' — your own page: your logs and reasons are shown' if data.owner else ''}.</p>"
    ]
    if data.allowance is not None:
        a = data.allowance
        parts.append(
            f'<p id="allowance">Today: {a.uploads_left} of {a.uploads_per_day} uploads and '
            f"{a.build_minutes_left:.0f} of {a.build_minutes_per_day:g} minutes of building "
            "and checking left (over the last 24 hours).</p>"
        )
    parts.append("<h2>Versions</h2>")
    rows = []
    for row in data.versions:
        cls = "fail" if row.state in ("suspended", "held") else ""
        rows.append(
            f'<tr class="version"><td><code>{e(row.version)}</code></td><td>{e(row.uploaded_at)}'
            f'</td><td class="{cls}">{e(_state(row))}</td><td class="num">'
            f'{row.games}</td><td class="num">{row.faults}</td></tr>'
        )
        if row.why:
            rows.append(f'<tr><td colspan="5" class="muted">{e(row.why)}</td></tr>')
        if row.checks:
            rows.append(f'<tr><td colspan="5">{_checks(row.checks)}</td></tr>')
    parts.append(
        '<div class="box"><table id="versions"><thead><tr><th>version</th><th>uploaded</th>'
        '<th>state</th><th class="num">games</th><th class="num">faults</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )
    if data.comparison is not None:
        parts.append("<h2>Latest two versions</h2>" + _comparison(data.comparison))
    parts.append("<h2>Uploads</h2>")
    for upload in reversed(data.uploads):
        cls = "ok" if upload.accepted else "fail"
        version = f" <code>{e(upload.version)}</code>" if upload.version else ""
        parts.append(
            f'<p class="{cls}">{e(upload.at)}{version}: {e(upload.reason or upload.status)}</p>'
        )
        if upload.log_tail and upload.log_tail.strip():
            parts.append(f"<pre>{e(upload.log_tail)}</pre>")
    parts.append("<h2>Games</h2>")
    rows = []
    for g in data.games[-200:]:
        rows.append(
            f'<tr><td><a href="/games/{g.id}">{g.id}</a></td>'
            f"<td>{e(' · '.join(g.entrants))}</td><td>{e(g.scores)}</td>"
            f'<td class="num">{g.faults}</td></tr>'
        )
    parts.append(
        '<div class="box"><table id="games"><thead><tr><th>game</th><th>teams 0 · 1 · 2</th>'
        f'<th>scores</th><th class="num">faults</th></tr></thead><tbody>{"".join(rows)}'
        "</tbody></table></div>"
    )
    if not data.owner and not data.house:
        parts.append(
            f'<h2>Your logs</h2><form method="post" action="/contestants/{name}">'
            '<p><label>Token <input type="password" name="token" required '
            'autocomplete="off"></label> <button type="submit">Show my logs</button></p>'
            f"</form>{_TOKEN_NOTE}"
        )
    if data.owner and data.games:
        parts.append(
            "<h2>Your seats' logs</h2>"
            f'<form method="post" action="/contestants/{name}/logs">'
            '<p><label>Token <input type="password" name="token" required '
            'autocomplete="off"></label> <label>Game <input type="number" name="game" '
            f'required min="1" value="{data.games[-1].id}"></label> '
            '<button type="submit">Show</button></p></form>'
        )
    return document(f"Contestant {data.name}", "".join(parts))


def logs_page(name: str, game_id: int, logs: Sequence[SeatLog]) -> str:
    parts = [
        f"<p>The end of each of {e(name)}'s seats' logs in the match of game "
        f'<a href="/games/{game_id}">{game_id}</a> (a seat keeps one log for its whole '
        "match).</p>"
    ]
    for log in logs:
        parts.append(f"<h2>Seat {log.seat}: {e(log.entrant)}</h2><pre>{e(log.log)}</pre>")
    return document(f"Logs of {name}, game {game_id}", "".join(parts))


def live_page(live: LiveView) -> str:
    rows = [
        f"<tr><td>{e(m.match)}</td><td>{e(' · '.join(m.entrants))}</td>"
        f'<td class="num">{m.done} / {m.games}</td></tr>'
        for m in live.matches
    ]
    head = (
        "".join(f"<p>Round {r.id}: {e(', '.join(r.entrants))}.</p>" for r in live.rounds)
        if live.rounds
        else '<p class="muted">No round is being played.</p>'
    )
    rate = f"<p>{live.games_this_session} games stored since the server started.</p>"
    recent = "".join(
        f'<li><a href="/games/{g.id}">game {g.id}</a>: {e(" · ".join(g.entrants))}'
        f" {e(g.scores)}</li>"
        for g in live.recent
    )
    notices = "".join(f"<li>{e(line)}</li>" for line in live.notices)
    body = (
        head
        + _stalled(live.stalled)
        + rate
        + '<div class="box"><table id="live"><thead><tr><th>match</th><th>teams 0 · 1 · 2'
        f'</th><th class="num">games</th></tr></thead><tbody>{"".join(rows)}</tbody></table>'
        f"</div><h2>Just finished</h2><ul>{recent}</ul>"
        f'<h2>Notices</h2><ul id="notices">{notices}</ul>'
    )
    return document("Live", body, refresh=5)


def _mark(passed: bool | None) -> str:
    return {True: "ok", False: "FAIL", None: "not run"}[passed]


def upload_page(result: UploadAnswer | None = None, error: str | None = None) -> str:
    shown = ""
    if error is not None:
        shown = f'<p id="result" class="fail">{e(error)}</p>'
    elif result is not None:
        cls = "ok" if result.accepted else "fail"
        version = f" version <code>{e(result.version)}</code>" if result.version else ""
        shown = f'<p id="result" class="{cls}">{e(result.reason)}{version}</p>'
        if result.checks:
            shown += _checks(result.checks).replace('class="checks"', 'id="checks"', 1)
        if result.log_tail.strip() and not result.accepted:
            shown += f"<pre>{e(result.log_tail)}</pre>"
    form = (
        '<form method="post" action="/upload" enctype="multipart/form-data">'
        '<p><label>Token <input type="password" name="token" required autocomplete="off">'
        "</label></p><p><label>Bot (tar, tar.gz, zip or one executable) "
        '<input type="file" name="bot" required></label></p>'
        '<p><button type="submit">Upload</button></p></form>' + _TOKEN_NOTE
    )
    return document("Upload a bot", shown + form)


def api_page(routes: Sequence[tuple[str, str, str]]) -> str:
    rows = "".join(
        f"<tr><td>{e(method)}</td><td><code>{e(path)}</code></td><td>{e(what)}</td></tr>"
        for method, path, what in routes
    )
    body = (
        "<p>Every page has a JSON twin; the schema is in docs/CONTEST.md.</p>"
        f'<div class="box"><table><tbody>{rows}</tbody></table></div>'
    )
    return document("API", body)
