"""What the coordinator and a referee process say to each other over their two pipes.

The coordinator sends ``Command``s down the command pipe: one ``OpenTables`` first, then a
``PlayMatch`` per match and, at the end, ``StopReferee``. The referee process sends
``Report``s back up the results pipe: ``MatchLaunched`` once a match's bots have joined,
``GameFinished`` for each finished game, ``MatchFinished`` or ``MatchFailed`` once per
match, and ``RefereeExited`` as it exits. Each message is a frozen dataclass that pickles
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
    "MatchFailed",
    "MatchFinished",
    "MatchLaunched",
    "OpenTables",
    "PlayMatch",
    "ProtocolError",
    "RefereeExited",
    "Report",
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
class StopReferee:
    """End every match under way (their bots with them) and exit."""


Command: TypeAlias = OpenTables | PlayMatch | StopReferee


# --- a referee process to the coordinator ---------------------------------------------------


@dataclass(frozen=True)
class MatchLaunched:
    """The match's bots have joined (or the head start is over): the next may launch."""

    ticket: int


@dataclass(frozen=True)
class GameFinished:
    """One finished game of the match, in game order."""

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


Report: TypeAlias = MatchLaunched | GameFinished | MatchFinished | MatchFailed | RefereeExited


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
