"""Refusals: an illegal action names its rule and changes nothing; malformed input is a
different error, and also changes nothing."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from arena.engine import (
    PASS,
    Bid,
    Card,
    CardSet,
    Discard,
    IllegalActionError,
    MalformedActionError,
    NameTrump,
    Play,
    Suit,
    parse_action,
    to_record,
)
from arena.engine.actions import Action
from arena.engine.game import Game

from .helpers import (
    SWEEP_HANDS,
    SWEEP_PLAY,
    TIE_HANDS,
    bid_and_name,
    fill_hands,
    play_cards,
    sweep_game,
    to_play,
)


def bidding() -> Game:
    game = Game.arranged(SWEEP_HANDS, 5)
    game.apply(Bid(4))
    return game


def naming() -> Game:
    game = Game.arranged(SWEEP_HANDS, 5)
    game.apply(Bid(6))
    return game


def discarding() -> Game:
    game = Game.arranged(fill_hands({0: "JD JK 5H 2C 3C 4C"}), 5)
    bid_and_name(game, 0, 3, Suit.HEARTS)
    return game


def dealer_discarding() -> Game:
    """SWEEP_HANDS: the dealer holds 9 trumps after taking the whole stock."""
    game = Game.arranged(SWEEP_HANDS, 5)
    bid_and_name(game, 0, 3, Suit.HEARTS)
    for _ in range(5):
        game.apply(Discard(CardSet()))
    return game


def hearts_led_spades_trump() -> Game:
    hands = fill_hands({0: "9H AS KS 2C 3C 4C", 1: "2H 5C 6C 7C 8C 9C"})
    game = to_play(hands, trump=Suit.SPADES)
    game.apply(Play(Card.parse("9H")))
    return game


def trump_led() -> Game:
    game = to_play(TIE_HANDS)
    game.apply(Play(Card.parse("AH")))
    return game


def over() -> Game:
    game = sweep_game(3, scores=(16, 0, 0))
    play_cards(game, SWEEP_PLAY)
    assert game.is_over
    return game


def cards(text: str) -> Discard:
    return Discard(CardSet.parse(text))


# (situation, action, the message starts with)
ILLEGAL: list[tuple[Callable[[], Game], Action, str]] = [
    (bidding, Bid(4), "R4.2: a bid must be higher than 4"),
    (bidding, Bid(3), "R4.2: a bid must be higher"),
    (bidding, Play(Card.parse("2C")), "R4.2: seat 1 must make a bid decision"),
    (bidding, NameTrump(Suit.HEARTS), "R4.2: "),
    (naming, PASS, "R5.1: seat 0 must make a trump decision"),
    (naming, cards(""), "R5.1: "),
    (discarding, cards("JD"), "R5.2: may not discard a trump"),
    (discarding, cards("JK 2C"), "R5.2: may not discard a trump"),
    (discarding, cards("2C 3C 4C 5H"), "R5.2: "),
    (discarding, cards("AS"), "R5.2: seat 0 does not hold"),
    (discarding, Bid(5), "R5.2: "),
    (
        dealer_discarding,
        cards("AD 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"),  # the 14 non-trumps only
        "R5.3: the dealer must discard exactly 17 cards, not 14",
    ),
    (
        dealer_discarding,
        cards("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 3H 4H 5H 6H"),  # keeps AD
        "R5.4: ",
    ),
    (
        dealer_discarding,
        cards("AD 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 3H 4H JK"),  # drops the joker
        "R5.4: the dealer may not discard JK",
    ),
    (hearts_led_spades_trump, Play(Card.parse("5C")), "R7.2: must follow hearts"),
    (trump_led, Play(Card.parse("4S")), "R7.2: must follow trump"),
    (trump_led, Play(Card.parse("AS")), "R7.2: seat 1 does not hold AS"),
    (trump_led, PASS, "R7.2: seat 1 must make a play decision"),
    (over, PASS, "R9.1: the game is over"),
    (over, Play(Card.parse("AH")), "R9.1: "),
]


@pytest.mark.parametrize(
    ("situation", "action", "prefix"),
    ILLEGAL,
    ids=[f"{s.__name__}-{a}" for s, a, _ in ILLEGAL],
)
def test_R7_2_R4_2_R5_2_R5_4_illegal_action_names_its_rule_and_changes_nothing(
    situation: Callable[[], Game], action: Action, prefix: str
) -> None:
    """An illegal action raises IllegalActionError whose message starts with the rule id
    (R4.2, R5.1-R5.4, R7.2, R9), and the game, its record and its events are unchanged."""
    game = situation()
    before = to_record(game)
    state = (game.to_act, game.phase, list(game.hands), list(game.stock), game.decisions)
    events = len(game.events)
    with pytest.raises(IllegalActionError) as info:
        game.apply(action)
    message = str(info.value)
    assert message.startswith(prefix), message
    assert message.startswith(info.value.rule + ": ")
    assert to_record(game) == before
    assert (game.to_act, game.phase, list(game.hands), list(game.stock), game.decisions) == state
    assert len(game.events) == events


MALFORMED_INPUT: list[Callable[[], object]] = [
    lambda: Card.parse("XX"),
    lambda: parse_action("fly"),
    lambda: Bid(9),
    lambda: Suit.parse("Z"),
    lambda: CardSet.parse("AH AH"),
]


@pytest.mark.parametrize("make", MALFORMED_INPUT, ids=["card", "action", "bid", "suit", "set"])
def test_malformed_input_is_not_an_illegal_action(make: Callable[[], object]) -> None:
    with pytest.raises(MalformedActionError) as info:
        make()
    assert not isinstance(info.value, IllegalActionError)


@pytest.mark.parametrize(
    "action",
    ["pass", None, Play("AH"), Play(None), Discard("2C"), NameTrump("H")],  # type: ignore[arg-type]
    ids=["str", "None", "play-str", "play-None", "discard-str", "trump-str"],
)
def test_malformed_objects_through_apply_change_nothing(action: object) -> None:
    """Game.apply raises MalformedActionError (not a crash) for objects that are not well
    formed actions, whatever the phase, and leaves the game as it was."""
    for situation in (bidding, naming, discarding, trump_led):
        game = situation()
        before = to_record(game)
        with pytest.raises((MalformedActionError, IllegalActionError)) as info:
            game.apply(action)  # type: ignore[arg-type]
        if situation is trump_led and isinstance(action, Play):
            assert isinstance(info.value, MalformedActionError)
        if situation is discarding and isinstance(action, Discard):
            assert isinstance(info.value, MalformedActionError)
        if situation is naming and isinstance(action, NameTrump):
            assert isinstance(info.value, MalformedActionError)
        if not isinstance(action, Play | Discard | NameTrump):
            assert isinstance(info.value, MalformedActionError)
        assert to_record(game) == before
