"""The round-robin schedule: which entrants meet, in which seatings, on which seeds.

Every set of three entrants meets (with two entrants: {A,A,B} and {A,B,B}); each such
triple plays every distinct seating of its entrants over the three teams, and every
seating plays the *same* game seeds — duplicate play (R3.1a): the same cards go to the
same seats, so luck cancels out.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass


class ScheduleError(ValueError):
    """The entrants cannot make a tournament."""


@dataclass(frozen=True)
class ScheduledMatch:
    """One seating of one triple, playing ``seeds`` (one game per seed)."""

    key: str  # stable across runs of the same command: used to resume
    triple: int
    seating: int
    entrants: tuple[int, int, int]  # entrant indices by team (R1.2)
    seeds: tuple[int, ...]


def game_seed(run_seed: int, game_index: int) -> int:
    """The seed of game ``game_index``, shared by every seating (duplicate play)."""
    digest = hashlib.sha256(f"schmier-arena:{run_seed}:{game_index}".encode()).digest()
    return int.from_bytes(digest[:7], "big")


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


def round_robin(entrant_count: int, games: int, seed: int) -> list[ScheduledMatch]:
    """The whole schedule, in a fixed order."""
    if games < 1:
        raise ScheduleError("--games must be at least 1")
    seeds = tuple(game_seed(seed, k) for k in range(games))
    schedule = []
    for t, triple in enumerate(triples(entrant_count)):
        for s, seating in enumerate(seatings(triple)):
            key = f"t{t}-s{s}-" + "-".join(str(e) for e in seating)
            schedule.append(ScheduledMatch(key, t, s, seating, seeds))
    return schedule


def schedule_size(schedule: Sequence[ScheduledMatch]) -> int:
    return sum(len(m.seeds) for m in schedule)
