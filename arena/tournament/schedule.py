"""Schedules: which matches a run plays next, asked by the runner one match at a time.

The runner asks its ``Schedule`` "which match next?" (cutechess's ``Tournament::nextPair``)
whenever a table has room, and tells it of each game stored and each match ended; the
schedule answers a match, ``Wait`` (nothing now: ask again after the next game, match
end or wake-up) or ``DONE``. Round robin, sampled, a comparison's batches and a ladder's
rounds are schedules, not runners: the runner plays, stores, resumes and retries the
same way for all of them.

The round robin: every set of three entrants meets (with two entrants: {A,A,B} and
{A,B,B}); each such triple plays every distinct seating of its entrants over the three
teams, and every seating plays the *same* games — duplicate play (R3.1a): game k of every
seating is dealt from the same key, ``RunKey.game(k)``, so the same cards go to the same
seats and luck cancels out. A sampled schedule plays a balanced sample of the triples.
Both are fixed lists (``FixedSchedule``).

No deal is live at two tables at once (``arena.tournament.leases``): a table waits for
the deal of its next game while another plays it. So that the seatings played at once
seldom want the same deal, each seating starts at another game and goes round
(``ScheduledMatch.order``): consecutive seatings start far apart in the run's games
(``spread``, the golden ratio's sequence). The order is a function of the schedule alone,
so that a match plays its games in the same order whatever the tables and their timing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import itertools
import math
import random
import secrets
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Final, Literal, Protocol, TypeAlias

from arena.bots import BotSpec
from arena.engine import GameKey
from arena.engine.deals import KEY_BYTES, SecretKey

if TYPE_CHECKING:
    from arena.referee.result import GameResult

_GAME_LABEL: Final = b"schmier-arena/game:"
_RUN_SEED_LABEL: Final = b"schmier-arena/run-seed:"
_SAMPLED_SEED: Final = 20261201
_REPAIR_STEPS: Final = 1000
_GOLDEN: Final = (math.sqrt(5) - 1) / 2  # frac(k·φ) spreads any run of k's over [0, 1)

# ``--schedule auto`` plays the full round robin up to this many matches (7 entrants: 210),
# and a sampled one above it (8 entrants would be 336, 30 entrants 24,360: the cube of the
# field). The default sample gives each entrant 30 matches' worth of the field, so at 8
# entrants it is 240 matches too: the size of a run grows smoothly, then linearly.
AUTO_FULL_LIMIT: Final = 240
SAMPLED_MATCHES_PER_ENTRANT: Final = 30


class ScheduleError(ValueError):
    """The entrants cannot make a tournament."""


@dataclass(frozen=True, slots=True, repr=False)  # SecretKey's repr hides the secret
class RunKey(SecretKey):
    """A run's secret: every deal of the run follows from it, and from nothing else.

    A new run draws it from the operating system's CSPRNG (``generate``) and keeps it
    only in the results database; ``from_seed`` derives it from an explicit ``--seed``,
    which reproduces the run exactly but lets anyone who knows the seed know every card.
    """

    DESCRIBED_AS: ClassVar[str] = "a run key"

    @classmethod
    def generate(cls) -> RunKey:
        return cls(secrets.token_bytes(KEY_BYTES))

    @classmethod
    def from_seed(cls, seed: int) -> RunKey:
        """The key of ``--seed N``: public, so that the same seed replays the same run."""
        return cls(hashlib.sha256(_RUN_SEED_LABEL + str(int(seed)).encode()).digest())

    def game(self, index: int) -> GameKey:
        """The key of game ``index``, shared by every seating (duplicate play, R3.1a).

        A keyed function of the run's secret: one game's key (or any number of them)
        tells nothing about another's.
        """
        if index < 0:
            raise ValueError(f"game indexes start at 0, not {index}")
        message = _GAME_LABEL + index.to_bytes(8, "big")
        return GameKey(hmac.digest(self.secret, message, "sha256"))


def seed_warning(seed: int) -> str:
    """The one line an explicit seed earns: it makes every deal public."""
    return (
        f"warning: --seed {seed} makes the deals reproducible: anyone who knows the seed "
        "can know every card (leave it out for secret deals)"
    )


@dataclass(frozen=True)
class ScheduledMatch:
    """One seating of one triple, playing games 0 … ``games`` - 1 of the run, or every
    ``every``-th of them from ``offset`` (``swap_pairs``), starting with the
    ``rotation``-th of them and going round (``order``)."""

    key: str  # stable across runs of the same command: used to resume
    entrants: tuple[int, int, int]  # entrant indices by team (R1.2)
    games: int
    every: int = 1
    offset: int = 0
    rotation: int = 0
    # The id its bots are told (the Welcome's ``match_id``); None: ``key``. A contest's
    # ladder tells an opaque one, so that no bot can tell its round or seating.
    match_id: str | None = None

    @property
    def indices(self) -> range:
        """The game indices this match plays: its games' keys are ``RunKey.game(i)``."""
        return range(self.offset, self.games, self.every)

    @property
    def order(self) -> tuple[int, ...]:
        """``indices`` in the order its table plays them: from the ``rotation``-th, round."""
        mine = self.indices
        start = self.rotation % len(mine) if len(mine) else 0
        return (*mine[start:], *mine[:start])

    def skipped(self, done: Iterable[int] = ()) -> frozenset[int]:
        """The indices below ``games`` that the match does not play: not its own, or ``done``."""
        mine = self.indices
        return frozenset(i for i in range(self.games) if i not in mine) | frozenset(done)


