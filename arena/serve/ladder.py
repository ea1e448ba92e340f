"""The contest's ladder: rounds of matches, played until told to stop by the tournament
runner, as one more schedule of it (``LadderSchedule``), stored as one run of the results
database exactly as ``arena run`` stores its games.

A round is one triple of entrants in each of its seatings (six, or three for {A, A, B}),
every seating playing the same games: duplicate deals, from the ladder run's secret key
(kept in the results database, as every run's). Round after round the games are the
run's next seeds (a round's ``first_game``), so the statistics see each round's deals as
their own seeds. No deal is played at two tables at once (the runner's leases), so the
ladder keeps a round in play per table, each round's seatings one after another.

Who plays (``choose_triple``): the entrant that needs games most (a new version, with
fewer than ``NEW_VERSION_GAMES``, first; then the widest rating interval), with the two
others nearest it in rating among those it has met least: ``RATING_NEAR`` Elo of distance
weigh as much as one more meeting, so near entrants meet more often and far ones still
meet (the ratings need every pair linked).

A contestant's new version also plays its previous one: rounds of the pair alone in the
six seatings of a seed group ({NEW, NEW, BASE} and {NEW, BASE, BASE}, on the same deals),
every other round, until ``arena compare``'s sequential test decides (or the comparison
reaches ``compare_max_games``): the contestant's page gives its verdict and interval.

Misbehaving costs the entrant, not the contest (``Strikes``): a game in which an
entrant's seats never joined, crashed, were killed for memory or let most of their
decisions time out is a strike, and ``STRIKES`` of its last ``STRIKE_WINDOW`` games
suspend the version with that status (time, memory, crash, no join), which its owner
reads on their page; a new version enters afresh.

When the contest changes under a round (a version retired, suspended or its contestant
banned, the ladder paused) the round ends at once: the schedule withdraws its matches
under way, which the runner stops with their processes. A paused round is resumed later;
a round whose entrant left is over.

Rounds are in the results database before they are played and each game is committed as
it ends (``ResultsStore.record_game``: one transaction), so a ladder killed at any point
resumes its unfinished rounds with the games they lack: nothing lost, nothing twice. The
arena's own trouble (``ArenaTrouble``, a referee process that died) is never a result:
the runner's one retry policy plays the match again, and when it gives up the ladder
leaves the round and goes on.

A watchdog says, in the log and on the live page, when no game has been stored for
``watchdog_s`` while the ladder should be playing, and why: which matches have run for
how long, or what the ladder waits for.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import hashlib
import itertools
import math
import secrets
import time
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from arena.bots import BotSpec
from arena.bots.build import BotCache, BotOptions
from arena.referee.policy import FaultKind
from arena.referee.result import GameResult
from arena.referee.table import TableSettings
from arena.stats.comparison import GROUP_SEATINGS
from arena.tournament.executor import MatchExecutor
from arena.tournament.registry import Registry
from arena.tournament.report import RunReport
from arena.tournament.runner import DEALING, RunConfig, TournamentRunner
from arena.tournament.schedule import Next, RunKey, ScheduledMatch, Wait, seatings
from arena.tournament.store import ResultsStore, logs_beside

from .contest import ContestStore, Round, Suspension, Version, registry_path
from .figures import Figures

# Games a version plays before it stops counting as new: a round's games of six seatings.
NEW_VERSION_GAMES: Final = 12
# Elo points of rating distance that weigh as much as one more meeting in choosing a triple.
RATING_NEAR: Final = 200.0
IDLE_WAIT_S: Final = 2.0  # how often an idle ladder looks again (an upload wakes it at once)
# The ratings follow the games as they arrive, recomputed at most this often, and after
# every round (in the statistics process: arena.serve.figures).
REFRESH_S: Final = 5.0
# Suspension: STRIKES struck games among an entrant's last STRIKE_WINDOW.
STRIKES: Final = 3
STRIKE_WINDOW: Final = 4
# A game counts as "time" when its seats timed out on at least this share of their
# decisions (and on MIN_TIMEOUTS of them): a slow answer now and then is no strike.
TIMEOUT_SHARE: Final = 0.5
MIN_TIMEOUTS: Final = 3
WATCHDOG_S: Final = 300.0  # no game for this long, while there should be: say why
# Rounds an entrant may be in that are left for the arena's trouble, in a row, before it
# is held out of the ladder (until the server restarts): a version the arena cannot run.
HELD_AFTER: Final = 2

Pair = tuple[str, str]


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
    live: dict[str, LiveMatch] = field(default_factory=dict)
    rounds: dict[int, Round] = field(default_factory=dict)  # in play, oldest first
    games_stored: int = 0  # in this session
    started: float = field(default_factory=time.time)
    last_game: float = field(default_factory=time.time)  # or when it last had to wait
    notices: list[str] = field(default_factory=list)
    stalled: str | None = None  # the watchdog's line while no game arrives
    held: dict[str, str] = field(default_factory=dict)  # label: why the arena cannot run it

    def note(self, line: str) -> None:
        self.notices = [*self.notices[-19:], line]

    @property
    def round(self) -> Round | None:
        """The oldest round in play (a table each: several may be)."""
        return next(iter(self.rounds.values()), None)


def ladder_run_id(contest: ContestStore, results: ResultsStore, settings: TableSettings) -> str:
    """The ladder's run in the results database: created once with a secret deal key."""
    run_id = contest.get("run_id")
    identity = {"contest": True, "dealing": DEALING, "table": dataclasses.asdict(settings)}
    if run_id is None:
        run_id = secrets.token_hex(6)
        contest.put("run_id", run_id)
    results.start_run(run_id, None, identity, RunKey.generate().secret)  # resumed: kept key
    return run_id


