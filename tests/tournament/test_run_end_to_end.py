"""A whole tournament of the sample bots, real processes over gRPC, stored in a real SQLite file.

Two runs are made once per module and examined by every test: the two sample bots (two
triples, {A,A,B} and {A,B,B}, three seatings each) and three entrants (the two samples and
a renamed copy of ``random``: one triple, six seatings).
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena.engine import replay
from arena.engine.record import judge_clock
from arena.stats.rates import MIN_SEEDS_FOR_INTERVAL
from arena.tournament.report import build_report
from arena.tournament.runner import RunConfig, RunProgress, RunSummary, run_tournament
from arena.tournament.schedule import RunKey, ScheduledMatch, round_robin, schedule_size
from arena.tournament.store import ResultsStore

from .helpers import (
    StoredGame,
    bot_processes_under,
    copy_bot,
    describe,
    find_game,
    game_ids,
    sample,
    wait_for_no_bots,
)

# Slow: every test reads runs played for the module: the whole suite only.
pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]


@dataclass
class FinishedRun:
    root: Path
    config: RunConfig
    summary: RunSummary
    progress: list[tuple[int, int, int]]  # (done, total, already_done) at each callback
    schedule: list[ScheduledMatch]

    @property
    def total(self) -> int:
        return schedule_size(self.schedule)

    def store(self) -> ResultsStore:
        return ResultsStore.open(self.config.db_path)

    def games(self) -> list[tuple[StoredGame, dict[str, Any]]]:
        with self.store() as store:
            found = []
            for game_id in game_ids(store, self.summary.run_id):
                game = find_game(store, game_id)
                assert game is not None
                found.append((game, store.game_record(game_id)))
            return found


def _play(root: Path, entrants: tuple[Any, ...], games: int) -> FinishedRun:
    # No seed: a secret run, as `arena run` plays by default.
    config = RunConfig(
        entrants=entrants, games=games, seed=None, jobs=2, db_path=root / "results.db"
    )
    seen: list[tuple[int, int, int]] = []

    def on_progress(progress: RunProgress) -> None:
        seen.append((progress.done, progress.total, progress.already_done))

    summary = run_tournament(config, root / "logs", on_progress)
    schedule = round_robin(len(entrants), games)
    return FinishedRun(root, config, summary, seen, schedule)


@pytest.fixture(scope="module", params=["two-entrants", "three-entrants"])
def finished(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp(request.param)
    if request.param == "two-entrants":
        return _play(root, (sample("random"), sample("greedy")), games=2)
    other = copy_bot("random", root / "bots" / "random2", "random2")
    from arena.bots import load_bot

    return _play(root, (sample("random"), sample("greedy"), load_bot(other)), games=1)


@pytest.mark.slow
def test_the_summary_counts_every_game_as_played(finished: FinishedRun) -> None:
    summary = finished.summary
    assert summary.run_id == finished.config.run_id
    assert summary.played == finished.total
    assert summary.skipped == 0
    assert not summary.interrupted


def test_every_scheduled_game_is_stored_exactly_once(finished: FinishedRun) -> None:
    expected = {(m.key, i) for m in finished.schedule for i in range(m.games)}
    with finished.store() as store:
        assert store.completed_games(finished.summary.run_id) == expected
        run = store.run(finished.summary.run_id)
        assert run is not None and run.status == "finished"

    conn = sqlite3.connect(f"file:{finished.config.db_path}?mode=ro", uri=True)
    try:
        assert conn.execute("SELECT count(*) FROM games").fetchone()[0] == len(expected)
        assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 1
        duplicates = conn.execute(
            """
            SELECT m.match_key, g.game_index, count(*) FROM games g
            JOIN matches m ON m.id = g.match_id
            GROUP BY m.match_key, g.game_index HAVING count(*) > 1
            """
        ).fetchall()
        assert duplicates == []
        assert conn.execute("SELECT count(*) FROM seat_stats").fetchone()[0] == 6 * len(expected)
        # each match row seats the schedule's entrants on its teams
        labels = {
            row[0]: f"{row[1]}@{row[2]}" if row[2] else row[1]
            for row in conn.execute("SELECT id, name, version FROM entrants")
        }
        matches = {
            key: (labels[a], labels[b], labels[c])
            for key, a, b, c in conn.execute(
                "SELECT match_key, entrant_team0, entrant_team1, entrant_team2 FROM matches"
            )
        }
    finally:
        conn.close()
    config_labels = finished.config.labels
    assert matches == {
        m.key: tuple(config_labels[e] for e in m.entrants) for m in finished.schedule
    }


def test_every_stored_record_replays_to_its_row(finished: FinishedRun) -> None:
    """Each record replays, and replays with its game's key: its deals are the run key's."""
    with finished.store() as store:
        run_key = RunKey(store.deal_key(finished.summary.run_id))
    for game, record in finished.games():
        where = f"game {game.id} ({game.match_key} #{game.game_index})"
        replayed = replay(record)
        assert replay(record, run_key.game(game.game_index)).outcome == replayed.outcome, where
        assert replayed.outcome is not None, where
        assert replayed.outcome.winner == game.winner, where
        assert tuple(replayed.outcome.scores) == game.scores, where
        assert replayed.outcome.deals == game.deals, where
        assert record["result"] == {
            "winner": game.winner,
            "draw": game.winner is None and not game.forfeited,
            "scores": list(game.scores),
            "deals": game.deals,
            "forfeited": list(game.forfeited),
        }, where
        assert len(record["deals"]) == game.deals, where
        assert "seed" not in record, where
        assert record["meta"]["match_id"] == game.match_key, where
        assert record["meta"]["game_index"] == game.game_index, where


def test_seat_statistics_agree_with_the_record(finished: FinishedRun) -> None:
    for game, record in finished.games():
        where = f"game {game.id} ({game.match_key} #{game.game_index})"
        played = [d for d in record["deals"] if len(d.get("tricks", ())) == 6]
        points = [sum(d["points_won"][team] for d in played) for team in range(3)]
        assert [s.seat for s in game.seats] == list(range(6)), where
        for seat in game.seats:
            assert game.points_won[seat.seat] == points[seat.seat % 3], where
        # one bidder in every deal that was played out (R4.4)
        assert sum(s.bids_made for s in game.seats) == len(played), where
        for deal in played:
            assert deal["scores"] is not None, where
        if played:
            assert played[-1]["scores"] == list(game.scores), where


def test_decision_times_are_the_records_and_add_up_to_the_seat_statistics(
    finished: FinishedRun,
) -> None:
    """Each game's decision_times rows are its record's decisions, and a seat's times in
    them sum to its seat_stats (a stalled request, untimed in both, counts there alone);
    the stored record judges each of its timed decisions (docs/GAME_RECORD.md)."""
    conn = sqlite3.connect(f"file:{finished.config.db_path}?mode=ro", uri=True)
    try:
        for game, record in finished.games():
            where = f"game {game.id} ({game.match_key} #{game.game_index})"
            rows = conn.execute(
                """
                SELECT deal_number, decision_index, seat, kind, seconds FROM decision_times
                WHERE game_id = ? ORDER BY deal_number, decision_index
                """,
                (game.id,),
            ).fetchall()
            assert rows == [
                (number, index, d["seat"], d["kind"], d["seconds"])
                for number, deal in enumerate(record["deals"], start=1)
                for index, d in enumerate(deal["decisions"])
            ], where
            judged = judge_clock(record)
            assert [d for d in judged if not d.agrees] == [], where
            assert len(judged) == sum(r[4] is not None for r in rows), where
            for seat in game.seats:
                timed = [r[4] for r in rows if r[2] == seat.seat and r[4] is not None]
                stalled = any(
                    f.seat == seat.seat and f.kind.value == "stalled" for f in game.faults
                )
                assert len(timed) <= seat.decisions, where
                assert stalled or len(timed) == seat.decisions, where
                assert sum(timed) == pytest.approx(seat.decision_seconds_total), where
                assert max(timed, default=0.0) == pytest.approx(seat.decision_seconds_max), where
    finally:
        conn.close()


def test_standings_add_up(finished: FinishedRun) -> None:
    total = finished.total
    with finished.store() as store:
        report = build_report(store, finished.summary.run_id)
    conn = sqlite3.connect(f"file:{finished.config.db_path}?mode=ro", uri=True)
    try:
        decisive = conn.execute("SELECT count(*) FROM games WHERE winner IS NOT NULL").fetchone()[0]
    finally:
        conn.close()
    assert report.games == total
    assert report.draws == total - decisive
    assert {s.entrant for s in report.standings} == set(finished.config.labels)
    for s in report.standings:
        assert s.games == s.wins + s.draws + s.losses, s
        assert s.score == s.wins + s.draws / 2
        if s.seeds >= MIN_SEEDS_FOR_INTERVAL:
            assert s.ci_low is not None and s.ci_high is not None, s
            assert s.ci_low <= s.win_rate <= s.ci_high and s.ci_low < s.ci_high, s
        else:
            assert s.ci_low is None and s.ci_high is None and s.too_few_seeds, s
    # one row per team of every game: three per game
    assert sum(s.games for s in report.standings) == 3 * total
    # one winning team in each game that is not a draw
    assert sum(s.wins for s in report.standings) == decisive
    assert sum(s.draws for s in report.standings) == 3 * (total - decisive)


def test_progress_reaches_the_total(finished: FinishedRun) -> None:
    seen = finished.progress
    total = finished.total
    assert seen, "the progress callback was never called"
    assert seen[0] == (0, total, 0)
    assert seen[-1] == (total, total, 0)
    assert [done for done, _, _ in seen] == list(range(total + 1))


def test_duplicate_play_deals_game_k_alike_in_every_seating(finished: FinishedRun) -> None:
    """R3.1a: the first deal of game k is the same cards to the same seats in every seating."""
    by_game: dict[tuple[int, int], list[tuple[str, dict[str, Any]]]] = defaultdict(list)
    # a triple is the multiset of its entrants: ({A,A,B} and {A,B,B} stay apart)
    triple_of = {m.key: tuple(sorted(m.entrants)) for m in finished.schedule}
    for game, record in finished.games():
        by_game[(triple_of[game.match_key], game.game_index)].append((game.match_key, record))
    for (triple, index), games in by_game.items():
        seatings = {m.key for m in finished.schedule if triple_of[m.key] == triple}
        assert {key for key, _ in games} == seatings
        key0, first = games[0]
        for key, record in games[1:]:
            where = f"triple {triple} game {index}: {key0} vs {key}"
            assert record["first_dealer"] == first["first_dealer"], where
            assert record["deals"][0]["dealer"] == first["deals"][0]["dealer"], where
            assert record["deals"][0]["hands"] == first["deals"][0]["hands"], where
            assert record["deals"][0]["stock"] == first["deals"][0]["stock"], where


def test_duplicate_play_deals_the_kth_deal_alike_whatever_happened_before(
    finished: FinishedRun,
) -> None:
    """R3.1a: deal number k of a game is the same cards whoever sits there and whatever
    was played in the deals before it; so it holds across every match of the run."""
    deals: dict[tuple[int, int], list[tuple[str, dict[str, Any]]]] = defaultdict(list)
    for game, record in finished.games():
        for deal in record["deals"]:
            deals[(game.game_index, deal["number"])].append((game.match_key, deal))
    compared = 0
    for (index, number), found in deals.items():
        key0, first = found[0]
        for key, deal in found[1:]:
            where = f"game {index} deal {number}: {key0} vs {key}"
            assert deal["hands"] == first["hands"], where
            assert deal["stock"] == first["stock"], where
            compared += 1
    assert compared > 0


def test_no_bot_process_outlives_the_run(finished: FinishedRun) -> None:
    survivors = wait_for_no_bots(finished.root, 3.0)
    assert not survivors, describe(survivors)


def test_the_same_run_again_plays_nothing(finished: FinishedRun) -> None:
    # Last in the module: it runs the finished tournament a second time (a resume).
    seen: list[int] = []
    summary = run_tournament(finished.config, finished.root / "logs", lambda p: seen.append(p.done))
    assert summary.run_id == finished.summary.run_id
    assert summary.played == 0
    assert summary.skipped == finished.total
    assert seen == [finished.total]
    with finished.store() as store:
        assert len(game_ids(store, summary.run_id)) == finished.total
        run = store.run(summary.run_id)
        assert run is not None and run.status == "finished"
    assert not bot_processes_under(finished.root)