def triples(count: int) -> list[tuple[int, int, int]]:
    """Every set of three entrants; with two entrants {A,A,B} and {A,B,B}."""
    if count < 2:
        raise ScheduleError("a tournament needs at least two entrants")
    if count == 2:
        return [(0, 0, 1), (0, 1, 1)]
    return list(itertools.combinations(range(count), 3))


def seatings(triple: tuple[int, int, int]) -> list[tuple[int, int, int]]:
    """The distinct assignments of a triple's entrants to teams 0, 1, 2 (six, or three)."""
    distinct = {(a, b, c) for a, b, c in itertools.permutations(triple)}
    return sorted(distinct)


def spread(position: int, count: int) -> int:
    """Where the match at ``position`` of a schedule starts among its ``count`` games:
    ⌊frac(position·φ)·count⌋, so that any few consecutive matches (those played at once,
    however many tables there are) start far apart, and their tables seldom want the
    same deal at the same time. Simulated on 2 to 8 tables, it loses less to the deals'
    leases than starting every match at its first game, or halves, or alternating
    directions."""
    return int((position * _GOLDEN) % 1.0 * count) if count > 0 else 0


def _spread_out(schedule: list[ScheduledMatch]) -> list[ScheduledMatch]:
    return [
        dataclasses.replace(m, rotation=spread(p, len(m.indices))) for p, m in enumerate(schedule)
    ]


def round_robin(entrant_count: int, games: int) -> list[ScheduledMatch]:
    """The whole schedule, in a fixed order; every match plays the same ``games`` games,
    each starting at its own (``spread``)."""
    if games < 1:
        raise ScheduleError("--games must be at least 1")
    schedule = []
    for t, triple in enumerate(triples(entrant_count)):
        for s, seating in enumerate(seatings(triple)):
            key = f"t{t}-s{s}-" + "-".join(str(e) for e in seating)
            schedule.append(ScheduledMatch(key, seating, games))
    return _spread_out(schedule)


def swap_pairs(games: int) -> list[ScheduledMatch]:
    """Two entrants' six seatings, each seed played by one seating and its mirror only.

    The mirror of a seating swaps the two entrants ({A,A,B} on teams 0, 1, 2 against {B,B,A}
    on the same teams), so over the two games each entrant held every hand the other held
    (R3.1a): a swap pair, fishtest's game pair with the colours reversed. Seed k goes to the
    pair k mod 3 (``round_robin(2, …)``'s keys: seating s and 5 - s), so the three pairs
    take turns and each seed is two games: its luck cancels as in a seed group, on a third
    of the games.
    """
    matches = round_robin(2, games)
    pairs = len(matches) // 2
    return _spread_out(
        [
            dataclasses.replace(m, every=pairs, offset=min(s, len(matches) - 1 - s))
            for s, m in enumerate(matches)
        ]
    )


