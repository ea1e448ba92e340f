"""Points of a deal (R6), scoring (R8) and the end of the game (R9), on hand-built deals
whose results are worked out by hand in ``helpers.py`` (SWEEP_* and TIE_*)."""

from __future__ import annotations

import random

import pytest

from arena.engine import PASS, Game
from arena.engine.events import DealScored, GameEnded
from arena.engine.game import Phase, winner_after_deal
from arena.engine.randomplay import random_action

from .helpers import (
    SWEEP_PLAY,
    TIE_HANDS,
    TIE_PLAY,
    always_pass,
    play_cards,
    ref_winner_after_deal,
    sweep_game,
    to_play,
)

SWEEP_CATEGORIES = {"high": 0, "low": 2, "right": 0, "left": 0, "joker": 0, "game": 0}
TIE_CATEGORIES = {"high": 0, "low": 0, "right": 2, "left": 2, "joker": 0, "game": None}


Scores = tuple[int, int, int]


def played_sweep(bid: int, scores: Scores = (0, 0, 0), draw_limit: int = 200) -> Game:
    game = sweep_game(bid=bid, scores=scores, draw_limit=draw_limit)
    play_cards(game, SWEEP_PLAY)
    return game


def played_tie(bid: int, scores: Scores = (0, 0, 0), draw_limit: int = 200) -> Game:
    game = to_play(TIE_HANDS, bid=bid, scores=scores, draw_limit=draw_limit)
    play_cards(game, TIE_PLAY)
    return game


def test_R6_1_sweep_points_low_goes_to_the_holder() -> None:
    """R6.1: High and Low go to the team holding the Ace and 2 of trump (Low to team 2
    although team 0 captures the 2); the bauers, joker and Game to the capturing team."""
    deal = played_sweep(3).deals[0]
    assert all(t.winner == 0 for t in deal.tricks)
    assert deal.categories == SWEEP_CATEGORIES
    assert deal.points == (5, 0, 1)
    assert deal.game_totals[1] == deal.game_totals[2] == 0 and deal.game_totals[0] > 0


def test_R6_2_game_point_tie_nobody_gets_it() -> None:
    """R6.2: teams 0 and 1 both count 13 (R2.6), team 2 counts 4: nobody wins Game."""
    deal = played_tie(3).deals[0]
    assert deal.game_totals == (13, 13, 4)
    assert deal.categories == TIE_CATEGORIES
    assert deal.points == (3, 0, 2)


def test_R6_3_a_deal_awards_five_or_six_points() -> None:
    """R6.3: six points when someone wins Game, five when the Game point is tied."""
    assert sum(played_sweep(3).deals[0].points) == 6
    assert sum(played_tie(3).deals[0].points) == 5


# (deal, bid, start scores, scores after, why)
SCORING = [
    ("sweep", 3, (0, 0, 0), (5, 0, 1), "R8.1: bidders making more score all they won (5 > 3)"),
    ("sweep", 5, (2, 3, 4), (7, 3, 5), "R8.1: 5 won on a 5 contract: +5"),
    ("sweep", 6, (0, 0, 0), (-6, 0, 1), "R8.1: 5 won on 6: set back by 6, below zero"),
    ("sweep", 6, (-4, 9, 9), (-10, 9, 10), "R8.1: set back from below zero"),
    ("tie", 3, (0, 0, 0), (3, 0, 2), "R4.6/R8.1: exactly the contract is made"),
    ("tie", 4, (0, 0, 0), (-4, 0, 2), "R8.1: 3 won on 4: minus the contract, not the points"),
    ("tie", 5, (10, 10, 10), (5, 10, 12), "R8.2: the other teams add what they won"),
]


@pytest.mark.parametrize(("deal", "bid", "start", "after", "why"), SCORING)
def test_R8_1_R8_2_R4_6_scoring_table(
    deal: str, bid: int, start: tuple[int, int, int], after: tuple[int, int, int], why: str
) -> None:
    """R8.1: the bidding team adds every point if it made the contract (R4.6: at least the
    bid), else subtracts the contract; R8.2: the other teams add what they won."""
    game = played_sweep(bid, start) if deal == "sweep" else played_tie(bid, start)
    assert game.deals[0].scores_after == after, why
    assert tuple(game.scores) == after, why
    scored = [e for e in game.events if isinstance(e, DealScored)]
    assert len(scored) == 1 and scored[0].scores == after and scored[0].contract == bid
    assert not game.is_over  # nobody reached 21


# (deal, bid, start scores, winner or None if play goes on, why)
ENDINGS = [
    ("sweep", 3, (16, 0, 0), 0, "R9.1: exactly one team reaches 21"),
    ("sweep", 3, (17, 0, 20), 0, "R9.2: 22 and 21: the higher wins"),
    ("sweep", 3, (16, 0, 20), 0, "R9.2: 21 and 21, the bidders among them: bidders win"),
    ("tie", 3, (18, 0, 20), 2, "R9.2: 21 and 22: the higher non-bidding team wins"),
    ("tie", 3, (15, 21, 17), 1, "R9.1: a team already at 21 that did not bid wins"),
    ("tie", 3, (15, 21, 19), None, "R9.3: 18, 21, 21: the two at 21 did not bid"),
    ("tie", 4, (10, 22, 20), None, "R9.3: non-bidders tied at 22 above: play goes on"),
    ("sweep", 6, (20, 0, 20), 2, "R9.1: the bidders set back; team 2 reaches 21 alone"),
    ("sweep", 6, (0, 0, 0), None, "R9.1: nobody at 21"),
]


