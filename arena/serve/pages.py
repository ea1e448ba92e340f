"""The contest's pages, rendered on the server from the same data as its JSON API.

No page runs a script or loads anything: the Content-Security-Policy (sent as a header
and in the page) allows inline styles only, and forms only to this server. Every text a
bot or a contestant chose (names, check details, build logs) is escaped. The replay of a
game is the existing replay page (:mod:`arena.present.html.replay`), with its own policy.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any, Final

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
.ok{color:#1b7a3a}.fail{color:#b3261e}.muted{color:#66707a}
form p{margin:.5rem 0}
"""


def e(text: object) -> str:
    return html.escape(str(text), quote=True)


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


def _rating(entry: Mapping[str, Any]) -> tuple[str, str]:
    rating = entry.get("rating")
    if rating is None:
        return "–", ""
    low, high = entry.get("low"), entry.get("high")
    if entry.get("too_few_seeds"):
        interval = "too few seeds"
    else:
        lo = "open" if low is None else f"{low:+.0f}"
        hi = "open" if high is None else f"{high:+.0f}"
        interval = f"[{lo}, {hi}]"
    return f"{rating:+.0f}", interval


def leaderboard_page(board: Mapping[str, Any]) -> str:
    rows = []
    for entry in board["entrants"]:
        rating, interval = _rating(entry)
        name = e(entry["contestant"])
        rows.append(
            "<tr>"
            f'<td class="num">{e(entry["rank"])}</td>'
            f'<td><a href="/contestants/{name}">{name}</a></td>'
            f"<td><code>{e(entry['version'])}</code></td>"
            f'<td class="num">{rating}</td><td>{e(interval)}</td>'
            f'<td class="num">{entry["games"]}</td>'
            f'<td class="num">{100 * entry["win_rate"]:.1f} %</td>'
            f'<td class="num">{entry["faults"]}</td></tr>'
        )
    table = (
        '<div class="box"><table id="leaderboard"><thead><tr><th class="num">#</th>'
        '<th>contestant</th><th>last version</th><th class="num">rating</th>'
        '<th>95 % interval</th><th class="num">games</th><th class="num">win rate</th>'
        '<th class="num">faults</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table></div>"
    )
    state = "paused" if board["paused"] else "playing"
    summary = (
        f'<p id="summary">Ladder run <code>{e(board["run_id"])}</code>: {state}; '
        f"{board['games']} games, {board['seeds']} game seeds. Ratings on the Elo scale "
        "(the field's mean at 0) with 95 % seed-bootstrap intervals, from the same code as "
        "<code>arena report</code>.</p>"
    )
    return document("Schmier Arena contest", summary + table)


