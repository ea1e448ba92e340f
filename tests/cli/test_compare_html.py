"""``arena compare … --html FILE``: the comparison's page, its last line naming it (real bot
processes, a real results file; the page itself is checked in a browser by
tests/html/test_compare_page.py)."""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import unquote

import pytest

from arena.present.html.compare import VERDICT_TEXT

from .test_cli import GREEDY, LOWEST, invoke, show
from .test_compare import FAST

pytestmark = pytest.mark.timeout(600)


@pytest.mark.slow
def test_a_comparison_writes_its_page_and_names_it_last(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    page = tmp_path / "compare.html"
    # Three swap pairs (six games), undecided at its cap: the page does not wait for a verdict.
    command = ("compare", GREEDY, LOWEST, "--db", str(db), "--max-games", "6", *FAST)
    result = invoke(*command, "--html", str(page))
    assert result.exit_code == 3, show(result)
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith(f"comparison page: {page} (replays of every game"), show(result)
    text = page.read_text(encoding="utf-8")
    # The verdict the command printed, in the page's plain words, and its figures.
    assert "undecided" in result.stdout
    assert 'data-verdict="undecided"' in text
    assert html.escape(VERDICT_TEXT["undecided"]) in text
    llr = re.search(r"LLR ([+-][0-9.]+), bounds ([+-][0-9.]+) and ([+-][0-9.]+)", result.stdout)
    assert llr is not None, show(result)
    figure = re.search(r'data-figure="llr" data-value="([^"]+)"', text)
    assert figure is not None and f"{float(figure.group(1)):+.2f}" == llr.group(1)
    assert re.search(rf'data-bound="lower" data-value="{re.escape(llr.group(2))}[0-9]*"', text)
    assert text.count('<circle class="point"') == 3  # three pairs, three points of the path
    links = re.findall(r'<a class="replay" href="([^"]+)"', text)
    games = re.search(r"swap pairs, (\d+) games", result.stdout)
    assert games is not None, show(result)
    assert len(links) == int(games.group(1)) == 6
    assert all((tmp_path / unquote(link)).is_file() for link in links)
