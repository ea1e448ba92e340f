"""Game records (docs/GAME_RECORD.md): the fields, the JSON form, and ``replay``."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from arena.engine import (
    Game,
    GameKey,
    ReplayMismatchError,
    dumps,
    loads,
    replay,
    to_record,
)
from arena.engine.game import Phase
from arena.engine.randomplay import random_action

from .helpers import SWEEP_HANDS, check_record, eager_action

CATEGORIES = ["high", "low", "right", "left", "joker", "game"]


def finished(seed: int, policy: Callable[..., Any] = random_action) -> Game:
    rng = random.Random(seed)
    game = Game(seed=seed)
    while not game.is_over:
        game.apply(policy(game, rng))
    return game


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    """A finished game with thrown-in and played deals."""
    game = finished(4)
    rec = to_record(game, meta={"players": ["a", "b", "c", "d", "e", "f"]})
    assert any(d["thrown_in"] for d in rec["deals"]) and any("points" in d for d in rec["deals"])
    return rec


def test_R1_2_R4_R5_R6_R8_record_fields_and_types(record: dict[str, Any]) -> None:
    """The record's fields, as docs/GAME_RECORD.md lists them: seats 0-5, teams 0-2 (R1.2),
    bids 0 = pass (R4.2), trump (R5.1), exchanges (R5.2), the dealer's exchange (R5.3),
    tricks (R7), points per category (R6.1; game may be null, R6.2), scores (R8)."""
    assert record["format"] == "schmier-game-record" and record["version"] == 2
    top = {"format", "version", "first_dealer", "arranged", "draw_limit", "deals", "result"}
    assert set(record) == top | {"meta"}  # no seed, nothing that deals the cards
    assert record["first_dealer"] in range(6)
    assert record["arranged"] is False and record["draw_limit"] == 200
    assert record["meta"] == {"players": ["a", "b", "c", "d", "e", "f"]}
    for k, deal in enumerate(record["deals"], start=1):
        assert deal["number"] == k and deal["dealer"] in range(6)
        assert len(deal["hands"]) == 6 and all(len(h) == 6 for h in deal["hands"])
        assert len(deal["stock"]) == 17
        cards = [c for h in deal["hands"] for c in h] + deal["stock"]
        assert len(set(cards)) == 53 and all(isinstance(c, str) and len(c) == 2 for c in cards)
        assert all(set(b) == {"seat", "bid"} and b["bid"] in (0, 3, 4, 5, 6) for b in deal["bids"])
        base = {"number", "dealer", "hands", "stock", "bids", "thrown_in"}
        if deal["thrown_in"]:
            assert set(deal) == base
            continue
        played = {"bidder", "contract", "trump", "exchanges", "dealer_exchange", "tricks"}
        scored = {"points", "game_totals", "points_won", "scores"}
        assert set(deal) == base | played | scored
        assert deal["trump"] in ("C", "D", "H", "S")
        assert [e["seat"] for e in deal["exchanges"]] == [
            (deal["dealer"] + j) % 6 for j in range(1, 6)
        ]
        assert set(deal["dealer_exchange"]) == {"picked_up", "discarded"}
        assert len(deal["tricks"]) == 6
        assert all(set(t) == {"leader", "cards", "winner"} for t in deal["tricks"])
        assert list(deal["points"]) == CATEGORIES
        assert all(v in (0, 1, 2) for k2, v in deal["points"].items() if k2 != "game")
        assert deal["points"]["game"] in (0, 1, 2, None)
        assert len(deal["scores"]) == 3 and len(deal["points_won"]) == 3
    result = record["result"]
    assert set(result) == {"winner", "draw", "scores", "deals"}
    assert result["deals"] == len(record["deals"])
    check_record(record)


def test_R5_2_record_stock_is_top_first(record: dict[str, Any]) -> None:
    """R5.2: replacements come from the top of the stock, the record's first cards."""
    for deal in record["deals"]:
        if deal["thrown_in"]:
            continue
        stock = list(deal["stock"])
        for exchange in deal["exchanges"]:
            n = len(exchange["discarded"])
            assert exchange["received"] == stock[:n]
            del stock[:n]
        assert deal["dealer_exchange"]["picked_up"] == stock


