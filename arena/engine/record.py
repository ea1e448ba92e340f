"""Game records: a complete, JSON-serialisable account of a game, and ``replay`` to check one.

The format is public and documented in ``docs/GAME_RECORD.md``. ``replay(record)`` runs
the recorded actions through the engine again and raises ``ReplayMismatchError`` at the
first difference, so a record is proof of a legal game. A record never holds the game's
key (bots may see records; the key of one game deals the same cards at every seating of
a run): replay deals the record's own cards, or, given the key, proves they are its.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Final

from arena.engine.actions import BIDS, PASS, PLAYS, TRUMPS, Action, Discard
from arena.engine.cards import (
    CARDS,
    FULL_DECK_MASK,
    Card,
    CardSet,
    Suit,
    card_texts,
    mask_of_texts,
)
from arena.engine.deals import DealSource
from arena.engine.errors import EngineError, ReplayMismatchError
from arena.engine.game import (
    DEFAULT_DRAW_LIMIT,
    HAND_SIZE,
    SEATS,
    STOCK_SIZE,
    DealLog,
    Game,
    Phase,
)

RECORD_FORMAT: Final = "schmier-game-record"
RECORD_VERSION: Final = 2
# Version 1 also held the game's integer seed, from which anyone could deal every card.
KNOWN_VERSIONS: Final = (1, 2)

Record = dict[str, Any]


def _deal_record(deal: DealLog) -> dict[str, Any]:
    out: dict[str, Any] = {
        "number": deal.number,
        "dealer": deal.dealer,
        "hands": [card_texts(mask) for mask in deal.hands],
        "stock": texts(deal.stock),
        "bids": [{"seat": seat, "bid": amount} for seat, amount in deal.bids],
        "thrown_in": deal.thrown_in,
    }
    if deal.thrown_in or deal.trump is None:
        return out
    out.update(
        bidder=deal.bidder,
        contract=deal.contract,
        trump=str(deal.trump),
        exchanges=[
            {"seat": seat, "discarded": card_texts(discarded), "received": texts(received)}
            for seat, discarded, received in deal.exchanges
        ],
        dealer_exchange={
            "picked_up": texts(deal.dealer_pickup),
            "discarded": card_texts(deal.dealer_discard),
        },
        tricks=[
            {"leader": t.leader, "cards": [str(c) for c in t.cards], "winner": t.winner}
            for t in deal.tricks
        ],
    )
    if len(deal.tricks) == 6:
        out.update(
            points=dict(deal.categories),
            game_totals=list(deal.game_totals),
            points_won=list(deal.points),
            scores=list(deal.scores_after),
        )
    return out


def texts(indices: list[int]) -> list[str]:
    return [str(CARDS[i]) for i in indices]


def to_record(game: Game, meta: dict[str, Any] | None = None) -> Record:
    """The game record of a game (finished or not) as plain JSON-ready data."""
    record: Record = {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "first_dealer": game.first_dealer,
        "arranged": game.is_arranged,
        "draw_limit": game.draw_limit,
        "deals": [_deal_record(d) for d in game.deals],
        "result": None,
    }
    # The trick in progress is the last entry of "tricks", with "winner" null: without it
    # the record of a game stopped mid-trick would lose the cards already played to it
    # and replay to a different position.
    leader, played = game.current_trick
    if game.phase is Phase.PLAY and played:
        record["deals"][-1]["tricks"].append(
            {"leader": leader, "cards": [str(c) for c in played], "winner": None}
        )
    if game.outcome is not None:
        record["result"] = {
            "winner": game.outcome.winner,
            "draw": game.outcome.is_draw,
            "scores": list(game.outcome.scores),
            "deals": game.outcome.deals,
        }
    if meta:
        record["meta"] = meta
    return record


def dumps(record: Record) -> str:
    return json.dumps(record, separators=(",", ":"))


def loads(text: str | bytes) -> Record:
    record = json.loads(text)
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise ReplayMismatchError("not a Schmier game record (format field missing or wrong)")
    if record.get("version") not in KNOWN_VERSIONS:
        raise ReplayMismatchError(f"unsupported game record version {record.get('version')!r}")
    return record


def recorded_actions(record: Record) -> Iterator[Action]:
    """The actions of a record, in the order the engine asks for them."""
    for deal in record["deals"]:
        for bid in deal["bids"]:
            yield BIDS[bid["bid"]] if bid["bid"] else PASS
        if deal["thrown_in"] or "trump" not in deal:
            continue
        yield TRUMPS[Suit.parse(deal["trump"])]
        for exchange in deal["exchanges"]:
            yield Discard(CardSet(mask_of_texts(exchange["discarded"])))
        # The dealer always discards at least two cards (R5.3), so none means not yet.
        dealer_discard = deal["dealer_exchange"]["discarded"]
        if dealer_discard:
            yield Discard(CardSet(mask_of_texts(dealer_discard)))
        for trick in deal["tricks"]:
            for text in trick["cards"]:
                yield PLAYS[Card.parse(text).index]


class RecordedDeals:
    """The deals a record holds, as a ``DealSource``: replay deals the recorded cards.

    Each deal must be 53 cards, six to each seat and 17 to the stock (R3.1); whether they
    came from the game's key only ``replay(record, key)`` can tell.
    """

    def __init__(self, record: Record) -> None:
        self._first_dealer = int(record["first_dealer"])
        if self._first_dealer not in range(SEATS):
            raise ReplayMismatchError(f"R1.3: first_dealer {self._first_dealer} is not a seat")
        self._deals: list[tuple[list[int], list[int]]] = []
        for number, deal in enumerate(record["deals"], start=1):
            hands = [mask_of_texts(hand) for hand in deal["hands"]]
            stock = [Card.parse(text).index for text in deal["stock"]]
            dealt = 0
            for mask in hands:
                dealt |= mask
            for index in stock:
                dealt |= 1 << index
            if (
                len(hands) != SEATS
                or any(mask.bit_count() != HAND_SIZE for mask in hands)
                or len(stock) != STOCK_SIZE
                or dealt != FULL_DECK_MASK
            ):
                raise ReplayMismatchError(
                    f"R3.1: deal {number} is not the 53 cards dealt six to each seat and "
                    "17 to the stock"
                )
            self._deals.append((hands, stock))

    def first_dealer(self) -> int:
        return self._first_dealer

    def deal(self, number: int) -> tuple[list[int], list[int]]:
        if not 1 <= number <= len(self._deals):
            raise ReplayMismatchError(f"the record has no deal {number}, which the game reached")
        hands, stock = self._deals[number - 1]
        return list(hands), list(stock)


def replay(record: Record, key: DealSource | None = None) -> Game:
    """Play a record's actions through the engine; raise at the first difference.

    Without ``key`` the game is dealt the record's own cards; with the game's key every
    deal and the first dealer must also be the key's (R1.3, R3.1a).
    """
    try:
        source = key if key is not None else RecordedDeals(record)
        game = Game(source, draw_limit=int(record.get("draw_limit", DEFAULT_DRAW_LIMIT)))
        for step, action in enumerate(recorded_actions(record)):
            try:
                game.apply(action)
            except EngineError as error:
                raise ReplayMismatchError(
                    f"action {step} ({action}) in deal {game.deal_number} was refused: {error}"
                ) from error
    except (KeyError, TypeError, ValueError, OverflowError, AttributeError, IndexError) as error:
        if isinstance(error, ReplayMismatchError):
            raise
        raise ReplayMismatchError(f"malformed game record: {error!r}") from error
    replayed = to_record(game, record.get("meta"))
    if record.get("version") == 1:
        # A version 1 record also holds its seed, from the old guessable dealing: its
        # cards are checked as dealt, the seed itself is carried over unread.
        replayed.update(version=1, seed=record.get("seed"))
    difference = first_difference(record, replayed)
    if difference is not None:
        raise ReplayMismatchError(f"replay differs from the record at {difference}")
    if record.get("result") is not None and game.phase is not Phase.OVER:
        raise ReplayMismatchError("the record claims a result but the game is not over")
    return game


def first_difference(expected: Any, actual: Any, path: str = "$") -> str | None:
    """The JSON path of the first place two JSON values differ, or None."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual)):
            if key not in expected or key not in actual:
                return f"{path}.{key} (present on one side only)"
            found = first_difference(expected[key], actual[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        for i, (a, b) in enumerate(zip(expected, actual, strict=False)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found:
                return found
        if len(expected) != len(actual):
            return f"{path} (length {len(expected)} recorded, {len(actual)} replayed)"
        return None
    if expected != actual or type(expected) is not type(actual):
        return f"{path} (recorded {expected!r}, replayed {actual!r})"
    return None
