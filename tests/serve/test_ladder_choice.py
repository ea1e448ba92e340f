"""Which triple the ladder plays next (new versions first, then the least certain, with the
entrants nearest in rating among those they have met least), and when a misbehaving
entrant is suspended, with which status."""

from __future__ import annotations

import itertools
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from arena.referee.policy import Fault, FaultKind
from arena.referee.result import GameResult, SeatStats
from arena.serve.ladder import (
    NEW_VERSION_GAMES,
    RATING_NEAR,
    STRIKE_WINDOW,
    STRIKES,
    Strikes,
    choose_triple,
    opaque_match_id,
    strike,
)
from arena.stats.ratings import Rating
from arena.tournament.report import RunReport
from arena.tournament.schedule import GameKey
from arena.tournament.store import RunInfo


def report_of(ratings: dict[str, float]) -> RunReport:
    run = RunInfo("run", "2026-01-01", None, {}, "running", None)
    rows = [Rating(label, value, None, None, 100, 20) for label, value in ratings.items()]
    return RunReport(run, 0, 0, 0, rows, [], [], {}, [])


def test_a_new_version_plays_first_with_those_it_met_least() -> None:
    entrants = ["a@1", "b@1", "c@1", "d@1", "new@1"]
    games = Counter({e: 100 for e in entrants[:4]})
    met: Counter[frozenset[str]] = Counter()
    for pair in itertools.combinations(entrants[:4], 2):
        met[frozenset(pair)] = 5
    met[frozenset(("new@1", "a@1"))] = 3
    triple = choose_triple(entrants, games, met, None, 10)
    assert triple is not None and "new@1" in triple and "a@1" not in triple


def test_the_pairs_stay_balanced_over_many_rounds() -> None:
    entrants = [f"e{i}@1" for i in range(6)]
    games: Counter[str] = Counter()
    met: Counter[frozenset[str]] = Counter()
    for n in range(40):
        triple = choose_triple(entrants, games, met, None, n)
        assert triple is not None and len(set(triple)) == 3
        for entrant in triple:
            games[entrant] += 6
        for pair in itertools.combinations(sorted(triple), 2):
            met[frozenset(pair)] += 1
    assert max(games.values()) - min(games.values()) <= 6 * 2
    assert max(met.values()) - min(met.values()) <= 3
    assert all(g >= NEW_VERSION_GAMES for g in games.values())


def test_entrants_near_in_rating_meet_more_often_and_far_ones_still_meet() -> None:
    """Six entrants spread 400 Elo apart: over 60 rounds the nearest pairs meet most, and
    every pair meets (the ratings need the field linked)."""
    entrants = [f"e{i}@1" for i in range(6)]
    report = report_of({label: 400.0 * i for i, label in enumerate(entrants)})
    games: Counter[str] = Counter({e: 100 for e in entrants})
    met: Counter[frozenset[str]] = Counter()
    for n in range(60):
        triple = choose_triple(entrants, games, met, report, n)
        assert triple is not None
        for entrant in triple:
            games[entrant] += 6
        for pair in itertools.combinations(sorted(set(triple)), 2):
            met[frozenset(pair)] += 1
    neighbours = [met[frozenset((entrants[i], entrants[i + 1]))] for i in range(5)]
    farthest = met[frozenset((entrants[0], entrants[5]))]
    assert min(neighbours) > farthest >= 1, (neighbours, farthest)


@given(
    st.dictionaries(
        st.sampled_from([f"e{i}@1" for i in range(7)]),
        st.floats(-1000, 1000),
        min_size=3,
    ),
    st.integers(0, 50),
)
def test_the_neediest_entrant_always_plays(ratings: dict[str, float], rounds: int) -> None:
    entrants = sorted(ratings)
    games = Counter({e: 100 for e in entrants})
    games[entrants[-1]] = 0  # a new version
    triple = choose_triple(entrants, games, Counter(), report_of(ratings), rounds)
    assert triple is not None and entrants[-1] in triple and len(set(triple)) == 3
    assert list(triple) == sorted(triple)


