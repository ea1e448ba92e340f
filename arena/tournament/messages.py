"""What the coordinator and a referee process say to each other over their two pipes.

The coordinator sends ``Command``s down the command pipe: one ``OpenTables`` first, then a
``PlayMatch`` per match, ``GameMayStart`` for each game whose deal's lease it granted,
``StopMatch`` for a match it no longer wants and, at the end, ``StopReferee``. The referee
process sends ``Report``s back up the results pipe: ``MatchLaunched`` once a match's bots
have joined, ``GameWanted`` before each game (the table waits for ``GameMayStart``),
``GameFinished`` for each finished game (its deal's lease is then free), ``MatchFinished``
or ``MatchFailed`` once per match (every lease of the match is then free), and
``RefereeExited`` as it exits. Each message is a frozen dataclass that pickles
(``multiprocessing.connection``); ``send`` and the two readers are the only places that
touch a pipe, and a reader refuses what is not one of its messages.
"""

from __future__ import annotations

import multiprocessing.connection
from dataclasses import dataclass
from typing import TypeAlias

from arena.referee.match import MatchPlan
from arena.referee.result import GameResult
from arena.tournament.executor import MatchOutcome

__all__ = [
    "Command",
    "GameFinished",
    "GameMayStart",
    "GameWanted",
    "MatchFailed",
    "MatchFinished",
    "MatchLaunched",
    "OpenTables",
    "PlayMatch",
    "ProtocolError",
    "RefereeExited",
    "Report",
    "StopMatch",
    "StopReferee",
    "read_command",
    "read_report",
    "send",
]


# --- the coordinator to a referee process ---------------------------------------------------


@dataclass(frozen=True)
class OpenTables:
    """The first command: how many tables the referee plays at once, how long a seat may
    take to join."""

    tables: int
    join_timeout: float


@dataclass(frozen=True)
class PlayMatch:
    """Play ``plan`` on one of the tables, its games in ``skip`` left out; ``ticket`` names
    the match in every report about it."""

    ticket: int
    plan: MatchPlan
    skip: frozenset[int]


@dataclass(frozen=True)
class _GameOfMatch:
    """Game ``index`` of match ``ticket``: what the two messages about a deal's lease name."""

    ticket: int
    index: int


@dataclass(frozen=True)
class GameMayStart(_GameOfMatch):
    """The game holds its deal's lease: its table may play it."""


@dataclass(frozen=True)
class StopMatch:
    """End match ``ticket`` (its bots with it); it is reported failed once it stopped."""

    ticket: int


@dataclass(frozen=True)
class StopReferee:
    """End every match under way (their bots with them) and exit."""


Command: TypeAlias = OpenTables | PlayMatch | GameMayStart | StopMatch | StopReferee


# --- a referee process to the coordinator ---------------------------------------------------


@dataclass(frozen=True)
class MatchLaunched:
    """The match's bots have joined (or the head start is over): the next may launch."""

    ticket: int


@dataclass(frozen=True)
class GameWanted(_GameOfMatch):
    """The game is next on its table, which waits for its deal's lease (``GameMayStart``)."""


@dataclass(frozen=True)
class GameFinished:
    """One finished game of the match, in the plan's order; its deal's lease is free."""

    ticket: int
    result: GameResult


@dataclass(frozen=True)
class MatchFinished:
    """The match is over; its last report."""

    ticket: int
    outcome: MatchOutcome


@dataclass(frozen=True)
class MatchFailed:
    """The match could not be played to its end (``error`` pickles); its last report."""

    ticket: int
    error: Exception


@dataclass(frozen=True)
class RefereeExited:
    """The referee process's own CPU seconds, sent as it exits; its last word."""

    cpu_seconds: float


Report: TypeAlias = (
    MatchLaunched | GameWanted | GameFinished | MatchFinished | MatchFailed | RefereeExited
)


class ProtocolError(RuntimeError):
    """A pipe carried something that is not one of the messages expected on it."""


def send(connection: multiprocessing.connection.Connection, message: Command | Report) -> None:
    """Send one message; ``OSError`` where the other end is gone."""
    connection.send(message)


def read_command(connection: multiprocessing.connection.Connection) -> Command:
    """The next command; ``EOFError`` or ``OSError`` where the coordinator is gone."""
    message = connection.recv()
    if not isinstance(message, Command):
        raise ProtocolError(f"not a command to a referee process: {type(message).__name__}")
    return message


def read_report(connection: multiprocessing.connection.Connection) -> Report:
    """The next report; ``EOFError`` or ``OSError`` where the referee process is gone."""
    message = connection.recv()
    if not isinstance(message, Report):
        raise ProtocolError(f"not a report from a referee process: {type(message).__name__}")
    return message
