"""Seats, teams and the dealer (R1), the deal (R3.1) and the bidding (R4), up to the
naming of trump (R5.1)."""

from __future__ import annotations

import pytest

from arena.engine import (
    PASS,
    TRUMPS,
    Action,
    Bid,
    DecisionKind,
    GameKey,
    IllegalActionError,
    NameTrump,
    Pass,
    Suit,
    deal_cards,
    left_of,
    team_of,
)
from arena.engine.events import BidMade, DealStarted, DealThrownIn, TrumpNamed
from arena.engine.game import Game, Phase, first_dealer

from .helpers import FULL, SWEEP_HANDS, SWEEP_PLAY, mask_of_indices, play_cards, sweep_game


def test_R1_1_seats_and_left() -> None:
    """R1.1: six seats 0..5; the left of seat s is s+1 mod 6."""
    assert [left_of(s) for s in range(6)] == [1, 2, 3, 4, 5, 0]


def test_R1_2_teams_partners_opposite_never_neighbours() -> None:
    """R1.2: team t holds seats t and t+3; no two partners sit side by side."""
    assert [team_of(s) for s in range(6)] == [0, 1, 2, 0, 1, 2]
    for seat in range(6):
        assert team_of(seat) == team_of((seat + 3) % 6)
        assert team_of(seat) != team_of(left_of(seat))


def test_R1_3_first_dealer_comes_from_the_seed() -> None:
    """R1.3: the first dealer is drawn from the seed: the same seed, the same dealer, and
    over many seeds every seat deals first."""
    dealers = {seed: Game(seed=seed).dealer for seed in range(200)}
    assert all(
        Game(seed=seed).dealer == dealers[seed] == first_dealer(GameKey.from_seed(seed))
        for seed in range(50)
    )
    assert set(dealers.values()) == set(range(6))
    counts = [list(dealers.values()).count(s) for s in range(6)]
    assert min(counts) >= 15  # roughly uniform (expected 33 each)


@pytest.mark.parametrize("seed", [0, 1, 2, 17])
def test_R3_1_six_cards_each_and_a_stock_of_17(seed: int) -> None:
    """R3.1: each seat gets 6 cards, 17 are left in the stock; all 53 cards, once each."""
    game = Game(seed=seed)
    assert [len(game.hand(s)) for s in range(6)] == [6] * 6
    assert len(game.stock) == 17 and len(set(game.stock)) == 17
    union = mask_of_indices(game.stock)
    for seat in range(6):
        assert union & game.hands[seat] == 0
        union |= game.hands[seat]
    assert union == FULL
    hands, stock = deal_cards(GameKey.from_seed(seed), 1)
    assert hands == game.hands and stock == game.stock


@pytest.mark.parametrize("dealer", range(6))
def test_R4_1_bidding_starts_left_of_dealer_dealer_last_one_turn_each(dealer: int) -> None:
    """R4.1: bidding goes once round from the dealer's left; the dealer speaks last."""
    game = Game.arranged(SWEEP_HANDS, dealer)
    spoken = []
    while game.phase is Phase.BIDDING and game.deal_number == 1:
        spoken.append(game.to_act)
        game.apply(Bid(3) if game.to_act == dealer else PASS)
    assert spoken == [(dealer + k) % 6 for k in range(1, 7)]
    assert game.phase is Phase.TRUMP and game.to_act == dealer
    assert game.deal.bids == [((dealer + k) % 6, 0) for k in range(1, 6)] + [(dealer, 3)]


def test_R4_2_legal_bids_are_pass_or_higher_up_to_six() -> None:
    """R4.2: pass, or a whole number 3..6 above the highest bid so far."""
    game = Game.arranged(SWEEP_HANDS, 5)
    assert list(game.legal()) == [PASS, Bid(3), Bid(4), Bid(5), Bid(6)]
    game.apply(Bid(4))
    assert list(game.legal()) == [PASS, Bid(5), Bid(6)]
    game.apply(PASS)
    assert list(game.legal()) == [PASS, Bid(5), Bid(6)]
    game.apply(Bid(5))
    assert list(game.legal()) == [PASS, Bid(6)]


