"""The wire's legal choices and event filter: ``legal_to_pb`` reads the ``Legal`` value's
kind, ``legal_from_pb`` gives the same value back, and ``EventTranslator`` tells each seat
exactly what the engine says it may be told (R10)."""

from __future__ import annotations

import random

from engine.helpers import events_for
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine import DecisionKind, Game, Play
from arena.engine import events as ev
from arena.engine.randomplay import random_action
from arena.v1 import arena_pb2 as pb
from arena.wire.protocol import (
    EventTranslator,
    deal_started_to_pb,
    event_to_pb,
    legal_from_pb,
    legal_to_pb,
)

GAMES = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def expected_for_seat(events: list[ev.Event], seat: int, start: int) -> list[pb.Event]:
    """What a seat is sent, from what ``events_for`` (tests/engine/helpers.py) lists: a
    deal's start goes out with the seat's own hand (R3.2), every other event as it is."""
    told = [(i, e) for i, e in enumerate(events) if i >= start and ev.is_told_to(e, seat)]
    out = []
    for index, event in told:
        if isinstance(event, ev.HandDealt):
            started = events[index - 1 - event.seat]
            assert isinstance(started, ev.DealStarted)
            out.append(deal_started_to_pb(started, event))
        elif not isinstance(event, ev.DealStarted):
            out.append(event_to_pb(event))
    return out


@GAMES
@given(seed=st.integers(min_value=0, max_value=2**63), rng_seed=st.integers(0, 2**32))
def test_R10_translator_sends_each_seat_what_the_engine_allows(seed: int, rng_seed: int) -> None:
    game = Game(seed=seed, draw_limit=6)
    rng = random.Random(rng_seed)
    translator = EventTranslator(game.events)
    cursors = [0] * 6
    while not game.is_over:
        seat = game.to_act
        sent = translator.for_seat(seat, cursors[seat])
        assert sent == expected_for_seat(game.events, seat, cursors[seat])
        told = events_for(game, seat, cursors[seat])
        assert len(sent) == sum(not isinstance(e, ev.DealStarted) for e in told)
        cursors[seat] = len(game.events)
        game.apply(random_action(game, rng))
    for seat in range(6):
        assert translator.for_seat(seat, 0) == expected_for_seat(game.events, seat, 0)


@GAMES
@given(seed=st.integers(min_value=0, max_value=2**63), rng_seed=st.integers(0, 2**32))
def test_legal_choices_survive_the_wire(seed: int, rng_seed: int) -> None:
    """Every decision of a random game: the request's legal choices, read back as the SDK
    reads them, are the engine's ``Legal`` value (for a discard, its rule)."""
    game = Game(seed=seed, draw_limit=4)
    rng = random.Random(rng_seed)
    while not game.is_over:
        legal = game.legal()
        kind = legal.kind
        assert kind is not None and kind is game.decision_kind
        message = legal_to_pb(legal)
        wire = pb.LegalChoices.FromString(message.SerializeToString())
        hand = game.hand(game.to_act)
        assert legal_from_pb(kind, wire, game.to_act, hand) == legal
        if kind is DecisionKind.PLAY:
            assert list(wire.cards) == [str(a.card) for a in legal if isinstance(a, Play)]
        game.apply(random_action(game, rng))
    assert legal_to_pb(game.legal()) == pb.LegalChoices()
