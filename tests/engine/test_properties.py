"""Property tests over random games (hypothesis draws the seeds; players are random).

Each game is checked at every step (cards conserved, hand sizes, what each seat is told)
and at its end against the reference model in ``helpers.py`` (R5-R9), then replayed.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine import (
    Game,
    ReplayMismatchError,
    dumps,
    loads,
    replay,
    to_record,
    view,
)
from arena.engine.game import Phase

from .helpers import (
    POLICIES,
    Policy,
    assert_cards_conserved,
    cards_mentioned,
    check_record,
    events_for,
    knowable,
)

SEEDS = st.integers(min_value=0, max_value=2**63)
GAME_SETTINGS = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def assert_hand_sizes(game: Game) -> None:
    """R3.1, R5.2-R5.3, R7.4: six cards each, except the dealer between pick-up and discard;
    during play, one fewer per card played."""
    sizes = [len(game.hand(s)) for s in range(6)]
    if game.phase is Phase.PLAY:
        leader, cards = game.current_trick
        expected = [6 - len(game.deal.tricks)] * 6
        for k in range(len(cards)):
            expected[(leader + k) % 6] -= 1
        assert sizes == expected
    elif game.phase is Phase.DISCARD and game.to_act == game.dealer:
        assert sizes[game.dealer] == 6 + len(game.deal.dealer_pickup)
        assert all(sizes[s] == 6 for s in range(6) if s != game.dealer)
    elif game.phase is Phase.OVER:
        assert sizes in ([0] * 6, [6] * 6)  # after a played deal, or a thrown-in draw
    else:
        assert sizes == [6] * 6  # non-dealers stay at six through their discards


def assert_nothing_leaks(game: Game, seat: int, since_event: int, since_deal: int) -> None:
    """R3.2, R10: a seat's view and the events it is told name only cards it may know."""
    allowed = 0
    for number in range(since_deal, game.deal_number + 1):
        allowed |= knowable(game, number, seat)
    told = events_for(game, seat, since_event)
    assert all(e.audience is None or e.audience == seat for e in told)
    leaked = cards_mentioned(told) & ~allowed
    assert not leaked, f"seat {seat} told of cards it may not know: {leaked:#x}"
    v = view(game, seat)
    assert cards_mentioned(v) & ~knowable(game, game.deal_number, seat) == 0
    if not game.is_over:
        assert v.hand == game.hand(seat)


def play_checked(seed: int, rng_seed: int, policy: Policy, draw_limit: int) -> Game:
    rng = random.Random(rng_seed)
    game = Game(seed=seed, draw_limit=draw_limit)
    for seat in range(6):
        assert_nothing_leaks(game, seat, 0, 1)
    while not game.is_over:
        since_event, since_deal = len(game.events), game.deal_number
        game.apply(policy(game, rng))
        assert_cards_conserved(game)
        assert_hand_sizes(game)
        for seat in range(6):
            assert_nothing_leaks(game, seat, since_event, since_deal)
    return game


@pytest.mark.slow
@GAME_SETTINGS
@given(
    seed=SEEDS,
    rng_seed=SEEDS,
    policy=st.sampled_from(sorted(POLICIES)),
    draw_limit=st.sampled_from([200, 200, 30, 5]),
)
def test_R2_1_R3_2_R5_5_R6_3_R8_R9_R10_random_games_obey_the_rules(
    seed: int, rng_seed: int, policy: str, draw_limit: int
) -> None:
    """At every step: the 53 cards are conserved and never held twice (R2.1, R3.1, R5.2,
    R5.3); non-dealer hands stay at six through the discards (R5.2); no view or event tells
    a seat a card it may not know (R3.2, R10). At the end, against the reference model:
    every played deal awards High, Low, both bauers and the joker (R5.5) and 5 or 6 points
    (R6.3), tricks and points follow R7 and R6, scores change as R8.1-R8.2 say and the game
    ends as R9.1-R9.4 say. Then the record replays, also through JSON."""
    game = play_checked(seed, rng_seed, POLICIES[policy], draw_limit)
    record = to_record(game)
    check_record(record)
    for deal in record["deals"]:
        if "points" in deal:
            assert all(deal["points"][c] is not None for c in ("high", "low", "right", "left"))
            assert deal["points"]["joker"] is not None  # R5.5
    again = replay(record)
    assert to_record(again) == record
    assert to_record(replay(loads(dumps(record)))) == record
    assert again.outcome == game.outcome


def finished_record(seed: int, rng_seed: int, policy: str) -> dict[str, Any]:
    rng = random.Random(rng_seed)
    game = Game(seed=seed, draw_limit=40)
    while not game.is_over:
        game.apply(POLICIES[policy](game, rng))
    return to_record(game)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, rng_seed=SEEDS, policy=st.sampled_from(sorted(POLICIES)), data=st.data())
def test_tampering_with_a_played_card_or_the_contract_bid_fails_replay(
    seed: int, rng_seed: int, policy: str, data: st.DataObject
) -> None:
    """Changing any one card played in a finished game, or the bid that won the contract,
    makes replay raise ReplayMismatchError."""
    record = finished_record(seed, rng_seed, policy)
    played = [d for d in record["deals"] if "points" in d]
    if not played:
        return
    deal_index = data.draw(st.integers(0, len(played) - 1), label="deal")
    trick = data.draw(st.integers(0, 5), label="trick")
    position = data.draw(st.integers(0, 5), label="position")
    original = played[deal_index]["tricks"][trick]["cards"][position]
    texts = [r + s for s in "CDHS" for r in "23456789TJQKA"] + ["JK"]
    new = data.draw(st.sampled_from([t for t in texts if t != original]), label="card")
    tampered = copy.deepcopy(record)
    [d for d in tampered["deals"] if "points" in d][deal_index]["tricks"][trick]["cards"][
        position
    ] = new
    with pytest.raises(ReplayMismatchError):
        replay(tampered)

    tampered = copy.deepcopy(record)
    deal = [d for d in tampered["deals"] if "points" in d][deal_index]
    entry = next(b for b in deal["bids"] if b["seat"] == deal["bidder"])
    entry["bid"] = data.draw(st.sampled_from([b for b in (0, 3, 4, 5, 6) if b != entry["bid"]]))
    with pytest.raises(ReplayMismatchError):
        replay(tampered)


@settings(max_examples=100, deadline=None)
@given(
    seed=SEEDS,
    rng_seed=SEEDS,
    policy=st.sampled_from(sorted(POLICIES)),
    steps=st.integers(0, 700),
)
def test_record_of_unfinished_game_replays_to_the_same_position(
    seed: int, rng_seed: int, policy: str, steps: int
) -> None:
    """A record taken at any point replays to the same position: phase, seat to act,
    hands, stock, trick in progress, scores."""
    rng = random.Random(rng_seed)
    game = Game(seed=seed)
    for _ in range(steps):
        if game.is_over:
            break
        game.apply(POLICIES[policy](game, rng))
    record = to_record(game)
    again = replay(loads(dumps(record)))
    assert to_record(again) == record
    assert (again.phase, again.to_act, again.dealer, again.deal_number) == (
        game.phase,
        game.to_act,
        game.dealer,
        game.deal_number,
    )
    assert (again.hands, again.stock, again.scores) == (game.hands, game.stock, game.scores)
    assert again.current_trick == game.current_trick
    for seat in range(6):
        assert view(again, seat) == view(game, seat)
        assert events_for(again, seat) == events_for(game, seat)
