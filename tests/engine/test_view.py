"""What each seat is told (R10) and what stays hidden (R3.2)."""

from __future__ import annotations

import pytest

from arena.engine import CardSet, Discard, Suit, view
from arena.engine.actions import DecisionKind
from arena.engine.events import (
    BidMade,
    CardPlayed,
    DealScored,
    DealStarted,
    Exchanged,
    GameEnded,
    HandDealt,
    OwnExchange,
    TrickWon,
    TrumpNamed,
)
from arena.engine.game import Game, Phase

from .helpers import (
    SWEEP_DEALER_KEEPS,
    SWEEP_HANDS,
    bid_and_name,
    cards_mentioned,
    events_for,
    knowable,
    mask,
    mask_of_indices,
    play_cards,
)

# SWEEP_HANDS with the spades on top of the stock: seat 1 exchanges 2C 3C for 7S 8S, seat 3
# AC 2D 3D for 9S TS JS, and the dealer picks up QS KS AS 2H-9H JK (12 cards, 9 trumps) and
# keeps SWEEP_DEALER_KEEPS. Seat 0 then leads its six trumps and wins every trick.
EXCHANGE_STOCK = "7S 8S 9S TS JS QS KS AS 2H 3H 4H 5H 6H 7H 8H 9H JK"
EXCHANGE_PLAY = (
    "AH 4C 8C 4D 7D JK "
    "KH 5C 9C 5D 8D 2H "
    "QH 6C TC 6D 9D 6H "
    "JH 7C JC 9S TD 7H "
    "JD 7S QC TS QD 8H "
    "TH 8S KC JS KD 9H"
)


def exchanged_sweep() -> Game:
    """Seats 1 and 3 have exchanged; the dealer is to discard (draw_limit 1)."""
    game = Game.arranged(SWEEP_HANDS, 5, stock=EXCHANGE_STOCK, draw_limit=1)
    bid_and_name(game, 0, 4, Suit.HEARTS)
    for out in ["", "2C 3C", "", "AC 2D 3D", ""]:
        game.apply(Discard(CardSet.parse(out)))
    return game


def exchanged_sweep_in_play() -> Game:
    game = exchanged_sweep()
    game.apply(Discard(game.hand(5) - CardSet.parse(SWEEP_DEALER_KEEPS)))
    return game


def test_R3_2_R10_at_the_deal_each_seat_sees_its_own_six_cards_only() -> None:
    """R3.2: a player sees only their own cards; R10: told their own six cards."""
    game = Game(seed=21)
    for seat in range(6):
        v = view(game, seat)
        assert v.hand == game.hand(seat) and len(v.hand) == 6
        assert cards_mentioned(v) == game.hands[seat]
        dealt = [e for e in events_for(game, seat) if isinstance(e, HandDealt)]
        assert dealt == [HandDealt(seat, game.hand(seat))]
        assert cards_mentioned(events_for(game, seat)) == game.hands[seat]
        assert v.seat == seat and v.team == seat % 3 and v.dealer == game.dealer
        assert v.decision is DecisionKind.BID and v.to_act == (game.dealer + 1) % 6


def test_R3_2_R10_replacements_discards_and_stock_stay_hidden() -> None:
    """R5.2: the number exchanged is public, which cards is not; R3.2: the stock, every
    discard and every replacement are hidden from all but their holder; R10: the dealer
    alone is told the cards picked up."""
    game = exchanged_sweep()
    assert game.to_act == 5 and game.phase is Phase.DISCARD
    got = {1: mask("7S 8S"), 3: mask("9S TS JS")}  # from the top of the stock, in order
    pickup = mask_of_indices(game.deal.dealer_pickup)
    assert pickup.bit_count() == 12
    for seat in range(6):
        v = view(game, seat)
        assert v.exchanges == ((0, 0, 0), (1, 2, 2), (2, 0, 0), (3, 3, 3), (4, 0, 0))
        assert v.own_received.mask == (pickup if seat == 5 else got.get(seat, 0))
        others = 0
        for other in range(6):
            if other != seat:
                others |= game.hands[other]
        seen = cards_mentioned(v) | cards_mentioned(events_for(game, seat))
        assert seen & others == 0
        assert seen & ~knowable(game, 1, seat) == 0
        if seat != 5:
            assert seen & pickup == 0  # the stock the dealer took up
        if seat != 1:
            assert seen & mask("2C 3C 7S 8S") == 0  # seat 1's discards and replacements
        if seat != 3:
            assert seen & mask("AC 2D 3D 9S TS JS") == 0
    assert view(game, 5).hand_sizes == (6, 6, 6, 6, 6, 6 + 12)


def test_R10_the_whole_list_of_what_a_seat_is_told() -> None:
    """R10: seats and dealer, own cards, bids and passes, trump, exchange counts, own
    replacements, (dealer) the pick-up, cards played, trick winners, points, scores, end."""
    game = exchanged_sweep_in_play()
    play_cards(game, EXCHANGE_PLAY)
    assert game.is_over
    for seat in range(6):
        told = events_for(game, seat)
        kinds = [type(e) for e in told]
        expected = [DealStarted, HandDealt] + [BidMade] * 6 + [TrumpNamed]
        for who in range(6):
            if who == seat == game.deals[0].dealer:
                expected.append(OwnExchange)  # R10: the pick-up, before the dealer discards
            expected.append(Exchanged)
            if who == seat:
                expected.append(OwnExchange)  # even for an exchange of no cards
        for _ in range(6):
            expected += [CardPlayed] * 6 + [TrickWon]
        expected += [DealScored, GameEnded]
        assert kinds == expected, seat
        assert all(e.audience in (None, seat) for e in told)
        own = [e for e in told if isinstance(e, OwnExchange)]
        assert all(e.seat == seat for e in own)
        if seat == game.deals[0].dealer:
            pickup, discard = own
            assert pickup.received.mask == mask_of_indices(game.deals[0].dealer_pickup)
            assert not pickup.discarded and not discard.received
            assert discard.discarded.mask == game.deals[0].dealer_discard
        else:
            assert len(own) == 1
        scored = next(e for e in told if isinstance(e, DealScored))
        assert dict(scored.categories)["low"] == 2 and scored.points == (5, 0, 1)


def test_R10_view_during_play() -> None:
    """R10: every card played is public, in order; hand sizes are public."""
    game = exchanged_sweep_in_play()
    play_cards(game, "AH 4C 8C 4D 7D JK KH 5C")
    for seat in range(6):
        v = view(game, seat)
        assert v.phase is Phase.PLAY and v.decision is DecisionKind.PLAY
        assert v.trump is Suit.HEARTS and v.bidder == 0 and v.contract == 4
        assert len(v.tricks) == 1 and v.tricks[0].winner == 0
        assert v.trick_leader == 0
        assert [(s, str(c)) for s, c in v.trick_cards] == [(0, "KH"), (1, "5C")]
        assert v.hand_sizes == (4, 4, 5, 5, 5, 5)
        assert v.hand == game.hand(seat)
        assert v.exchanges[-1] == (5, 12, 12)  # the dealer: counts only
        assert v.to_act == 2


def test_R10_view_rejects_unknown_seat() -> None:
    with pytest.raises(ValueError, match=r"^R1\.1"):
        view(Game(seed=1), 6)
