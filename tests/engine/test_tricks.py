"""The play of the tricks: who wins (R7.3 with R2.3-R2.5), who must follow what (R7.2),
who leads (R7.1, R7.3) and when the deal ends (R7.4)."""

from __future__ import annotations

import itertools

import pytest

from arena.engine import Card, CardSet, IllegalActionError, Play, Suit, winning_position
from arena.engine.game import Phase

from .helpers import (
    SAME_COLOUR,
    TIE_HANDS,
    TIE_PLAY,
    TIE_WINNERS,
    fill_hands,
    play_cards,
    ref_trump_order,
    to_play,
)


def winner(trump: str, cards: str) -> int:
    return winning_position([Card.parse(t) for t in cards.split()], Suit.parse(trump))


# (trump, cards in play order from the lead, position of the winning card, why)
TRICKS = [
    ("H", "JH JD", 0, "R2.3: right bauer beats left bauer"),
    ("H", "JD JH", 1, "R2.3: right bauer beats left bauer"),
    ("H", "JD TH", 0, "R2.3: left bauer beats the ten"),
    ("H", "TH JD", 1, "R2.3: left bauer beats the ten"),
    ("H", "AH JH", 0, "R2.3: ace of trump beats the right bauer"),
    ("H", "JH AH", 1, "R2.3: ace of trump beats the right bauer"),
    ("H", "JH KH", 1, "R2.3: king of trump beats the right bauer"),
    ("H", "JD QH", 1, "R2.3: queen of trump beats the left bauer"),
    ("H", "2H JK", 0, "R2.3: the joker is the lowest trump"),
    ("H", "JK 2H", 1, "R2.3: the joker is the lowest trump"),
    ("H", "AS JK", 1, "R2.4/R7.3: the joker is a trump and beats any non-trump"),
    ("H", "JK AS KS", 0, "R2.4/R7.2: a led joker calls for trump; aces off-suit lose"),
    ("H", "JD AD KD", 0, "R2.4: a led left bauer is trump, not a diamond"),
    ("H", "JD AD QH", 2, "R2.4: a led left bauer calls trump; a higher trump wins"),
    ("H", "TD AD JD", 2, "R2.4: the left bauer trumps its printed suit"),
    ("H", "5D JD", 1, "R2.4: the left bauer does not count as a diamond"),
    ("H", "2S AC", 0, "R7.3: off-suit never wins"),
    ("H", "2S AC AD KC 3S", 4, "R7.3: highest card of the suit led"),
    ("H", "KS AS 2H", 2, "R7.3: the lowest trump beats every plain card"),
    ("H", "KS AS JK AD", 2, "R7.3: the joker beats every plain card"),
    ("H", "KS AS JK 2H JD JH", 5, "R2.3: right bauer tops a trick of trumps"),
    ("H", "AH KH QH JH JD TH", 0, "R2.3: the ace is the top trump"),
    ("H", "9H TH", 1, "R2.3: ten above nine"),
    ("H", "JS QS", 1, "R2.5: plain queen beats plain jack"),
    ("H", "TS JS", 1, "R2.5: plain jack beats plain ten"),
    ("H", "JC AC", 1, "R2.5: a black jack is a plain card when hearts are trump"),
    ("D", "JH AH", 0, "R2.4: with diamonds trump the jack of hearts is the left bauer"),
    ("D", "5H JH", 1, "R2.4: the left bauer leaves hearts"),
    ("D", "JD JH AD", 2, "R2.3: with diamonds trump the ace beats both bauers"),
    ("S", "JC JS", 1, "R2.3: spades trump: right bauer JS beats left bauer JC"),
    ("S", "AC JC", 1, "R2.4: spades trump: JC is trump, not a club"),
    ("S", "JK KC", 0, "R2.4: led joker is trump, the king of clubs is not"),
    ("C", "JS AS", 0, "R2.4: clubs trump: JS is the left bauer"),
    ("C", "AS KS 2C", 2, "R7.3: clubs trump: 2C trumps the spade aces"),
]


@pytest.mark.parametrize(
    ("trump", "cards", "expected", "why"), TRICKS, ids=[f"{t}:{c}" for t, c, _, _ in TRICKS]
)
def test_R7_3_R2_3_R2_4_R2_5_trick_winner_table(
    trump: str, cards: str, expected: int, why: str
) -> None:
    """R7.3: a trick goes to its highest trump, else its highest card of the suit led;
    R2.3 ranks the trumps; R2.4 makes the left bauer and joker trumps; R2.5 plain suits."""
    assert winner(trump, cards) == expected, why


