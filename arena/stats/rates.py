"""Tournament statistics: win-rate intervals, standings and head-to-head tables (pure, no I/O).

Everything here works on plain rows (``EntrantGameRow``, ``GameOutcome``) so
that it can be fed from the results store, from a live run, or from hand-written tables in tests.

A draw counts as half a win everywhere: ``score = wins + draws / 2`` and ``win_rate = score /
games``. Because of that the number of "successes" may be a half-integer, which is why the Wilson
interval is computed from its closed form rather than through an exact binomial routine.

The intervals of the standings and of the head-to-head table are not Wilson's on the games:
under duplicate play every game dealt from one game seed shares its cards (R3.1a), so those
games are not independent and a per-game interval may be too narrow or too wide. They are
Wilson's on an effective sample size, the games (or pairs) over their design effect measured
over the seeds (:func:`.seeds.effective_interval`), with Student's t on seeds - 1 degrees
of freedom; each line says how many seeds stand behind it. Below ``MIN_SEEDS_FOR_INTERVAL``
seeds a figure has no interval (``None``) and says "too few seeds". No interval is ever a
point. ``arena bench stats`` measures their coverage (docs/STATISTICS.md).

Run by hand, ``python -m arena.stats.rates GAMES.json`` prints the head-to-head table of
the games (their format: :mod:`arena.stats.byhand`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from .seeds import SeedRatio, effective_interval, ratio_interval, wilson_interval
from .sequential import confidence_sequence

__all__ = [
    "MIN_SEEDS_FOR_INTERVAL",
    "EntrantGameRow",
    "GameOutcome",
    "HeadToHead",
    "Outcome",
    "Standing",
    "head_to_head",
    "seed_rate_interval",
    "standings",
    "win_rate_interval",
]

Outcome = Literal["win", "draw", "loss"]
_OUTCOMES: frozenset[str] = frozenset({"win", "draw", "loss"})
_SCORE: Final[dict[str, float]] = {"win": 1.0, "draw": 0.5, "loss": 0.0}

# Below this many seeds a figure gets no interval but "too few seeds": on one seed there is
# no spread to measure, and on three the design effect is too rough. From four seeds on
# ``arena bench stats`` measured every interval at 0.93 or more in every world it plays
# (docs/STATISTICS.md), so four is where they begin.
MIN_SEEDS_FOR_INTERVAL: Final = 4


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
    return wilson_interval(wins / games, float(games), confidence)


def seed_rate_interval(
    rate: SeedRatio, confidence: float = 0.95, stopped: bool = False
) -> tuple[float, float] | None:
    """The interval of a rate between 0 and 1 (a win rate, a share ahead) over seeds; None
    below ``MIN_SEEDS_FOR_INTERVAL`` seeds ("too few seeds"). Never a point.

    The binomial interval on the units over their design effect
    (``seeds.effective_interval``); in a run a sequential test ``stopped`` (``arena
    compare``'s), where a fixed-size interval covers too little, the confidence sequence
    of the seeds' mean rate in seed order (``sequential.confidence_sequence``: every seed of
    such a run holds as many units, so that mean is the rate).
    """
    if rate.seeds < MIN_SEEDS_FOR_INTERVAL:
        return None
    if stopped:
        order = sorted(rate.denominators, key=_seed_order)
        seeds = [rate.numerators[k] / rate.denominators[k] for k in order if rate.denominators[k]]
        return confidence_sequence(seeds, confidence)
    return effective_interval(*rate.sums(), confidence)


def _seed_order(key: object) -> tuple[int, str]:
    """Seeds in the order played (a unit without its seed after them, by its name)."""
    return (key, "") if isinstance(key, int) else (1 << 62, str(key))


def _seed_ratio_interval(
    ratio: SeedRatio, stopped: bool = False
) -> tuple[float | None, float | None]:
    """The t interval of an unbounded ratio (points per deal) over seeds: None below
    ``MIN_SEEDS_FOR_INTERVAL`` seeds, as a rate's, and in a run a sequential test stopped
    (no interval of an unbounded figure holds at such a stop: none is printed)."""
    # Games without a single deal leave no points per deal to measure.
    if stopped or ratio.seeds < MIN_SEEDS_FOR_INTERVAL or not any(ratio.denominators.values()):
        return (None, None)
    return ratio_interval(*ratio.sums())


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
    # The game seed the game was dealt from (its game index, R3.1a): the rows of one seed form
    # one unit of the intervals. None when unknown: the row is then a unit of its own, as if
    # every game had been dealt independently.
    seed: int | None = None

    def __post_init__(self) -> None:
        # Literal types are not checked at run time and a typo would silently count as a loss.
        if self.outcome not in _OUTCOMES:
            raise ValueError(f"outcome must be one of {sorted(_OUTCOMES)}, got {self.outcome!r}")


@dataclass(frozen=True)
class Standing:
    """One line of the standings table."""

    entrant: str
    games: int
    seeds: int  # independent game seeds behind the figures
    wins: int
    draws: int
    losses: int
    score: float  # wins + draws / 2
    win_rate: float  # score / games
    # 95 % interval of win_rate over seeds (``seed_rate_interval``); None: too few seeds
    ci_low: float | None
    ci_high: float | None
    points_per_deal: float
    points_per_deal_low: float | None  # its 95 % t interval over seeds (None: too few seeds)
    points_per_deal_high: float | None
    bids_made: int
    bids_won: int
    bid_success_rate: float | None  # None when the entrant never won the bidding
    faults: int
    mean_decision_ms: float | None  # None when the entrant made no timed decision
    too_few_seeds: bool = False  # below MIN_SEEDS_FOR_INTERVAL seeds: no interval


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
    win_rate: SeedRatio = field(default_factory=SeedRatio)  # score over games, per seed
    points_per_deal: SeedRatio = field(default_factory=SeedRatio)


def standings(rows: Iterable[EntrantGameRow], stopped: bool = False) -> list[Standing]:
    """Aggregate per-game rows into standings, best win rate first (then more games, then
    name); ``stopped``: the run was stopped by a sequential test (``seed_rate_interval``)."""
    totals: dict[str, _Totals] = {}
    for number, row in enumerate(rows):
        t = totals.setdefault(row.entrant, _Totals())
        group: object = row.seed if row.seed is not None else ("row", number)
        t.win_rate.add(group, _SCORE[row.outcome], 1.0)
        t.points_per_deal.add(group, float(row.points), float(row.deals))
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
        interval = seed_rate_interval(t.win_rate, stopped=stopped)
        low, high = interval if interval is not None else (None, None)
        points_low, points_high = _seed_ratio_interval(t.points_per_deal, stopped)
        table.append(
            Standing(
                entrant=entrant,
                games=t.games,
                seeds=t.win_rate.seeds,
                wins=t.wins,
                draws=t.draws,
                losses=t.losses,
                score=score,
                win_rate=score / t.games,
                ci_low=low,
                ci_high=high,
                points_per_deal=t.points / t.deals if t.deals else 0.0,
                points_per_deal_low=points_low,
                points_per_deal_high=points_high,
                bids_made=t.bids_made,
                bids_won=t.bids_won,
                bid_success_rate=t.bids_won / t.bids_made if t.bids_made else None,
                faults=t.faults,
                mean_decision_ms=(
                    1000.0 * t.decision_seconds / t.decisions if t.decisions else None
                ),
                too_few_seeds=interval is None,
            )
        )
    table.sort(key=lambda s: (-s.win_rate, -s.games, s.entrant))
    return table


@dataclass(frozen=True)
class GameOutcome:
    """One game as the statistics see it: who held each team, the final scores, the
    winner, the game seed it was dealt from, and the teams that forfeited it."""

    entrants_by_team: tuple[str, str, str]
    final_scores: tuple[int, int, int]
    winner: int | None  # winning team, None for a draw
    # The game seed: the game's index in its run, which every seating of the run plays
    # with the same cards (R3.1a), so that its games are one unit of the intervals.
    # None: unknown, and the game is a group of its own.
    seed: int | None = None
    # Teams that forfeited (the referee's rule F1): each lost, placed behind every team
    # that did not, whatever the scores; the others are placed as in any game (a winner
    # None then means that they drew).
    forfeited: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.winner is not None and self.winner not in (0, 1, 2):
            raise ValueError(f"winner must be a team 0..2 or None, got {self.winner!r}")
        if not set(self.forfeited) <= {0, 1, 2} or self.winner in self.forfeited:
            raise ValueError(
                f"forfeited must be teams 0..2 other than the winner, got {self.forfeited!r}"
            )


@dataclass(frozen=True)
class HeadToHead:
    """How often a team of entrant ``a`` finished ahead of a team of entrant ``b`` in the
    games they shared: every pair of an ``a`` team and a ``b`` team counts (two pairs in a
    game where one of them held two teams), as ``arena compare`` scores NEW against BASE."""

    a: str
    b: str
    games: int  # games in which both held a team
    pairs: int  # (a team, b team) pairs in those games
    seeds: int  # independent game seeds behind the figure
    a_ahead: int  # pairs in which a's team finished ahead
    ties: int
    rate: float  # (a_ahead + ties / 2) / pairs
    # 95 % interval of rate over seeds (``seed_rate_interval``); None: too few seeds
    ci_low: float | None
    ci_high: float | None
    too_few_seeds: bool = False  # below MIN_SEEDS_FOR_INTERVAL seeds: no interval

    @property
    def b_ahead(self) -> int:
        return self.pairs - self.a_ahead - self.ties


def finishing_positions(game: GameOutcome) -> tuple[int, ...]:
    """0 for the best team; teams that cannot be told apart share a position.

    The winner comes first whatever the scores say (the game's end rule decides the winner, not
    the score table); the other teams, or all three after a draw, are ordered by final score.
    Teams that forfeited share the last position, behind every team that did not (F1:
    each lost, whatever its score).
    """
    keys = [
        (True, team == game.winner, score) if team not in game.forfeited else (False, False, 0)
        for team, score in enumerate(game.final_scores)
    ]
    return tuple(sum(1 for other in keys if other > key) for key in keys)


def head_to_head(games: Iterable[GameOutcome], stopped: bool = False) -> list[HeadToHead]:
    """Pairwise table for every ordered pair of distinct entrants that met, sorted by (a, b);
    ``stopped``: the run was stopped by a sequential test (``seed_rate_interval``).

    Every (a team, b team) pair of a game counts; teams of one entrant are never compared.
    A game given without its seed is a unit of its own.
    """

    @dataclass
    class Pair:  # from the first entrant's side (a < b); (b, a) is its mirror image
        games: int = 0
        pairs: int = 0
        ahead: int = 0
        ties: int = 0
        rate: SeedRatio = field(default_factory=SeedRatio)

    pairs: dict[tuple[str, str], Pair] = {}
    for number, game in enumerate(games):
        group: object = game.seed if game.seed is not None else ("game", number)
        outcome = game
        positions = finishing_positions(outcome)
        names = outcome.entrants_by_team
        met: set[tuple[str, str]] = set()
        for team_a, a in enumerate(names):
            for team_b, b in enumerate(names):
                if a >= b:
                    continue
                pair = pairs.setdefault((a, b), Pair())
                met.add((a, b))
                pair.pairs += 1
                if positions[team_a] < positions[team_b]:
                    pair.ahead += 1
                    pair.rate.add(group, 1.0, 1.0)
                elif positions[team_a] == positions[team_b]:
                    pair.ties += 1
                    pair.rate.add(group, 0.5, 1.0)
                else:
                    pair.rate.add(group, 0.0, 1.0)
        for key in met:
            pairs[key].games += 1

    table: list[HeadToHead] = []
    for (a, b), pair in pairs.items():
        rate = pair.rate.value
        interval = seed_rate_interval(pair.rate, stopped=stopped)
        seeds = pair.rate.seeds
        behind = pair.pairs - pair.ahead - pair.ties
        n = pair.pairs
        few = interval is None
        low, high = interval if interval is not None else (None, None)
        mirror_low, mirror_high = (
            (1.0 - interval[1], 1.0 - interval[0]) if interval else (None, None)
        )
        table += [
            HeadToHead(a, b, pair.games, n, seeds, pair.ahead, pair.ties, rate, low, high, few),
            HeadToHead(
                b,
                a,
                pair.games,
                n,
                seeds,
                behind,
                pair.ties,
                1.0 - rate,
                mirror_low,
                mirror_high,
                few,
            ),
        ]
    table.sort(key=lambda h: (h.a, h.b))
    return table


def main(argv: Sequence[str] | None = None) -> int:
    # Run as ``-m`` this module is ``__main__``: the games are the package module's classes.
    from arena.stats import rates

    from .byhand import games_from_json, parser, print_json, read_json

    args = parser("arena.stats.rates", __doc__, "a JSON list of games").parse_args(argv)
    print_json(rates.head_to_head(games_from_json(read_json(args.file))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