def contestant_page(data: Mapping[str, Any]) -> str:
    name = data["name"]
    parts = [
        f"<p>{'house entrant' if data['house'] else 'contestant'}"
        f"{' — banned' if data['banned'] else ''}.</p>"
    ]
    parts.append("<h2>Versions</h2>")
    rows = []
    for version in data["versions"]:
        state = "retired" if version["retired"] else ("playing" if version["laddered"] else "")
        rows.append(
            f"<tr><td><code>{e(version['version'])}</code></td><td>{e(version['uploaded_at'])}"
            f'</td><td>{e(state)}</td><td class="num">{version["games"]}</td>'
            f'<td class="num">{version["faults"]}</td></tr>'
        )
    parts.append(
        '<div class="box"><table id="versions"><thead><tr><th>version</th><th>uploaded</th>'
        '<th>state</th><th class="num">games</th><th class="num">faults</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )
    compare = data.get("comparison")
    if compare is not None:
        parts.append("<h2>Latest two versions</h2>")
        interval = compare.get("interval")
        shown = (
            f"[{100 * interval[0]:.1f} %, {100 * interval[1]:.1f} %]"
            if interval
            else "too few seed groups"
        )
        parts.append(
            f'<p id="comparison"><code>{e(compare["new"])}</code> against '
            f"<code>{e(compare['base'])}</code>: {compare['units']} seed groups, score "
            f"{100 * compare['estimate']:.1f} % (95 % interval {e(shown)}), sequential test "
            f"verdict: {e(compare['verdict'])} (LLR {compare['llr']:.2f} in "
            f"[{compare['lower']:.2f}, {compare['upper']:.2f}]), as "
            "<code>arena compare</code> computes it.</p>"
        )
    parts.append("<h2>Uploads and build logs</h2>")
    for upload in reversed(data["uploads"]):
        cls = "ok" if upload["accepted"] else "fail"
        version = f" <code>{e(upload['version'])}</code>" if upload["version"] else ""
        parts.append(f'<p class="{cls}">{e(upload["at"])}{version}: {e(upload["reason"])}</p>')
        if upload["log_tail"].strip():
            parts.append(f"<pre>{e(upload['log_tail'])}</pre>")
    parts.append("<h2>Games</h2>")
    rows = [
        f'<tr><td><a href="/games/{g["id"]}">{g["id"]}</a></td>'
        f"<td>{e(' · '.join(g['entrants']))}</td><td>{e(g['scores'])}</td>"
        f'<td class="num">{g["faults"]}</td></tr>'
        for g in data["games"][-200:]
    ]
    parts.append(
        '<div class="box"><table id="games"><thead><tr><th>game</th><th>teams 0 · 1 · 2</th>'
        f'<th>scores</th><th class="num">faults</th></tr></thead><tbody>{"".join(rows)}'
        "</tbody></table></div>"
    )
    return document(f"Contestant {name}", "".join(parts))


def live_page(live: Mapping[str, Any]) -> str:
    rows = [
        f"<tr><td>{e(m['match'])}</td><td>{e(' · '.join(m['entrants']))}</td>"
        f'<td class="num">{m["done"]} / {m["games"]}</td></tr>'
        for m in live["matches"]
    ]
    round_ = live.get("round")
    head = (
        f"<p>Round {round_['id']}: {e(', '.join(round_['entrants']))}.</p>"
        if round_
        else '<p class="muted">No round is being played.</p>'
    )
    rate = f"<p>{live['games_this_session']} games stored since the server started.</p>"
    recent = "".join(
        f'<li><a href="/games/{g["id"]}">game {g["id"]}</a>: {e(" · ".join(g["entrants"]))}'
        f" {e(g['scores'])}</li>"
        for g in live["recent"]
    )
    body = (
        head
        + rate
        + '<div class="box"><table id="live"><thead><tr><th>match</th><th>teams 0 · 1 · 2'
        f'</th><th class="num">games</th></tr></thead><tbody>{"".join(rows)}</tbody></table>'
        f"</div><h2>Just finished</h2><ul>{recent}</ul>"
    )
    return document("Live", body, refresh=5)


def _mark(passed: bool | None) -> str:
    return {True: "ok", False: "FAIL", None: "not run"}[passed]


def upload_page(result: Mapping[str, Any] | None = None) -> str:
    shown = ""
    if result is not None:
        cls = "ok" if result.get("accepted") else "fail"
        what = result.get("reason") or result.get("error", "")
        version = f" version <code>{e(result['version'])}</code>" if result.get("version") else ""
        shown = f'<p id="result" class="{cls}">{e(what)}{version}</p>'
        checks: Sequence[Mapping[str, Any]] = result.get("checks", [])
        if checks:
            shown += (
                '<ul id="checks">'
                + "".join(
                    f"<li>{_mark(c['passed'])} {e(c['name'])}"
                    f"{': ' + e(c['detail']) if c['detail'] else ''}</li>"
                    for c in checks
                )
                + "</ul>"
            )
    form = (
        '<form method="post" action="/upload" enctype="multipart/form-data">'
        '<p><label>Token <input type="password" name="token" required autocomplete="off">'
        "</label></p><p><label>Bot (tar, tar.gz, zip or one executable) "
        '<input type="file" name="bot" required></label></p>'
        '<p><button type="submit">Upload</button></p></form>'
        '<p class="muted">The token is sent with the form each time: the site keeps no '
        "login, so no other site can submit in your name.</p>"
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
