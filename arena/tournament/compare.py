"""Is NEW better than BASE? Duplicate units of the two until a sequential test decides.

A unit is one game seed played so that NEW and BASE hold each other's hands (R3.1a), in one
of two designs:

- a **swap pair** (the default): one seating of {NEW, NEW, BASE} or {NEW, BASE, BASE} and its
  mirror, NEW and BASE swapped (``schedule.swap_pairs``): two games, four team pairs;
- a **seed group**: the seed in all six seatings (``schedule.round_robin(2, …)``): six
  games, twelve team pairs.

A unit's statistic is ``sequential.group_score`` over its NEW-versus-BASE team pairs, 1/2 in
expectation at equal strength, whatever the cards; ``sequential.Sprt`` decides on those
scores. ``arena bench stats`` measured both designs: swap pairs need fewer games (by far for
lopsided pairs of bots, whose evidence comes per unit, not per game).

A comparison is stored as a run of the results database (so ``arena report`` reads it)
whose identity leaves out the number of games: it grows batch by batch, each batch a run of
the same six matches with more games per match, of which the runner plays only those not
stored yet. The same command therefore resumes the same test, and a finished one is read
back without playing.

The top half of this module is pure (grouping games into seed groups, their scores, the
stopping rule); ``run_compare`` plays.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from arena.referee.result import GameResult

from .executor import MatchExecutor
from .resample import SeedRatio
from .runner import OnNotice, RunConfig, run_tournament
from .schedule import ScheduledMatch, SchedulePlan, seatings, triples
from .sequential import Sprt, SprtState, Verdict, group_score
from .stats import GameOutcome, SeededOutcome, finishing_positions, seed_rate_interval
from .store import ResultsStore

__all__ = [
    "DEFAULT_DESIGN",
    "GROUP_GAMES",
    "GROUP_SEATINGS",
    "CompareConfig",
    "CompareError",
    "CompareOutcome",
    "Design",
    "UnitTally",
    "check_config",
    "compare_outcome",
    "compare_schedule",
    "default_batch",
    "next_target",
    "pair_placings",
    "run_compare",
    "unit_games",
]

NEW: Final = 0  # entrant indices of a comparison's run: NEW first, BASE second
BASE: Final = 1
# The seatings of one seed group: {NEW, NEW, BASE} and {NEW, BASE, BASE}, three each.
GROUP_SEATINGS: Final = tuple(s for triple in triples(2) for s in seatings(triple))
GROUP_GAMES: Final = len(GROUP_SEATINGS)
PAIR_GAMES: Final = 2
DEFAULT_MAX_GAMES: Final = 3000
# Games played between two looks at the test (4 seed groups, 12 swap pairs): a look after
# every unit would cost each batch's bots their start-up for a game or two.
BATCH_GAMES: Final = 24

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


def default_batch(design: Design) -> int:
    """Units played between two looks at the test: ``BATCH_GAMES`` worth."""
    return BATCH_GAMES // unit_games(design)


class CompareError(ValueError):
    """The comparison cannot be run as asked."""


# -- pure: seed groups, their scores, the stopping rule ------------------------------------------


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
        self._pairs: dict[int, int] = {}

    @property
    def games(self) -> int:
        return sum(len(group) for group in self._groups.values())

    def add(self, game: SeededOutcome) -> float | None:
        """Count one game; the group's score if this game completed it, else None."""
        names = game.outcome.entrants_by_team
        if set(names) != {self.new, self.base}:
            raise CompareError(
                f"a game of {', '.join(names)} is no game of {self.new} and {self.base}"
            )
        expected = {
            tuple(self.new if e == NEW else self.base for e in seating)
            for seating in unit_seatings(self.design, game.seed)
        }
        if names not in expected:
            raise CompareError(
                f"a game of {', '.join(names)} on seed {game.seed} is no game of this "
                f"comparison's {'swap pairs' if self.design == 'pairs' else 'seed groups'}"
            )
        group = self._groups.setdefault(game.seed, {})
        if names in group:
            return None
        group[names] = game.outcome
        if len(group) < unit_games(self.design):
            return None
        placings = [
            p for outcome in group.values() for p in pair_placings(outcome, self.new, self.base)
        ]
        score = group_score(placings)
        self._scores[game.seed] = score
        self._pairs[game.seed] = len(placings)
        return score

    def scores(self) -> list[float]:
        """The scores of the complete units, in seed order."""
        return [self._scores[seed] for seed in sorted(self._scores)]

    def score_ratio(self) -> SeedRatio:
        """The complete units' points over their team pairs, per seed: the mean unit score
        (every unit has as many pairs) as a rate whose units are the pairs."""
        ratio = SeedRatio()
        for seed, score in self._scores.items():
            ratio.add(seed, score * self._pairs[seed], float(self._pairs[seed]))
        return ratio