def schedule_size(schedule: Sequence[ScheduledMatch]) -> int:
    return sum(len(m.indices) for m in schedule)


@dataclass(frozen=True)
class Wait:
    """Nothing to play now: ask again after the next stored game or ended match, when the
    runner is woken (``TournamentRunner.wake``), or after ``seconds`` (None: no sooner)."""

    seconds: float | None = None


@dataclass(frozen=True)
class Done:
    """Nothing more to play: the runner finishes the matches under way and ends."""


DONE: Final = Done()
# What a schedule answers the runner's "which match next?".
Next: TypeAlias = ScheduledMatch | Wait | Done


class Schedule(Protocol):
    """What a run plays, one match at a time, as the runner asks (cutechess's
    ``Tournament::nextPair``). The runner alone plays, stores, resumes and retries; the
    schedule decides what comes next, and may follow what was played.

    The runner asks ``next_match`` whenever it has room for a match (it keeps about two per
    table handed to the executor) and after every event below until the answer is not a
    match; a match answered is played (its games already stored are skipped, so a
    resumed run asks the same questions). The schedule is told, in the runner's event
    loop, of every game stored (``game_stored``), every match over (``match_ended``) and
    every match the arena could not play after its retries (``given_up``: raise the error
    to stop the run). ``withdrawn`` names matches under way to stop now (an entrant
    retired), asked after every event: their stored games are kept. ``DONE`` is final.

    Four shapes, one protocol: the round robin and the sampled schedule are fixed lists
    (``FixedSchedule``); a comparison answers a batch of units, then ``Wait`` until they are
    over, then looks at its sequential test (told game by game) and answers the next batch
    or ``DONE``; a contest's ladder never says ``DONE``, chooses each round from the ratings
    so far, and withdraws the round of an entrant retired.
    """

    @property
    def entrants(self) -> Sequence[BotSpec]:
        """The entrants by index (``ScheduledMatch.entrants``); it may grow, never change."""
        ...

    @property
    def total_games(self) -> int | None:
        """Games in all, where known ahead (the progress line); None where not."""
        ...

    def next_match(self) -> Next: ...

    def game_stored(self, match: ScheduledMatch, result: GameResult) -> None: ...

    def match_ended(self, match: ScheduledMatch) -> None: ...

    def given_up(self, match: ScheduledMatch, error: Exception) -> None: ...

    def withdrawn(self) -> Collection[str]: ...


class FixedSchedule:
    """A schedule known whole beforehand, played in its order: the round robin, a sampled
    schedule, a comparison's batch."""

    def __init__(self, entrants: Sequence[BotSpec], matches: Sequence[ScheduledMatch]) -> None:
        self._entrants = tuple(entrants)
        self.matches = tuple(matches)
        self._next = 0

    @property
    def entrants(self) -> Sequence[BotSpec]:
        return self._entrants

    @property
    def total_games(self) -> int:
        return schedule_size(self.matches)

    def next_match(self) -> Next:
        if self._next == len(self.matches):
            return DONE
        self._next += 1
        return self.matches[self._next - 1]

    def game_stored(self, match: ScheduledMatch, result: GameResult) -> None:
        pass

    def match_ended(self, match: ScheduledMatch) -> None:
        pass

    def given_up(self, match: ScheduledMatch, error: Exception) -> None:
        raise error  # a fixed schedule is played whole, or the run stops

    def withdrawn(self) -> Collection[str]:
        return ()


