"""Tournament statistics: win-rate intervals, standings and head-to-head tables (pure, no I/O).

Everything here works on plain rows (``EntrantGameRow``, ``GameOutcome``) so that it can be fed
from the results store, from a live run, or from hand-written tables in tests.

A draw counts as half a win everywhere: ``score = wins + draws / 2`` and ``win_rate = score /
games``. Because of that the number of "successes" may be a half-integer, which is why the Wilson
interval is computed from its closed form rather than through an exact binomial routine.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

__all__ = [
    "EntrantGameRow",
    "GameOutcome",
    "HeadToHead",
    "Outcome",
    "Standing",
    "head_to_head",
    "standings",
    "win_rate_interval",
]

Outcome = Literal["win", "draw", "loss"]
_OUTCOMES: frozenset[str] = frozenset({"win", "draw", "loss"})


def win_rate_interval(wins: float, games: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a win rate of ``wins / games`` (``wins`` may be x.5 for draws).

    The closed form is used for every count: for integer ``wins`` it is the same interval as
    ``scipy.stats.binomtest(wins, games).proportion_ci(confidence, method="wilson")`` (the tests
    check this when scipy is importable), and unlike that routine it also accepts half wins.
    ``games == 0`` carries no information, hence ``(0.0, 1.0)``.
    """
    if games < 0:
        raise ValueError(f"games must be >= 0, got {games}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    if not 0.0 <= wins <= games:
        raise ValueError(f"wins must be between 0 and games={games}, got {wins}")
    if games == 0:
        return (0.0, 1.0)
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    n = float(games)
    p = wins / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom
    low = max(0.0, centre - half)
    high = min(1.0, centre + half)
    # Mathematically the bounds touch 0 / 1 exactly at these counts; pin them so that rounding
    # can never produce an interval that excludes the point estimate.
    if wins == 0:
        low = 0.0
    if wins == games:
        high = 1.0
    return (low, high)


@dataclass(frozen=True)
class EntrantGameRow:
    """What one entrant did in one game, on one team.

    An entrant that holds two teams in the same game (runs with only two entrants) contributes one
    row per team: it really played that game twice.
    """

    entrant: str
    outcome: Outcome
    points: int  # points won by this team over the whole game (sum of its per-deal points)
    deals: int
    bids_made: int
    bids_won: int
    faults: int
    decisions: int
    decision_seconds_total: float

    def __post_init__(self) -> None:
        # Literal types are not checked at run time and a typo would silently count as a loss.
        if self.outcome not in _OUTCOMES:
            raise ValueError(f"outcome must be one of {sorted(_OUTCOMES)}, got {self.outcome!r}")


@dataclass(frozen=True)
class Standing:
    """One line of the standings table."""

    entrant: str
    games: int
    wins: int
    draws: int
    losses: int
    score: float  # wins + draws / 2
    win_rate: float  # score / games
    ci_low: float  # Wilson 95 % interval of win_rate
    ci_high: float
    points_per_deal: float
    bids_made: int
    bids_won: int
    bid_success_rate: float | None  # None when the entrant never won the bidding
    faults: int
    mean_decision_ms: float | None  # None when the entrant made no timed decision


@dataclass
class _Totals:
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: int = 0
    deals: int = 0
    bids_made: int = 0
    bids_won: int = 0
    faults: int = 0
    decisions: int = 0
    decision_seconds: float = 0.0


def standings(rows: Iterable[EntrantGameRow]) -> list[Standing]:
    """Aggregate per-game rows into standings, best win rate first (then more games, then name)."""
    totals: dict[str, _Totals] = {}
    for row in rows:
        t = totals.setdefault(row.entrant, _Totals())
        t.games += 1
        if row.outcome == "win":
            t.wins += 1
        elif row.outcome == "draw":
            t.draws += 1
        else:
            t.losses += 1
        t.points += row.points
        t.deals += row.deals
        t.bids_made += row.bids_made
        t.bids_won += row.bids_won
        t.faults += row.faults
        t.decisions += row.decisions
        t.decision_seconds += row.decision_seconds_total

    table: list[Standing] = []
    for entrant, t in totals.items():
        score = t.wins + t.draws / 2.0
        low, high = win_rate_interval(score, t.games)
        table.append(
            Standing(
                entrant=entrant,
                games=t.games,
                wins=t.wins,
                draws=t.draws,
                losses=t.losses,
                score=score,
                win_rate=score / t.games,
                ci_low=low,
                ci_high=high,
                points_per_deal=t.points / t.deals if t.deals else 0.0,
                bids_made=t.bids_made,
                bids_won=t.bids_won,
                bid_success_rate=t.bids_won / t.bids_made if t.bids_made else None,
                faults=t.faults,
                mean_decision_ms=(
                    1000.0 * t.decision_seconds / t.decisions if t.decisions else None
                ),
            )
        )
    table.sort(key=lambda s: (-s.win_rate, -s.games, s.entrant))
    return table


@dataclass(frozen=True)
class GameOutcome:
    """The result of one game as seen by the head-to-head table."""

    entrants_by_team: tuple[str, str, str]
    final_scores: tuple[int, int, int]
    winner: int | None  # winning team, None for a draw

    def __post_init__(self) -> None:
        if self.winner is not None and self.winner not in (0, 1, 2):
            raise ValueError(f"winner must be a team 0..2 or None, got {self.winner!r}")


@dataclass(frozen=True)
class HeadToHead:
    """How often entrant ``a`` finished ahead of entrant ``b`` in the games they shared."""

    a: str
    b: str
    games: int
    a_ahead: int
    ties: int
    rate: float  # (a_ahead + ties / 2) / games
    ci_low: float  # Wilson 95 % interval of rate
    ci_high: float

    @property
    def b_ahead(self) -> int:
        return self.games - self.a_ahead - self.ties


def finishing_positions(game: GameOutcome) -> tuple[int, ...]:
    """0 for the best team; teams that cannot be told apart share a position.

    The winner comes first whatever the scores say (the game's end rule decides the winner, not
    the score table); the other teams, or all three after a draw, are ordered by final score.
    """
    keys = [(team == game.winner, score) for team, score in enumerate(game.final_scores)]
    return tuple(sum(1 for other in keys if other > key) for key in keys)


def head_to_head(games: Iterable[GameOutcome]) -> list[HeadToHead]:
    """Pairwise table for every ordered pair of distinct entrants that met, sorted by (a, b).

    When an entrant holds two teams in one game its better-placed team is the one compared.
    """
    # (a, b) -> [games, a_ahead, ties]
    counts: dict[tuple[str, str], list[int]] = {}
    for game in games:
        positions = finishing_positions(game)
        best: dict[str, int] = {}
        for team, name in enumerate(game.entrants_by_team):
            best[name] = min(best.get(name, len(positions)), positions[team])
        for a, pos_a in best.items():
            for b, pos_b in best.items():
                if a == b:
                    continue
                c = counts.setdefault((a, b), [0, 0, 0])
                c[0] += 1
                if pos_a < pos_b:
                    c[1] += 1
                elif pos_a == pos_b:
                    c[2] += 1

    table: list[HeadToHead] = []
    for (a, b), (n, ahead, ties) in sorted(counts.items()):
        score = ahead + ties / 2.0
        low, high = win_rate_interval(score, n)
        table.append(
            HeadToHead(
                a=a,
                b=b,
                games=n,
                a_ahead=ahead,
                ties=ties,
                rate=score / n,
                ci_low=low,
                ci_high=high,
            )
        )
    return table
