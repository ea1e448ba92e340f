"""The text replay (``arena replay``, arena.present.render): every fallback the referee
played is marked where it appears, with its fault and reason, and a forfeit (F1) is told
as what it is, never as a win or a draw of the bots' own making."""

from __future__ import annotations

from typing import Any

import pytest
from engine.helpers import refereed

from arena.engine import to_record
from arena.engine.forfeit import FORFEIT_DEALS
from arena.engine.record import Fallback
from arena.present.render import record_lines, result_text

TIMEOUT = Fallback("timeout", "no answer within 1000 ms plus the bank")
ILLEGAL = Fallback("illegal", "R7.2: seat 2 does not hold 9C", "play 9C")


def game_record(seed: int, marks: dict[int, Fallback], forfeit: bool = True) -> dict[str, Any]:
    """A random game whose seats in ``marks`` were played by the referee from deal 2 on."""
    deals = FORFEIT_DEALS if forfeit else 0
    game, notes = refereed(seed, lambda deal, seat: marks.get(seat) if deal >= 2 else None, deals)
    return to_record(game, None, notes, forfeit_deals=deals)


def test_every_fallback_is_marked_with_its_fault_and_reason() -> None:
    record = game_record(7, {4: TIMEOUT, 2: ILLEGAL}, forfeit=False)
    lines = list(record_lines(record))
    marked = [d for deal in record["deals"] for d in deal["decisions"] if d["fallback"]]
    assert marked, "the game has no fallback to show"
    assert sum(line.count("[fallback]") for line in lines) == len(marked)
    notes = [line.strip() for line in lines if line.strip().startswith("fallback: ")]
    assert len(notes) == len(marked)
    timeouts = [n for n in notes if n.startswith("fallback: seat 4's")]
    illegal = [n for n in notes if n.startswith("fallback: seat 2's")]
    assert len(timeouts) + len(illegal) == len(marked)
    assert all(n.endswith(": timeout: no answer within 1000 ms plus the bank") for n in timeouts)
    assert all(
        "illegal: R7.2: seat 2 does not hold 9C (the bot sent play 9C)" in n for n in illegal
    )
    # Each note follows the line its marked action is on.
    for index, line in enumerate(lines):
        if line.strip().startswith("fallback: "):
            above = next(lines[i] for i in range(index - 1, -1, -1) if "fallback: " not in lines[i])
            assert "[fallback]" in above, (above, line)


def test_a_game_without_fallbacks_shows_none() -> None:
    lines = list(record_lines(game_record(7, {})))
    assert not any("fallback" in line for line in lines)


def test_a_forfeit_is_told_as_one() -> None:
    record = game_record(11, {4: TIMEOUT})
    assert record["result"]["forfeited"] == [1]
    last = list(record_lines(record))[-1]
    assert last.startswith(
        "Team 1 forfeits (F1: a seat made no decision of its own in 3 deals in a row); "
    ), last
    assert list(record_lines(record))[-3] == "  no decision taken in this deal"
    assert f"after {record['result']['deals']} deals" in last


@pytest.mark.parametrize(
    ("winner", "forfeited", "said"),
    [
        (0, (), "team 0 wins"),
        (None, (), "draw"),
        (
            2,
            (1,),
            "team 1 forfeits (F1: a seat made no decision of its own in deal after "
            "deal); team 2 wins",
        ),
        (
            None,
            (1,),
            "team 1 forfeits (F1: a seat made no decision of its own in deal after "
            "deal); team 0 and team 2 are level: neither wins",
        ),
        (
            0,
            (1, 2),
            "team 1 and team 2 forfeit (F1: a seat made no decision of its own in "
            "deal after deal); team 0 wins",
        ),
    ],
)
def test_result_text(winner: int | None, forfeited: tuple[int, ...], said: str) -> None:
    assert result_text(winner, forfeited, [f"team {t}" for t in range(3)]) == said