def sampled_triples(entrant_count: int, count: int) -> list[tuple[int, int, int]]:
    """``count`` triples in which every pair of entrants meets as evenly as it can.

    A pair's meetings and an entrant's plays are "even" when they lie between the floor
    and the ceiling of their share (3·count over the pairs, 3·count over the entrants).
    Greedy first (the next triple is the one whose pairs have met least, then whose
    entrants have played least), then repaired by min-conflicts: take a count that is
    out of its band, and make the swap (one entrant of a triple for another) that brings
    the counts closest to their bands. Deterministic (a fixed generator): the same sizes
    give the same triples. Where no even design exists (four entrants and two triples
    share a pair twice), the best one found is kept.
    """
    if entrant_count < 3:
        raise ScheduleError("a sampled schedule needs at least three entrants")
    if count < 1:
        raise ScheduleError("--matches must be at least 1")
    n = entrant_count
    slots = 3 * count
    pair_band = (slots // (n * (n - 1) // 2), -(-slots // (n * (n - 1) // 2)))
    play_band = (slots // n, -(-slots // n))
    met = [[0] * n for _ in range(n)]
    played = [0] * n
    chosen: list[list[int]] = []

    def count_triple(triple: Sequence[int], step: int) -> None:
        a, b, c = triple
        for x, y in ((a, b), (a, c), (b, c)):
            met[x][y] += step
            met[y][x] += step
        for x in triple:
            played[x] += step

    candidates = list(itertools.combinations(range(n), 3))
    for _ in range(count):

        def cost(triple: tuple[int, int, int]) -> tuple[int, int, int]:
            a, b, c = triple
            pairs = (met[a][b], met[a][c], met[b][c])
            return (max(pairs), sum(pairs), played[a] + played[b] + played[c])

        best = min(candidates, key=cost)
        count_triple(best, 1)
        chosen.append(list(best))

    def off(value: int, band: tuple[int, int]) -> int:
        return max(0, value - band[1], band[0] - value)

    def swap_cost(triple: list[int], position: int, entrant: int) -> int:
        """How much further from even the counts get if ``entrant`` takes ``position``."""
        out = triple[position]
        before = after = 0
        for other in (triple[k] for k in range(3) if k != position):
            before += off(met[out][other], pair_band) + off(met[entrant][other], pair_band)
            after += off(met[out][other] - 1, pair_band) + off(met[entrant][other] + 1, pair_band)
        before += off(played[out], play_band) + off(played[entrant], play_band)
        after += off(played[out] - 1, play_band) + off(played[entrant] + 1, play_band)
        return after - before

    def unevenness() -> int:
        pairs = sum(off(met[a][b], pair_band) for a, b in itertools.combinations(range(n), 2))
        return pairs + sum(off(p, play_band) for p in played)

    rng = random.Random(_SAMPLED_SEED)
    best_found = [list(t) for t in chosen]
    best_score = unevenness()
    for _ in range(_REPAIR_STEPS):
        if best_score == 0:
            break
        uneven_pairs = [
            (a, b) for a, b in itertools.combinations(range(n), 2) if off(met[a][b], pair_band)
        ]
        uneven_plays = [(a, a) for a in range(n) if off(played[a], play_band)]
        a, b = rng.choice(uneven_pairs + uneven_plays)
        moves: list[tuple[int, list[int], int, int]] = []
        for triple in chosen:
            for position in range(3):
                if a == b or met[a][b] > pair_band[1]:
                    # Too many meetings (or plays): move one of them out of a triple.
                    if triple[position] not in (a, b) or not (a in triple and b in triple):
                        continue
                elif triple[position] in (a, b) or (a not in triple and b not in triple):
                    continue  # too few: bring the missing one into a triple of the other
                for entrant in range(n):
                    if entrant in triple:
                        continue
                    if a != b and met[a][b] < pair_band[0] and entrant not in (a, b):
                        continue
                    moves.append((swap_cost(triple, position, entrant), triple, position, entrant))
        if not moves:
            continue
        least = min(move[0] for move in moves)
        _, triple, position, entrant = rng.choice([m for m in moves if m[0] == least])
        count_triple(triple, -1)
        triple[position] = entrant
        count_triple(triple, 1)
        score = unevenness()
        if score < best_score:
            best_score, best_found = score, [list(t) for t in chosen]
    return [(a, b, c) for a, b, c in (sorted(t) for t in best_found)]


def sampled(entrant_count: int, matches: int, games: int) -> list[ScheduledMatch]:
    """A balanced sample of the round robin: ⌈matches / 6⌉ triples, each in its six seatings.

    Every seating of a triple puts each of its entrants once on each team (so on each
    seat, R1.2), and the triples balance the pairs (``sampled_triples``).
    """
    if games < 1:
        raise ScheduleError("--games must be at least 1")
    triple_count = max(1, -(-matches // 6))
    schedule = []
    for t, triple in enumerate(sampled_triples(entrant_count, triple_count)):
        for s, seating in enumerate(seatings(triple)):
            key = f"p{t}-s{s}-" + "-".join(str(e) for e in seating)
            schedule.append(ScheduledMatch(key, seating, games))
    return _spread_out(schedule)


ScheduleChoice = Literal["full", "sampled", "auto"]


def full_size(entrant_count: int) -> int:
    """Matches in the full round robin, without building it."""
    return sum(len(seatings(triple)) for triple in triples(entrant_count))


def _whole_triples(matches: int) -> int:
    """A sampled schedule plays whole triples, six seatings each: ``matches`` rounded up."""
    return -(-matches // 6) * 6


def default_sampled_matches(entrant_count: int) -> int:
    return _whole_triples(SAMPLED_MATCHES_PER_ENTRANT * entrant_count)


@dataclass(frozen=True)
class SchedulePlan:
    """Which schedule a run plays: the full round robin, or a sample of ``matches`` matches.

    Part of a sampled run's identity, so that the same command resumes the same schedule.
    """

    # "pairs": two entrants' swap pairs (``swap_pairs``), the schedule of ``arena compare``.
    kind: Literal["full", "sampled", "pairs"] = "full"
    matches: int | None = None  # sampled: a multiple of six (whole triples)
    reason: str = field(default="", compare=False)  # why it was chosen, for the one line

    def __post_init__(self) -> None:
        if (self.kind == "sampled") != (self.matches is not None):
            raise ValueError("a sampled schedule, and only it, has a number of matches")

    def build(self, entrant_count: int, games: int) -> list[ScheduledMatch]:
        if self.kind == "pairs":
            if entrant_count != 2:
                raise ScheduleError("swap pairs are a schedule of two entrants")
            return swap_pairs(games)
        if self.matches is None:
            return round_robin(entrant_count, games)
        return sampled(entrant_count, self.matches, games)

    def schedule(self, entrants: Sequence[BotSpec], games: int) -> FixedSchedule:
        """The schedule the runner asks: this plan's matches of ``entrants``, in order."""
        return FixedSchedule(entrants, self.build(len(entrants), games))

    def identity(self) -> dict[str, Any] | None:
        """What a run's identity records; None for the full round robin (as before it)."""
        if self.kind == "full":
            return None
        if self.kind == "pairs":
            return {"kind": self.kind}
        return {"kind": self.kind, "matches": self.matches}

    def describe(self, entrant_count: int) -> str:
        full = full_size(entrant_count)
        if self.matches is None:
            what = f"full round robin, {full:,} matches"
        else:
            what = f"sampled, {self.matches:,} of the full round robin's {full:,} matches"
        return f"schedule: {what} ({self.reason})" if self.reason else f"schedule: {what}"


def choose_schedule(
    entrant_count: int, choice: ScheduleChoice = "auto", matches: int | None = None
) -> SchedulePlan:
    """The schedule ``--schedule choice --matches matches`` asks for, with the reason why."""
    if matches is not None and matches < 1:
        raise ScheduleError("--matches must be at least 1")
    full = full_size(entrant_count)
    if choice == "full":
        if matches is not None:
            raise ScheduleError("--matches sizes a sampled schedule; --schedule full plays all")
        return SchedulePlan(reason="--schedule full")
    if choice == "auto" and full <= AUTO_FULL_LIMIT:
        ignored = f"; --matches {matches} is for a sampled one" if matches is not None else ""
        return SchedulePlan(reason=f"auto: the full one is at most {AUTO_FULL_LIMIT}{ignored}")
    if entrant_count < 3:
        raise ScheduleError("a sampled schedule needs at least three entrants")
    if matches is None:
        size = default_sampled_matches(entrant_count)
        how = f"{SAMPLED_MATCHES_PER_ENTRANT} per entrant, in whole triples of six seatings"
    else:
        size = _whole_triples(matches)
        how = f"--matches {matches}" + (" in whole triples of six" if size != matches else "")
    why = f"auto: the full one is over {AUTO_FULL_LIMIT}; " if choice == "auto" else ""
    return SchedulePlan("sampled", size, f"{why}{how}")
