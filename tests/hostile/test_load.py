"""Load: many matches at once on one referee, good bots and zoo bots mixed.

A tournament (``TournamentRunner``, four tables at a time, one game per seating) with the
sample bots and several zoo bots as entrants: every scheduled game is stored exactly once
and replays, each zoo bot is charged with its own faults, the good bots with none, logs
stay capped, and when it is over no process of any bot (children included) is left.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections import Counter
from collections.abc import Awaitable
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

import pytest
from tournament.helpers import game_ids, integrity_check, run_statuses, stored_keys

from arena.engine import replay
from arena.tournament.runner import RunConfig, TournamentRunner
from arena.tournament.schedule import round_robin, schedule_size
from arena.tournament.store import ResultsStore

from .helpers import (
    CLEANUP_S,
    FAST,
    LIMITS,
    TALLY,
    oversized_logs,
    processes_under,
    sample,
    zoo_bot,
)

GOOD = ("random", "greedy")
# Each zoo entrant and the fault kind it earns in every game it plays.
HOSTILE = {
    "card_not_held": "illegal",
    "lingering_children": "closed",
    "exit_at_start": "no_join",
}
T = TypeVar("T")
# Fifty-odd bot processes start while four tables play on two busy cores: the default
# join deadline (10 s), not FAST's 3 s. No bot here is meant to miss it (exit_at_start
# dies, which the referee sees at once), so it costs no time.
SETTINGS = replace(FAST, join_timeout_s=10)
FAULTS = """
    SELECT e.name, f.kind, f.seat, f.reason, m.match_key
    FROM faults f
    JOIN games g ON g.id = f.game_id
    JOIN matches m ON m.id = g.match_id
    JOIN entrants e ON e.id = CASE f.seat % 3
        WHEN 0 THEN m.entrant_team0 WHEN 1 THEN m.entrant_team1 ELSE m.entrant_team2 END
"""


async def watching_the_loop(work: Awaitable[T], stalls: list[float]) -> T:
    """Await ``work`` while noting how long the event loop was kept from running (every
    stall over 50 ms): a stall during a decision is time charged to that decision's bot."""

    async def watch() -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(0.01)
            if (late := time.monotonic() - before - 0.01) > 0.05:
                stalls.append(late)

    watcher = asyncio.ensure_future(watch())
    try:
        return await work
    finally:
        watcher.cancel()


def games_never_asking_a_card(config: RunConfig, name: str) -> list[str]:
    """The games of entrant ``name`` in which none of its seats was asked to play or
    discard a card (as the stored records tell), each ended by a forfeit (F1)."""
    never = []
    with ResultsStore.open(config.db_path) as store:
        for game_id in game_ids(store, config.run_id):
            record = store.game_record(game_id)
            names = [e["name"] for e in record["meta"]["entrants"]]
            if name not in names:
                continue
            team = names.index(name)
            asked = any(
                d["seat"] % 3 == team and d["kind"] in ("play", "discard")
                for deal in record["deals"]
                for d in deal["decisions"]
            )
            if not asked:
                assert record["result"]["forfeited"], record["meta"]
                never.append(record["meta"]["match_id"])
    return never


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_tournament_with_zoo_bots(tmp_path: Path) -> None:
    entrants = tuple(sample(n) for n in GOOD) + tuple(zoo_bot(n) for n in HOSTILE)
    config = RunConfig(
        entrants=entrants,
        games=1,
        seed=5,
        jobs=4,
        db_path=tmp_path / "results.db",
        settings=SETTINGS,
        limits=LIMITS,
        # The zoo's bots share code outside their own directories (zoolib, botlib), which
        # a sandboxed bot cannot see; the sandbox's own attacks are in tests/fairplay.
        sandbox=False,
    )
    schedule = round_robin(len(entrants), config.games)
    started = time.monotonic()
    stalls: list[float] = []
    with ResultsStore.open(config.db_path) as store:
        runner = TournamentRunner(config, store, tmp_path / "logs" / config.run_id)
        summary = asyncio.run(watching_the_loop(runner.run(), stalls))
    seconds = time.monotonic() - started

    # Every scheduled game stored exactly once, and nothing else.
    expected = Counter((m.key, i) for m in schedule for i in range(m.games))
    stored = stored_keys(config.db_path)
    lost_or_twice = (expected - stored) + (stored - expected)
    TALLY["scenarios"]["tournament matches"] += len(schedule)
    TALLY["games"]["tournament"] += sum(stored.values())
    TALLY["problems"]["games lost or duplicated"] += sum(lost_or_twice.values())
    assert stored == expected
    assert summary.played == schedule_size(schedule) and not summary.interrupted
    assert integrity_check(config.db_path) == ["ok"]
    assert run_statuses(config.db_path) == ["finished"]
    with ResultsStore.open(config.db_path) as store:
        for game_id in game_ids(store, config.run_id):
            assert replay(store.game_record(game_id)).is_over

    # Logs capped; no process of any bot left, the children of bots included.
    for log_dir in {p.parent for p in (tmp_path / "logs").rglob("seat*.log")}:
        assert oversized_logs(log_dir) == {}
    deadline = time.monotonic() + CLEANUP_S
    while (left := processes_under(tmp_path / "logs")) and time.monotonic() < deadline:
        time.sleep(0.05)
    TALLY["problems"]["processes left over"] += len(left)
    assert left == []

    # Faults: every zoo bot earned its own in each of its games; no good bot earned any.
    conn = sqlite3.connect(config.db_path)
    try:
        rows = conn.execute(FAULTS).fetchall()
    finally:
        conn.close()
    TALLY["faults"].update(kind for _, kind, *_ in rows)
    games_of = Counter(config.entrants[e].name for m in schedule for e in set(m.entrants))
    # card_not_held errs only when asked for a card: not in a game whose every deal was
    # thrown in until a team forfeited (F1) with no card asked of it.
    games_of["card_not_held"] -= len(games_never_asking_a_card(config, "card_not_held"))
    for name, kind in HOSTILE.items():
        games = {key for who, k, _, _, key in rows if (who, k) == (name, kind)}
        assert len(games) == games_of[name], (name, kind)
    on_good = [row for row in rows if row[0] in GOOD]
    stalled = ", ".join(f"{s:.2f}" for s in sorted(stalls, reverse=True)[:10])
    assert on_good == [], (
        f"{len(on_good)} faults charged to good bots: {on_good[:10]}; the referee's event "
        f"loop stalled {len(stalls)} times over 50 ms, the longest (s): {stalled}"
    )
    assert seconds < 180
