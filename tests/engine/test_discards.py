"""Discards and the dealer's pick-up (R5.2-R5.5)."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import (
    CARDS,
    CardSet,
    Discard,
    IllegalActionError,
    Play,
    Suit,
    view,
)
from arena.engine.cards import PROTECTED_TRUMP_MASKS, TRUMP_MASKS
from arena.engine.events import Exchanged, OwnExchange
from arena.engine.game import Game, Phase

from .helpers import bid_and_name, fill_hands, mask, ref_trump_order

# Trump hearts, dealer 5. The dealer is dealt the five protected trumps (AH JH JD 2H JK)
# and 3H; the other seats hold no trump; the stock (top first) is 4H 5H 6H 7H 8H 9H TH QH
# KH then 7S 8S 9S TS JS QS KS AS.
PROTECTED_HANDS = [
    "2C 3C 4C 5C 6C 7C",
    "8C 9C TC JC QC KC",
    "AC 2D 3D 4D 5D 6D",
    "7D 8D 9D TD QD KD",
    "AD 2S 3S 4S 5S 6S",
    "AH JH JD 2H JK 3H",
]
STOCK_TRUMPS = "4H 5H 6H 7H 8H 9H TH QH KH"
STOCK_PLAIN = "7S 8S 9S TS JS QS KS AS"
PROTECTED = "AH JH JD 2H JK"


def protected_game(discards: list[str]) -> Game:
    """PROTECTED_HANDS, seat 0 bids 3 in hearts, seats 0-4 discard the given cards."""
    game = Game.arranged(PROTECTED_HANDS, 5)
    bid_and_name(game, 0, 3, Suit.HEARTS)
    for cards in discards:
        game.apply(Discard(CardSet.parse(cards)))
    return game


# --- non-dealers (R5.2) -----------------------------------------------------------------


def test_R5_2_non_dealer_rule_is_zero_to_three_non_trumps() -> None:
    """R5.2: a non-dealer may discard 0 to 3 cards, never a trump."""
    game = Game.arranged(fill_hands({0: "JD JK 5H 2C 3C 4C", 1: "2H 3H 4H 6H 7H 9S"}), 5)
    bid_and_name(game, 0, 3, Suit.HEARTS)
    rule = game.discard_rule()
    assert (rule.seat, rule.dealer, rule.rule) == (0, False, "R5.2")
    assert rule.may == CardSet.parse("2C 3C 4C") and rule.must == CardSet()
    assert (rule.min_count, rule.max_count) == (0, 3)
    assert rule.must_keep == CardSet.parse("JD JK 5H")
    assert rule.example() == CardSet()
    game.apply(Discard(CardSet()))
    rule = game.discard_rule()  # seat 1 holds a single non-trump
    assert rule.seat == 1 and rule.may == CardSet.parse("9S") and rule.max_count == 1


@pytest.mark.parametrize("cards", ["JD", "JK", "5H", "2C JD", "2C 3C JK", "5H JD JK"])
def test_R5_2_R2_4_non_dealer_may_not_discard_a_trump(cards: str) -> None:
    """R5.2, R2.4: no trump, the left bauer and the joker included, may be discarded."""
    game = Game.arranged(fill_hands({0: "JD JK 5H 2C 3C 4C"}), 5)
    bid_and_name(game, 0, 3, Suit.HEARTS)
    with pytest.raises(IllegalActionError) as info:
        game.apply(Discard(CardSet.parse(cards)))
    assert str(info.value).startswith("R5.2: may not discard a trump")
    assert game.to_act == 0 and game.hand(0) == CardSet.parse("JD JK 5H 2C 3C 4C")


def test_R5_2_more_than_three_or_cards_not_held_are_refused() -> None:
    """R5.2: at most three cards, and only cards the seat holds."""
    game = protected_game([])
    for cards in ["2C 3C 4C 5C", "2C 3C 4C 5C 6C 7C", "8C", "2C 8C"]:
        with pytest.raises(IllegalActionError, match=r"^R5\.2"):
            game.apply(Discard(CardSet.parse(cards)))
    assert game.to_act == 0 and len(game.stock) == 17


def test_R5_2_discard_order_and_replacements_from_the_top_of_the_stock() -> None:
    """R5.2: from the dealer's left, each non-dealer discards 0-3 and at once receives as
    many cards from the top of the stock, in order; the counts are public."""
    game = Game.arranged(PROTECTED_HANDS, 5)
    bid_and_name(game, 0, 3, Suit.HEARTS)
    plan = [(0, "2C 3C 4C", "4H 5H 6H"), (1, "8C 9C", "7H 8H"), (2, "", ""), (3, "7D", "9H")]
    for seat, out, back in plan:
        assert game.phase is Phase.DISCARD and game.to_act == seat
        before = game.hand(seat)
        game.apply(Discard(CardSet.parse(out)))
        assert game.hand(seat) == (before - CardSet.parse(out)) | CardSet.parse(back)
        assert len(game.hand(seat)) == 6
        assert game.events[-2] == Exchanged(seat, len(out.split()), len(back.split()))
        assert game.events[-1] == OwnExchange(seat, CardSet.parse(out), CardSet.parse(back))
        assert view(game, seat).own_received == CardSet.parse(back)
        assert view(game, seat).own_discarded == CardSet.parse(out)
        received = [str(CARDS[i]) for i in game.deal.exchanges[-1][2]]
        assert received == back.split()  # in stock order
    assert game.to_act == 4
    game.apply(Discard(CardSet.parse("AD 2S 3S")))
    assert game.hand(4) == CardSet.parse("4S 5S 6S TH QH KH")
    # R5.3: what is left goes to the dealer, who is next.
    assert game.to_act == 5 and game.stock == []
    assert [str(CARDS[i]) for i in game.deal.dealer_pickup] == STOCK_PLAIN.split()
    assert len(game.hand(5)) == 6 + 8


@pytest.mark.parametrize("dealer", [0, 2, 5])
def test_R5_2_discards_start_left_of_dealer_dealer_last(dealer: int) -> None:
    """R5.2-R5.3: non-dealers exchange in turn from the dealer's left; the dealer last."""
    game = Game.arranged(PROTECTED_HANDS, dealer)
    bid_and_name(game, (dealer + 1) % 6, 3, Suit.SPADES)
    order = []
    while game.phase is Phase.DISCARD:
        order.append(game.to_act)
        game.apply(Discard(game.discard_rule().example()))
    assert order == [(dealer + k) % 6 for k in range(1, 7)]


