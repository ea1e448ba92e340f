"""What the referee does when a bot is late or wrong: fault kinds and fallback actions.

Every fault is recorded, told to the bot in a ``Notice``, and answered by playing the
documented deterministic fallback below in the bot's place (docs/PROTOCOL.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from arena.engine import PASS, PLAYS, TRUMPS, Action, Discard, DiscardRule, Game, Play
from arena.engine.cards import most_trumps


class FaultKind(Enum):
    ILLEGAL = "illegal"  # a well-formed answer the rules forbid (the reason cites the rule)
    WRONG_REQUEST = "wrong_request"  # an answer whose request id is not the open request
    WRONG_KIND = "wrong_kind"  # an answer for another kind of decision (wrong phase)
    MALFORMED = "malformed"  # bytes that are not a BotMessage, or an unreadable answer
    TIMEOUT = "timeout"  # no answer within the decision time plus the overage bank
    FLOOD = "flood"  # messages sent while no decision was open, beyond a small allowance
    CLOSED = "closed"  # the stream closed or the process died; auto-played from then on
    NO_JOIN = "no_join"  # the seat did not join before the join deadline; auto-played
    STALLED = "stalled"  # the bot stopped reading its messages; auto-played from then on


@dataclass(frozen=True)
class Fault:
    """One recorded fault: who, what, why, and what the referee played instead."""

    game_index: int
    deal_number: int
    seat: int
    kind: FaultKind
    reason: str
    sent: str = ""  # what the bot sent, abbreviated
    fallback: str = ""


def fallback_action(game: Game) -> Action:
    """The deterministic action played for a seat that faulted or is auto-played.

    - bid: pass (R4.2);
    - trump: the suit of which the bidder holds most cards, counting the bauers and the
      joker as that suit's trumps; ties go to clubs, diamonds, hearts, spades in order;
    - discard: the smallest legal discard, ``DiscardRule.example()`` (none for a
      non-dealer; for the dealer the required cards first, then the lowest cards);
    - play: the legal card of lowest index (clubs, diamonds, hearts, spades, 2 up to A,
      then the joker).
    """
    legal = game.legal()
    if isinstance(legal, DiscardRule):
        return Discard(legal.example())
    if not legal:
        raise ValueError("R9.1: the game is over; there is nothing to play")
    first = legal[0]
    if first is PASS:
        return PASS
    if first in TRUMPS:
        return TRUMPS[most_trumps(game.hand(game.to_act))]
    return PLAYS[min(a.card.index for a in legal if isinstance(a, Play))]
