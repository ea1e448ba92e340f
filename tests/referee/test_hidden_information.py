"""R10 over the wire: each seat is told every public event in order, and no card it may not know.

All six seats run the recorder bot, which writes every message it receives, exactly as
received, to its working directory. The game records say what happened; from them this
test works out, for each seat and moment, which cards the seat may know (its dealt hand,
its own replacements or, for the dealer, the pick-up, and the cards already played) and
searches every string of every message for any other card.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from google.protobuf.message import Message

from arena.engine import CARDS
from arena.v1 import arena_pb2 as pb

from .harness import MatchRun, check_games, check_seat_decisions, recorder, run_match

# Every test reads a match of real bot processes played for the module.
pytestmark = pytest.mark.slow

CARD_TEXTS = frozenset(str(c) for c in CARDS)
CARD_TOKEN = re.compile(r"\b(?:[2-9TJQKA][CDHS]|JK)\b")
SUIT_LETTER = {pb.SUIT_CLUBS: "C", pb.SUIT_DIAMONDS: "D", pb.SUIT_HEARTS: "H", pb.SUIT_SPADES: "S"}
SEEDS = (3, 4)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> MatchRun:
    log_dir = tmp_path_factory.mktemp("hidden") / "logs"
    match = run_match([recorder()] * 3, log_dir, seeds=SEEDS, seed=3)
    check_games(match, games=len(SEEDS))
    assert match.faults == []
    return match


def strings(message: Message) -> Iterator[str]:
    """Every string anywhere in ``message``, recursively (repeated fields included)."""
    for descriptor, value in message.ListFields():
        values = value if descriptor.is_repeated else [value]
        for item in values:
            if isinstance(item, Message):
                yield from strings(item)
            elif isinstance(item, str):
                yield item


def cards_in(message: Message) -> set[str]:
    found: set[str] = set()
    for text in strings(message):
        if text in CARD_TEXTS:
            found.add(text)
        else:
            found.update(CARD_TOKEN.findall(text))
    return found


def test_strings_finds_cards_everywhere() -> None:
    message = pb.RefereeMessage(
        events=[pb.Event(own_exchange=pb.OwnExchange(discarded=["2C"], received=["JK"]))],
        request=pb.DecisionRequest(
            view=pb.View(hand=["AH"], current_trick=pb.Trick(cards=["TS"])),
            legal=pb.LegalChoices(discard=pb.DiscardRule(may=["3D"])),
        ),
    )
    assert cards_in(message) == {"2C", "JK", "AH", "TS", "3D"}
    assert cards_in(pb.RefereeMessage(notice=pb.Notice(reason="R7.2: no QH here"))) == {"QH"}


# --- what each seat should have been told, from the records ------------------------------


def public_events(record: dict[str, Any], game_index: int) -> list[tuple[object, ...]]:
    """The public events of a recorded game, in order, as tuples (see ``as_tuple``)."""
    out: list[tuple[object, ...]] = [("game_started", game_index, record["first_dealer"])]
    for deal in record["deals"]:
        number, dealer = deal["number"], deal["dealer"]
        out.append(("deal_started", number, dealer))
        out.extend(("bid_made", b["seat"], b["bid"]) for b in deal["bids"])
        if deal["thrown_in"]:
            out.append(("deal_thrown_in", number))
            continue
        out.append(("trump_named", deal["bidder"], deal["trump"], deal["contract"]))
        for ex in deal["exchanges"]:
            out.append(("exchanged", ex["seat"], len(ex["discarded"]), len(ex["received"])))
        dealer_exchange = deal["dealer_exchange"]
        out.append(
            (
                "exchanged",
                dealer,
                len(dealer_exchange["discarded"]),
                len(dealer_exchange["picked_up"]),
            )
        )
        for number_in_deal, trick in enumerate(deal["tricks"], start=1):
            for position, card in enumerate(trick["cards"]):
                out.append(("card_played", (trick["leader"] + position) % 6, card))
            out.append(("trick_won", number_in_deal, trick["winner"]))
        points = deal["points"]
        out.append(
            (
                "deal_scored",
                number,
                deal["bidder"],
                deal["contract"],
                *(-1 if points[k] is None else points[k] for k in _CATEGORIES),
                tuple(deal["game_totals"]),
                tuple(deal["points_won"]),
                tuple(deal["scores"]),
            )
        )
    result = record["result"]
    winner = -1 if result["winner"] is None else result["winner"]
    out.append(("game_ended", winner, tuple(result["scores"]), result["deals"]))
    return out


_CATEGORIES = ("high", "low", "right", "left", "joker", "game")


def as_tuple(event: pb.Event) -> tuple[object, ...]:
    """A public event as a tuple; ``deal_started`` without the seat's private hand."""
    kind = event.WhichOneof("body")
    e = getattr(event, kind)
    if kind == "game_started":
        return (kind, e.game_index, e.first_dealer)
    if kind == "deal_started":
        return (kind, e.deal_number, e.dealer)
    if kind == "bid_made":
        return (kind, e.seat, e.amount)
    if kind == "deal_thrown_in":
        return (kind, e.deal_number)
    if kind == "trump_named":
        return (kind, e.seat, SUIT_LETTER[e.suit], e.contract)
    if kind == "exchanged":
        return (kind, e.seat, e.discarded, e.received)
    if kind == "card_played":
        return (kind, e.seat, e.card)
    if kind == "trick_won":
        return (kind, e.trick_number, e.winner)
    if kind == "deal_scored":
        return (
            kind,
            e.deal_number,
            e.bidder,
            e.contract,
            *(getattr(e, k) for k in _CATEGORIES),
            tuple(e.game_totals),
            tuple(e.points),
            tuple(e.scores),
        )
    if kind == "game_ended":
        return (kind, e.winner, tuple(e.scores), e.deals)
    raise AssertionError(f"not a public event: {kind}")