def next_target(
    complete_units: int, batch: int, max_games: int, design: Design = DEFAULT_DESIGN
) -> int | None:
    """The seeds that the next batch plays up to; None once the cap leaves no unit.

    ``batch`` more seeds than the complete units (one unit a seed; the runner plays only
    what is missing, so a unit left incomplete by an interruption is completed first), never
    past ``max_games`` (whole units only).
    """
    if batch < 1:
        raise CompareError(f"--batch must be at least 1, not {batch}")
    cap = max_games // unit_games(design)
    if complete_units >= cap:
        return None
    return min(complete_units + batch, cap)


@dataclass(frozen=True)
class CompareOutcome:
    """Where a comparison stands: the test's state, the verdict and the figures behind it."""

    run_id: str
    new: str
    base: str
    test: Sprt
    state: SprtState
    verdict: Verdict  # the test's, or "undecided" when the cap stopped it
    finished: bool  # decided, or no group left under the cap
    # 95 % interval of the mean group score over seeds (``stats.seed_rate_interval``); None
    # while none is computed (a live position: the bootstrap is for the verdict) or below
    # ``stats.MIN_SEEDS_FOR_INTERVAL`` groups (then ``too_few_seeds``).
    interval: tuple[float, float] | None
    games: int  # games stored, complete groups or not
    max_games: int
    played: int = 0  # in this session
    too_few_seeds: bool = False
    design: Design = DEFAULT_DESIGN

    @property
    def units(self) -> int:
        return self.state.units

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "new": self.new,
            "base": self.base,
            "verdict": self.verdict,
            "finished": self.finished,
            "estimate": self.state.estimate,
            "interval": None if self.interval is None else list(self.interval),
            "too_few_seeds": self.too_few_seeds,
            "design": self.design,
            "units": self.units,
            "seeds": self.units,
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


def compare_outcome(
    run_id: str,
    tally: UnitTally,
    test: Sprt,
    max_games: int,
    played: int = 0,
    with_interval: bool = True,
) -> CompareOutcome:
    """The test on the complete groups so far, and whether it stops here.

    It stops when the ratio leaves its bounds, or when the cap leaves no room for another
    group: then the verdict is "undecided", whatever side the ratio leans to.
    """
    scores = tally.scores()
    state = test.state(scores)
    capped = len(scores) >= max_games // unit_games(tally.design)
    verdict: Verdict = state.verdict
    interval = None
    if with_interval:
        # Each group is one seed: the mean score's interval resamples seeds.
        interval = seed_rate_interval(tally.score_ratio())
    return CompareOutcome(
        run_id=run_id,
        new=tally.new,
        base=tally.base,
        test=test,
        state=state,
        verdict=verdict,
        finished=verdict != "undecided" or capped,
        interval=interval,
        games=tally.games,
        max_games=max_games,
        played=played,
        too_few_seeds=with_interval and interval is None,
        design=tally.design,
    )


# -- playing ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CompareConfig(RunConfig):
    """A comparison: the run of NEW (entrant 0) and BASE (entrant 1), and its test.

    ``games`` is the games per seating of the batch being played; it is no part of the
    identity, so every batch is the same run. The test's parameters are: a test with
    another margin is another comparison. The cap and the batch size are not: raising
    ``--max-games`` continues the same test.
    """

    schedule: SchedulePlan = field(default_factory=lambda: compare_schedule(DEFAULT_DESIGN))
    test: Sprt = field(default_factory=Sprt)
    max_games: int = DEFAULT_MAX_GAMES
    batch: int | None = None  # units between two looks; None: ``default_batch(design)``
    name: str | None = None  # --run-id: the run's id instead of one derived from its identity

    def identity(self) -> dict[str, Any]:
        identity = super().identity()
        del identity["games"]
        identity["compare"] = {
            "new": self.labels[NEW],
            "base": self.labels[BASE],
            "margin": self.test.margin,
            "alpha": self.test.alpha,
            "beta": self.test.beta,
        }
        return identity

    @property
    def run_id(self) -> str:
        return self.name if self.name is not None else super().run_id

    @property
    def design(self) -> Design:
        """Swap pairs when the schedule plays them (``compare_schedule``), else seed groups."""
        return "pairs" if self.schedule.kind == "pairs" else "groups"

    @property
    def looks_every(self) -> int:
        """Units played between two looks at the test."""
        return self.batch if self.batch is not None else default_batch(self.design)