def test_a_rating_unknown_is_near_everyone() -> None:
    report = report_of({"a@1": 0.0, "b@1": 10 * RATING_NEAR, "c@1": -10 * RATING_NEAR})
    games = Counter({"a@1": 100, "b@1": 100, "c@1": 100, "new@1": 0})
    triple = choose_triple(sorted(games), games, Counter(), report, 3)
    assert triple is not None and "new@1" in triple and "a@1" in triple


def test_two_entrants_alternate_who_holds_two_teams() -> None:
    assert choose_triple(["b@1", "a@1"], Counter(), Counter(), None, 0) == ("a@1", "a@1", "b@1")
    assert choose_triple(["b@1", "a@1"], Counter(), Counter(), None, 1) == ("a@1", "b@1", "b@1")
    assert choose_triple(["a@1"], Counter(), Counter(), None, 0) is None


def test_a_match_id_tells_nothing_of_its_round() -> None:
    secret = bytes(range(32))
    ids = {opaque_match_id(secret, f"run:r{r}-s{s}-0-1-2") for r in range(50) for s in range(6)}
    assert len(ids) == 300 and all(len(i) == 12 and int(i, 16) >= 0 for i in ids)
    assert opaque_match_id(secret, "run:r1-s0-0-1-2") == opaque_match_id(secret, "run:r1-s0-0-1-2")


# -- strikes -----------------------------------------------------------------------------


def game_with(*faults: Fault, decisions: int = 40) -> GameResult:
    seats = tuple(
        SeatStats(seat=s, decisions=decisions, faults=sum(f.seat == s for f in faults))
        for s in range(6)
    )
    return GameResult(
        game_index=0,
        key=GameKey.from_seed(0),
        winner=None,
        scores=(0, 0, 0),
        deals=1,
        deal_points=((0, 0, 0),),
        duration_s=1.0,
        record={},
        seats=seats,
        faults=faults,
    )


def fault(seat: int, kind: FaultKind, reason: str = "why") -> Fault:
    return Fault(0, 1, seat, kind, reason)


STRIKE_CASES = [
    # (faults of the game, team, expected status or None)
    ((), 0, None),
    ((fault(0, FaultKind.NO_JOIN, "its process exited with status 1"),), 0, "no join"),
    ((fault(3, FaultKind.CLOSED, "the stream closed or the process died"),), 0, "crash"),
    ((fault(1, FaultKind.NO_JOIN, "its process was killed by SIGKILL"),), 1, "memory"),
    ((fault(2, FaultKind.CLOSED, "its log ends: MemoryError"),), 2, "memory"),
    ((fault(4, FaultKind.STALLED, "stopped reading"),), 1, "time"),
    (tuple(fault(s, FaultKind.TIMEOUT) for s in (0, 3) for _ in range(40)), 0, "time"),
    # A slow answer now and then, or an illegal one, is no strike.
    ((fault(0, FaultKind.TIMEOUT), fault(3, FaultKind.TIMEOUT)), 0, None),
    ((fault(0, FaultKind.ILLEGAL, "R7.2: must follow"),), 0, None),
    # Another team's faults are not this one's.
    ((fault(1, FaultKind.CLOSED),), 0, None),
]


def test_which_games_are_strikes_and_of_what() -> None:
    for faults, team, expected in STRIKE_CASES:
        found = strike(game_with(*faults), team)
        assert (None if found is None else found[0]) == expected, (faults, team, found)


def test_strikes_of_the_last_games_suspend_with_the_most_common_status() -> None:
    strikes = Strikes()
    crash = ("crash", "closed: the stream closed")
    assert strikes.add("a@1", crash) is None
    assert strikes.add("a@1", None) is None
    assert strikes.add("a@1", ("time", "timeout: late")) is None
    brought = strikes.add("a@1", crash)
    assert brought is not None and brought[0] == "crash"
    assert f"3 of its last {STRIKE_WINDOW} games" in brought[1]
    # Good games push the strikes out of the window.
    strikes.forget("b@1")
    for struck in [crash, crash, None, None, None, crash, None]:
        assert strikes.add("b@1", struck) is None
    assert STRIKES <= STRIKE_WINDOW
