"""Game records (docs/GAME_RECORD.md): the fields, the JSON form, and ``replay``."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
from arena.engine.record import (
    DecisionNote,
    Fallback,
    TimeControl,
    recorded_notes,
    without_times,
)

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
    assert record["format"] == "schmier-game-record" and record["version"] == 5
    top = {"format", "version", "first_dealer", "arranged", "start_scores", "draw_limit"}
    assert set(record) == top | {"deals", "result", "meta"}  # nothing that deals the cards
    assert record["first_dealer"] in range(6)
    assert record["arranged"] is False and record["draw_limit"] == 200
    assert record["start_scores"] == [0, 0, 0]
    assert record["meta"] == {"players": ["a", "b", "c", "d", "e", "f"]}
    for k, deal in enumerate(record["deals"], start=1):
        assert deal["number"] == k and deal["dealer"] in range(6)
        assert len(deal["hands"]) == 6 and all(len(h) == 6 for h in deal["hands"])
        assert len(deal["stock"]) == 17
        cards = [c for h in deal["hands"] for c in h] + deal["stock"]
        assert len(set(cards)) == 53 and all(isinstance(c, str) and len(c) == 2 for c in cards)
        assert all(set(b) == {"seat", "bid"} and b["bid"] in (0, 3, 4, 5, 6) for b in deal["bids"])
        base = {"number", "dealer", "hands", "stock", "bids", "thrown_in", "decisions"}
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
    assert set(result) == {"winner", "draw", "scores", "deals", "forfeited"}
    assert result["forfeited"] == []  # nobody forfeited (F1, arena.engine.forfeit)
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
        '{"format": "schmier-game-record", "version": 6}',
        '{"format": "schmier-game-record", "version": "3"}',
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


def test_R3_1a_arranged_record_holds_its_start_and_replays() -> None:
    """An arranged game (a hand-built first deal, scores other than 0-0-0) is flagged and
    holds its start scores; it replays from its own first deal and scores, and with the
    key its later deals must be the key's (R3.1a)."""
    game = Game.arranged(SWEEP_HANDS, 5, scores=(18, -4, 20), seed=3)
    rng = random.Random(3)
    while not game.is_over:
        game.apply(random_action(game, rng))
    rec = to_record(game)
    assert rec["arranged"] is True and rec["first_dealer"] == 5
    assert rec["start_scores"] == [18, -4, 20]
    assert rec["deals"][0]["hands"][0] == ["JD", "TH", "JH", "QH", "KH", "AH"]
    check_record(rec, start=(18, -4, 20))
    assert to_record(replay(loads(dumps(rec)))) == rec
    if len(rec["deals"]) > 1:
        assert to_record(replay(copy.deepcopy(rec), GameKey.from_seed(3))) == rec
        with pytest.raises(ReplayMismatchError):
            replay(copy.deepcopy(rec), GameKey.from_seed(4))
    moved = dict(copy.deepcopy(rec), start_scores=[18, -4, 19])
    with pytest.raises(ReplayMismatchError):
        replay(moved)


def test_R8_game_started_from_scores_alone_is_arranged() -> None:
    """Scores other than 0-0-0 are not a game as dealt, even with dealt cards."""
    game = Game(GameKey.from_seed(5), scores=(0, 3, 0))
    rec = to_record(game)
    assert rec["arranged"] is True and rec["start_scores"] == [0, 3, 0]
    assert to_record(replay(rec)) == rec
    with pytest.raises(ReplayMismatchError, match="start_scores"):
        replay(dict(rec, start_scores=[0, 3]))


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


def as_version(record: dict[str, Any], version: int) -> dict[str, Any]:
    """The record as written before version 3: no decisions, no start scores (nor the
    forfeited teams of version 5)."""
    old = copy.deepcopy(record)
    del old["start_scores"]
    del old["result"]["forfeited"]
    for deal in old["deals"]:
        del deal["decisions"]
    old["version"] = version
    return old