@pytest.mark.parametrize(("deal", "bid", "start", "winner", "why"), ENDINGS)
def test_R9_1_R9_2_R9_3_end_of_game_table(
    deal: str, bid: int, start: tuple[int, int, int], winner: int | None, why: str
) -> None:
    """R9.1-R9.3 after a scored deal, through the engine."""
    game = played_sweep(bid, start) if deal == "sweep" else played_tie(bid, start)
    if winner is None:
        assert not game.is_over, why
        assert game.deal_number == 2 and game.phase is Phase.BIDDING
        assert game.dealer == 0  # R1.3: the deal passes left
    else:
        assert game.is_over and game.outcome is not None, why
        assert game.outcome.winner == winner and not game.outcome.is_draw, why
        assert game.outcome.deals == 1
        assert game.events[-1] == GameEnded(winner, tuple(game.scores), 1)  # type: ignore[arg-type]
        assert game.phase is Phase.OVER and list(game.legal()) == []


# (scores after the deal, bidding team, winner)
WINNERS = [
    ((0, 0, 0), 0, None),
    ((20, 20, 20), 1, None),
    ((21, 0, 0), 1, 0),
    ((0, 21, -5), 0, 1),
    ((3, 0, 25), 2, 2),
    ((22, 21, 0), 1, 0),
    ((21, 22, 0), 0, 1),
    ((22, 22, 5), 1, 1),
    ((22, 22, 5), 0, 0),
    ((22, 22, 5), 2, None),
    ((22, 22, 22), 2, 2),
    ((22, 22, 22), 0, 0),
    ((23, 22, 22), 1, 0),
    ((21, 23, 23), 0, None),
    ((21, 23, 23), 2, 2),
    ((30, 25, 21), 2, 0),
    ((-30, 21, 21), 0, None),
]


@pytest.mark.parametrize(("scores", "bidding_team", "expected"), WINNERS)
def test_R9_1_R9_2_R9_3_winner_after_deal_table(
    scores: tuple[int, int, int], bidding_team: int, expected: int | None
) -> None:
    """R9.1: one team at 21+ wins; R9.2: of several, the highest, a shared highest going
    to the bidding team; R9.3: a highest shared only by non-bidders: nobody yet."""
    assert winner_after_deal(scores, bidding_team) == expected


def test_R9_1_R9_2_R9_3_winner_after_deal_matches_reference_exhaustively() -> None:
    """R9.1-R9.3 on every score triple in -10..30 and every bidding team."""
    rng = random.Random(5)
    for _ in range(20000):
        scores = (rng.randint(-10, 30), rng.randint(15, 30), rng.randint(15, 30))
        for team in range(3):
            assert winner_after_deal(scores, team) == ref_winner_after_deal(list(scores), team)


def test_R9_3_play_goes_on_and_the_rule_applies_again() -> None:
    """R9.3: after a non-bidding tie the game goes on; R9.1-R9.3 apply after the next deal."""
    game = played_tie(4, (10, 22, 20))
    assert game.scores == [6, 22, 22] and not game.is_over
    rng = random.Random(1)
    while game.deal_number == 2 and not game.is_over:
        action = random_action(game, rng)
        if game.phase is Phase.BIDDING:
            action = PASS if game.to_act != 1 else action
        game.apply(action)
    # Deal 2 was either thrown in (deal 3 now, nothing changed) or scored and judged.
    deal2 = game.deals[1]
    if deal2.thrown_in:
        assert not game.is_over and game.scores == [6, 22, 22]
    else:
        assert deal2.bidder is not None
        expected = ref_winner_after_deal(list(deal2.scores_after), deal2.bidder % 3)
        assert (game.outcome.winner if game.outcome else None) == expected


def test_R9_1_scores_start_at_zero() -> None:
    """R9.1: scores start at 0."""
    assert Game(seed=3).scores == [0, 0, 0]


def play_out(game: Game) -> Game:
    rng = random.Random(0)
    while not game.is_over:
        game.apply(always_pass(game, rng))
    return game


def test_R9_4_everyone_passes_draw_after_200_deals() -> None:
    """R9.4, R4.5: a game in which everyone always passes ends as a draw after 200
    thrown-in deals (the default limit), scores untouched and the dealer never moving."""
    game = play_out(Game(seed=12))
    assert game.outcome is not None and game.outcome.is_draw and game.outcome.winner is None
    assert game.outcome.deals == 200 == game.deal_number
    assert game.scores == [0, 0, 0]
    assert all(d.thrown_in for d in game.deals)
    assert {d.dealer for d in game.deals} == {game.first_dealer}
    assert game.decisions == 6 * 200
    assert game.events[-1] == GameEnded(None, (0, 0, 0), 200)


@pytest.mark.parametrize("limit", [1, 3, 7])
def test_R9_4_draw_limit_is_a_setting(limit: int) -> None:
    """R9.4: the deal limit is a setting; thrown-in deals count."""
    game = play_out(Game(seed=12, draw_limit=limit))
    assert game.outcome is not None and game.outcome.is_draw
    assert game.deal_number == limit and game.decisions == 6 * limit


def test_R9_4_a_scored_deal_at_the_limit_ends_in_a_draw() -> None:
    """R9.4: a scored deal that reaches the limit with nobody at 21 ends the game drawn;
    a winner at the limit still wins (R9.1 before R9.4)."""
    game = played_sweep(3, draw_limit=1)
    assert game.outcome is not None and game.outcome.is_draw and game.scores == [5, 0, 1]
    game = played_sweep(3, (16, 0, 0), draw_limit=1)
    assert game.outcome is not None and game.outcome.winner == 0


def test_R9_4_limit_must_be_positive() -> None:
    with pytest.raises(ValueError, match=r"^R9\.4"):
        Game(seed=1, draw_limit=0)