def compare_schedule(design: Design) -> SchedulePlan:
    """The schedule of a comparison in the design (seed groups: the round robin)."""
    return SchedulePlan("pairs") if design == "pairs" else SchedulePlan()


# Told where the test stands after each stored game (the live line; without the interval).
OnComparePosition = Callable[[CompareOutcome], None]


def check_config(config: CompareConfig) -> None:
    """Refuse, before any bot is built or started, a comparison that cannot be run."""
    if len(config.entrants) != 2:
        raise CompareError("a comparison has two entrants, NEW and BASE")
    new, base = config.labels
    if new == base:
        raise CompareError(
            f"NEW and BASE are the same bot, {new} (same name and version): to compare a bot "
            "with itself, copy it and give the copy another name in its bot.toml"
        )
    unit = unit_games(config.design)
    if config.max_games < unit:
        raise CompareError(f"--max-games must allow one unit, {unit} games, not {config.max_games}")
    if config.looks_every < 1:
        raise CompareError(f"--batch must be at least 1, not {config.batch}")


def _stored_games(store: ResultsStore, config: CompareConfig) -> Iterable[SeededOutcome]:
    """The comparison's games already stored, refusing a run that is another one."""
    run = store.run(config.run_id)
    if run is None:
        return []
    # As stored: through JSON, where tuples are lists.
    if run.settings != json.loads(json.dumps(config.identity())):
        raise CompareError(
            f"run {config.run_id} in {config.db_path} is not this comparison (other entrants, "
            "test or table settings); give another --run-id or --db"
        )
    return store.seeded_outcomes(run.id)


def seeded(scheduled: ScheduledMatch, labels: Sequence[str], result: GameResult) -> SeededOutcome:
    """A game just played, as its seed group sees it."""
    by_team = (
        labels[scheduled.entrants[0]],
        labels[scheduled.entrants[1]],
        labels[scheduled.entrants[2]],
    )
    return SeededOutcome(result.game_index, GameOutcome(by_team, result.scores, result.winner))


def run_compare(
    config: CompareConfig,
    log_root: Path,
    on_position: OnComparePosition | None = None,
    executor: MatchExecutor | None = None,
    on_notice: OnNotice | None = None,
) -> CompareOutcome:
    """Play (or resume) a comparison until its test decides or its cap is reached.

    Games are stored as they end, like a run's; ``RunInterrupted`` (from the runner) stops
    it with everything finished kept. ``executor`` plays every batch (default: the run's
    own, on this machine).
    """
    check_config(config)
    new, base = config.labels
    tally = UnitTally(new, base, config.design)
    with ResultsStore.open(config.db_path) as store:
        for game in _stored_games(store, config):
            tally.add(game)
    played = 0

    def position(with_interval: bool) -> CompareOutcome:
        return compare_outcome(
            config.run_id, tally, config.test, config.max_games, played, with_interval
        )

    def on_game(scheduled: ScheduledMatch, result: GameResult) -> None:
        nonlocal played
        played += 1
        tally.add(seeded(scheduled, config.labels, result))
        if on_position is not None:
            on_position(position(with_interval=False))

    outcome = position(with_interval=False)
    if on_position is not None:
        on_position(outcome)
    while not outcome.finished:
        target = next_target(outcome.units, config.looks_every, config.max_games, config.design)
        assert target is not None  # not finished: the cap leaves room for a group
        batch = dataclasses.replace(config, games=target)
        run_tournament(batch, log_root, on_game=on_game, executor=executor, on_notice=on_notice)
        before, outcome = outcome, position(with_interval=False)
        if outcome.units <= before.units:  # never expected: every game is stored, faults too
            raise CompareError(
                f"a batch up to game {target} completed no unit; see the logs under {log_root}"
            )
    return position(with_interval=True)
