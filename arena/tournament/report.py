"""A run's report as data: standings, head-to-head, totals — ready for a table or ``--json``."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from arena.tournament.results import ResultsStore, RunInfo
from arena.tournament.stats import HeadToHead, Standing, head_to_head, standings

PAR = 1 / 3  # three teams: a bot no better than its opponents wins a third of its games


class UnknownRunError(LookupError):
    """No such run in the results database."""


@dataclass(frozen=True)
class RunReport:
    run: RunInfo
    games: int
    draws: int
    standings: list[Standing]
    head_to_head: list[HeadToHead]
    faults_by_kind: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "run": asdict(self.run),
            "games": self.games,
            "draws": self.draws,
            "par": PAR,
            "standings": [asdict(s) for s in self.standings],
            "head_to_head": [asdict(h) for h in self.head_to_head],
            "faults_by_kind": self.faults_by_kind,
        }


def build_report(store: ResultsStore, run_id: str | None = None) -> RunReport:
    """The report of ``run_id`` (or of the latest run)."""
    run_id = run_id or store.latest_run_id()
    run = store.run(run_id) if run_id else None
    if run is None:
        raise UnknownRunError(
            f"no run {run_id!r} in the results database" if run_id else "the database holds no run"
        )
    outcomes = store.game_outcomes(run.id)
    return RunReport(
        run=run,
        games=len(outcomes),
        draws=sum(1 for o in outcomes if o.winner is None),
        standings=standings(store.entrant_game_rows(run.id)),
        head_to_head=head_to_head(outcomes),
        faults_by_kind=store.fault_counts(run.id),
    )