# --- the dealer (R5.3, R5.4) ------------------------------------------------------------


@pytest.mark.parametrize(
    ("discards", "held"),
    [(["", "", "", "", ""], 23), (["2C 3C 4C", "8C 9C TC", "AC 2D 3D", "7D 8D 9D", "AD 2S 3S"], 8)],
)
def test_R5_3_dealer_holds_8_to_23_and_discards_back_to_six(discards: list[str], held: int) -> None:
    """R5.3: the dealer takes the whole stock (between 8 and 23 cards in hand) and
    discards back to exactly six; any other count is refused with R5.3."""
    game = protected_game(discards)
    assert game.to_act == 5 and len(game.hand(5)) == held and game.stock == []
    rule = game.discard_rule()
    assert rule.dealer and rule.min_count == rule.max_count == held - 6
    for extra in (-1, 1):
        size = held - 6 + extra
        cards = CardSet.of(list(rule.may)[:size]) | rule.must
        if len(cards) == size:
            with pytest.raises(IllegalActionError, match=r"^R5\.3"):
                game.apply(Discard(cards))
    game.apply(Discard(rule.example()))
    assert len(game.hand(5)) == 6 and game.phase is Phase.PLAY


# (non-dealer discards, must, may minus must, why) for the PROTECTED_HANDS deal.
DEALER_RULES = [
    (
        ["2C 3C 4C", "8C 9C TC", "AC 2D 3D", "", ""],
        "",
        "7S 8S 9S TS JS QS KS AS",
        "6 trumps (KH went to seat 2), 8 spades picked up: all 8 non-trumps go",
    ),
    (
        ["2C 3C 4C", "8C 9C TC", "AC 2D", "", ""],
        "7S 8S 9S TS JS QS KS AS",
        "3H KH",
        "7 trumps: every non-trump goes and one unprotected trump (3H or KH)",
    ),
    (
        ["", "", "", "", ""],
        "7S 8S 9S TS JS QS KS AS",
        "3H 4H 5H 6H 7H 8H 9H TH QH KH",
        "15 trumps: every non-trump goes and 9 of the 10 unprotected trumps",
    ),
]


