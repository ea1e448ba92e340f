"""F1, the referee's forfeit rule for bots: which teams forfeit a game, judged from its decisions.

A seat every one of whose decisions in ``FORFEIT_DEALS`` consecutive deals the referee
played in its place (a fallback, whatever the fault: a timeout, an illegal or malformed
answer, or a seat auto-played since its process died, its stream closed or it never
joined) has stopped playing: at the end of the last of those deals its team forfeits the
game (``Game.forfeit``), as a resignation ends it (docs/SECURITY.md, "The referee's rules
for bots"). Thrown-in deals count, as they do for the draw limit (R9.4).

The rule reads nothing but the game's history and which of its decisions were fallbacks,
which the game record carries (docs/GAME_RECORD.md): the table applies it as it plays, and
``arena.engine.record.replay`` applies it again, so that a record proves its early end.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from arena.engine.game import SEATS, Game, team_of

__all__ = ["FORFEIT_DEALS", "RULE", "apply_forfeit", "forfeiting_seats", "forfeiting_teams"]

RULE: Final = "F1"
# Three deals in a row: one or two may be a bot's bad moment (its bank spent on a slow
# start, one situation it cannot handle); a bot that has not made one decision of its own
# in three whole deals has stopped playing. A game of bots that play lasts about 10 deals.
FORFEIT_DEALS: Final = 3


def forfeiting_seats(game: Game, fallbacks: Sequence[bool], deals: int) -> tuple[int, ...]:
    """The seats whose every decision in each of the game's last ``deals`` finished deals
    was a fallback (``fallbacks[i]``: whether the referee played ``game.history[i]``).

    Asked when a deal has just ended: the game has dealt the next one and no decision of
    it is taken yet. () when fewer deals have ended, when the game is over, or when
    ``deals`` is 0 (the rule off).
    """
    if len(fallbacks) != len(game.history):
        raise ValueError(f"{len(fallbacks)} fallback marks for {len(game.history)} decisions")
    if deals <= 0 or game.is_over:
        return ()
    if game.deal.first_decision != len(game.history):
        raise ValueError("F1 is judged at the end of a deal, before the next one's decisions")
    finished = game.deals[:-1]
    if len(finished) < deals:
        return ()
    seats = set(range(SEATS))
    ends = [deal.first_decision for deal in game.deals[-deals:]]
    for deal, end in zip(finished[-deals:], ends, strict=True):
        asked: set[int] = set()
        played: set[int] = set()  # seats that made a decision of their own in the deal
        for index in range(deal.first_decision, end):
            seat = game.history[index][0]
            asked.add(seat)
            if not fallbacks[index]:
                played.add(seat)
        seats &= asked - played
        if not seats:
            return ()
    return tuple(sorted(seats))


def forfeiting_teams(game: Game, fallbacks: Sequence[bool], deals: int) -> tuple[int, ...]:
    """The teams of ``forfeiting_seats`` (R1.2), each once."""
    return tuple(sorted({team_of(seat) for seat in forfeiting_seats(game, fallbacks, deals)}))


def apply_forfeit(game: Game, fallbacks: Sequence[bool], deals: int) -> tuple[int, ...]:
    """At a deal's end: the teams that forfeit the game by F1, which then ends (``Game.forfeit``)
    as their loss; () and the game going on where none does."""
    teams = forfeiting_teams(game, fallbacks, deals)
    if teams:
        game.forfeit(teams)
    return teams
