"""F1, the referee's forfeit rule (arena.engine.forfeit, docs/SECURITY.md): a seat whose
every decision of three deals in a row was a fallback makes its team lose the game, and a
record carries the early end so that ``replay`` reproduces it."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import Game, IllegalActionError, ReplayMismatchError, replay, to_record
from arena.engine.forfeit import FORFEIT_DEALS, forfeiting_seats
from arena.engine.game import forfeit_winner
from arena.engine.randomplay import random_action
from arena.engine.record import DecisionNote, Fallback

from .helpers import refereed

FALLBACK = Fallback("timeout", "no answer within 1000 ms plus the bank")
Marks = Callable[[int, int], bool]  # (deal number, seat): whether the referee plays it


def play(seed: int, marked: Marks, deals: int = FORFEIT_DEALS) -> tuple[Game, list[DecisionNote]]:
    """A random game in which the seats ``marked`` says are played by the referee (F1 on)."""
    return refereed(seed, lambda deal, seat: FALLBACK if marked(deal, seat) else None, deals)


def record_of(game: Game, notes: list[DecisionNote], deals: int = FORFEIT_DEALS) -> dict[str, Any]:
    return to_record(game, {"match_id": "f1"}, notes, forfeit_deals=deals)


@pytest.mark.parametrize(
    ("scores", "forfeited", "winner"),
    [
        ((5, 9, 2), {1}, 0),  # the leader forfeits: the best of the others wins
        ((4, 0, 4), {1}, None),  # the others are level: neither wins, the forfeiter loses
        ((-3, 0, 20), {2}, 1),  # negative scores count as they are (R8.1)
        ((7, 8, 9), {0, 2}, 1),  # two teams forfeit: the third wins whatever the scores
        ((7, 8, 9), {0, 1, 2}, None),  # all forfeit: nobody wins
    ],
)
def test_F1_the_winner_of_a_forfeited_game(
    scores: tuple[int, int, int], forfeited: set[int], winner: int | None
) -> None:
    assert forfeit_winner(scores, forfeited) == winner


def test_F1_forfeit_ends_the_game_as_a_loss_and_only_once() -> None:
    game = Game(seed=3)
    game.forfeit([1, 1])
    assert game.is_over and game.outcome is not None
    assert game.outcome.forfeited == (1,) and not game.outcome.is_draw
    assert game.outcome.winner is None  # 0-0-0: teams 0 and 2 are level
    assert game.events[-1].winner is None  # type: ignore[union-attr]
    with pytest.raises(IllegalActionError, match=r"R9\.1"):
        game.forfeit([0])
    for bad in ([], [3], [-1]):
        with pytest.raises(ValueError, match="F1"):
            Game(seed=3).forfeit(bad)


def test_F1_a_seat_whose_every_decision_of_three_deals_was_a_fallback_forfeits() -> None:
    """Seat 4 (team 1) is played by the referee from deal 2 on: its team forfeits at the
    end of deal 4, and the record ends there, with deal 5 dealt and not played."""
    game, notes = play(11, lambda deal, seat: seat == 4 and deal >= 2)
    assert game.outcome is not None and game.outcome.forfeited == (1,)
    assert game.deal_number == 5 and game.deal.first_decision == len(game.history)
    record = record_of(game, notes)
    assert record["result"]["forfeited"] == [1] and record["result"]["draw"] is False
    assert record["forfeit_deals"] == FORFEIT_DEALS
    assert record["deals"][-1]["decisions"] == []
    assert replay(record).outcome == game.outcome


def test_F1_one_decision_of_its_own_keeps_the_seat_in_the_game() -> None:
    """Every decision but one in each deal: never three whole deals of fallbacks."""
    counted: dict[tuple[int, int], int] = {}

    def all_but_the_first(deal: int, seat: int) -> bool:
        counted[deal, seat] = counted.get((deal, seat), 0) + 1
        return seat == 2 and counted[deal, seat] > 1

    game, _ = play(11, all_but_the_first)
    assert game.outcome is not None and game.outcome.forfeited == ()


def test_F1_both_partners_and_two_teams_at_once() -> None:
    """Two seats of two teams reach three deals at the same deal's end: both teams
    forfeit and the third wins; partners of one team make it forfeit once."""
    game, _ = play(5, lambda deal, seat: seat in (0, 3, 1))
    assert game.outcome is not None
    assert game.outcome.forfeited == (0, 1) and game.outcome.winner == 2
    assert game.deal_number == FORFEIT_DEALS + 1


def test_F1_off_and_other_settings() -> None:
    gone: Marks = lambda deal, seat: seat == 5  # noqa: E731
    game, notes = play(9, gone, deals=0)
    assert game.outcome is not None and game.outcome.forfeited == ()  # the rule off
    assert replay(record_of(game, notes, 0)).outcome == game.outcome
    game, notes = play(9, gone, deals=1)
    assert game.outcome is not None and game.outcome.forfeited == (2,)
    assert game.deal_number == 2
    assert replay(record_of(game, notes, 1)).outcome == game.outcome


def test_F1_is_judged_between_deals_only() -> None:
    game = Game(seed=2)
    rng = random.Random(2)
    game.apply(random_action(game, rng))
    assert forfeiting_seats(Game(seed=2), [], 3) == ()  # before the first decision
    with pytest.raises(ValueError, match="end of a deal"):
        forfeiting_seats(game, [True], 3)
    with pytest.raises(ValueError, match="fallback marks"):
        forfeiting_seats(game, [], 3)


@settings(max_examples=30)  # each example plays a whole game
@given(seed=st.integers(0, 10_000), seats=st.sets(st.integers(0, 5)), start=st.integers(1, 6))
def test_F1_the_rule_is_the_record_s_plain_reading(seed: int, seats: set[int], start: int) -> None:
    """Read from the record alone, as an outside auditor would: the game ends at the
    first deal's end where some seat's decisions in the three deals before were all
    fallbacks, and the teams of those seats forfeit."""
    game, notes = play(seed, lambda deal, seat: seat in seats and deal >= start)
    record = record_of(game, notes)
    deals = record["deals"]
    expected: list[int] = []
    end = len(deals)
    for last in range(FORFEIT_DEALS, len(deals)):  # deal `last` (1-based) has just ended
        window = deals[last - FORFEIT_DEALS : last]
        gone = [
            seat
            for seat in range(6)
            if all(
                any(d["seat"] == seat for d in deal["decisions"])
                and all(d["fallback"] is not None for d in deal["decisions"] if d["seat"] == seat)
                for deal in window
            )
        ]
        if gone:
            expected, end = sorted({seat % 3 for seat in gone}), last + 1
            break
    assert record["result"]["forfeited"] == expected
    assert len(deals) == end or not expected
    assert replay(record).outcome == game.outcome


@pytest.mark.parametrize("tamper", ["unclaimed", "played on", "one own decision", "claimed"])
def test_F1_a_record_that_contradicts_the_rule_fails_replay(tamper: str) -> None:
    game, notes = play(11, lambda deal, seat: seat == 4 and deal >= 2)
    record = copy.deepcopy(record_of(game, notes))
    if tamper == "unclaimed":  # the game claims to end as it would have without F1
        record["result"]["forfeited"] = []
    elif tamper == "played on":  # the record goes on past the forfeit
        record["forfeit_deals"] = FORFEIT_DEALS + 1
    elif tamper == "one own decision":  # the seat decided once itself: no forfeit
        entry = next(d for d in record["deals"][2]["decisions"] if d["seat"] == 4)
        entry["fallback"] = None
    else:  # a game that ended as R9 says, claimed as a forfeit
        honest, honest_notes = play(11, lambda deal, seat: False)
        record = record_of(honest, honest_notes)
        record["result"]["forfeited"] = [1]
    with pytest.raises(ReplayMismatchError):
        replay(record)
