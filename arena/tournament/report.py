"""A run's report as data: ratings, standings, head-to-head, totals — ready for a table or
``--json``."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Final

from arena.stats.rates import (
    MIN_SEEDS_FOR_INTERVAL,
    HeadToHead,
    Standing,
    head_to_head,
    standings,
)
from arena.stats.ratings import Rating, fit_ratings
from arena.tournament.store import ResultsStore, RunInfo

PAR = 1 / 3  # three teams: a bot no better than its opponents wins a third of its games

# With two entrants a rating says no more than the head-to-head rate it is a function of
# (one pair, one odds ratio), and the standings already order the two; ratings earn their
# place only when entrants met different opponents.
MIN_ENTRANTS_FOR_RATINGS: Final = 3

INTERVALS: Final = {
    "confidence": 0.95,
    "method": (
        "over game seeds (duplicate groups, R3.1a): a rate's is the union of Wilson's and the "
        "exact binomial interval on its games over their design effect (at least 1), with "
        "Student's t on seeds - 1 degrees of freedom; points per deal the t interval; null "
        "below min_seeds seeds (too_few_seeds)"
    ),
    "rating_method": (
        "profile likelihood of the Bradley-Terry fit, its drop scaled by the design effect, "
        "t on seeds - 1; centred on the rated field (place rated); an entrant above (below) "
        "the field has only a lower (upper) bound: rating null, high_open (low_open)"
    ),
    "min_seeds": MIN_SEEDS_FOR_INTERVAL,
    # A run stopped by a sequential test (arena compare's): rates' intervals are confidence
    # sequences over its seeds, valid at the stop, and points per deal gets none.
    "stopped_method": (
        "confidence sequence of the seeds' mean rate (betting), valid however the test stopped"
    ),
}


class UnknownRunError(LookupError):
    """No such run in the results database."""


@dataclass(frozen=True)
class MissedJoins:
    """An entrant some of whose seats never joined (auto-played by the fallbacks)."""

    entrant: str
    seats: int  # seats (one per match and seat) that never joined
    reason: str  # the latest one's: how its process ended, its log's end and path


@dataclass(frozen=True)
class RunReport:
    run: RunInfo
    games: int
    seeds: int  # independent game seeds of the run
    draws: int
    ratings: list[Rating]  # best first; empty below MIN_ENTRANTS_FOR_RATINGS entrants
    standings: list[Standing]  # by win rate
    head_to_head: list[HeadToHead]
    faults_by_kind: dict[str, int]
    missed_joins: list[MissedJoins]
    # Entrant label -> build digest -> games: versions whose games ran different builds
    # (a build that differs from one build to the next), so their figures mix two bots.
    mixed_builds: dict[str, dict[str, int]] = field(default_factory=dict)
    # Stopped by a sequential test (a comparison's run): its intervals know it
    stopped: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "run": asdict(self.run),
            "games": self.games,
            "seeds": self.seeds,
            "draws": self.draws,
            "par": PAR,
            "intervals": INTERVALS,
            "stopped_by_test": self.stopped,
            "ratings": [asdict(r) for r in self.ratings],
            "standings": [asdict(s) for s in self.standings],
            "head_to_head": [asdict(h) for h in self.head_to_head],
            "faults_by_kind": self.faults_by_kind,
            "missed_joins": [asdict(m) for m in self.missed_joins],
            "mixed_builds": self.mixed_builds,
        }


def build_report(store: ResultsStore, run_id: str | None = None) -> RunReport:
    """The report of ``run_id`` (or of the latest run)."""
    run_id = run_id or store.latest_run_id()
    run = store.run(run_id) if run_id else None
    if run is None:
        raise UnknownRunError(
            f"no run {run_id!r} in the results database" if run_id else "the database holds no run"
        )
    games = store.game_outcomes(run.id)
    entrants = {name for game in games for name in game.entrants_by_team}
    # A comparison stops when its test decides (arena.tournament.compare): the figures its
    # games give were chosen by that stop, which a fixed-size interval does not know.
    stopped = "compare" in run.settings
    return RunReport(
        run=run,
        games=len(games),
        seeds=len({game.seed for game in games}),
        draws=sum(1 for game in games if game.winner is None and not game.forfeited),
        ratings=fit_ratings(games) if len(entrants) >= MIN_ENTRANTS_FOR_RATINGS else [],
        standings=standings(store.entrant_game_rows(run.id), stopped),
        head_to_head=head_to_head(games, stopped),
        faults_by_kind=store.fault_counts(run.id),
        missed_joins=[MissedJoins(*row) for row in store.missed_joins(run.id)],
        mixed_builds=store.mixed_builds(run.id),
        stopped=stopped,
    )