@pytest.mark.parametrize("trump", "CDHS")
def test_R2_3_every_pair_of_trumps_ranks_as_listed(trump: str) -> None:
    """R2.3: A, K, Q, right bauer, left bauer, 10 … 2, joker, whichever is led."""
    order = ref_trump_order(trump)
    assert len(order) == 15
    for high, low in itertools.combinations(order, 2):
        assert winner(trump, f"{high} {low}") == 0, (high, low)
        assert winner(trump, f"{low} {high}") == 1, (high, low)


@pytest.mark.parametrize("trump", "CDHS")
def test_R2_5_plain_suits_rank_ace_high_to_two(trump: str) -> None:
    """R2.5: every non-trump suit ranks A K Q J 10 9 … 2 (its jack stays, unless it is the
    left bauer, which has left the suit)."""
    left = f"J{SAME_COLOUR[trump]}"
    for suit in set("CDHS") - {trump}:
        cards = [r + suit for r in "AKQJT98765432" if r + suit != left]
        for high, low in itertools.combinations(cards, 2):
            assert winner(trump, f"{high} {low}") == 0
            assert winner(trump, f"{low} {high}") == 1
            # a card of another plain suit, however high, never wins
            other = next(s for s in "CDHS" if s not in (suit, trump))
            assert winner(trump, f"{low} A{other}") == 0


# --- must follow (R7.2) -----------------------------------------------------------------

# (trump, seat 0's hand, card led by seat 0, seat 1's hand, the cards seat 1 may play, why)
FOLLOWS = [
    (
        "H",
        "JD AH KH 9S 8S 7S",
        "JD",
        "AD 5D 2C 3C 4C 5C",
        "AD 5D 2C 3C 4C 5C",
        "R7.2: a led left bauer calls trump; holding diamonds but no trump, anything goes",
    ),
    (
        "H",
        "JD AH KH 9S 8S 7S",
        "JD",
        "AD 5D 2H 3C 4C 5C",
        "2H",
        "R7.2: a led left bauer calls trump; holding a trump, it must be played",
    ),
    (
        "H",
        "JK AH KH 9S 8S 7S",
        "JK",
        "3H 5D 2C 3C 4C 5C",
        "3H",
        "R7.2: a led joker calls trump",
    ),
    (
        "H",
        "JK AH KH 9S 8S 7S",
        "JK",
        "AD KD 2C 3C 4C 5C",
        "AD KD 2C 3C 4C 5C",
        "R7.2: a led joker with no trump held: anything goes",
    ),
    (
        "H",
        "5D AH KH 9S 8S 7S",
        "5D",
        "JD 2C 3C 4C 6C 7C",
        "JD 2C 3C 4C 6C 7C",
        "R2.4: the left bauer cannot follow diamonds, so the seat cannot follow",
    ),
    (
        "H",
        "5D AH KH 9S 8S 7S",
        "5D",
        "JD 7D 3C 4C 6C 7C",
        "7D",
        "R2.4: holding JD and 7D, diamonds led: only 7D follows",
    ),
    (
        "H",
        "AH KH QH 9S 8S 7S",
        "AH",
        "JD 2C 3C 4C 6C 7C",
        "JD",
        "R2.4: the left bauer follows a trump lead",
    ),
    (
        "H",
        "KH 4H QH 9S 8S 7S",
        "KH",
        "JK 2C 3C 4C 6C 7C",
        "JK",
        "R2.4: the joker follows a trump lead",
    ),
    (
        "H",
        "9S AH KH 8S 7S 6S",
        "9S",
        "2S AS 2H JK 3C 4C",
        "2S AS",
        "R7.2: spades led, spades held: follow spades, no trumping",
    ),
    (
        "H",
        "9S AH KH 8S 7S 6S",
        "9S",
        "2H JK 3C 4C 5C AD",
        "2H JK 3C 4C 5C AD",
        "R7.2: void in the suit led: any card, trump included",
    ),
    (
        "S",
        "5C AS KS 9H 8H 7H",
        "5C",
        "JC AC 2D 3D 4D 5D",
        "AC",
        "R2.4: clubs led with spades trump: JC is a trump, AC follows",
    ),
    (
        "D",
        "AD KD QD 9S 8S 7S",
        "AD",
        "JH AH KH QH 2C 3C",
        "JH",
        "R2.4: diamonds trump: JH is the only trump held",
    ),
]


