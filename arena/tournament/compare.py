"""Is NEW better than BASE? Play duplicate units of the two until a sequential test decides.

The arithmetic (units, their scores, the stopping rule) is pure and lives in
:mod:`arena.stats.comparison`; this module plays. Swap pairs are ``schedule.swap_pairs``,
seed groups ``schedule.round_robin(2, …)``. ``arena bench stats`` measured both designs: swap
pairs need fewer games (by far for lopsided pairs of bots, whose evidence comes per unit, not
per game).

A comparison is stored as a run of the results database (so ``arena report`` reads it)
whose identity leaves out the number of games: it grows batch by batch, each batch a run of
the same six matches with more games per match, of which the runner plays only those not
stored yet. The same command therefore resumes the same test, and a finished one is read
back without playing.

The test looks after every unit, in seed order (``comparison.compare_outcome``); batches
are for scheduling: each plays as many units as the test is likely to need
(``comparison.next_target``: a lopsided comparison's first batch is the handful that could
decide it, a close one's at most ``--batch``), and units a batch played past the decision
are stored but not counted.
"""

from __future__ import annotations

import collections
import dataclasses
import json
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from arena.bots import BotSpec
from arena.referee.result import GameResult
from arena.stats.comparison import (
    BASE,
    DEFAULT_DESIGN,
    NEW,
    CompareError,
    CompareOutcome,
    Design,
    UnitTally,
    compare_outcome,
    next_target,
    unit_games,
)
from arena.stats.rates import GameOutcome
from arena.stats.sequential import Sprt

from .executor import MatchExecutor
from .runner import OnNotice, RunConfig, run_tournament
from .schedule import DONE, Next, ScheduledMatch, SchedulePlan, Wait
from .store import ResultsStore

__all__ = [
    "BATCH_GAMES",
    "DEFAULT_MAX_GAMES",
    "CompareConfig",
    "CompareError",
    "CompareOutcome",
    "CompareSchedule",
    "check_config",
    "compare_schedule",
    "default_batch",
    "run_compare",
    "seeded",
]

DEFAULT_MAX_GAMES: Final = 3000
# The most games one batch plays (4 seed groups, 12 swap pairs): every batch starts each
# match's bots again, so a batch of a unit or two at a time would spend more on start-ups
# than on games while the test is far from its bounds.
BATCH_GAMES: Final = 24


def default_batch(design: Design) -> int:
    """The most units one batch plays: ``BATCH_GAMES`` worth."""
    return BATCH_GAMES // unit_games(design)


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
    batch: int | None = None  # the most units a batch plays; None: ``default_batch(design)``
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
    def batch_units(self) -> int:
        """The most units one batch plays (the test looks after every unit)."""
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
    if config.batch_units < 1:
        raise CompareError(f"--batch must be at least 1, not {config.batch}")


def _stored_games(store: ResultsStore, config: CompareConfig) -> Iterable[GameOutcome]:
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
    return store.game_outcomes(run.id)


def _refuse_mixed_builds(store: ResultsStore, config: CompareConfig) -> None:
    """A comparison measures one build of each version: ``CompareError`` where its stored
    games ran two builds of one version, or where this machine's build of a version is
    not the one its stored games ran (a build that differs from run to run)."""
    stored = store.builds(config.run_id)
    for spec, label in zip(config.entrants, config.labels, strict=True):
        ran = stored.get(label, {})
        now = spec.build_digest
        if len(ran) > 1 or (now is not None and ran and now not in ran):
            builds = ", ".join(f"{digest} in {games} games" for digest, games in ran.items())
            here = f"; it is built as {now} here" if now is not None and now not in ran else ""
            raise CompareError(
                f"{label} ran different builds in comparison {config.run_id} ({builds}{here}): "
                "a verdict would mix them. Its build differs from one build to the next; make "
                "it reproducible, or start another comparison (--run-id)"
            )