def test_record_json_round_trip_and_replay(record: dict[str, Any]) -> None:
    text = dumps(record)
    assert json.loads(text) == record
    assert loads(text) == record
    assert loads(text.encode()) == record
    game = replay(loads(text))
    assert to_record(game, record["meta"]) == record
    assert game.outcome is not None and game.outcome.winner == record["result"]["winner"]


@pytest.mark.parametrize(
    "text",
    [
        "[]",
        '{"format": "chess", "version": 1}',
        '{"version": 1}',
        '{"format": "schmier-game-record", "version": 3}',
        '{"format": "schmier-game-record"}',
    ],
)
def test_loads_rejects_foreign_or_unknown_version(text: str) -> None:
    with pytest.raises(ReplayMismatchError):
        loads(text)


def test_result_is_null_while_in_progress_and_replay_reaches_the_same_state() -> None:
    """A record of an unfinished game has result null and replays to the same position,
    including the cards already played to a trick in progress."""
    rng = random.Random(8)
    game = Game(seed=8)
    steps = 0
    while not game.is_over and steps < 400:
        game.apply(eager_action(game, rng))
        steps += 1
        if steps % 7:
            continue
        rec = to_record(game)
        assert rec["result"] is None
        again = replay(json.loads(json.dumps(rec)))
        assert (again.phase, again.to_act, again.hands, again.stock) == (
            game.phase,
            game.to_act,
            game.hands,
            game.stock,
        )
        assert again.current_trick == game.current_trick and again.scores == game.scores
    assert steps == 400


def test_trick_in_progress_is_in_the_record_with_null_winner() -> None:
    rng = random.Random(2)
    game = Game(seed=2)
    while not (game.phase is Phase.PLAY and len(game.current_trick[1]) == 3):
        game.apply(random_action(game, rng))
    last = to_record(game)["deals"][-1]["tricks"][-1]
    leader, cards = game.current_trick
    assert last == {"leader": leader, "cards": [str(c) for c in cards], "winner": None}


def test_arranged_record_is_flagged_and_not_replayable() -> None:
    """An arranged first deal is not made from the seed, so replay refuses it (documented)."""
    game = Game.arranged(SWEEP_HANDS, 5)
    rec = to_record(game)
    assert rec["arranged"] is True and rec["first_dealer"] == 5
    assert rec["deals"][0]["hands"][0] == ["JD", "TH", "JH", "QH", "KH", "AH"]
    with pytest.raises(ReplayMismatchError):
        replay(rec)


# --- tampering --------------------------------------------------------------------------


def played_deals(rec: dict[str, Any]) -> list[dict[str, Any]]:
    return [d for d in rec["deals"] if not d["thrown_in"]]


def swap_played_card(rec: dict[str, Any]) -> None:
    """A card of trick 1 replaced by another card its seat held and could lead."""
    deal = played_deals(rec)[0]
    trick = deal["tricks"][0]
    leader = trick["leader"]
    later = [t["cards"][(leader - t["leader"]) % 6] for t in deal["tricks"][1:]]
    trick["cards"][0] = later[0]  # the leader's card of trick 2, led a trick early


def change_winning_bid(rec: dict[str, Any]) -> None:
    deal = played_deals(rec)[0]
    entry = next(b for b in deal["bids"] if b["seat"] == deal["bidder"])
    entry["bid"] = 0 if entry["bid"] == 3 else entry["bid"] - 1


def bid_in_thrown_in_deal(rec: dict[str, Any]) -> None:
    deal = next(d for d in rec["deals"] if d["thrown_in"])
    deal["bids"][0]["bid"] = 3


