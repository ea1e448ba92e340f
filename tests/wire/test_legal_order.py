"""The order of the legal lists, as docs/PROTOCOL.md guarantees it ("The order of the legal
lists"): checked on every decision of seeded random games, against the order written out
here from the guide's words, not from the engine's card indices."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine import DecisionKind, Game, view
from arena.engine.randomplay import random_action
from arena.v1 import arena_pb2 as pb
from arena.wire.protocol import legal_to_pb, view_to_pb

GAMES = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SUITS = "CDHS"  # clubs, diamonds, hearts, spades
RANKS = "23456789TJQKA"  # 2 up to ace
SUIT_ORDER = [pb.SUIT_CLUBS, pb.SUIT_DIAMONDS, pb.SUIT_HEARTS, pb.SUIT_SPADES]


def guide_key(card: str) -> tuple[int, int]:
    """The guide's order: by printed suit (a left bauer among its own suit's cards), each
    2 up to ace, then the joker."""
    if card == "JK":
        return (len(SUITS), 0)
    return (SUITS.index(card[1]), RANKS.index(card[0]))


def in_guide_order(cards: list[str]) -> bool:
    keys = [guide_key(card) for card in cards]
    return keys == sorted(keys) and len(set(keys)) == len(keys)


def test_the_guides_example_of_a_left_bauer() -> None:
    # Hearts trump: the jack of diamonds is a trump (R2.4) but listed among the diamonds.
    assert sorted(["JK", "AH", "JD", "2C", "TD"], key=guide_key) == ["2C", "TD", "JD", "AH", "JK"]


@GAMES
@given(seed=st.integers(0, 2**32 - 1))
def test_every_legal_list_is_in_the_guaranteed_order(seed: int) -> None:
    game = Game(seed=seed, draw_limit=8)
    rng = random.Random(seed)
    seen: set[DecisionKind] = set()
    while not game.is_over:
        kind = game.decision_kind
        assert kind is not None
        seen.add(kind)
        legal = legal_to_pb(game.legal())
        if kind is DecisionKind.BID:
            bids = list(legal.bids)
            assert bids[0] == 0  # pass first
            assert bids[1:] == sorted(bids[1:]) and all(3 <= b <= 6 for b in bids[1:])
            assert len(set(bids)) == len(bids)
        elif kind is DecisionKind.TRUMP:
            assert list(legal.suits) == SUIT_ORDER
        elif kind is DecisionKind.DISCARD:
            assert in_guide_order(list(legal.discard.may))
            assert in_guide_order(list(legal.discard.must))
        else:
            assert in_guide_order(list(legal.cards))
        assert in_guide_order(list(view_to_pb(view(game, game.to_act), 0).hand))
        game.apply(random_action(game, rng))
    assert DecisionKind.PLAY in seen or game.deal_number > 1
