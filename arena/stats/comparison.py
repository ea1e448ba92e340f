"""Is NEW better than BASE? The arithmetic of a comparison (pure, no I/O).

A comparison plays units: one game seed played so that NEW and BASE hold each other's hands
(R3.1a), in one of two designs:

- a **swap pair** (the default): one seating of {NEW, NEW, BASE} or {NEW, BASE, BASE} and its
  mirror, NEW and BASE swapped: two games, four team pairs;
- a **seed group**: the seed in all six seatings: six games, twelve team pairs.

A unit's statistic is ``sequential.group_score`` over its NEW-versus-BASE team pairs, 1/2 in
expectation at equal strength, whatever the cards; ``sequential.Sprt`` decides on those
scores, looked at after every unit in seed order: the verdict is the first unit at which it
decides, and units played after it (a batch plays several at once) are stored but not
counted. ``UnitTally`` groups games into units as they arrive, in any order,
``compare_outcome`` says where the test stands, with the mean score's confidence sequence
(valid however the test stopped), and ``next_target`` how far the next batch plays;
``arena.tournament.compare`` plays.

Run by hand, ``python -m arena.stats.comparison GAMES.json NEW BASE`` prints where the
comparison stands on the games of NEW and BASE alone (the games' format:
:mod:`arena.stats.byhand`; ``--design groups`` for seed groups).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from .rates import GameOutcome, finishing_positions
from .sequential import (
    Sprt,
    SprtState,
    Verdict,
    confidence_sequence,
    first_decision,
    group_score,
)

__all__ = [
    "BASE",
    "DEFAULT_DESIGN",
    "GROUP_GAMES",
    "GROUP_SEATINGS",
    "NEW",
    "PAIR_GAMES",
    "CompareError",
    "CompareOutcome",
    "Design",
    "UnitTally",
    "compare_outcome",
    "counted_verdict",
    "next_target",
    "pair_placings",
    "unit_games",
    "unit_seatings",
    "units_to_decide",
]

NEW: Final = 0  # entrant indices of a comparison's run: NEW first, BASE second
BASE: Final = 1
# The seatings of one seed group: {NEW, NEW, BASE} and {NEW, BASE, BASE}, three each, in the
# order of ``schedule.round_robin(2, …)`` (seating s and 5 - s are mirrors: a swap pair).
Seating = tuple[int, int, int]
GROUP_SEATINGS: Final[tuple[Seating, ...]] = tuple(
    (a, b, c)
    for triple in ((NEW, NEW, BASE), (NEW, BASE, BASE))
    for a, b, c in sorted(set(itertools.permutations(triple)))
)
GROUP_GAMES: Final = len(GROUP_SEATINGS)
PAIR_GAMES: Final = 2

Design = Literal["pairs", "groups"]
DEFAULT_DESIGN: Final[Design] = "pairs"


def unit_games(design: Design) -> int:
    """Games in one unit of the design."""
    return PAIR_GAMES if design == "pairs" else GROUP_GAMES


def unit_seatings(design: Design, seed: int) -> frozenset[tuple[int, int, int]]:
    """The seatings (entrant indices by team) that play seed ``seed`` in the design."""
    if design == "groups":
        return frozenset(GROUP_SEATINGS)
    pair = seed % (GROUP_GAMES // 2)  # as schedule.swap_pairs: seating s and 5 - s
    return frozenset({GROUP_SEATINGS[pair], GROUP_SEATINGS[GROUP_GAMES - 1 - pair]})


class CompareError(ValueError):
    """The comparison cannot be run as asked."""


def pair_placings(outcome: GameOutcome, new: str, base: str) -> list[tuple[int, int]]:
    """(NEW's position, BASE's position) for each pair of teams NEW and BASE held in a game.

    A game of {NEW, NEW, BASE} gives two pairs (each NEW team against BASE's), as does one of
    {NEW, BASE, BASE}; teams held by the same entrant are never compared.
    """
    positions = finishing_positions(outcome)
    names = outcome.entrants_by_team
    return [
        (positions[a], positions[b])
        for a in range(3)
        for b in range(3)
        if names[a] == new and names[b] == base
    ]


class UnitTally:
    """Units (swap pairs or seed groups) filling up as their games arrive, in any order:
    stored ones, then live ones.

    A unit counts once it holds a game of each of its seatings (``unit_seatings``); a game
    of a seating already in its unit (never expected: the store keeps one game per match and
    index) is ignored, so that a unit is never scored on a seating twice.
    """

    def __init__(self, new: str, base: str, design: Design = DEFAULT_DESIGN) -> None:
        if new == base:
            raise CompareError(f"NEW and BASE must be distinct entrants, both are {new}")
        self.new = new
        self.base = base
        self.design = design
        self._groups: dict[int, dict[tuple[str, str, str], GameOutcome]] = {}
        self._scores: dict[int, float] = {}

    @property
    def games(self) -> int:
        return sum(len(group) for group in self._groups.values())

    def add(self, game: GameOutcome) -> float | None:
        """Count one game; the group's score if this game completed it, else None."""
        names = game.entrants_by_team
        if game.seed is None:
            raise CompareError(f"a game of {', '.join(names)} without its game seed")
        seed = game.seed
        if set(names) != {self.new, self.base}:
            raise CompareError(
                f"a game of {', '.join(names)} is no game of {self.new} and {self.base}"
            )
        expected = {
            tuple(self.new if e == NEW else self.base for e in seating)
            for seating in unit_seatings(self.design, seed)
        }
        if names not in expected:
            raise CompareError(
                f"a game of {', '.join(names)} on seed {seed} is no game of this "
                f"comparison's {'swap pairs' if self.design == 'pairs' else 'seed groups'}"
            )
        group = self._groups.setdefault(seed, {})
        if names in group:
            return None
        group[names] = game
        if len(group) < unit_games(self.design):
            return None
        placings = [
            p for outcome in group.values() for p in pair_placings(outcome, self.new, self.base)
        ]
        score = group_score(placings)
        self._scores[seed] = score
        return score

    def scores(self) -> list[float]:
        """The scores of the complete units, in seed order."""
        return [self._scores[seed] for seed in sorted(self._scores)]


def units_to_decide(scores: Sequence[float], test: Sprt, most: int) -> int:
    """How many more units the test is likely to need, from 1 to ``most``: never fewer than
    could decide (a run of units all won, or all lost), and once the evidence leans, as
    many as it took to get here at its pace so far (so that a batch ends near where the
    test will stop, and a lopsided comparison stops after a handful of units, not at the
    end of a large batch)."""
    done = len(scores)
    fewest = most
    for extreme in (1.0, 0.0):
        ahead = first_decision(test.path([*scores, *[extreme] * most])[done:])
        if ahead is not None:
            fewest = min(fewest, ahead.units - done)
    if done == 0:
        return max(1, fewest)
    state = test.path(scores)[-1]
    leads = [(state.llr, state.upper), (-state.llr, -state.lower)]
    if state.bet_better is not None and state.bet_not_better is not None:
        leads += [
            (state.bet_better, state.bet_bound),
            (state.bet_not_better, state.bet_bound_not_better),
        ]
    paces = [
        math.ceil(done * (bound - value) / value) for value, bound in leads if 0.0 < value < bound
    ]
    likely = min(paces, default=most)
    return max(1, min(most, max(fewest, likely)))


def next_target(
    scores: Sequence[float],
    test: Sprt,
    batch: int,
    max_games: int,
    design: Design = DEFAULT_DESIGN,
) -> int | None:
    """The seeds that the next batch plays up to; None once the cap leaves no unit.

    As many units as the test is likely to need (``units_to_decide``), at most ``batch``,
    beyond the complete ones (one unit a seed; the runner plays only what is missing, so a
    unit left incomplete by an interruption is completed first), never past ``max_games``
    (whole units only).
    """
    if batch < 1:
        raise CompareError(f"--batch must be at least 1, not {batch}")
    cap = max_games // unit_games(design)
    if len(scores) >= cap:
        return None
    return min(len(scores) + units_to_decide(scores, test, batch), cap)


@dataclass(frozen=True)
class CompareOutcome:
    """Where a comparison stands: the test's state, the verdict and the figures behind it."""

    run_id: str
    new: str
    base: str
    test: Sprt
    # At the first unit that decided, or after the last complete one while none has
    state: SprtState
    verdict: Verdict  # the test's, or "undecided" when the cap stopped it
    finished: bool  # decided, or no unit left under the cap
    # The mean unit score's confidence sequence over the units the verdict counts
    # (``sequential.confidence_sequence``: valid however the test stopped); None while
    # none is computed (a live position) or before the first unit.
    interval: tuple[float, float] | None
    games: int  # games stored, complete units or not
    max_games: int
    played: int = 0  # in this session
    too_few_seeds: bool = False  # no complete unit: no interval
    design: Design = DEFAULT_DESIGN
    complete_units: int = 0  # stored, the ones past the decision included

    @property
    def units(self) -> int:
        """The units the verdict counts (the first ones, in seed order)."""
        return self.state.units

    @property
    def counted_games(self) -> int:
        return self.units * unit_games(self.design)

    @property
    def past_decision(self) -> int:
        """Complete units stored after the one that decided (a batch's overrun)."""
        return max(0, self.complete_units - self.units)

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "new": self.new,
            "base": self.base,
            "verdict": self.verdict,
            "finished": self.finished,
            "estimate": self.state.estimate,
            "interval": None if self.interval is None else list(self.interval),
            "interval_method": "confidence sequence (betting), valid at the stop",
            "too_few_seeds": self.too_few_seeds,
            "design": self.design,
            "units": self.units,
            "seeds": self.units,
            "games_counted": self.counted_games,
            "units_past_decision": self.past_decision,
            "games": self.games,
            "played": self.played,
            "max_games": self.max_games,
            "llr": self.state.llr,
            "lower": self.state.lower,
            "upper": self.state.upper,
            "decided_by": self.state.decided_by,
            "bet_better": self.state.bet_better,
            "bet_not_better": self.state.bet_not_better,
            "bet_bound": self.state.bet_bound,
            "bet_bound_not_better": self.state.bet_bound_not_better,
            "margin": self.test.margin,
            "alpha": self.test.alpha,
            "beta": self.test.beta,
        }


