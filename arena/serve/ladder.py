"""The contest's ladder: rounds of sampled matches, played until told to stop, stored as
one run of the results database, exactly as ``arena run`` stores its games.

A round is one triple of entrants in each of its seatings (six, or three for {A, A, B}),
every seating playing the same games: duplicate deals, from the ladder run's secret key
(kept in the results database, as every run's). Round after round the games are the
run's next seeds (a round's ``first_game``), so the seed bootstrap of the ratings sees
each round's deals as its own seeds. The triple is chosen for who needs games most:
versions with fewest games first (a new version), then the entrants whose rating
interval is widest, with the two others those it has met least (the pairs stay
balanced, as the sampled schedule keeps them).

A contestant's new version also plays its previous one: rounds of the pair alone in the
six seatings of a seed group ({NEW, NEW, BASE} and {NEW, BASE, BASE}, three each, on the
same deals), ``COMPARE_GROUPS`` groups of them, every other round until they are played,
so that the contestant's page can give ``arena compare``'s test and interval on them.

Rounds are in the contest's file before they are played and each game is committed as
it ends (``ResultsStore.record_game``: one transaction), so a ladder killed at any point
resumes its unfinished round with the games it lacks: nothing lost, nothing twice. The
arena's own trouble (``ArenaTrouble``, a referee process that died) is never a result:
the round is tried again, and after ``MATCH_ATTEMPTS`` the ladder leaves it and goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import math
import secrets
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from arena.bots import BotSpec
from arena.bots.build import BotCache, BotOptions
from arena.referee.match import MatchPlan
from arena.referee.result import GameResult
from arena.referee.table import TableSettings
from arena.stats.comparison import GROUP_SEATINGS
from arena.stats.rates import MIN_SEEDS_FOR_INTERVAL
from arena.tournament.executor import MatchExecutor
from arena.tournament.registry import Registry
from arena.tournament.report import RunReport, build_report
from arena.tournament.runner import DEALING, MATCH_ATTEMPTS, REPLAY_PAUSE_S
from arena.tournament.schedule import RunKey, seatings
from arena.tournament.store import DuplicateGameError, ResultsStore, logs_beside

from .contest import ContestStore, Round, Version, registry_path

# Games a version plays before it stops counting as new: a round's games of six seatings.
NEW_VERSION_GAMES: Final = 12
# Seed groups of a new version against its previous one: enough for an interval.
COMPARE_GROUPS: Final = MIN_SEEDS_FOR_INTERVAL
IDLE_WAIT_S: Final = 2.0
# The ratings follow the games as they arrive, recomputed at most this often (a fit with
# its bootstrap costs a moment's CPU), and after every round.
REFRESH_S: Final = 5.0  # how often a ladder with too few entrants looks again


@dataclass
class LiveMatch:
    key: str
    entrants: tuple[str, str, str]
    games: int
    done: int = 0
    started: float = field(default_factory=time.time)


@dataclass
class LadderState:
    """What the pages read of the ladder, updated as it plays (one event loop: no locks)."""

    run_id: str
    report: RunReport | None = None
    live: dict[str, LiveMatch] = field(default_factory=dict)
    round: Round | None = None
    games_stored: int = 0  # in this session
    started: float = field(default_factory=time.time)
    notices: list[str] = field(default_factory=list)

    def note(self, line: str) -> None:
        self.notices = [*self.notices[-19:], line]


def ladder_run_id(contest: ContestStore, results: ResultsStore, settings: TableSettings) -> str:
    """The ladder's run in the results database: created once with a secret deal key."""
    run_id = contest.get("run_id")
    identity = {"contest": True, "dealing": DEALING, "table": dataclasses.asdict(settings)}
    if run_id is None:
        run_id = secrets.token_hex(6)
        contest.put("run_id", run_id)
    results.start_run(run_id, None, identity, RunKey.generate().secret)  # resumed: kept key
    return run_id


def _width(report: RunReport | None, label: str) -> float:
    if report is None:
        return math.inf
    for rating in report.ratings:
        if rating.entrant == label:
            if rating.low is None or rating.high is None:
                return math.inf
            return rating.high - rating.low
    return math.inf


def choose_triple(
    entrants: list[str],
    games: Counter[str],
    met: Counter[frozenset[str]],
    report: RunReport | None,
    rounds_so_far: int,
) -> tuple[str, str, str] | None:
    """The next round's entrants (sorted), or None below two entrants.

    The neediest entrant (fewest games while new, then the widest interval) and the two
    it has met least, ties broken by their own need, then by name."""
    if len(entrants) < 2:
        return None

    def need(label: str) -> tuple[int, float, int, str]:
        new = games[label] < NEW_VERSION_GAMES
        # Ties (no interval yet: all infinitely wide) go to the fewest games.
        width = -_width(report, label)
        return (0 if new else 1, games[label] if new else width, games[label], label)

    if len(entrants) == 2:
        a, b = sorted(entrants)
        return (a, a, b) if rounds_so_far % 2 == 0 else (a, b, b)
    first = min(entrants, key=need)
    others = [e for e in entrants if e != first]

    def cost(pair: tuple[str, str]) -> tuple[int, tuple[Any, ...], tuple[Any, ...]]:
        a, b = pair
        meetings = met[frozenset((first, a))] + met[frozenset((first, b))] + met[frozenset(pair)]
        return (meetings, need(a), need(b))

    a, b = min(itertools.combinations(sorted(others), 2), key=cost)
    x, y, z = sorted((first, a, b))
    return (x, y, z)