def swap_dealt_cards(rec: dict[str, Any]) -> None:
    hands = rec["deals"][0]["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]


TAMPERS: dict[str, Callable[[dict[str, Any]], None]] = {
    "played card": swap_played_card,
    "last card": lambda r: played_deals(r)[-1]["tricks"][-1]["cards"].__setitem__(5, "JK"),
    "winning bid": change_winning_bid,
    "thrown-in bid": bid_in_thrown_in_deal,
    "trump": lambda r: played_deals(r)[0].__setitem__(
        "trump", "S" if played_deals(r)[0]["trump"] != "S" else "H"
    ),
    "hand": swap_dealt_cards,
    "stock": lambda r: r["deals"][0]["stock"].reverse(),
    "seed added": lambda r: r.__setitem__("seed", 4),
    "first dealer": lambda r: r.__setitem__("first_dealer", (r["first_dealer"] + 1) % 6),
    "discard": lambda r: played_deals(r)[0]["dealer_exchange"]["discarded"].pop(),
    "points": lambda r: played_deals(r)[0]["points"].__setitem__("game", None),
    "trick winner": lambda r: played_deals(r)[0]["tricks"][0].__setitem__(
        "winner", (played_deals(r)[0]["tricks"][0]["winner"] + 1) % 6
    ),
    "score": lambda r: played_deals(r)[0]["scores"].__setitem__(0, 99),
    "result": lambda r: r["result"].__setitem__("winner", (r["result"]["winner"] + 1) % 3),
    "no result": lambda r: r.__setitem__("result", None),
    "deal dropped": lambda r: r["deals"].pop(),
    "draw limit": lambda r: r.__setitem__("draw_limit", len(r["deals"]) - 1),
    "missing field": lambda r: played_deals(r)[0].pop("exchanges"),
    "wrong type": lambda r: r.__setitem__("first_dealer", "four"),
    "cards dealt twice": lambda r: r["deals"][0]["stock"].__setitem__(
        0, r["deals"][0]["hands"][0][0]
    ),
}


@pytest.mark.parametrize("name", list(TAMPERS))
def test_tampered_record_fails_replay(record: dict[str, Any], name: str) -> None:
    tampered = copy.deepcopy(record)
    TAMPERS[name](tampered)
    assert tampered != record
    with pytest.raises(ReplayMismatchError):
        replay(tampered)
    replay(copy.deepcopy(record))  # the untouched record still replays


# --- the deals: from the record, or proven to be the key's -------------------------------


def test_R3_1a_replay_with_the_key_proves_the_deals_are_the_keys(record: dict[str, Any]) -> None:
    """R1.3, R3.1a: given the game's key, replay deals from it: the record's cards and first
    dealer must be the key's; with another key the same record is refused."""
    game = replay(copy.deepcopy(record), GameKey.from_seed(4))
    assert to_record(game, record["meta"]) == record
    with pytest.raises(ReplayMismatchError):
        replay(copy.deepcopy(record), GameKey.from_seed(5))


def test_R3_1_replay_refuses_a_deal_that_is_not_53_cards() -> None:
    """R3.1: without the key, the record's deals are checked to be a deal at all."""
    rec = to_record(finished(6))
    rec["deals"][0]["hands"][0][0] = rec["deals"][0]["hands"][1][0]
    with pytest.raises(ReplayMismatchError, match=r"R3\.1: deal 1 is not the 53 cards"):
        replay(rec)


def test_version_1_record_with_its_seed_still_replays(record: dict[str, Any]) -> None:
    """Records written before deals had keys (version 1) carried an integer seed; they
    replay from their dealt cards, and a tampered one is still refused."""
    old = dict(copy.deepcopy(record), version=1, seed=12345)
    assert to_record(replay(old), record["meta"]) == record
    assert loads(dumps(old)) == old
    old["deals"][0]["bids"][0]["bid"] = 6 if old["deals"][0]["bids"][0]["bid"] != 6 else 0
    with pytest.raises(ReplayMismatchError):
        replay(old)


def test_an_integer_is_not_a_key() -> None:
    with pytest.raises(TypeError, match="Game\\(seed=N\\)"):
        Game(7)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at least 16 bytes"):
        GameKey(b"short")
    secret = bytes(range(32))
    assert repr(GameKey(secret)) == "GameKey(<secret>)"  # so no log or traceback shows it
