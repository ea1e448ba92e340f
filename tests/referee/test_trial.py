"""``arena try``'s recorded requests: real decision points of seeded games, each case found,
the same on every run, and told to the bot as the table tells a seat."""

from __future__ import annotations

from arena.engine import JOKER, DecisionKind, effective_suit, left_bauer
from arena.referee.table import TableSettings
from arena.referee.trial import CASES, DEFAULT_REQUESTS, SEAT, _request, scenarios
from arena.v1 import arena_pb2 as pb
from arena.wire.protocol import KIND_TO_PB, request_to_pb, told_to_pb


def test_every_case_is_found_in_turn_and_matches() -> None:
    chosen = scenarios(DEFAULT_REQUESTS)
    assert len(chosen) == DEFAULT_REQUESTS == 2 * len(CASES)
    assert [s.case for s in chosen] == [*CASES, *CASES]  # the cases in turn
    for scenario in chosen:
        game = scenario.game
        assert game.to_act == SEAT and not game.is_over
        assert scenario.kind is scenario.case.kind
        assert scenario.case.matches(game)
    # Two examples of a case are two different decision points.
    assert len({(s.game_seed, len(s.game.events)) for s in chosen}) == len(chosen)


def test_the_edge_cases_are_what_they_say() -> None:
    by_name = {s.case.name: s.game for s in scenarios(len(CASES))}
    for name in (
        "a left bauer led, holding trump",
        "the joker led, holding trump",
        "trump led, holding the left bauer",
    ):
        game = by_name[name]
        trump = game.deal.trump
        assert trump is not None
        led = game.current_trick[1][0]
        assert effective_suit(led, trump) is trump  # R2.4: it calls for trump
        if name == "a left bauer led, holding trump":
            assert led == left_bauer(trump)
        if name == "the joker led, holding trump":
            assert led == JOKER
        if name == "trump led, holding the left bauer":
            assert left_bauer(trump) in game.hand(SEAT)
    pickup = by_name["the dealer's pick-up and discard"]
    assert pickup.deal.dealer == SEAT and len(pickup.hand(SEAT)) > 6  # R5.3
    assert by_name["the dealer holding more than six trumps"].discard_rule().must  # R5.4
    assert JOKER in by_name["the joker in hand"].hand(SEAT)


def test_scenarios_are_deterministic_and_count_what_was_asked() -> None:
    first = [(s.case.name, s.game_seed, len(s.game.events)) for s in scenarios(5)]
    again = [(s.case.name, s.game_seed, len(s.game.events)) for s in scenarios(5)]
    assert first == again and len(first) == 5
    assert [name for name, _, _ in first] == [case.name for case in CASES[:5]]
    assert scenarios(0) == []


def test_a_request_is_told_as_the_first_message_of_its_own_game() -> None:
    settings = TableSettings(decision_ms=250, overage_ms=4000)
    scenario = scenarios(len(CASES))[-1]
    told = _request(scenario, 7, 8, settings)  # as the seat's channel sends it over gRPC
    message = pb.RefereeMessage(events=told_to_pb(told.events), request=request_to_pb(told))
    events = list(message.events)
    assert events[0].WhichOneof("body") == "game_started"
    assert events[0].game_started.game_index == 7
    assert events[1].WhichOneof("body") == "deal_started"  # seat 0's own hand (R3.2)
    request = message.request
    assert (request.id, request.time_ms, request.bank_ms) == (8, 250, 4000)
    assert request.kind == KIND_TO_PB[DecisionKind.PLAY]
    assert request.view.seat == SEAT and request.view.game_index == 7
    assert list(request.view.hand) == sorted(request.view.hand, key=_card_order)
    # R10: no other seat's hand is ever told.
    hands = [e.deal_started.hand for e in events if e.WhichOneof("body") == "deal_started"]
    assert all(len(hand) == 6 for hand in hands)
    assert isinstance(message, pb.RefereeMessage)


def _card_order(text: str) -> tuple[int, int]:
    if text == "JK":
        return (4, 0)
    return ("CDHS".index(text[1]), "23456789TJQKA".index(text[0]))