class Ladder:
    """Plays rounds on ``executor`` until ``stop``; ``wake`` after an upload or a resume."""

    def __init__(
        self,
        db_path: Path,
        executor: MatchExecutor,
        *,
        games: int = 1,
        settings: TableSettings | None = None,
        options: BotOptions | None = None,
        prepare_locally: bool = True,
        match_sandbox: bool | None = None,
        on_notice: Callable[[str], None] | None = None,
    ) -> None:
        self.db_path = db_path
        self.executor = executor
        self.games = games
        self.settings = settings or TableSettings()
        self.options = options or BotOptions()
        self.prepare_locally = prepare_locally  # False on a cluster: workers build
        self.on_notice = on_notice
        self.sandbox = self.options.sandbox if match_sandbox is None else match_sandbox
        self.results = ResultsStore.open(db_path)
        self.contest = ContestStore.open(db_path)
        self.registry = Registry(registry_path(db_path))
        self.log_root = logs_beside(db_path)
        self.run_id = ladder_run_id(self.contest, self.results, self.settings)
        self.key = RunKey(self.results.deal_key(self.run_id))
        self.state = LadderState(self.run_id)
        self._wake = asyncio.Event()
        self._specs: dict[str, BotSpec] = {}
        self._failures: Counter[int] = Counter()
        self._refreshing: asyncio.Task[None] | None = None
        self._refreshed = 0.0

    def wake(self) -> None:
        self._wake.set()

    def close(self) -> None:
        self.results.close()
        self.contest.close()

    def _notice(self, line: str) -> None:
        self.state.note(line)
        if self.on_notice is not None:
            self.on_notice(line)

    async def refresh(self) -> None:
        """The ratings and standings again, by the report's own code (off the loop)."""
        db, run_id = self.db_path, self.run_id

        def build() -> RunReport:
            with ResultsStore.open(db, create=False) as store:
                return build_report(store, run_id)

        self._refreshed = time.monotonic()
        self.state.report = await asyncio.to_thread(build)

    def _refresh_soon(self) -> None:
        """After a game: the ratings again, unless they were just computed or are being."""
        busy = self._refreshing is not None and not self._refreshing.done()
        if not busy and time.monotonic() - self._refreshed >= REFRESH_S:
            self._refreshing = asyncio.ensure_future(self._refresh_quietly())

    async def _refresh_quietly(self) -> None:
        try:
            await self.refresh()
        except Exception as error:  # the games are stored; the next refresh may succeed
            self._notice(f"the ratings were not updated: {error}")

    async def run(self) -> None:
        """Play until cancelled; a cancelled ladder leaves its round to be resumed."""
        await self.refresh()
        async with self.executor:
            while True:
                if self.contest.paused:
                    await self._idle()
                    continue
                round_ = self._next_round()
                if round_ is None:
                    await self._idle()
                    continue
                await self._play_round(round_)

    async def _idle(self) -> None:
        self._wake.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), IDLE_WAIT_S)

    def _next_round(self) -> Round | None:
        laddered = {v.label for v in self.contest.laddered()}
        for unfinished in self.contest.rounds(unfinished_only=True):
            # A comparison needs its NEW in the ladder; a triple, all three.
            needed = (
                unfinished.entrants[:1] if len(unfinished.entrants) == 2 else unfinished.entrants
            )
            if set(needed) <= laddered:
                return unfinished  # resumed: its missing games
            self.contest.finish_round(unfinished.id)  # an entrant left: its games are kept
        rounds = self.contest.rounds()
        if not rounds or len(rounds[-1].entrants) != 2:
            comparison = self._comparison_due(laddered, rounds)
            if comparison is not None:
                return self.contest.start_round(comparison, self.games)
        report = self.state.report
        games: Counter[str] = Counter()
        if report is not None:
            for standing in report.standings:
                games[standing.entrant] = standing.games
        met: Counter[frozenset[str]] = Counter()
        for past in rounds:
            for a, b in itertools.combinations(sorted(set(past.entrants)), 2):
                met[frozenset((a, b))] += 1
        triple = choose_triple(sorted(laddered), games, met, report, len(rounds))
        if triple is None:
            return None
        return self.contest.start_round(triple, self.games)

    def _comparison_due(self, laddered: set[str], rounds: list[Round]) -> tuple[str, str] | None:
        """A contestant's (NEW, BASE) whose comparison lacks groups, if any."""
        played = Counter(r.entrants for r in rounds if len(r.entrants) == 2)
        by_contestant: dict[str, list[Version]] = {}
        for version in self.contest.versions():
            by_contestant.setdefault(version.contestant, []).append(version)
        for versions in by_contestant.values():
            if len(versions) < 2 or versions[-1].label not in laddered:
                continue
            pair = (versions[-1].label, versions[-2].label)
            if played[pair] * self.games < COMPARE_GROUPS:
                return pair
        return None

    def _spec(self, version: Version) -> BotSpec:
        spec = self._specs.get(version.label)
        if spec is None:
            spec = self.registry.load(self.registry.find(version.label))
            if self.prepare_locally:  # built once per version (the upload's build, cached)
                spec = BotCache().prepare(spec, self.options)
            self._specs[version.label] = spec
        return spec

    async def _play_round(self, round_: Round) -> None:
        self.state.round = round_
        versions = {v.label: v for v in self.contest.versions()}
        pair = len(round_.entrants) == 2
        labels = list(round_.entrants) if pair else sorted(set(round_.entrants))
        try:
            specs = {
                label: await asyncio.to_thread(self._spec, versions[label]) for label in labels
            }
        except Exception as error:  # a version that no longer builds or loads
            self._notice(f"round {round_.id}: cannot prepare its bots: {error}; left")
            self.contest.finish_round(round_.id)
            return
        if pair:  # NEW is 0, BASE 1: a comparison's seed group
            seated_all = list(GROUP_SEATINGS)
        else:
            index = {label: labels.index(label) for label in labels}
            a, b, c = (index[label] for label in round_.entrants)
            seated_all = seatings((a, b, c))
        ids = {
            label: self.results.upsert_entrant(s.name, s.version, list(s.command))
            for label, s in specs.items()
        }
        done = self.results.completed_games(self.run_id)
        wanted = range(round_.first_game, round_.first_game + round_.games)
        plays = []
        for s, seating in enumerate(seated_all):
            seated = tuple(labels[i] for i in seating)
            key = f"r{round_.id}-s{s}-" + "-".join(str(i) for i in seating)
            self.results.ensure_match(
                self.run_id, key, (ids[seated[0]], ids[seated[1]], ids[seated[2]])
            )
            missing = [i for i in wanted if (key, i) not in done]
            if missing:
                plays.append(
                    self._play_match(key, (seated[0], seated[1], seated[2]), specs, round_)
                )
        tasks = [asyncio.ensure_future(play) for play in plays]
        try:
            await asyncio.gather(*tasks)
        except Exception as trouble:
            # The arena's trouble (ArenaTrouble, a referee process lost) or anything else
            # (a full disk): not the bots' result; the round's other tables stop, and it
            # is tried again with the games it lacks.
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._failures[round_.id] += 1
            if self._failures[round_.id] >= MATCH_ATTEMPTS:
                self._notice(f"round {round_.id}: {trouble}; tried {MATCH_ATTEMPTS} times, left")
                self.contest.finish_round(round_.id)
            else:
                self._notice(f"round {round_.id}: {trouble}: not counted; played again")
                await asyncio.sleep(REPLAY_PAUSE_S * self._failures[round_.id])
            return
        self.contest.finish_round(round_.id)
        self.state.round = None
        await self.refresh()

    async def _play_match(
        self,
        key: str,
        seated: tuple[str, str, str],
        specs: dict[str, BotSpec],
        round_: Round,
    ) -> None:
        end = round_.first_game + round_.games
        done = self.results.completed_games(self.run_id)
        # Seeds before the round's are not this round's: skipped, never played.
        skip = frozenset(i for i in range(end) if i < round_.first_game or (key, i) in done)
        plan = MatchPlan(
            match_id=key,
            entrants=(specs[seated[0]], specs[seated[1]], specs[seated[2]]),
            seeds=[self.key.game(i) for i in range(end)],
            log_dir=self.log_root / self.run_id / key,
            settings=self.settings,
            limits=self.options.limits,
            sandbox=self.sandbox,
            workdir_bytes=self.options.workdir_bytes,
            pass_env=self.options.pass_env,
            private=(self.db_path.parent, self.log_root),
        )
        live = LiveMatch(key, seated, round_.games)
        self.state.live[key] = live

        def store_game(result: GameResult) -> None:
            try:
                self.results.record_game(self.run_id, key, result)
            except DuplicateGameError:
                return  # stored already: the first is kept
            live.done += 1
            self.state.games_stored += 1
            self._refresh_soon()

        try:
            await self.executor.play(plan, skip, store_game)
            self.results.finish_match(self.run_id, key)
        finally:
            self.state.live.pop(key, None)
