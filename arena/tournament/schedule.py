"""The round-robin schedule: which entrants meet, in which seatings, on which games.

Every set of three entrants meets (with two entrants: {A,A,B} and {A,B,B}); each such
triple plays every distinct seating of its entrants over the three teams, and every
seating plays the *same* games — duplicate play (R3.1a): game k of every seating is
dealt from the same key, ``RunKey.game(k)``, so the same cards go to the same seats and
luck cancels out.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from arena.engine import GameKey
from arena.engine.deals import KEY_BYTES, check_secret

_GAME_LABEL: Final = b"schmier-arena/game:"
_RUN_SEED_LABEL: Final = b"schmier-arena/run-seed:"


class ScheduleError(ValueError):
    """The entrants cannot make a tournament."""


@dataclass(frozen=True, slots=True)
class RunKey:
    """A run's secret: every deal of the run follows from it, and from nothing else.

    A new run draws it from the operating system's CSPRNG (``generate``) and keeps it
    only in the results database; ``from_seed`` derives it from an explicit ``--seed``,
    which reproduces the run exactly but lets anyone who knows the seed know every card.
    """

    secret: bytes = field(repr=False)

    def __post_init__(self) -> None:
        check_secret(self.secret, "a run key")

    def __repr__(self) -> str:
        return "RunKey(<secret>)"

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
    """One seating of one triple, playing games 0 … ``games`` - 1 of the run."""

    key: str  # stable across runs of the same command: used to resume
    entrants: tuple[int, int, int]  # entrant indices by team (R1.2)
    games: int


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


def round_robin(entrant_count: int, games: int) -> list[ScheduledMatch]:
    """The whole schedule, in a fixed order; every match plays the same ``games`` games."""
    if games < 1:
        raise ScheduleError("--games must be at least 1")
    schedule = []
    for t, triple in enumerate(triples(entrant_count)):
        for s, seating in enumerate(seatings(triple)):
            key = f"t{t}-s{s}-" + "-".join(str(e) for e in seating)
            schedule.append(ScheduledMatch(key, seating, games))
    return schedule


def schedule_size(schedule: Sequence[ScheduledMatch]) -> int:
    return sum(m.games for m in schedule)
