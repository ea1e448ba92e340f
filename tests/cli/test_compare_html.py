"""``arena compare … --html FILE``: the comparison's page, its last line naming it (real bot
processes, a real results file; the page itself is checked in a browser by
tests/html/test_compare_page.py)."""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import unquote

import pytest

from arena.present.html.compare import VERDICT_TEXT, verdict_explanation
from arena.stats.comparison import UnitTally, compare_outcome
from arena.stats.rates import GameOutcome
from arena.stats.sequential import Sprt

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


def _won_pairs(count: int, units: int = 12) -> UnitTally:
    """``units`` swap pairs on seeds 0…, NEW's teams first in the first ``count``, last in
    the others (each pair: the seating of seed k mod 3 and its mirror)."""
    seatings = [((0, 0, 1), (1, 1, 0)), ((0, 1, 0), (1, 0, 1)), ((0, 1, 1), (1, 0, 0))]
    names = ("new@1", "base@1")
    tally = UnitTally(*names)
    for seed in range(units):
        for seating in seatings[seed % 3]:
            top = 0 if seed < count else 1
            scores = tuple(
                30 if entrant == top else 10 + team for team, entrant in enumerate(seating)
            )
            winner = max(range(3), key=lambda team: scores[team])
            by_team = (names[seating[0]], names[seating[1]], names[seating[2]])
            tally.add(GameOutcome(by_team, scores, winner, seed=seed))  # type: ignore[arg-type]
    return tally


def test_the_page_names_the_evidence_that_stopped_the_test() -> None:
    """Issue 35, 8: stopped by the bet (the ratio far short of its bound), the page says so,
    never "the log-likelihood ratio reached its upper bound"."""
    by_bet = compare_outcome("r", _won_pairs(12), Sprt(), 3000)
    assert by_bet.state.decided_by == "bet" and by_bet.state.llr < by_bet.state.upper
    words = verdict_explanation(by_bet)
    assert "the bet against 'even' reached its bound" in words
    assert "log-likelihood ratio reached" not in words
    assert "looked after every swap pair and stopped at the 7th (the 5 played after it" in words
    by_ratio = compare_outcome("r", _won_pairs(0, units=40), Sprt(), 3000)
    assert by_ratio.verdict == "not better"
    if by_ratio.state.decided_by == "ratio":
        assert "the log-likelihood ratio reached its lower bound" in verdict_explanation(by_ratio)
    else:
        assert "the bet against 'ahead by 0.05' reached" in verdict_explanation(by_ratio)
