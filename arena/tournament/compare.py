"""Is NEW better than BASE? Duplicate seed groups of the two until a sequential test decides.

A seed group is one game seed played in every seating of {NEW, NEW, BASE} and {NEW, BASE,
BASE}: the six matches of a two-entrant round robin (``schedule.round_robin(2, …)``), all
dealt game k from the same key (R3.1a), so both bots held every hand of that seed on every
team. The group's statistic is ``sequential.group_score`` over its NEW-versus-BASE team
pairs, 1/2 in expectation at equal strength; ``sequential.Sprt`` decides on those scores.

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
from typing import Any, Final

from arena.referee.result import GameResult

from .executor import MatchExecutor
from .resample import SeedRatio
from .results import ResultsStore
from .runner import OnNotice, RunConfig, run_tournament
from .schedule import ScheduledMatch, seatings, triples
from .sequential import Sprt, SprtState, Verdict, group_score
from .stats import GameOutcome, SeededOutcome, finishing_positions, seed_rate_interval

__all__ = [
    "GROUP_GAMES",
    "GROUP_SEATINGS",
    "CompareConfig",
    "CompareError",
    "CompareOutcome",
    "GroupTally",
    "check_config",
    "compare_outcome",
    "next_target",
    "pair_placings",
    "run_compare",
]

NEW: Final = 0  # entrant indices of a comparison's run: NEW first, BASE second
BASE: Final = 1
# The seatings of one seed group: {NEW, NEW, BASE} and {NEW, BASE, BASE}, three each.
GROUP_SEATINGS: Final = tuple(s for triple in triples(2) for s in seatings(triple))
GROUP_GAMES: Final = len(GROUP_SEATINGS)
DEFAULT_MAX_GAMES: Final = 3000
DEFAULT_BATCH: Final = 4  # seed groups played between two looks at the test


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


class GroupTally:
    """Seed groups filling up as their games arrive, in any order: stored ones, then live ones.

    A group counts once it holds a game of each of its six seatings; a game of a seating
    already in its group (never expected: the store keeps one game per match and index) is
    ignored, so that a group is never scored on a seating twice.
    """

    def __init__(self, new: str, base: str) -> None:
        if new == base:
            raise CompareError(f"NEW and BASE must be distinct entrants, both are {new}")
        self.new = new
        self.base = base
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
        group = self._groups.setdefault(game.seed, {})
        if names in group:
            return None
        group[names] = game.outcome
        if len(group) < GROUP_GAMES:
            return None
        placings = [
            p for outcome in group.values() for p in pair_placings(outcome, self.new, self.base)
        ]
        score = group_score(placings)
        self._scores[game.seed] = score
        self._pairs[game.seed] = len(placings)
        return score

    def scores(self) -> list[float]:
        """The scores of the complete groups, in seed order."""
        return [self._scores[seed] for seed in sorted(self._scores)]

    def score_ratio(self) -> SeedRatio:
        """The complete groups' points over their team pairs, per seed: the mean group
        score (every group has as many pairs) as a rate whose units are the pairs."""
        ratio = SeedRatio()
        for seed, score in self._scores.items():
            ratio.add(seed, score * self._pairs[seed], float(self._pairs[seed]))
        return ratio


def next_target(complete_groups: int, batch: int, max_games: int) -> int | None:
    """Games per seating that the next batch plays up to; None once the cap leaves no group.

    ``batch`` more seeds than the complete groups (the runner plays only what is missing,
    so a group left incomplete by an interruption is completed first), never past
    ``max_games`` (whole groups only).
    """
    if batch < 1:
        raise CompareError(f"--batch must be at least 1, not {batch}")
    cap = max_games // GROUP_GAMES
    if complete_groups >= cap:
        return None
    return min(complete_groups + batch, cap)


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

    @property
    def groups(self) -> int:
        return self.state.groups

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
            "groups": self.groups,
            "seeds": self.groups,
            "games": self.games,
            "played": self.played,
            "max_games": self.max_games,
            "llr": self.state.llr,
            "lower": self.state.lower,
            "upper": self.state.upper,
            "margin": self.test.margin,
            "alpha": self.test.alpha,
            "beta": self.test.beta,
        }


def compare_outcome(
    run_id: str,
    tally: GroupTally,
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
    capped = len(scores) >= max_games // GROUP_GAMES
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

    test: Sprt = field(default_factory=Sprt)
    max_games: int = DEFAULT_MAX_GAMES
    batch: int = DEFAULT_BATCH
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
    if config.max_games < GROUP_GAMES:
        raise CompareError(
            f"--max-games must allow one seed group, {GROUP_GAMES} games, not {config.max_games}"
        )
    if config.batch < 1:
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
    tally = GroupTally(new, base)
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
        target = next_target(outcome.groups, config.batch, config.max_games)
        assert target is not None  # not finished: the cap leaves room for a group
        batch = dataclasses.replace(config, games=target)
        run_tournament(batch, log_root, on_game=on_game, executor=executor, on_notice=on_notice)
        before, outcome = outcome, position(with_interval=False)
        if outcome.groups <= before.groups:  # never expected: every game is stored, faults too
            raise CompareError(
                f"a batch up to game {target} completed no seed group; "
                f"see the logs under {log_root}"
            )
    return position(with_interval=True)