@pytest.mark.parametrize(("discards", "must", "spare", "why"), DEALER_RULES)
def test_R5_4_dealer_discard_rule_description(
    discards: list[str], must: str, spare: str, why: str
) -> None:
    """R5.4: the dealer keeps min(6, trumps held) trumps, discards a trump only when
    holding more than six, and never the Ace, bauers, 2 of trump or joker."""
    game = protected_game(discards)
    rule = game.discard_rule()
    assert rule.dealer and rule.seat == 5 and rule.rule == "R5.4", why
    assert rule.must == CardSet.parse(must), why
    assert rule.may - rule.must == CardSet.parse(spare), why
    assert rule.may == CardSet.parse(must) | CardSet.parse(spare)
    assert (rule.hand - rule.may) & CardSet.parse(PROTECTED) == CardSet.parse(PROTECTED)
    assert rule.min_count == rule.max_count == len(rule.hand) - 6


@pytest.mark.parametrize(("discards", "must", "spare", "why"), DEALER_RULES)
def test_R5_4_every_must_plus_any_choice_from_may_is_accepted(
    discards: list[str], must: str, spare: str, why: str
) -> None:
    """R5.4 (property, exhaustive here): every discard built as ``must`` plus any
    ``min_count - len(must)`` cards of ``may - must`` is accepted, and leaves the dealer
    with six cards holding min(6, trumps held) trumps and every protected card."""
    rule = protected_game(discards).discard_rule()
    trumps = TRUMP_MASKS[Suit.HEARTS]
    held_trumps = (rule.hand.mask & trumps).bit_count()
    choices = list(rule.may - rule.must)
    combos = list(itertools.combinations(choices, rule.min_count - len(rule.must)))
    assert len(combos) >= 1
    for combo in combos:
        cards = rule.must | CardSet.of(combo)
        assert rule.is_legal(cards)
        game = protected_game(discards)
        game.apply(Discard(cards))
        kept = game.hand(5)
        assert len(kept) == 6
        assert (kept.mask & trumps).bit_count() == min(6, held_trumps)
        assert CardSet.parse(PROTECTED).issubset(kept)


@pytest.mark.parametrize("card", PROTECTED.split())
def test_R5_4_the_protected_five_never_go(card: str) -> None:
    """R5.4: even holding 15 trumps the dealer may not discard A, right and left bauer,
    2 of trump or joker."""
    game = protected_game(["", "", "", "", ""])
    rule = game.discard_rule()
    others = list(rule.may - rule.must)[:8]  # 8 unprotected trumps + the protected card
    cards = rule.must | CardSet.of(others) | CardSet.parse(card)
    assert len(cards) == rule.min_count
    with pytest.raises(IllegalActionError) as info:
        game.apply(Discard(cards))
    assert str(info.value).startswith("R5.4: the dealer may not discard")
    assert card in str(info.value)
    assert game.to_act == 5 and len(game.hand(5)) == 23