def test_version_1_record_with_its_seed_still_replays(record: dict[str, Any]) -> None:
    """Records written before deals had keys (version 1) carried an integer seed; they
    replay from their dealt cards, and a tampered one is still refused."""
    old = dict(as_version(record, 1), seed=12345)
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


def test_version_2_record_still_replays(record: dict[str, Any]) -> None:
    """Version 2 records (no decisions, no start scores) replay as they are."""
    old = as_version(record, 2)
    assert loads(dumps(old)) == old
    assert to_record(replay(old), record["meta"]) == record
    old["deals"][0]["decisions"] = record["deals"][0]["decisions"]
    with pytest.raises(ReplayMismatchError, match="decisions"):
        replay(old)  # a field version 2 did not have


# --- decisions ----------------------------------------------------------------------------


def test_R4_R5_R7_decisions_name_who_was_asked_what(record: dict[str, Any]) -> None:
    """Each deal's decisions are its bids (R4.1), trump (R5.1), exchanges (R5.2), the
    dealer's discard (R5.3) and cards (R7), in order; the engine alone knows no times."""
    game = replay(copy.deepcopy(record))
    asked = [(d["seat"], d["kind"]) for deal in record["deals"] for d in deal["decisions"]]
    assert len(asked) == game.decisions
    for deal in record["deals"]:
        kinds = [d["kind"] for d in deal["decisions"]]
        assert kinds[: len(deal["bids"])] == ["bid"] * len(deal["bids"])
        assert [d["seat"] for d in deal["decisions"][: len(deal["bids"])]] == [
            b["seat"] for b in deal["bids"]
        ]
        assert all(d["seconds"] is None and d["fallback"] is None for d in deal["decisions"])
        if deal["thrown_in"]:
            assert kinds == ["bid"] * 6
            continue
        rest = kinds[len(deal["bids"]) :]
        assert rest == ["trump"] + ["discard"] * 6 + ["play"] * 36
        assert deal["decisions"][len(deal["bids"])]["seat"] == deal["bidder"]
        assert deal["decisions"][len(deal["bids"]) + 6]["seat"] == deal["dealer"]
        plays = deal["decisions"][-36:]
        assert [d["seat"] for d in plays[:6]] == [
            (deal["tricks"][0]["leader"] + i) % 6 for i in range(6)
        ]


def noted_game(seed: int) -> tuple[Game, list[DecisionNote]]:
    """A finished game with a note on every decision, some of them fallbacks."""
    rng = random.Random(seed)
    game = Game(seed=seed)
    notes = []
    while not game.is_over:
        game.apply(random_action(game, rng))
        fallback = (
            Fallback("timeout", "no answer within 1000 ms", "") if rng.random() < 0.05 else None
        )
        seconds = round(rng.random(), 6)
        notes.append(DecisionNote(seconds, fallback, round(seconds * rng.random(), 6)))
    return game, notes


def test_notes_round_trip_through_json_and_replay() -> None:
    """The referee's notes (time, credit, fallback) come back from the record's JSON
    unchanged."""
    game, notes = noted_game(11)
    rec = to_record(game, {"match_id": "m"}, notes)
    flat = [d for deal in rec["deals"] for d in deal["decisions"]]
    assert [d["seconds"] for d in flat] == [n.seconds for n in notes]
    assert [d["credit"] for d in flat] == [n.credit for n in notes]
    assert all(list(d) == ["seat", "kind", "seconds", "credit", "fallback"] for d in flat)
    marked = [d["fallback"] for d in flat if d["fallback"] is not None]
    assert marked and all(set(f) == {"fault", "reason", "sent"} for f in marked)
    again = loads(dumps(rec))
    assert again == rec
    assert to_record(replay(again), {"match_id": "m"}, recorded_notes(again)) == rec
    assert recorded_notes(again) == notes


def test_to_record_refuses_notes_that_do_not_fit_the_game() -> None:
    game, notes = noted_game(12)
    with pytest.raises(ValueError, match="decision notes"):
        to_record(game, None, notes[:-1])


