"""Running the zoo: a hostile match beside a good one on one referee, then a good one after.

Builds on the referee tests' harness (``tests/referee/harness.py``: ``MatchRun``,
``check_games``, the recorder's recordings) and adds what a hostile bot calls for: a
second table that must not notice, a referee that must still serve afterwards, capped
logs, and a search for any process of the bot left behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bots.helpers import alive_processes_in_group
from referee.harness import SAMPLE_BOTS, MatchRun, check_games
from tournament.helpers import cwd_under, live_pids

from arena.bots import BotSpec, Limits, load_bot
from arena.engine import PASS, Action
from arena.engine.randomplay import BID_PROBABILITY, random_discard
from arena.referee.match import Match, MatchPlan, Referee
from arena.referee.policy import FaultKind
from arena.referee.result import GameResult
from arena.referee.table import Table, TableSettings
from arena.sdk import Bot, Decision
from arena.sdk.bot import play_stream

ZOO = Path(__file__).resolve().parent / "bots"
ZOO_SEATS = (0, 3)  # the zoo bot is team 0; random and greedy are teams 1 and 2
GOOD_SEATS = (1, 2, 4, 5)

# Small limits keep the suite fast: 200 ms per decision plus a 300 ms bank per game.
FAST = TableSettings(decision_ms=200, overage_ms=300, join_timeout_s=3)
LOG_CAP = 64 * 1024
LIMITS = Limits(memory_bytes=512 * 1024 * 1024, log_bytes=LOG_CAP)
# How long a stream may stay open without a Join (Referee(join_timeout=...)): short, so
# the silent streams of ``many_streams`` are refused while its match still plays.
STREAM_JOIN_TIMEOUT_S = 1.0
SANE_DECISION_S = 1.0  # generous: a good table's slowest decision, whatever its neighbours do
CLEANUP_S = 5.0

# Counted over the whole session and printed at its end (conftest.py).
TALLY: dict[str, Counter[str]] = {
    "scenarios": Counter(),
    "games": Counter(),
    "faults": Counter(),
    "problems": Counter(),
}


def zoo_bot(name: str) -> BotSpec:
    return load_bot(ZOO / name)


def sample(name: str) -> BotSpec:
    return load_bot(SAMPLE_BOTS / name)


# --- in-process players, for the good match played after the hostile one --------------------


class Steady(Bot):
    """Like the sample bot ``random``: legal choices at random, bidding now and then."""

    name = "steady"
    version = "1"

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)

    def bid(self, decision: Decision) -> Action:
        bids = decision.legal[1:]
        if bids and self.rng.random() < BID_PROBABILITY:
            return self.rng.choice(bids)  # type: ignore[no-any-return]
        return PASS

    def trump(self, decision: Decision) -> Action:
        return self.rng.choice(decision.legal)  # type: ignore[no-any-return]

    def discard(self, decision: Decision) -> Action:
        return random_discard(decision.discard_rule, self.rng)

    def play(self, decision: Decision) -> Action:
        return self.rng.choice(decision.legal)  # type: ignore[no-any-return]

    def on_notice(self, notice: Any) -> None:
        raise AssertionError(f"a good in-process bot was told of a fault: {notice}")


async def play_in_process(
    referee: Referee, log_dir: Path, seeds: Sequence[int] = (7,), match_id: str = "after"
) -> Table:
    """A good match whose six seats are SDK bots in this process: the referee still serves."""
    spec = sample("random")
    plan = MatchPlan(
        match_id=match_id,
        entrants=(spec, spec, spec),
        seeds=list(seeds),
        log_dir=log_dir,
        settings=FAST,
        manual_seats=frozenset(range(6)),
        sandbox=False,
    )
    match = Match(referee, plan)
    match.launch()
    players = [
        play_stream(Steady(f"{match_id}:{m.seat}"), m.address, m.token) for m in match.manual
    ]
    table, *reasons = await asyncio.wait_for(asyncio.gather(match.play(), *players), 60)
    assert reasons == ["finished"] * 6, reasons
    assert isinstance(table, Table)
    return table


# --- what must be left behind: nothing -------------------------------------------------------


def processes_of(bot_dir: Path, address: str) -> list[int]:
    """Live processes of ``bot_dir`` started for the referee at ``address``.

    A process belongs to the bot if its command line names the bot's directory or its
    environment holds ``ARENA_BOT_DIR`` (which every child inherits, ``sleep`` included);
    the referee's address (in ``ARENA_ADDRESS``: each seat's socket lies in the directory
    of the referee's own) tells this test's bots from any other session's. Zombies are
    left out: they run nothing.
    """
    directory = str(bot_dir).encode()
    mark = b"ARENA_BOT_DIR=" + directory + b"\0"
    ours = b"ARENA_ADDRESS=" + address.rsplit("/", 1)[0].encode() + b"/"
    found = []
    for pid in live_pids():
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            environ = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue  # gone, or not ours to read
        if (directory in cmdline or mark in environ) and ours in environ:
            found.append(pid)
    return sorted(found)


def processes_under(root: Path) -> list[int]:
    """Live processes whose working directory lies under ``root`` (each seat's directory is
    below its match's log directory, and children inherit it), whatever they run."""
    return sorted(pid for pid in live_pids() if cwd_under(pid, root))


def leftovers(matches: Iterable[Match], bot_dirs: Iterable[Path], address: str) -> list[int]:
    """Whatever of the matches' bots is still alive after ``CLEANUP_S``: must be nothing."""
    deadline = time.monotonic() + CLEANUP_S
    pgids = [p.pid for m in matches for p in m.processes if p is not None]
    dirs = list(bot_dirs)
    while True:
        alive = {pid for pgid in pgids for pid in alive_processes_in_group(pgid)}
        alive.update(pid for d in dirs for pid in processes_of(d, address))
        if not alive or time.monotonic() > deadline:
            return sorted(alive)
        time.sleep(0.05)


def oversized_logs(log_dir: Path, cap: int = LOG_CAP) -> dict[str, int]:
    """The seat logs larger than the cap (plus room for the truncation line)."""
    sizes = {p.name: p.stat().st_size for p in log_dir.glob("seat*.log")}
    assert sizes, f"no seat logs in {log_dir}"
    return {name: size for name, size in sizes.items() if size > cap + 200}


def notes(run: MatchRun, seat: int) -> list[dict[str, Any]]:
    """What a zoo bot wrote to ``zoo.jsonl``."""
    path = run.seat_dir(seat) / "zoo.jsonl"
    lines = path.read_text().splitlines() if path.exists() else []
    return [json.loads(line) for line in lines]


# --- a hostile match beside a good one ------------------------------------------------------


@dataclass
class Scenario:
    """A zoo bot's match, the good match played beside it, and the one played after."""

    name: str
    zoo: MatchRun
    good: MatchRun
    after: Table
    left: list[int]
    seconds: float
    extra: dict[str, Any] = field(default_factory=dict)

    def zoo_faults(self, kind: FaultKind | None = None) -> list[Any]:
        return [f for f in self.zoo.faults if f.seat in ZOO_SEATS and kind in (None, f.kind)]


Alongside = Callable[[Match, Match], Awaitable[object]]


def run_scenario(
    name: str,
    tmp_path: Path,
    settings: TableSettings = FAST,
    alongside: Alongside | None = None,
    seeds: Sequence[int] = (1,),
) -> Scenario:
    """Zoo bot ``name`` (team 0) against random and greedy, beside an all-good match."""
    started = time.monotonic()
    zoo_plan = MatchPlan(
        match_id=f"zoo-{name}",
        entrants=(zoo_bot(name), sample("random"), sample("greedy")),
        seeds=list(seeds),
        log_dir=tmp_path / "zoo",
        settings=settings,
        limits=LIMITS,
        seed=1,
        sandbox=False,
    )
    good_plan = MatchPlan(
        match_id=f"good-{name}",
        entrants=(sample("greedy"), sample("random"), sample("random")),
        seeds=[11],
        log_dir=tmp_path / "good",
        settings=FAST,
        limits=LIMITS,
        seed=2,
        sandbox=False,
    )

    async def main() -> Scenario:
        async with Referee(join_timeout=STREAM_JOIN_TIMEOUT_S) as referee:
            hostile, good = Match(referee, zoo_plan), Match(referee, good_plan)
            hostile.launch()
            good.launch()
            side = asyncio.ensure_future(alongside(hostile, good)) if alongside else None
            zoo_reports: list[GameResult] = []
            good_reports: list[GameResult] = []
            zoo_table, good_table = await asyncio.gather(
                hostile.play(on_game=zoo_reports.append),
                good.play(on_game=good_reports.append),
            )
            extra: dict[str, Any] = {}
            if side is not None:
                extra["alongside"] = await asyncio.wait_for(side, 30)
            left = await asyncio.to_thread(
                leftovers, [hostile, good], [ZOO / name], referee.address
            )
            for pid in left:  # reported by the test; not left running after it
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            after = await play_in_process(referee, tmp_path / "after")
            return Scenario(
                name,
                MatchRun(hostile, zoo_table, zoo_reports, zoo_plan.log_dir, referee.address),
                MatchRun(good, good_table, good_reports, good_plan.log_dir, referee.address),
                after,
                left,
                time.monotonic() - started,
                extra,
            )

    scenario = asyncio.run(main())
    _tally(scenario, expected_games=len(seeds) + 1)
    return scenario


def _tally(scenario: Scenario, expected_games: int) -> None:
    TALLY["scenarios"][scenario.name] += 1
    games = len(scenario.zoo.reports) + len(scenario.good.reports)
    TALLY["games"]["with a zoo bot"] += len(scenario.zoo.reports)
    TALLY["games"]["beside it (good)"] += len(scenario.good.reports)
    TALLY["games"]["after it (good, in-process)"] += len(scenario.after.seeds)
    for fault in scenario.zoo.faults + scenario.good.faults + scenario.after.faults:
        TALLY["faults"][fault.kind.value] += 1
    TALLY["problems"]["processes left over"] += len(scenario.left)
    TALLY["problems"]["games lost or duplicated"] += abs(games - expected_games)


def check_common(scenario: Scenario) -> None:
    """What holds for every zoo bot, whatever it did."""
    zoo, good = scenario.zoo, scenario.good
    # The hostile match finished: every game reported, and its record replays.
    check_games(zoo, games=len(zoo.table.seeds))
    # The good seats of the hostile match were not charged with anything.
    assert [f for f in zoo.faults if f.seat not in ZOO_SEATS] == [], zoo.faults
    # The table beside it did not notice: complete, faultless, and its decisions sane.
    check_games(good)
    assert good.faults == [], good.faults
    slowest = max(s.decision_seconds_max for report in good.reports for s in report.seats)
    assert slowest < SANE_DECISION_S, f"the good table's slowest decision took {slowest:.3f} s"
    # The referee still serves: a good match after it, with no fault at all.
    assert scenario.after.faults == []
    # Logs within their cap, and nothing of any bot left alive.
    assert oversized_logs(zoo.log_dir) == {}
    assert oversized_logs(good.log_dir) == {}
    assert scenario.left == [], f"processes left alive: {scenario.left}"
