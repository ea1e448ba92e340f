"""Everything the pages show of one stored game, read from a results store in one call.

A ``GameBundle`` is the input of the HTML replay and report: the game's record as stored
(docs/GAME_RECORD.md; replay it through the engine before showing it), the entrant at
each seat, the tail of each seat's bot log, and the other games of the run dealt the
same cards (the other seatings of its game seed: duplicate play, R3.1a).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from arena.bots.manifest import read_log_tail
from arena.engine.game import SEATS
from arena.referee.policy import Fault

from .store import ResultsStore, StoredGame, logs_beside

__all__ = [
    "LOG_TAIL_LINES",
    "GameBundle",
    "SeatLog",
    "SiblingGame",
    "game_bundle",
    "run_game_ids",
    "run_log_root",
    "seat_log_tails",
    "seat_logs",
]

LOG_TAIL_LINES: Final = 20
# Enough bytes for LOG_TAIL_LINES ordinary lines; a log of longer lines shows fewer.
_LOG_TAIL_BYTES: Final = 8192


@dataclass(frozen=True)
class SiblingGame:
    """Another game of the run with the same deals: the same game seed at another seating."""

    game_id: int
    labels: tuple[str, ...]  # entrant label per seat 0..5
    record: dict[str, Any]  # the stored game record


@dataclass(frozen=True)
class GameBundle:
    """One stored game and its context, as the replay and report pages read it."""

    game_id: int
    run_id: str
    record: dict[str, Any]  # the stored game record (docs/GAME_RECORD.md)
    labels: tuple[str, ...]  # entrant label per seat 0..5 (seat s plays for team s % 3)
    seed_index: int  # the game index within the seating (same deals at every seating)
    # Per seat, the last LOG_TAIL_LINES lines of its bot's log if the log is kept, else ().
    # A bot keeps one log for its whole match, so the tail is of the match, not of this
    # game alone. The lines are the bot's own text: escape them wherever they are shown.
    log_tails: tuple[tuple[str, ...], ...]
    siblings: tuple[SiblingGame, ...]  # in the order stored; this game is not among them
    # Every fault stored with the game, in the order recorded: those that replaced a
    # decision point at it (deal_number, decision_index), the others (a flood, a missed
    # join) have decision_index None. Their reason and sent are the bot's or about it.
    faults: tuple[Fault, ...] = ()


def run_log_root(store: ResultsStore, run_id: str | None = None) -> Path:
    """Where ``arena run`` keeps the bot logs of the runs stored in ``store``
    (``results.logs_beside``); for ``run_id``, the ``logs`` directory beside the database
    where only that one holds the run's logs (earlier versions wrote them there)."""
    root = logs_beside(store.path)
    older = store.path.parent / "logs"
    if run_id is not None and not (root / run_id).is_dir() and (older / run_id).is_dir():
        return older
    return root


@dataclass(frozen=True)
class SeatLog:
    """Where one seat's bot wrote its output (stdout and stderr) during one match."""

    match_key: str
    seat: int
    entrant: str  # name@version
    path: Path


def seat_logs(store: ResultsStore, run_id: str, game_id: int | None = None) -> list[SeatLog]:
    """The seat logs of every seating of the run that stored a game, or of game
    ``game_id``'s seating only (``KeyError`` if the run holds no such game)."""
    if game_id is None:
        places = store.match_places(run_id)
    else:
        place = store.game(game_id)
        if place.run_id != run_id:
            raise KeyError(f"game {game_id} is not a game of run {run_id}")
        places = [place]
    root = run_log_root(store, run_id) / run_id
    return [
        SeatLog(
            p.match_key, seat, p.entrants_by_team[seat % 3], root / p.match_key / f"seat{seat}.log"
        )
        for p in places
        for seat in range(SEATS)
    ]


def run_game_ids(store: ResultsStore, run_id: str) -> list[int]:
    """The ids of every game of the run, in the order they were stored."""
    return [game.id for game in store.games(run_id)]


def game_bundle(store: ResultsStore, game_id: int, log_root: Path | None = None) -> GameBundle:
    """The bundle of stored game ``game_id``; ``KeyError`` if the store has no such game.

    ``log_root`` is the directory the run's logs were written under (``run_tournament``'s
    ``log_root``); by default where ``arena run`` keeps them (``run_log_root``).
    """
    place = store.game(game_id)
    root = run_log_root(store, place.run_id) if log_root is None else log_root
    siblings = tuple(
        SiblingGame(other.id, _seat_labels(other), store.game_record(other.id))
        for other in store.games_of_seed(place.run_id, place.game_index)
        if other.id != game_id
    )
    return GameBundle(
        game_id=game_id,
        run_id=place.run_id,
        record=store.game_record(game_id),
        labels=_seat_labels(place),
        seed_index=place.game_index,
        log_tails=seat_log_tails(root / place.run_id / place.match_key),
        siblings=siblings,
        faults=tuple(store.game_faults(game_id)),
    )


def _seat_labels(place: StoredGame) -> tuple[str, ...]:
    # R1.2: seat s plays for team s % 3.
    return tuple(place.entrants_by_team[seat % 3] for seat in range(SEATS))


def seat_log_tails(directory: Path) -> tuple[tuple[str, ...], ...]:
    """The tail of each seat's log in a match's log directory (``seat0.log`` …), as
    ``GameBundle.log_tails``: () for a seat whose log is missing."""
    return tuple(_log_tail(directory / f"seat{seat}.log") for seat in range(SEATS))


def _log_tail(path: Path) -> tuple[str, ...]:
    # Lines end at "\n" only: a "\r" or other control character is the bot's text, kept
    # for the page to show escaped.
    lines = read_log_tail(path, _LOG_TAIL_BYTES).split("\n")
    if lines[-1] == "":
        lines.pop()
    if lines and path.stat().st_size > _LOG_TAIL_BYTES:
        lines = lines[1:]  # the first line read may have been cut anywhere
    return tuple(lines[-LOG_TAIL_LINES:])