@pytest.mark.parametrize(("first", "second"), [(4, 4), (4, 3), (5, 4), (3, 3)])
def test_R4_2_a_bid_not_higher_is_refused(first: int, second: int) -> None:
    """R4.2: a bid must be higher than the highest so far; refusing changes nothing."""
    game = Game.arranged(SWEEP_HANDS, 5)
    game.apply(Bid(first))
    before = (game.to_act, list(game.deal.bids), game.high_bid)
    with pytest.raises(IllegalActionError) as info:
        game.apply(Bid(second))
    assert info.value.rule == "R4.2" and str(info.value).startswith("R4.2: ")
    assert (game.to_act, list(game.deal.bids), game.high_bid) == before


@pytest.mark.parametrize("position", range(6))
def test_R4_3_a_bid_of_six_ends_the_bidding_at_once(position: int) -> None:
    """R4.3: after a 6 the players after it do not speak."""
    dealer = 2
    game = Game.arranged(SWEEP_HANDS, dealer)
    bidder = (dealer + 1 + position) % 6
    for _ in range(position):
        game.apply(PASS)
    game.apply(Bid(6))
    assert game.phase is Phase.TRUMP and game.to_act == bidder
    assert len(game.deal.bids) == position + 1
    assert game.deal.bidder == bidder and game.deal.contract == 6


def test_R4_4_highest_bidder_is_the_bidder_and_names_trump_R5_1() -> None:
    """R4.4: bidding ends when the dealer has spoken; the highest bidder is the bidder, its
    bid the contract. R5.1: the bidder then names one of the four suits."""
    game = Game.arranged(SWEEP_HANDS, 5)
    actions: list[Action] = [Bid(3), PASS, Bid(5), PASS, PASS, PASS]
    for action in actions:
        assert game.phase is Phase.BIDDING
        game.apply(action)
    assert game.phase is Phase.TRUMP
    assert game.deal.bidder == 2 and game.deal.contract == 5 and game.to_act == 2
    assert team_of(game.deal.bidder) == 2
    assert list(game.legal()) == list(TRUMPS)
    assert {a.suit for a in TRUMPS} == set(Suit)
    game.apply(NameTrump(Suit.SPADES))
    assert game.trump is Suit.SPADES
    assert game.decision_kind is DecisionKind.DISCARD
    assert TrumpNamed(2, Suit.SPADES, 5) in game.events
    with pytest.raises(IllegalActionError, match=r"^R5\.2"):
        game.apply(NameTrump(Suit.HEARTS))  # R5.1: trump is named once


@pytest.mark.parametrize("dealer", [0, 3, 5])
def test_R4_5_R1_3_all_pass_throws_in_same_dealer_next_deal_number(dealer: int) -> None:
    """R4.5: if all six pass the cards are thrown in, nothing is scored, and the same
    dealer deals the next deal number (R1.3, R3.1a)."""
    game = Game.arranged(SWEEP_HANDS, dealer, scores=(4, -3, 7), seed=99)
    for _ in range(6):
        game.apply(Pass())
    assert game.deals[0].thrown_in and game.deals[0].bidder is None
    assert game.deal_number == 2 and game.dealer == dealer
    assert game.phase is Phase.BIDDING and game.to_act == left_of(dealer)
    assert game.scores == [4, -3, 7]
    hands, stock = deal_cards(GameKey.from_seed(99), 2)
    assert game.hands == hands and game.stock == stock
    tail = game.events[-9:]
    assert tail[0] == BidMade(dealer, 0)
    assert tail[1] == DealThrownIn(1) and tail[2] == DealStarted(2, dealer)


def test_R1_3_after_a_scored_deal_the_deal_passes_left() -> None:
    """R1.3: after a scored deal the next dealer is the left of the last one."""
    game = sweep_game()
    play_cards(game, SWEEP_PLAY)
    assert game.deals[0].categories and game.deal_number == 2
    assert game.dealer == 0 and game.deal.dealer == 0
    assert game.to_act == 1  # R4.1
