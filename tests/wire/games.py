"""The requests of a random game, as a table asks them: what the wire's tests convert."""

from __future__ import annotations

import random
from typing import Any

from arena.engine import DecisionKind, Game, random_legal_action, view
from arena.engine.events import is_told_to
from arena.wire.seat import GameStarted, Request


def requests_of(seed: int) -> list[tuple[Request, Any]]:
    """Every request of seat-by-seat play of one random game, as the table builds it, with
    the random answer played to it; then each seat's last events, as a table tells them."""
    rng = random.Random(seed)
    game = Game(seed=seed, draw_limit=30)  # a game of a few hundred decisions at most
    cursors = [0] * 6
    out: list[tuple[Request, Any]] = []
    while not game.is_over:
        seat = game.to_act
        kind = game.decision_kind
        assert kind is not None
        told = [e for e in game.events[cursors[seat] :] if is_told_to(e, seat)]
        if cursors[seat] == 0:
            told.insert(0, GameStarted(seed % 50, game.first_dealer))
        cursors[seat] = len(game.events)
        bank = rng.randrange(10_001)
        request = Request(
            len(out) + 1, kind, view(game, seat), game.legal(), seed, 1000, bank, told
        )
        action = random_legal_action(game.legal(), rng)
        out.append((request, action))
        game.apply(action)
    for seat in range(6):
        told = [e for e in game.events[cursors[seat] :] if is_told_to(e, seat)]
        out.append(
            (Request(0, DecisionKind.BID, view(game, seat), game.legal(), 0, 0, 0, told), None)
        )
    return out