def first_played(rec: dict[str, Any]) -> dict[str, Any]:
    return played_deals(rec)[0]


DECISION_TAMPERS: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "one dropped": (lambda r: first_played(r)["decisions"].pop(), "records 4[0-9] decisions"),
    "one added": (
        lambda r: first_played(r)["decisions"].append(first_played(r)["decisions"][-1]),
        "decisions for its",
    ),
    "wrong seat": (
        lambda r: first_played(r)["decisions"][-1].__setitem__(
            "seat", (first_played(r)["decisions"][-1]["seat"] + 1) % 6
        ),
        "the engine asked seat",
    ),
    "wrong kind": (
        lambda r: first_played(r)["decisions"][0].__setitem__("kind", "play"),
        "the engine asked seat",
    ),
    "negative time": (
        lambda r: first_played(r)["decisions"][0].__setitem__("seconds", -1.0),
        "seconds",
    ),
    "time as text": (
        lambda r: first_played(r)["decisions"][0].__setitem__("seconds", "0.5"),
        "seconds",
    ),
    "credit without seconds": (
        lambda r: first_played(r)["decisions"][0].__setitem__("credit", 0.1),
        "credit exactly when it has seconds",
    ),
    "seconds without credit": (
        lambda r: first_played(r)["decisions"][0].__setitem__("seconds", 0.1),
        "credit exactly when it has seconds",
    ),
    "negative credit": (
        lambda r: first_played(r)["decisions"][0].update(seconds=0.5, credit=-0.1),
        "credit must be null or >= 0",
    ),
    "credit above seconds": (
        lambda r: first_played(r)["decisions"][0].update(seconds=0.5, credit=0.6),
        "exceeds its seconds",
    ),
    "fallback without reason": (
        lambda r: first_played(r)["decisions"][0].__setitem__("fallback", {"fault": "timeout"}),
        "malformed fallback",
    ),
    "extra field": (
        lambda r: first_played(r)["decisions"][0].__setitem__("bot", "x"),
        "malformed decision",
    ),
    "decisions missing": (lambda r: first_played(r).pop("decisions"), "malformed"),
    "points reordered": (
        lambda r: first_played(r).__setitem__(
            "points", dict(reversed(list(first_played(r)["points"].items())))
        ),
        r"points \(keys in the order",
    ),
}


@pytest.mark.parametrize("name", list(DECISION_TAMPERS))
def test_replay_refuses_a_bad_decisions_array(record: dict[str, Any], name: str) -> None:
    """The decisions must match the engine's: as many as the deal's actions, each naming
    the seat the engine asked and the kind it asked for; times and fallbacks well formed."""
    tamper, message = DECISION_TAMPERS[name]
    tampered = copy.deepcopy(record)
    tamper(tampered)
    assert tampered != record or name == "points reordered"
    with pytest.raises(ReplayMismatchError, match=message):
        replay(tampered)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**63), stop=st.integers(0, 400))
def test_R4_R5_R7_decisions_are_who_the_engine_asked_at_every_point(seed: int, stop: int) -> None:
    """Stopped after any number of actions, a game's record lists exactly the decisions
    the engine asked for, each with the seat it asked and the kind (R4.1, R5.1-R5.3, R7.1),
    and the notes given in game order; the record replays to the same notes."""
    rng = random.Random(seed)
    game = Game(seed=seed)
    asked: list[tuple[int, str]] = []
    notes: list[DecisionNote] = []
    while not game.is_over and len(asked) < stop:
        kind = game.decision_kind
        assert kind is not None
        asked.append((game.to_act, kind.value))
        game.apply(random_action(game, rng))
        fault = Fallback("illegal", "R7.2: must follow", "play 2C") if rng.random() < 0.1 else None
        notes.append(DecisionNote(rng.choice([None, 0.0, rng.random()]), fault))
    record = to_record(game, None, notes)
    flat = [d for deal in record["deals"] for d in deal["decisions"]]
    assert [(d["seat"], d["kind"]) for d in flat] == asked
    assert recorded_notes(record) == notes
    assert to_record(replay(loads(dumps(record))), None, notes) == record


