"""Bot text as data: any string a bot chose, made literal and printable for a terminal.

A bot chooses its answers, its name and version in ``Join``, what it writes to its log,
and (through ``bot.toml``) its manifest. None of that may reach a terminal as escape
codes (ANSI, OSC title changes, ``\\r``, backspaces, bidi overrides that reorder a line)
or be read by rich as markup (``[/]`` would end the command with a ``MarkupError``).
:func:`printable` makes every character that is not printable visible as the escape
``repr`` would write (``\\x1b``, ``\\u202e``); :func:`literal` wraps the result in a
``rich.text.Text``, which rich never parses as markup and never highlights.

>>> printable("[/] \\x1b[2J\\u202e")
'[/] \\\\x1b[2J\\\\u202e'
>>> printable("greedy@1a2b3c4d5e6f", limit=10)
'greedy@1a…'
"""

from __future__ import annotations

from rich.text import Text

ELLIPSIS = "…"


def _escape(char: str) -> str:
    # The escape Python itself writes: \x1b, \r, \u202e, \U000e0001.
    return repr(char)[1:-1]


def printable(text: str, limit: int | None = None, *, keep_newlines: bool = False) -> str:
    """``text`` with every non-printable character escaped, at most ``limit`` characters.

    Non-printable is Python's ``str.isprintable``: control characters (C0, DEL, C1),
    format characters (bidi overrides and isolates, zero-width joiners and spaces, the
    BOM), line and paragraph separators, spaces other than the ASCII one, surrogates
    (from undecodable bytes), private-use and unassigned code points. Backslashes are
    kept as they are, so printable text is unchanged: a bot that writes ``\\x1b`` as
    four characters shows the same four characters, which is harmless.
    ``keep_newlines`` keeps ``\\n`` as line breaks (for log tails; ``\\r`` is still
    escaped). A cut text ends with an ellipsis, never inside an escape.
    """
    if text.isprintable() and (limit is None or len(text) <= limit):
        return text
    pieces = [c if c.isprintable() or (keep_newlines and c == "\n") else _escape(c) for c in text]
    if limit is None or sum(map(len, pieces)) <= limit:
        return "".join(pieces)
    room = max(0, limit - len(ELLIPSIS))
    kept: list[str] = []
    for piece in pieces:
        room -= len(piece)
        if room < 0:
            break
        kept.append(piece)
    return "".join(kept) + ELLIPSIS


def literal(
    text: str, limit: int | None = None, *, keep_newlines: bool = False, style: str = ""
) -> Text:
    """``printable(text)`` as rich text: printed as it is, never parsed as markup."""
    return Text(printable(text, limit, keep_newlines=keep_newlines), style=style)
