"""What the table and a seat say to each other, in engine types (``arena.seats.channel``).

Plain values with no generated code behind them: the table builds them, and each channel
turns them into what its transport carries (``arena.wire.protocol`` makes the protobuf
messages of gRPC and standard input/output seats from them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from arena.engine import DecisionKind, Legal, View
from arena.engine import events as ev

__all__ = ["GameStarted", "Notice", "Request", "Told", "Welcome"]


class GameStarted(NamedTuple):
    """A game of the match begins (the table's event: the engine knows one game only)."""

    game_index: int
    first_dealer: int
    audience: None = None


# What a seat is told: the engine's events (those R10 lets it know, its own hand among
# them as ``HandDealt`` right after the deal's ``DealStarted``), and the game's start.
Told = ev.Event | GameStarted


@dataclass(frozen=True, slots=True)
class Welcome:
    """The seat's place and the match's settings (docs/PROTOCOL.md, "The stream")."""

    seat: int
    team: int
    partner: int
    games: int
    decision_ms: int
    overage_ms: int
    draw_limit: int
    team_names: tuple[str, ...]
    match_id: str


@dataclass(frozen=True, slots=True)
class Request:
    """One decision asked of a seat, with the events it is told first."""

    id: int  # counts up from 1 for each seat over the whole match
    kind: DecisionKind
    view: View
    legal: Legal
    game_index: int
    time_ms: int
    bank_ms: int
    events: Sequence[Told] = ()


@dataclass(frozen=True, slots=True)
class Notice:
    """A fault of the seat's, as the bot is told it."""

    kind: str  # the fault kind's protocol word (``FaultKind.value``)
    reason: str
    request_id: int = 0
    fallback: str = ""