@pytest.mark.parametrize(
    ("trump", "hand0", "lead", "hand1", "allowed", "why"),
    FOLLOWS,
    ids=[f"{t}:{lead}/{h1}" for t, _, lead, h1, _, _ in FOLLOWS],
)
def test_R7_2_must_follow_table(
    trump: str, hand0: str, lead: str, hand1: str, allowed: str, why: str
) -> None:
    """R7.2 with R2.4: what seat 1 may play after seat 0 leads; every other card it holds
    is refused with an R7.2 error and leaves the game as it was."""
    game = to_play(fill_hands({0: hand0, 1: hand1}), trump=Suit.parse(trump))
    assert game.to_act == 0
    game.apply(Play(Card.parse(lead)))
    assert game.to_act == 1
    legal = {str(a) for a in game.legal()}
    assert legal == {f"play {c}" for c in allowed.split()}, why
    assert CardSet(game.legal_play_mask()) == CardSet.parse(allowed)
    for card in CardSet.parse(hand1) - CardSet.parse(allowed):
        with pytest.raises(IllegalActionError) as info:
            game.apply(Play(card))
        assert str(info.value).startswith("R7.2: must follow"), why
        assert game.to_act == 1 and card in game.hand(1)
    for card in CardSet.parse(allowed):
        trial = to_play(fill_hands({0: hand0, 1: hand1}), trump=Suit.parse(trump))
        trial.apply(Play(Card.parse(lead)))
        trial.apply(Play(card))
        assert trial.to_act == 2


def test_R7_2_revoke_message_names_the_suit() -> None:
    """R7.2: the error says which suit must be followed."""
    game = to_play(fill_hands({0: "AH KH QH 9S 8S 7S", 1: "2H 3C 4C 5C 6C 7C"}))
    game.apply(Play(Card.parse("AH")))
    with pytest.raises(IllegalActionError, match=r"^R7\.2: must follow trump"):
        game.apply(Play(Card.parse("3C")))
    game = to_play(fill_hands({0: "AH KH QH 9S 8S 7S", 1: "2S 3C 4C 5C 6C 2H"}))
    game.apply(Play(Card.parse("9S")))
    with pytest.raises(IllegalActionError, match=r"^R7\.2: must follow spades"):
        game.apply(Play(Card.parse("2H")))


def test_R7_2_cannot_play_a_card_not_held() -> None:
    """R7.2: a seat plays one of its own cards."""
    game = to_play(fill_hands({0: "AH KH QH 9S 8S 7S"}))
    with pytest.raises(IllegalActionError, match=r"^R7\.2"):
        game.apply(Play(Card.parse("2C")))


@pytest.mark.parametrize("bidder", [0, 2, 4])
def test_R7_1_the_bidder_leads_any_card(bidder: int) -> None:
    """R7.1: the bidder leads to the first trick, any card it holds."""
    game = to_play(TIE_HANDS, bidder=bidder)
    assert game.phase is Phase.PLAY and game.to_act == bidder
    assert {str(a) for a in game.legal()} == {  # type: ignore[union-attr]
        f"play {c}" for c in TIE_HANDS[bidder].split()
    }


def test_R7_3_R7_4_R1_1_trick_winner_leads_and_deal_ends_after_six() -> None:
    """R7.3: the winner of each trick leads the next; R1.1: play goes to seat s+1 mod 6;
    R7.4: after six tricks every hand is empty and the deal is over."""
    game = to_play(TIE_HANDS)
    plays = TIE_PLAY.split()
    leader = 0
    for number in range(6):
        assert game.to_act == leader
        for k in range(6):
            assert game.to_act == (leader + k) % 6
            assert game.current_trick == (
                leader,
                tuple(Card.parse(t) for t in plays[6 * number : 6 * number + k]),
            )
            game.apply(Play(Card.parse(plays[6 * number + k])))
        trick = game.deals[0].tricks[number]
        assert trick.leader == leader and trick.winner == TIE_WINNERS[number]
        assert [str(c) for c in trick.cards] == plays[6 * number : 6 * number + 6]
        assert trick.seat_of(0) == leader and trick.seat_of(5) == (leader + 5) % 6
        leader = TIE_WINNERS[number]
    deal = game.deals[0]
    assert len(deal.tricks) == 6
    # R7.4: the deal is over; a new one has begun with the next dealer.
    assert game.deal_number == 2 and game.phase is Phase.BIDDING
    assert deal.categories != {}


def test_R7_4_hands_empty_after_the_sixth_trick() -> None:
    """R7.4: every hand empties exactly with the sixth trick."""
    game = to_play(TIE_HANDS, draw_limit=1)
    plays = TIE_PLAY.split()
    play_cards(game, " ".join(plays[:35]))
    assert [len(game.hand(s)) for s in range(6)] == [0, 1, 0, 0, 0, 0]
    assert len(game.deal.tricks) == 5
    play_cards(game, plays[35])
    assert all(len(game.hand(s)) == 0 for s in range(6))
    assert game.is_over  # draw_limit 1: the game ends with this deal