def own_exchanges(deal: dict[str, Any], seat: int) -> list[tuple[set[str], set[str]]]:
    """The (discarded, received) private events of ``seat`` in a played deal: one for a
    non-dealer; for the dealer its pick-up, then its discard (R5.3, R10)."""
    if seat == deal["dealer"]:
        ex = deal["dealer_exchange"]
        return [(set(), set(ex["picked_up"])), (set(ex["discarded"]), set())]
    return [
        (set(ex["discarded"]), set(ex["received"]))
        for ex in deal["exchanges"]
        if ex["seat"] == seat
    ]


# --- the tests --------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize("seat", range(6))
def test_seat_gets_every_public_event_in_order(run: MatchRun, seat: int) -> None:
    messages = run.messages(seat)
    assert messages[0].WhichOneof("body") == "welcome"
    assert messages[0].welcome.seat == seat
    assert messages[-1].WhichOneof("body") == "match_over"
    assert messages[-1].match_over.reason == "finished"

    events = [e for m in messages for e in m.events]
    received = [as_tuple(e) for e in events if e.WhichOneof("body") != "own_exchange"]
    expected = [
        event
        for index, report in enumerate(run.reports)
        for event in public_events(report.record, index)
    ]
    assert received == expected
    # In particular the cards played, in order, are exactly the records' tricks.
    played = [(e.card_played.seat, e.card_played.card) for e in events if e.HasField("card_played")]
    assert played == [t for t in expected if t[0] == "card_played" for t in [t[1:]]]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("seat", range(6))
def test_seat_gets_its_own_private_events(run: MatchRun, seat: int) -> None:
    deals = [deal for report in run.reports for deal in report.record["deals"]]
    events = [e for m in run.messages(seat) for e in m.events]
    hands = [list(e.deal_started.hand) for e in events if e.HasField("deal_started")]
    assert hands == [deal["hands"][seat] for deal in deals]

    # Its own exchange right after its public one; the dealer's pick-up before it discards.
    exchanges = [
        (set(e.own_exchange.discarded), set(e.own_exchange.received))
        for e in events
        if e.HasField("own_exchange")
    ]
    assert exchanges == [x for d in deals if not d["thrown_in"] for x in own_exchanges(d, seat)]
    for i, event in enumerate(events):
        if event.HasField("own_exchange"):
            assert events[i - 1].HasField("exchanged")
            own = event.own_exchange
            is_pickup = (
                not own.discarded
                and bool(own.received)
                and bool([e for e in events[:i] if e.HasField("exchanged")])
                and events[i - 1].exchanged.seat != seat
            )
            # The pick-up follows the last non-dealer's exchange; the rest follow the seat's own.
            assert is_pickup or events[i - 1].exchanged.seat == seat


@pytest.mark.timeout(120)
@pytest.mark.parametrize("seat", range(6))
def test_no_message_names_a_card_the_seat_may_not_know(run: MatchRun, seat: int) -> None:
    deals = iter([deal for report in run.reports for deal in report.record["deals"]])
    deal: dict[str, Any] = {}
    known: set[str] = set()
    exchanged = 0
    checked = 0
    for index, message in enumerate(run.messages(seat)):
        for event in message.events:
            kind = event.WhichOneof("body")
            if kind == "deal_started":
                deal = next(deals)
                known = set(deal["hands"][seat])  # R3.2: its own six cards
                exchanged = 0
            elif kind == "exchanged":
                exchanged += 1
                mine = own_exchanges(deal, seat)
                if event.exchanged.seat == seat and seat != deal["dealer"]:
                    known |= mine[0][1]  # R5.2: its own replacements, once received
                if exchanged == 5 and seat == deal["dealer"]:
                    known |= mine[0][1]  # R5.3: the pick-up, when the dealer must discard
            elif kind == "card_played":
                known.add(event.card_played.card)  # R7.2: public once played
            leaked = cards_in(event) - known
            assert not leaked, f"message {index} tells seat {seat} {sorted(leaked)}: {event}"
            checked += 1
        body = message.WhichOneof("body")
        if body is not None:
            leaked = cards_in(getattr(message, body)) - known
            assert not leaked, f"message {index} tells seat {seat} {sorted(leaked)}: {message}"
            checked += 1
    assert checked > 100


def test_every_decision_was_the_seats_own(run: MatchRun) -> None:
    """No faults, so every recorded decision is exactly what the seat answered."""
    for seat in range(6):
        assert check_seat_decisions(run, seat) == []
        requests = run.requests(seat)
        assert [r.id for r in requests] == list(range(1, len(requests) + 1))
        assert sum(report.seats[seat].decisions for report in run.reports) == len(requests)