def test_without_times_keeps_the_game_and_drops_only_the_clock() -> None:
    """Two plays of the same game that differ only in how long the bots took compare equal
    once their times are dropped; fallbacks, which change the game, still count."""
    game, notes = noted_game(13)
    slower = [DecisionNote(note.seconds * 2 + 0.5, note.fallback, 0.5) for note in notes]
    fast, slow = to_record(game, None, notes), to_record(game, None, slower)
    assert fast != slow
    assert without_times(fast) == without_times(slow)
    assert all("seconds" in d for deal in fast["deals"] for d in deal["decisions"])  # a copy
    flat = [d for deal in without_times(fast)["deals"] for d in deal["decisions"]]
    assert len(flat) == len(notes) and all(set(d) == {"seat", "kind", "fallback"} for d in flat)
    unmarked = [DecisionNote(note.seconds, None) for note in notes]
    assert without_times(to_record(game, None, unmarked)) != without_times(fast)


def test_the_time_control_travels_with_the_record_and_replays(record: dict[str, Any]) -> None:
    """Version 4: a refereed game's record says the time each decision had, so that a
    timeout can be judged from the file alone; replay checks and keeps it."""
    game = replay(record)
    timed = to_record(game, record["meta"], time_control=TimeControl(750, 5000))
    assert timed["time_control"] == {"decision_ms": 750, "overage_ms": 5000}
    assert replay(timed).decisions == game.decisions
    assert loads(dumps(timed)) == timed
    for bad in ({"decision_ms": 750}, {"decision_ms": "750", "overage_ms": 5000}, [750, 5000]):
        with pytest.raises(ReplayMismatchError, match="malformed time_control"):
            replay({**timed, "time_control": bad})


def before_version_5(record: dict[str, Any], version: int) -> dict[str, Any]:
    """The record as written before version 5: decisions without their credit, a result
    without its forfeited teams."""
    old = dict(copy.deepcopy(record), version=version)
    for deal in old["deals"]:
        for decision in deal["decisions"]:
            del decision["credit"]
    if old["result"] is not None:
        del old["result"]["forfeited"]
    return old


@pytest.mark.parametrize("version", [3, 4])
def test_records_before_version_5_still_replay(record: dict[str, Any], version: int) -> None:
    """Version 3 (no time control) and 4: their results name no forfeited teams and their
    decisions carry no credit, and a replay adds neither."""
    old = before_version_5(record, version)
    replay(old)
    assert loads(dumps(old)) == old
    with_forfeited = copy.deepcopy(old)
    with_forfeited["result"]["forfeited"] = []  # a field they did not have
    with pytest.raises(ReplayMismatchError, match="forfeited"):
        replay(with_forfeited)


def test_version_4_record_replays_and_reads_as_no_credit_given() -> None:
    """Version 4 decisions have no ``credit``: replay keeps them so, their notes read as
    none given, and a version 4 record with a credit is refused as malformed."""
    game, notes = noted_game(14)
    timed = to_record(game, None, notes, TimeControl(1000, 10_000))
    old = before_version_5(timed, 4)
    assert replay(old).decisions == game.decisions
    read = recorded_notes(old)
    assert read is not None
    assert [n.credit for n in read] == [0.0] * len(notes)
    assert [n.seconds for n in read] == [n.seconds for n in notes]
    with pytest.raises(ReplayMismatchError, match="malformed decision"):
        replay(dict(old, version=4, deals=timed["deals"]))


def test_a_record_s_text_keeps_non_ascii_as_it_is_and_escapes_control_characters(
    record: dict[str, Any],
) -> None:
    """``arena play`` files and the results database hold the same UTF-8 text."""
    named = {**record, "meta": {"players": ["zoë", "山田", "a\x1b[2Jb", "d", "e", "f"]}}
    text = dumps(named)
    assert "zoë" in text and "山田" in text
    assert "\x1b" not in text and "\\u001b" in text
    assert loads(text) == named