def opaque_match_id(secret: bytes, key: str) -> str:
    """The id a bot is told for a ladder match (the Welcome's ``match_id``): 12 hex digits
    keyed by the run's secret, the same when the match resumes, telling nothing of the
    round or the seating; a validation match gets 12 random ones of the same form."""
    return hashlib.blake2b(key.encode(), key=secret[:64], digest_size=6).hexdigest()


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

    The neediest entrant (fewest games while new, then the widest interval), and the two
    others that cost least together: the meetings of the three pairs, plus their distance
    in rating (a rating unknown is near everyone) in ``RATING_NEAR`` units; ties broken
    by their own need, then by name."""
    if len(entrants) < 2:
        return None
    # An entrant beyond the rated field (unbeaten or winless) has no rating: near everyone.
    ratings = (
        {}
        if report is None
        else {r.entrant: r.rating for r in report.ratings if r.rating is not None}
    )

    def need(label: str) -> tuple[int, float, int, str]:
        new = games[label] < NEW_VERSION_GAMES
        # Ties (no interval yet: all infinitely wide) go to the fewest games.
        width = -_width(report, label)
        return (0 if new else 1, games[label] if new else width, games[label], label)

    def apart(a: str, b: str) -> float:
        if a not in ratings or b not in ratings:
            return 0.0
        return abs(ratings[a] - ratings[b]) / RATING_NEAR

    if len(entrants) == 2:
        a, b = sorted(entrants)
        return (a, a, b) if rounds_so_far % 2 == 0 else (a, b, b)
    first = min(entrants, key=need)
    others = [e for e in entrants if e != first]

    def cost(pair: tuple[str, str]) -> tuple[float, tuple[Any, ...], tuple[Any, ...]]:
        a, b = pair
        meetings = met[frozenset((first, a))] + met[frozenset((first, b))] + met[frozenset(pair)]
        return (meetings + apart(first, a) + apart(first, b) + apart(a, b), need(a), need(b))

    a, b = min(itertools.combinations(sorted(others), 2), key=cost)
    x, y, z = sorted((first, a, b))
    return (x, y, z)


def strike(result: GameResult, team: int) -> tuple[Suspension, str] | None:
    """Whether team ``team``'s entrant misbehaved in this game, and how (its status and
    the first fault's line), or None: its seats never joined, crashed, were killed for
    memory, stalled, or let ``TIMEOUT_SHARE`` of their decisions time out."""
    seats = (team, team + 3)
    faults = [f for f in result.faults if f.seat in seats]
    if not faults:
        return None
    for fault in faults:
        if "MemoryError" in fault.reason or "killed by SIGKILL" in fault.reason:
            return "memory", _fault_line(fault.kind, fault.reason)
    kinds = Counter(f.kind for f in faults)
    gone: tuple[tuple[FaultKind, Suspension], ...] = (
        (FaultKind.NO_JOIN, "no join"),
        (FaultKind.CLOSED, "crash"),
    )
    for kind, status in gone:
        if kinds[kind]:
            first = next(f for f in faults if f.kind is kind)
            return status, _fault_line(kind, first.reason)
    decisions = sum(result.seats[s].decisions for s in seats)
    late = kinds[FaultKind.TIMEOUT] + kinds[FaultKind.STALLED]
    if kinds[FaultKind.STALLED] or (late >= MIN_TIMEOUTS and late >= TIMEOUT_SHARE * decisions):
        first = next(f for f in faults if f.kind in (FaultKind.TIMEOUT, FaultKind.STALLED))
        line = f"{late} of {decisions} decisions late; {_fault_line(first.kind, first.reason)}"
        return "time", line
    return None


def _fault_line(kind: FaultKind, reason: str) -> str:
    return f"{kind.value}: {reason.splitlines()[0][:300] if reason else ''}"


class Strikes:
    """Each entrant's last ``STRIKE_WINDOW`` games, struck or not (this session's)."""

    def __init__(self) -> None:
        self._games: dict[str, collections.deque[tuple[Suspension, str] | None]] = {}

    def add(
        self, label: str, struck: tuple[Suspension, str] | None
    ) -> tuple[Suspension, str] | None:
        """Count one game; the suspension it brings (status and one line), if any."""
        window = self._games.setdefault(label, collections.deque(maxlen=STRIKE_WINDOW))
        window.append(struck)
        marks = [mark for mark in window if mark is not None]
        if len(marks) < STRIKES:
            return None
        status, _ = Counter(mark[0] for mark in marks).most_common(1)[0]
        line = next(mark[1] for mark in reversed(marks) if mark[0] == status)
        return status, f"{len(marks)} of its last {len(window)} games: {line}"

    def forget(self, label: str) -> None:
        """A fresh start (the organiser reinstated it)."""
        self._games.pop(label, None)


@dataclass(frozen=True)
class LadderRun(RunConfig):
    """The ladder's run as the runner plays it: its id and identity are the contest's (one
    run for the contest's whole life, its key secret), not a hash of its entrants."""

    ladder_run_id: str = ""

    def identity(self) -> dict[str, Any]:
        return {"contest": True, "dealing": DEALING, "table": dataclasses.asdict(self.settings)}

    @property
    def run_id(self) -> str:
        return self.ladder_run_id


@dataclass
class RoundInPlay:
    """A round handed to the runner: its matches not handed out yet, and those out."""

    round: Round
    labels: tuple[str, ...]  # the round's entrants, as their indices count (NEW, BASE first)
    pending: collections.deque[ScheduledMatch]
    out: dict[str, ScheduledMatch] = field(default_factory=dict)


class LadderSchedule:
    """The ladder as one more schedule of the runner (``arena.tournament.schedule``): the
    runner asks it which match next; it answers the seatings of its rounds and never
    ``DONE``.

    A round's seatings play the same deals (duplicate play, R3.1a), and no deal is live at
    two tables at once
    (``arena.tournament.leases``), so one round alone keeps one table busy: the schedule
    keeps up to a round per table in play, and hands out at most ``OUT_PER_ROUND`` matches
    of each at a time (one playing, the next one's bots starting), the round with fewest
    out first (then the oldest).
    A new round is chosen when a table has room for it (``Ladder.next_round``: ratings and
    meetings so far, the rounds in play counted as met); its bots are prepared (built once
    per version) before its first match is handed out, off the event loop.
    """

    OUT_PER_ROUND: Final = 2

    def __init__(self, ladder: Ladder, tables: int) -> None:
        self.ladder = ladder
        self.tables = max(1, tables)
        self._entrants: list[BotSpec] = []
        self._index: dict[str, int] = {}  # label -> index in ``entrants``
        self._labels: list[str] = []  # by index
        self.rounds: dict[int, RoundInPlay] = {}  # in play, by round id (oldest first)
        self._by_key: dict[str, int] = {}  # match key -> its round's id
        self._preparing: asyncio.Task[None] | None = None
        self._withdraw: set[str] = set()
        self.wake: Callable[[], None] = lambda: None  # the runner's, once it plays

    # -- the Schedule protocol -------------------------------------------------------------

    @property
    def entrants(self) -> Sequence[BotSpec]:
        return self._entrants

    @property
    def total_games(self) -> int | None:
        return None  # a ladder plays until stopped

    def next_match(self) -> Next:
        ladder = self.ladder
        if ladder.contest.paused:
            ladder.note_waiting()
            return Wait(IDLE_WAIT_S)
        ready = [r for r in self.rounds.values() if r.pending and len(r.out) < self.OUT_PER_ROUND]
        if ready:
            in_play = min(ready, key=lambda r: (len(r.out), r.round.id))
            match = in_play.pending.popleft()
            in_play.out[match.key] = match
            a, b, c = (self._labels[i] for i in match.entrants)
            ladder.state.live[match.key] = LiveMatch(match.key, (a, b, c), len(match.indices))
            return match
        if len(self.rounds) >= self.tables or self._busy_preparing():
            return Wait()  # a round's end, or its bots prepared, wakes the runner
        round_ = ladder.next_round(set(self.rounds))
        if round_ is None:
            if not self.rounds:
                ladder.note_waiting()
            return Wait(None if self.rounds else IDLE_WAIT_S)
        self._preparing = asyncio.ensure_future(self._prepare(round_))
        return Wait(None)

    def game_stored(self, match: ScheduledMatch, result: GameResult) -> None:
        in_play = self.rounds.get(self._by_key.get(match.key, -1))
        if in_play is None:
            return
        a, b, c = (self._labels[i] for i in match.entrants)
        live = self.ladder.state.live.get(match.key)
        if live is not None:
            live.done += 1
        self.ladder.game_stored((a, b, c), result)

    def match_ended(self, match: ScheduledMatch) -> None:
        self.ladder.state.live.pop(match.key, None)
        in_play = self.rounds.get(self._by_key.pop(match.key, -1))
        if in_play is None:
            return
        in_play.out.pop(match.key, None)
        if not in_play.pending and not in_play.out:
            self._drop(in_play)
            self.ladder.round_played(in_play.round, in_play.labels)

    def given_up(self, match: ScheduledMatch, error: Exception) -> None:
        """The arena could not play a match of a round after its retries: the round is
        left (its stored games stay, its other matches are withdrawn), never the run."""
        self.ladder.state.live.pop(match.key, None)
        in_play = self.rounds.get(self._by_key.pop(match.key, -1))
        if in_play is None:
            return
        in_play.out.pop(match.key, None)
        self._end(in_play)
        self.ladder.round_given_up(in_play.round, in_play.labels, error)

    def withdrawn(self) -> Collection[str]:
        keys, self._withdraw = self._withdraw, set()
        return keys

    # -- the contest changed ---------------------------------------------------------------

    def review(self) -> None:
        """End now every round in play that may not go on (an entrant retired, suspended or
        banned, the ladder paused): its matches under way are withdrawn."""
        for in_play in list(self.rounds.values()):
            why = self.ladder.why_not_playable(in_play.round)
            if why is not None:
                self._end(in_play)
                self.ladder.round_cut(in_play.round, why)
        self.wake()

    def _drop(self, in_play: RoundInPlay) -> None:
        self.rounds.pop(in_play.round.id, None)
        self.ladder.state.rounds.pop(in_play.round.id, None)

    def _end(self, in_play: RoundInPlay) -> None:
        """The round stops now: its matches under way are withdrawn (their stored games
        stay), the others never handed out."""
        self._drop(in_play)
        in_play.pending.clear()
        for key in in_play.out:
            self._withdraw.add(key)
            self._by_key.pop(key, None)
            self.ladder.state.live.pop(key, None)
        in_play.out.clear()

    # -- a new round -------------------------------------------------------------------------

    def _busy_preparing(self) -> bool:
        return self._preparing is not None and not self._preparing.done()

    async def _prepare(self, round_: Round) -> None:
        """The round's bots prepared (off the loop), then its seatings ready to hand out."""
        ladder = self.ladder
        labels = list(round_.entrants) if round_.comparison else sorted(set(round_.entrants))
        try:
            for label in labels:
                if label not in self._index:
                    spec = await ladder.prepare(label)
                    if spec is None:  # held out: it cannot be prepared
                        ladder.contest.finish_round(round_.id, f"{label} cannot be prepared")
                        return
                    self._index[label] = len(self._entrants)
                    self._entrants.append(spec)
                    self._labels.append(label)
            why = ladder.why_not_playable(round_)  # the contest may have changed meanwhile
            if why is not None:
                ladder.round_cut(round_, why)
                return
            self._start(round_, tuple(labels))
        finally:
            self.wake()

    def _start(self, round_: Round, labels: tuple[str, ...]) -> None:
        if round_.comparison:  # NEW is 0, BASE 1: a comparison's seed group
            seated_all = list(GROUP_SEATINGS)
        else:
            position = {label: labels.index(label) for label in labels}
            a, b, c = (position[label] for label in round_.entrants)
            seated_all = seatings((a, b, c))
        end = round_.first_game + round_.games
        pending: collections.deque[ScheduledMatch] = collections.deque()
        for s, seating in enumerate(seated_all):
            key = f"r{round_.id}-s{s}-" + "-".join(str(i) for i in seating)
            pending.append(
                ScheduledMatch(
                    key,
                    (
                        self._index[labels[seating[0]]],
                        self._index[labels[seating[1]]],
                        self._index[labels[seating[2]]],
                    ),
                    end,
                    offset=round_.first_game,  # seeds before the round's: never played
                    # Each seating starts at another of the round's deals, so that two of
                    # them can play at once (the leases let a deal be at one table only).
                    rotation=s,
                    match_id=opaque_match_id(self.ladder.key.secret, f"{self.ladder.run_id}:{key}"),
                )
            )
            self._by_key[key] = round_.id
        self.rounds[round_.id] = RoundInPlay(round_, labels, pending)
        self.ladder.state.rounds[round_.id] = round_


class Ladder:
    """The contest's ladder: the rounds it chooses, played by the tournament runner through
    ``LadderSchedule`` until cancelled; ``wake`` after an upload, ``review`` after the
    organiser changed who plays."""

    def __init__(
        self,
        db_path: Path,
        executor: Callable[[], MatchExecutor],
        *,
        games: int = 1,
        settings: TableSettings | None = None,
        options: BotOptions | None = None,
        prepare_locally: bool = True,
        match_sandbox: bool | None = None,
        on_notice: Callable[[str], None] | None = None,
        compare_max_games: int = 3000,
        watchdog_s: float = WATCHDOG_S,
    ) -> None:
        self.db_path = db_path
        self.executor_factory = executor
        self.games = games
        self.settings = settings or TableSettings()
        self.options = options or BotOptions()
        self.prepare_locally = prepare_locally  # False on a cluster: workers build
        self.on_notice = on_notice
        self.watchdog_s = watchdog_s
        self.sandbox = self.options.sandbox if match_sandbox is None else match_sandbox
        self.results = ResultsStore.open(db_path)
        self.contest = ContestStore.open(db_path)
        self.registry = Registry(registry_path(db_path))
        self.log_root = logs_beside(db_path)
        self.run_id = ladder_run_id(self.contest, self.results, self.settings)
        self.key = RunKey(self.results.deal_key(self.run_id))
        self.state = LadderState(self.run_id)
        self.figures = Figures(db_path, self.run_id, compare_max_games, self._notice)
        self.strikes = Strikes()
        self.schedule: LadderSchedule | None = None  # while it plays
        self._runner: TournamentRunner | None = None
        self._specs: dict[str, BotSpec] = {}
        self._left: Counter[str] = Counter()  # rounds left for the arena's trouble, in a row
        self._refreshing: asyncio.Task[None] | None = None
        self._refreshed = 0.0

    # -- told from outside -----------------------------------------------------------------

    def wake(self) -> None:
        if self._runner is not None:
            self._runner.wake()

    def review(self) -> None:
        """The organiser (or a suspension) changed who plays, or paused the ladder: end
        the rounds in play that may not go on."""
        if self.schedule is not None:
            self.schedule.review()
        self.wake()

    def close(self) -> None:
        self.figures.close()
        self.results.close()
        self.contest.close()

    def _notice(self, line: str, detail: str = "") -> None:
        """``line`` for everyone (the live page and the log); ``detail``, which may hold
        a bot's output or a server path, for the organiser's log only."""
        self.state.note(line)
        if self.on_notice is not None:
            self.on_notice(f"{line}: {detail}" if detail else line)

    def _organiser(self, line: str) -> None:
        """What the runner says (a match played again, a seat that never joined): for the
        organiser's log only, as it may quote a bot's output or a server path."""
        if self.on_notice is not None:
            self.on_notice(line)

    # -- the figures -----------------------------------------------------------------------

    def comparison_pairs(self) -> tuple[Pair, ...]:
        """(NEW, BASE) of every contestant with two versions: their latest two."""
        by_contestant: dict[str, list[Version]] = {}
        for version in self.contest.versions():
            by_contestant.setdefault(version.contestant, []).append(version)
        return tuple(
            (versions[-1].label, versions[-2].label)
            for versions in by_contestant.values()
            if len(versions) >= 2
        )

    async def refresh(self) -> None:
        """The ratings, standings and comparisons again (in the statistics process)."""
        self._refreshed = time.monotonic()
        await self.figures.refresh(self.comparison_pairs())

    def _refresh_soon(self) -> None:
        """After a game: the figures again, unless they were just computed or are being."""
        busy = self._refreshing is not None and not self._refreshing.done()
        if not busy and time.monotonic() - self._refreshed >= REFRESH_S:
            self._refreshing = asyncio.ensure_future(self.refresh())

    def _refresh_now(self) -> None:
        if self._refreshing is None or self._refreshing.done():
            self._refreshing = asyncio.ensure_future(self.refresh())

    # -- playing ---------------------------------------------------------------------------

    async def run(self) -> None:
        """Play until cancelled (the runner, fed by ``LadderSchedule``); a cancelled ladder
        leaves its rounds in play to be resumed, with the games they lack."""
        watchdog = asyncio.ensure_future(self._watch())
        try:
            await self.refresh()
            executor = self.executor_factory()
            schedule = LadderSchedule(self, executor.tables)
            config = LadderRun(
                entrants=(),
                games=self.games,
                seed=None,
                jobs=executor.tables,
                db_path=self.db_path,
                settings=self.settings,
                limits=self.options.limits,
                sandbox=self.sandbox,
                workdir_bytes=self.options.workdir_bytes,
                pass_env=self.options.pass_env,
                ladder_run_id=self.run_id,
            )
            runner = TournamentRunner(
                config,
                self.results,
                self.log_root / self.run_id,
                executor=executor,
                on_notice=self._organiser,
                schedule=schedule,
            )
            schedule.wake = runner.wake
            self.schedule, self._runner = schedule, runner
            await runner.run()
        finally:
            self.schedule = self._runner = None
            self.state.live.clear()
            watchdog.cancel()
            tasks = [t for t in (watchdog, self._refreshing) if t is not None]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    def note_waiting(self) -> None:
        self.state.last_game = time.time()  # waiting is no stall

    def _laddered(self) -> set[str]:
        return {v.label for v in self.contest.laddered()} - set(self.state.held)

    def why_not_playable(self, round_: Round) -> str | None:
        """Why ``round_`` may not be played now (None: it may)."""
        if self.contest.paused:
            return "the ladder was paused"
        laddered = self._laddered()
        # A comparison needs its NEW in the ladder (and its BASE neither retired nor
        # suspended); a triple, all three.
        needed = round_.entrants[:1] if round_.comparison else round_.entrants
        gone = sorted(set(needed) - laddered)
        if round_.comparison:
            name, _, version = round_.entrants[1].partition("@")
            base = self.contest.version(name, version)
            if base is None or base.out:
                gone.append(round_.entrants[1])
        if gone:
            return f"{', '.join(gone)} left the ladder"
        return None

    def next_round(self, in_play: Collection[int] = ()) -> Round | None:
        """The next round to play: an unfinished one (not in play) resumed, else a new one
        (a comparison due, else the triple ``choose_triple`` picks); None: none now."""
        laddered = self._laddered()
        for unfinished in self.contest.rounds(unfinished_only=True):
            if unfinished.id in in_play:
                continue
            why = self.why_not_playable(unfinished)
            if why is None:
                return unfinished  # resumed: its missing games
            self.contest.finish_round(unfinished.id, why)  # its stored games are kept
        rounds = self.contest.rounds()
        if not rounds or not rounds[-1].comparison:
            comparison = self._comparison_due(laddered, rounds)
            if comparison is not None:
                return self.contest.start_round(comparison, self.games)
        report = self.figures.report
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

    def _comparison_due(self, laddered: set[str], rounds: list[Round]) -> Pair | None:
        """The (NEW, BASE) that has played fewest seed groups among those whose
        sequential test has not decided yet, if any."""
        played = Counter(r.entrants for r in rounds if r.comparison)
        due = []
        for new, base in self.comparison_pairs():
            name, _, version = base.partition("@")
            old = self.contest.version(name, version)
            if new not in laddered or old is None or old.out:
                continue
            figures = self.figures.comparison(new, base)
            if figures is not None and figures.finished:
                continue
            groups = played[(new, base)] * self.games
            if groups * len(GROUP_SEATINGS) >= self.figures.compare_max_games:
                continue
            due.append((groups, new, base))
        if not due:
            return None
        _, new, base = min(due)
        return (new, base)

    async def prepare(self, label: str) -> BotSpec | None:
        """The version's bot, prepared once (its upload's build, cached; off the event
        loop); None, and held out of the ladder, when it cannot be."""
        spec = self._specs.get(label)
        if spec is not None:
            return spec
        try:
            version = next(v for v in self.contest.versions() if v.label == label)
            spec = await asyncio.to_thread(self._load, version)
        except Exception as error:  # a version that no longer builds or loads
            self._hold(label, f"its bot cannot be prepared: {error}")
            return None
        self._specs[label] = spec
        return spec

    def _load(self, version: Version) -> BotSpec:
        spec = self.registry.load(self.registry.find(version.label))
        if self.prepare_locally:  # built once per version (the upload's build, cached)
            spec = BotCache().prepare(spec, self.options)
        return spec

    # -- what the runner tells, through the schedule -----------------------------------------

    def game_stored(self, seated: tuple[str, str, str], result: GameResult) -> None:
        self.state.games_stored += 1
        self.state.last_game = time.time()
        self._judge(seated, result)
        self._refresh_soon()

    def round_played(self, round_: Round, labels: Sequence[str]) -> None:
        for label in labels:
            self._left.pop(label, None)
        self.contest.finish_round(round_.id)
        self._refresh_now()

    def round_cut(self, round_: Round, why: str) -> None:
        if self.contest.paused and why == "the ladder was paused":
            self._notice(f"round {round_.id}: cut, the ladder was paused; it resumes later")
            return  # unfinished: its missing games are played when the ladder resumes
        self.contest.finish_round(round_.id, why)
        self._notice(f"round {round_.id}: ended, {why}; its stored games stay")

    def round_given_up(self, round_: Round, labels: Sequence[str], error: Exception) -> None:
        """The arena could not play the round (after the runner's retries): it is left, and
        an entrant whose rounds are left ``HELD_AFTER`` times in a row is held out."""
        self.contest.finish_round(round_.id, f"the arena's trouble: {error}")
        self._notice(f"round {round_.id}: the arena's trouble, tried again and left", str(error))
        for label in labels:
            self._left[label] += 1
            if self._left[label] >= HELD_AFTER:
                self._hold(label, f"{HELD_AFTER} of its rounds in a row failed: {error}")
        self.review()

    def _hold(self, label: str, why: str) -> None:
        """Out of the ladder until the server restarts: the arena cannot run it."""
        self.state.held[label] = why
        self._notice(f"{label} is held out of the ladder: the arena cannot run it", why)

    def _judge(self, seated: tuple[str, str, str], result: GameResult) -> None:
        """Count the game's strikes; suspend an entrant that reached ``STRIKES``."""
        suspended = False
        for label in sorted(set(seated)):
            teams = [t for t in range(3) if seated[t] == label]
            marks = [m for t in teams if (m := strike(result, t)) is not None]
            brought = self.strikes.add(label, marks[0] if marks else None)
            if brought is not None:
                status, line = brought
                if self.contest.suspend(label, status, line):
                    self._notice(f"{label} is suspended: {status}", line)
                    suspended = True
        if suspended:
            self.review()

    # -- the watchdog ----------------------------------------------------------------------

    async def _watch(self) -> None:
        """Every few seconds: has a game arrived lately, where one should have?"""
        while True:
            await asyncio.sleep(min(10.0, self.watchdog_s / 3))
            self.look()

    def look(self) -> None:
        """One look of the watchdog: a stall is said once, and its line kept while it lasts."""
        quiet = time.time() - self.state.last_game
        if quiet < self.watchdog_s:
            self.state.stalled = None
            return
        line = f"no game stored for {quiet:.0f} s: {self.why_quiet()}"
        if self.state.stalled is None:
            self._notice(line)
        self.state.stalled = line

    def why_quiet(self) -> str:
        """What the ladder is doing, in one line, for the watchdog."""
        now = time.time()
        parts = []
        if not self.state.rounds:
            parts.append("no round is under way")
        else:
            for round_ in self.state.rounds.values():
                parts.append(f"round {round_.id} ({', '.join(round_.entrants)})")
            if not self.state.live:
                parts.append("their bots are being prepared or launched")
            for match in self.state.live.values():
                parts.append(
                    f"match {match.key} has played {match.done} of {match.games} games "
                    f"in {now - match.started:.0f} s"
                )
        since = self.figures.refreshing_since
        if since is not None:
            parts.append(f"the ratings have been computing for {time.monotonic() - since:.0f} s")
        return "; ".join(parts)
