"""One finished game as the referee saw it: the result the table produces and the results
store writes, in this one shape from the table to the database's rows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.engine import GameKey

from .policy import Fault

__all__ = ["GameResult", "SeatStats"]


@dataclass(slots=True)
class SeatStats:
    """One seat (one bot process) over one game; the table counts into it as it plays."""

    seat: int  # 0..5; the seat's team is seat % 3 (R1.2)
    decisions: int = 0
    decision_seconds_total: float = 0.0  # from delivering each request to its answer
    decision_seconds_max: float = 0.0
    bids_made: int = 0  # contracts this seat took and played out (R4)
    bids_won: int = 0  # of those, the ones its team made (R8)
    faults: int = 0


@dataclass(frozen=True)
class GameResult:
    """Everything kept of one finished game."""

    game_index: int
    key: GameKey  # what the game was dealt from: never written to a record, a log or a row
    # Winning team 0..2; None for a draw at the deal limit (R9.4), or where the teams that
    # did not forfeit are level (F1)
    winner: int | None
    scores: tuple[int, int, int]  # final score per team
    deals: int
    # Points each team won in each deal, as the engine scored them (R8).
    deal_points: tuple[tuple[int, int, int], ...]
    duration_s: float
    record: dict[str, Any]  # the JSON game record (docs/GAME_RECORD.md)
    seats: tuple[SeatStats, ...]  # exactly one per seat 0..5, in seat order
    # Recorded against the game; it also carries those from before it (e.g. a missed join).
    faults: tuple[Fault, ...] = ()
    finished_at: str | None = None  # ISO 8601; None means "when it is stored"
    # The teams that forfeited the game, each a loss (F1: arena.engine.forfeit).
    forfeited: tuple[int, ...] = ()

    @property
    def team_points(self) -> tuple[int, int, int]:
        """Points each team won over the game's deals."""
        totals = [0, 0, 0]
        for points in self.deal_points:
            for team, won in enumerate(points):
                totals[team] += won
        return (totals[0], totals[1], totals[2])