@pytest.mark.parametrize("kept", ["7S", "AS", "JS"])
def test_R5_4_holding_seven_or_more_trumps_keeping_a_non_trump_is_refused(kept: str) -> None:
    """R5.4: holding more than six trumps the six kept cards must all be trumps, so a
    discard that keeps a non-trump (and so drops a tenth trump) is refused."""
    game = protected_game(["", "", "", "", ""])
    rule = game.discard_rule()
    cards = (rule.must - CardSet.parse(kept)) | (rule.may - rule.must)  # all 10 unprotected
    assert len(cards) == rule.min_count
    with pytest.raises(IllegalActionError) as info:
        game.apply(Discard(cards))
    assert str(info.value).startswith("R5.4: ")
    assert kept in str(info.value)


def test_R5_4_with_six_trumps_or_fewer_no_trump_may_go() -> None:
    """R5.4: the dealer with at most six trumps keeps them all."""
    game = protected_game(["2C 3C 4C", "8C 9C TC", "AC 2D 3D", "", ""])
    rule = game.discard_rule()
    assert rule.must == CardSet() and rule.may == CardSet.parse(STOCK_PLAIN)
    for trump in ["3H", "AH", "2H", "JK"]:
        cards = (rule.may - CardSet.parse("7S")) | CardSet.parse(trump)
        with pytest.raises(IllegalActionError, match=r"^R5\.4"):
            game.apply(Discard(cards))
    game.apply(Discard(rule.may))
    assert game.hand(5) == CardSet.parse("AH JH JD 2H JK 3H")


def test_R5_5_scoring_trumps_are_in_hands_when_play_begins() -> None:
    """R5.5: Ace, 2, both bauers and the joker are always in a hand when play begins."""
    game = protected_game(["", "", "", "", ""])
    game.apply(Discard(game.discard_rule().example()))
    assert game.phase is Phase.PLAY
    in_hands = 0
    for seat in range(6):
        in_hands |= game.hands[seat]
    assert in_hands & PROTECTED_TRUMP_MASKS[Suit.HEARTS] == mask(PROTECTED)
    assert set(PROTECTED.split()) <= set(ref_trump_order("H"))
    game.apply(Play(CARDS[0]))  # seat 0 (bidder) leads 2C


def ref_dealer_legal(hand: CardSet, cards: CardSet, trump: Suit) -> bool:
    """R5.3-R5.4 restated: six kept cards, min(6, T) of them trumps, protected kept."""
    if not cards.issubset(hand):
        return False
    kept = hand.mask & ~cards.mask
    trumps = TRUMP_MASKS[trump]
    protected = PROTECTED_TRUMP_MASKS[trump] & hand.mask
    held = (hand.mask & trumps).bit_count()
    return (
        kept.bit_count() == 6
        and (kept & trumps).bit_count() == min(6, held)
        and kept & protected == protected
    )


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    trump=st.sampled_from(list(Suit)),
    rng_seed=st.integers(0, 2**32),
)
def test_R5_4_dealer_discard_rule_matches_the_rule_text(
    seed: int, trump: Suit, rng_seed: int
) -> None:
    """R5.3-R5.4 (property): on random deals, with non-dealers discarding nothing (so the
    dealer often holds more than six trumps), the rule accepts exactly the discards the
    rule text allows, and every ``must`` + choice-from-``may`` discard is accepted."""
    rng = random.Random(rng_seed)
    game = Game(seed=seed)
    bid_and_name(game, (game.dealer + 1) % 6, 3, trump)
    while game.to_act != game.dealer:
        game.apply(Discard(CardSet()))
    rule = game.discard_rule()
    hand = rule.hand
    built = rule.must | CardSet.of(
        rng.sample(list(rule.may - rule.must), rule.min_count - len(rule.must))
    )
    assert ref_dealer_legal(hand, built, trump) and rule.is_legal(built)
    for _ in range(30):
        trial = CardSet.of(rng.sample(list(hand), rule.min_count))
        assert rule.is_legal(trial) == ref_dealer_legal(hand, trial, trump), str(trial)
    game.apply(Discard(built))
    assert game.phase is Phase.PLAY
