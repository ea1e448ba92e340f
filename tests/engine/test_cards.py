"""Cards, suits and card sets: the pack (R2.1), colours (R2.2), trump geometry (R2.3-R2.5),
card values (R2.6) and the text forms."""

from __future__ import annotations

import pytest

from arena.engine import (
    CARDS,
    JOKER,
    Card,
    CardSet,
    IllegalActionError,
    MalformedActionError,
    Suit,
    left_bauer,
    right_bauer,
)
from arena.engine.cards import effective_suit, game_value

from .helpers import ALL_TEXTS, VALUES, ref_trump_order

# --- text forms -------------------------------------------------------------------------


@pytest.mark.parametrize("text", ALL_TEXTS)
def test_card_parse_format_round_trip(text: str) -> None:
    card = Card.parse(text)
    assert str(card) == text
    assert Card.parse(text.lower()) is card
    assert CARDS[card.index] is card


def test_R2_1_the_pack_has_53_distinct_cards() -> None:
    """R2.1: a 52-card deck plus one joker."""
    assert len(CARDS) == 53
    assert len({str(c) for c in CARDS}) == 53
    assert sorted(str(c) for c in CARDS) == sorted(ALL_TEXTS)
    assert [c for c in CARDS if c.is_joker] == [JOKER]
    for suit in Suit:
        assert sum(1 for c in CARDS if c.suit is suit) == 13


@pytest.mark.parametrize(
    ("text", "expected"),
    [("10H", "TH"), ("10s", "TS"), (" th ", "TH"), ("jk", "JK"), ("JK", "JK"), ("ac", "AC")],
)
def test_card_parse_accepts_variants(text: str, expected: str) -> None:
    assert str(Card.parse(text)) == expected


@pytest.mark.parametrize("text", ["XX", "", "1H", "11H", "JX", "AHH", "K", "JJ", "0H", "J K"])
def test_card_parse_rejects_malformed(text: str) -> None:
    with pytest.raises(MalformedActionError) as info:
        Card.parse(text)
    assert not isinstance(info.value, IllegalActionError)


@pytest.mark.parametrize(
    ("text", "suit"),
    [
        ("C", Suit.CLUBS),
        ("d", Suit.DIAMONDS),
        ("H", Suit.HEARTS),
        ("s", Suit.SPADES),
        ("hearts", Suit.HEARTS),
        ("CLUBS", Suit.CLUBS),
        (" Spades ", Suit.SPADES),
    ],
)
def test_suit_parse(text: str, suit: Suit) -> None:
    assert Suit.parse(text) is suit
    assert Suit.parse(str(suit)) is suit


@pytest.mark.parametrize("text", ["X", "", "heart", "K", "HS"])
def test_suit_parse_rejects_malformed(text: str) -> None:
    with pytest.raises(MalformedActionError):
        Suit.parse(text)


def test_cardset_parse_and_str() -> None:
    cards = CardSet.parse("AH, 2H JK 10c")
    assert len(cards) == 4
    assert {str(c) for c in cards} == {"AH", "2H", "JK", "TC"}
    assert Card.parse("JK") in cards and Card.parse("3H") not in cards
    # str lists the cards in card order (clubs, diamonds, hearts, spades, joker)
    assert str(cards) == "TC 2H AH JK"
    assert CardSet.parse(str(cards)) == cards
    assert str(CardSet()) == "" and CardSet.parse("") == CardSet() and not CardSet()
    full = CardSet.parse(" ".join(ALL_TEXTS))
    assert len(full) == 53 and str(full) == " ".join(ALL_TEXTS)


def test_cardset_operations() -> None:
    a, b = CardSet.parse("AH KH QH"), CardSet.parse("QH JK")
    assert a | b == CardSet.parse("AH KH QH JK")
    assert a & b == CardSet.parse("QH")
    assert a - b == CardSet.parse("AH KH")
    assert CardSet.parse("KH").issubset(a) and not b.issubset(a)
    assert CardSet.of([Card.parse("QH"), JOKER]) == b
    assert hash(a) == hash(CardSet.parse("QH KH AH"))


@pytest.mark.parametrize("text", ["AH AH", "10H TH", "JK jk", "AH XX"])
def test_cardset_parse_rejects_duplicates_and_bad_cards(text: str) -> None:
    with pytest.raises(MalformedActionError):
        CardSet.parse(text)


# --- R2.2 - R2.6 ------------------------------------------------------------------------


def test_R2_2_colours() -> None:
    """R2.2: spades and clubs black, hearts and diamonds red; bauers pair by colour."""
    assert not Suit.SPADES.is_red and not Suit.CLUBS.is_red
    assert Suit.HEARTS.is_red and Suit.DIAMONDS.is_red
    assert Suit.HEARTS.same_colour is Suit.DIAMONDS and Suit.DIAMONDS.same_colour is Suit.HEARTS
    assert Suit.SPADES.same_colour is Suit.CLUBS and Suit.CLUBS.same_colour is Suit.SPADES


@pytest.mark.parametrize(
    ("trump", "right", "left"),
    [("H", "JH", "JD"), ("D", "JD", "JH"), ("S", "JS", "JC"), ("C", "JC", "JS")],
)
def test_R2_3_bauers(trump: str, right: str, left: str) -> None:
    """R2.3: the right bauer is the jack of trump, the left the other jack of its colour."""
    suit = Suit.parse(trump)
    assert str(right_bauer(suit)) == right
    assert str(left_bauer(suit)) == left


@pytest.mark.parametrize("trump", "CDHS")
def test_R2_3_R2_4_trump_suit_has_15_cards_and_printed_suit_of_left_bauer_12(trump: str) -> None:
    """R2.3: 15 trumps (13 of the suit, the left bauer and the joker); R2.4: the left
    bauer's printed suit keeps 12 cards; the other two suits keep 13."""
    suit = Suit.parse(trump)
    by_suit: dict[str, set[str]] = {s: set() for s in "CDHS"}
    for card in CARDS:
        by_suit[str(effective_suit(card, suit))].add(str(card))
    assert by_suit[trump] == set(ref_trump_order(trump))
    assert len(by_suit[trump]) == 15
    left = str(left_bauer(suit))
    assert len(by_suit[left[1]]) == 12 and left not in by_suit[left[1]]
    for other in set("CDHS") - {trump, left[1]}:
        assert len(by_suit[other]) == 13


def test_R2_6_card_values_total_81() -> None:
    """R2.6: Ace 4, King 3, Queen 2, each Jack 1, Ten 10, Joker 1, others 0; 81 in all."""
    for card in CARDS:
        text = str(card)
        expected = 1 if text == "JK" else VALUES.get(text[0], 0)
        assert game_value(card.bit) == expected, text
    assert game_value(CardSet.parse(" ".join(ALL_TEXTS)).mask) == 81
    assert game_value(CardSet.parse("AH KH QH JH JD TH 9H JK").mask) == 4 + 3 + 2 + 1 + 1 + 10 + 1