def counted_verdict(
    scores: Sequence[float], test: Sprt, with_interval: bool = True
) -> tuple[SprtState, tuple[float, float] | None]:
    """What the units' scores (in seed order) say: the test looked at after every unit,
    its state at the first that decides (or after the last, while none has), and the
    confidence sequence of the mean score over the units it counts (None before the first
    unit, or without ``with_interval``)."""
    path = test.path(scores)
    state = first_decision(path) or (path[-1] if path else test.state([]))
    interval = None
    if with_interval and state.units:
        interval = confidence_sequence(scores[: state.units])
    return state, interval


def compare_outcome(
    run_id: str,
    tally: UnitTally,
    test: Sprt,
    max_games: int,
    played: int = 0,
    with_interval: bool = True,
) -> CompareOutcome:
    """The test looked at after every complete unit, in seed order, and whether it stops.

    The verdict is that of the first unit at which the test decides (units after it are
    not counted); with none, it is "undecided" and the comparison stops only when the cap
    leaves no room for another unit.
    """
    scores = tally.scores()
    state, interval = counted_verdict(scores, test, with_interval)
    capped = len(scores) >= max_games // unit_games(tally.design)
    return CompareOutcome(
        run_id=run_id,
        new=tally.new,
        base=tally.base,
        test=test,
        state=state,
        verdict=state.verdict,
        finished=state.verdict != "undecided" or capped,
        interval=interval,
        games=tally.games,
        max_games=max_games,
        played=played,
        too_few_seeds=with_interval and interval is None,
        design=tally.design,
        complete_units=len(scores),
    )


def main(argv: Sequence[str] | None = None) -> int:
    from .byhand import games_from_json, parser, print_json, read_json

    command = parser("arena.stats.comparison", __doc__, "a JSON list of games")
    command.add_argument("new", help="NEW's name as the games spell it")
    command.add_argument("base", help="BASE's name as the games spell it")
    command.add_argument("--design", choices=["pairs", "groups"], default=DEFAULT_DESIGN)
    command.add_argument("--max-games", type=int, default=3000)
    args = command.parse_args(argv)
    tally = UnitTally(args.new, args.base, args.design)
    for game in games_from_json(read_json(args.file)):
        if set(game.entrants_by_team) == {args.new, args.base}:  # others: not theirs
            tally.add(game)
    print_json(compare_outcome("by-hand", tally, Sprt(), args.max_games).to_json())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
