"""What the referee plays in a seat's place: after a fault, and for a seat auto-played."""

from __future__ import annotations

from arena.engine import TRUMPS, Action, DecisionKind, Game
from arena.engine.cards import most_trumps


def fallback_action(game: Game) -> Action:
    """The deterministic action played for a seat that faulted or is auto-played.

    - bid: pass (R4.2);
    - trump: the suit of which the bidder holds most cards, counting the bauers and the
      joker as that suit's trumps; ties go to clubs, diamonds, hearts, spades in order;
    - discard: the smallest legal discard, ``DiscardRule.example()`` (none for a
      non-dealer; for the dealer the required cards first, then the lowest cards);
    - play: the legal card of lowest index (clubs, diamonds, hearts, spades, 2 up to A,
      then the joker).

    All but the trump are ``Legal.example()``; once the game is over there is nothing to
    play, and that raises ``IllegalActionError`` (R9.1).
    """
    legal = game.legal()
    if legal.kind is DecisionKind.TRUMP:
        return TRUMPS[most_trumps(game.hand(game.to_act))]
    return legal.example()
