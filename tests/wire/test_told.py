"""What the table tells a seat, converted by ``told_to_pb``, is what ``EventTranslator``
(the referee's conversion before the seat channel) sent: the same events, in order, for
every seat at every decision of random games."""

from __future__ import annotations

import random

import pytest

from arena.engine import Game, random_legal_action
from arena.engine.events import is_told_to
from arena.wire.protocol import EventTranslator, told_to_pb


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_events_told_are_those_the_translator_sent(seed: int) -> None:
    rng = random.Random(seed)
    game = Game(seed=seed)
    translator = EventTranslator(game.events)
    cursors = [0] * 6
    while not game.is_over:
        for seat in (game.to_act, rng.randrange(6)):
            told = [e for e in game.events[cursors[seat] :] if is_told_to(e, seat)]
            assert told_to_pb(told) == translator.for_seat(seat, cursors[seat])
            cursors[seat] = len(game.events)
        game.apply(random_legal_action(game.legal(), rng))
