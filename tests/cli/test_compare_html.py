"""``arena compare … --html FILE``: the comparison's report as a page, its last line naming
it (real bot processes, a real results file; the page itself is checked in a browser by
tests/html/test_report_page.py)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

from .test_cli import GREEDY, LOWEST, invoke, show
from .test_compare import FAST

pytestmark = pytest.mark.timeout(600)


def test_a_comparison_writes_its_report_page_and_names_it_last(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    page = tmp_path / "compare.html"
    # One seed group (six games), undecided at its cap: the page does not wait for a verdict.
    command = ("compare", GREEDY, LOWEST, "--db", str(db), "--max-games", "6", *FAST)
    result = invoke(*command, "--html", str(page))
    assert result.exit_code == 3, show(result)
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith(f"report page: {page} (replays of every game"), show(result)
    text = page.read_text(encoding="utf-8")
    links = re.findall(r'<a class="replay" href="([^"]+)"', text)
    games = re.search(r"seed groups, (\d+) games", result.stdout)
    assert games is not None, show(result)
    assert len(links) == int(games.group(1)) == 6
    assert all((tmp_path / unquote(link)).is_file() for link in links)