def seeded(scheduled: ScheduledMatch, labels: Sequence[str], result: GameResult) -> GameOutcome:
    """A game just played, as its seed group sees it."""
    by_team = (
        labels[scheduled.entrants[0]],
        labels[scheduled.entrants[1]],
        labels[scheduled.entrants[2]],
    )
    return GameOutcome(by_team, result.scores, result.winner, result.game_index, result.forfeited)


class CompareSchedule:
    """A comparison as a schedule of the runner: a batch of units (the comparison's
    matches, each with games up to ``next_target``: the runner plays those not stored),
    then ``Wait`` until every match of it is over, then the sequential test (told game by
    game through ``outcome``): ``DONE``, or the next batch. One run plays them all: the
    referee processes stay up from one batch to the next.

    What stops a comparison between batches (its stored games mixing two builds, a batch
    that completed no unit) ends the schedule and is kept in ``error``."""

    def __init__(
        self, config: CompareConfig, tally: UnitTally, outcome: Callable[[], CompareOutcome]
    ) -> None:
        self.config = config
        self.tally = tally
        self.outcome = outcome
        self.error: CompareError | None = None
        self._pending: collections.deque[ScheduledMatch] = collections.deque()
        self._out = 0
        self._complete: int | None = None  # units complete when the batch under way began
        self._target = 0

    @property
    def entrants(self) -> Sequence[BotSpec]:
        return self.config.entrants

    @property
    def total_games(self) -> int | None:
        return None  # as many as the test needs

    def next_match(self) -> Next:
        if self._pending:
            self._out += 1
            return self._pending.popleft()
        if self._out or self.error is not None:
            return DONE if self.error is not None and not self._out else Wait()
        config = self.config
        outcome = self.outcome()
        if self._complete is not None:  # a batch is over
            try:
                with ResultsStore.open(config.db_path) as store:
                    _refuse_mixed_builds(store, config)
                if outcome.complete_units <= self._complete:  # never expected: all stored
                    raise CompareError(
                        f"a batch up to game {self._target} completed no unit; see the logs "
                        f"of run {config.run_id}"
                    )
            except CompareError as error:
                self.error = error
                return DONE
        if outcome.finished:
            return DONE
        target = next_target(
            self.tally.scores(), config.test, config.batch_units, config.max_games, config.design
        )
        assert target is not None  # not finished: the cap leaves room for a unit
        self._complete, self._target = outcome.complete_units, target
        self._pending.extend(config.schedule.build(len(config.entrants), target))
        return self.next_match()

    def game_stored(self, match: ScheduledMatch, result: GameResult) -> None:
        pass  # run_compare's on_game counts it in the tally

    def match_ended(self, match: ScheduledMatch) -> None:
        self._out -= 1

    def given_up(self, match: ScheduledMatch, error: Exception) -> None:
        raise error  # the arena could not play it: the comparison stops, nothing counted

    def withdrawn(self) -> Collection[str]:
        return ()


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
        _refuse_mixed_builds(store, config)
    played = 0

    def position(with_interval: bool) -> CompareOutcome:
        return compare_outcome(
            config.run_id, tally, config.test, config.max_games, played, with_interval
        )

    outcome = position(with_interval=False)

    def on_game(scheduled: ScheduledMatch, result: GameResult) -> None:
        nonlocal played, outcome
        played += 1
        completed = tally.add(seeded(scheduled, config.labels, result)) is not None
        # The test moves only when a unit completes; a game alone moves the count.
        outcome = (
            position(with_interval=False)
            if completed
            else dataclasses.replace(outcome, games=tally.games, played=played)
        )
        if on_position is not None:
            on_position(outcome)

    if on_position is not None:
        on_position(outcome)
    if not outcome.finished:  # a finished comparison is read back without playing
        schedule = CompareSchedule(config, tally, lambda: outcome)
        run_tournament(
            config,
            log_root,
            on_game=on_game,
            executor=executor,
            on_notice=on_notice,
            schedule=schedule,
        )
        if schedule.error is not None:
            raise schedule.error
    return position(with_interval=True)
