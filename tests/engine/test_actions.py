"""Actions and their text forms; malformed input is never an illegal action."""

from __future__ import annotations

import pytest

from arena.engine import (
    PASS,
    Bid,
    Card,
    CardSet,
    Discard,
    EngineError,
    IllegalActionError,
    MalformedActionError,
    NameTrump,
    Pass,
    Play,
    Suit,
    parse_action,
)
from arena.engine.actions import Action

from .helpers import ALL_TEXTS

ACTION_TEXTS: list[tuple[str, Action]] = [
    ("pass", Pass()),
    ("bid 3", Bid(3)),
    ("bid 4", Bid(4)),
    ("bid 5", Bid(5)),
    ("bid 6", Bid(6)),
    ("trump C", NameTrump(Suit.CLUBS)),
    ("trump D", NameTrump(Suit.DIAMONDS)),
    ("trump H", NameTrump(Suit.HEARTS)),
    ("trump S", NameTrump(Suit.SPADES)),
    ("discard", Discard(CardSet())),
    ("discard 2C", Discard(CardSet.parse("2C"))),
    ("discard 2C 3D AS", Discard(CardSet.parse("2C 3D AS"))),
    ("play JH", Play(Card.parse("JH"))),
    ("play TS", Play(Card.parse("TS"))),
    ("play JK", Play(Card.parse("JK"))),
]


@pytest.mark.parametrize(("text", "action"), ACTION_TEXTS)
def test_parse_action_every_kind_and_str_round_trip(text: str, action: Action) -> None:
    assert parse_action(text) == action
    assert str(action) == text
    assert parse_action(str(action)) == action


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("  PASS ", PASS),
        ("Bid 5", Bid(5)),
        ("trump hearts", NameTrump(Suit.HEARTS)),
        ("trump s", NameTrump(Suit.SPADES)),
        ("discard 10h, jk", Discard(CardSet.parse("TH JK"))),
        ("play 10c", Play(Card.parse("TC"))),
        ("play jk", Play(Card.parse("JK"))),
    ],
)
def test_parse_action_accepts_variants(text: str, action: Action) -> None:
    assert parse_action(text) == action


@pytest.mark.parametrize("text", ALL_TEXTS)
def test_play_action_round_trip_for_every_card(text: str) -> None:
    action = parse_action(f"play {text}")
    assert action == Play(Card.parse(text))
    assert str(action) == f"play {text}"


MALFORMED = [
    "fly",
    "",
    "   ",
    "bid",
    "bid x",
    "bid 2",
    "bid 7",
    "bid 9",
    "bid 3.5",
    "pass 3",
    "trump",
    "trump X",
    "play",
    "play XX",
    "play AH KH",
    "discard AH AH",
    "discard ZZ",
]


@pytest.mark.parametrize("text", MALFORMED)
def test_R4_2_malformed_action_text_raises_malformed_not_illegal(text: str) -> None:
    """Malformed input (including R4.2's bid range) raises MalformedActionError, which is
    an EngineError and a ValueError but not an IllegalActionError."""
    with pytest.raises(MalformedActionError) as info:
        parse_action(text)
    assert not isinstance(info.value, IllegalActionError)
    assert isinstance(info.value, EngineError) and isinstance(info.value, ValueError)


@pytest.mark.parametrize("amount", [0, 1, 2, 7, 9, -3, 3.0, "4", True])
def test_R4_2_bid_outside_3_to_6_is_malformed(amount: object) -> None:
    """R4.2: a bid is a whole number from 3 to 6; anything else cannot even be built."""
    with pytest.raises(MalformedActionError) as info:
        Bid(amount)  # type: ignore[arg-type]
    assert not isinstance(info.value, IllegalActionError)
    assert str(info.value).startswith("R4.2")


def test_malformed_and_illegal_are_distinct_kinds() -> None:
    assert not issubclass(MalformedActionError, IllegalActionError)
    assert not issubclass(IllegalActionError, MalformedActionError)
    error = IllegalActionError("R7.2", "must follow hearts")
    assert str(error) == "R7.2: must follow hearts"
    assert error.rule == "R7.2" and error.reason == "must follow hearts"
