"""Game records: a complete, JSON-serialisable account of a game, and ``replay`` to check one.

The format is public and documented in ``docs/GAME_RECORD.md``. ``replay(record)`` runs
the recorded actions through the engine again and raises ``ReplayMismatchError`` at the
first difference, so a record is proof of a legal game. A record never holds the game's
key (bots may see records; the key of one game deals the same cards at every seating of
a run): replay deals the record's own cards, or, given the key, proves they are its.

Each deal also lists its decisions, who was asked what, in the order the engine asked;
what the engine cannot know of them (the time a bot took, the part of it the referee did
not charge, a fallback the referee played in a bot's place) is given to ``to_record`` as
``DecisionNote`` values by the referee. ``judge_clock`` judges every timed decision of a
record from the record alone, as docs/GAME_RECORD.md tells an outside reader to.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from arena.engine.actions import (
    BIDS,
    PASS,
    PLAYS,
    TRUMPS,
    Action,
    DecisionKind,
    Discard,
    kind_of,
)
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
from arena.engine.forfeit import RULE as FORFEIT_RULE
from arena.engine.forfeit import apply_forfeit
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
RECORD_VERSION: Final = 5
# Version 1 also held the game's integer seed, from which anyone could deal every card.
# Version 3 added each deal's decisions and the scores the game started from, version 4
# the time control, version 5 the forfeit rule's setting, the teams that forfeited (F1) and
# each decision's credit.
KNOWN_VERSIONS: Final = (1, 2, 3, 4, 5)
# The first version whose decisions carry their credit (and so whose clock can be judged).
CREDIT_VERSION: Final = 5

Record = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Fallback:
    """An action the referee played in a seat's place, and the fault that made it do so
    (docs/PROTOCOL.md, "Faults")."""

    fault: str  # the fault's kind, e.g. "timeout", "illegal"
    reason: str
    sent: str = ""  # what the bot sent instead, abbreviated; "" if nothing

    def to_json(self) -> dict[str, str]:
        return {"fault": self.fault, "reason": self.reason, "sent": self.sent}


@dataclass(frozen=True, slots=True)
class DecisionNote:
    """What a record says of one decision beyond the action, which only the referee knows."""

    seconds: float | None = None  # the bot's time, from delivery to answer; None: unknown
    fallback: Fallback | None = None  # set when the action is the referee's, not the bot's
    # Of ``seconds``, what the referee did not charge to the seat's clock: the time others'
    # load kept the bot off the CPU (the fair clock), or the referee's own delay in reading
    # an answer that had arrived in time. None exactly where ``seconds`` is; not given with
    # ``seconds``, none was credited.
    credit: float | None = None

    def __post_init__(self) -> None:
        if self.seconds is None and self.credit is not None:
            raise ValueError("a decision nobody was timed at has no credit")
        if self.seconds is not None and self.credit is None:
            object.__setattr__(self, "credit", 0.0)


_UNKNOWN: Final = DecisionNote()


@dataclass(frozen=True)
class TimeControl:
    """The time each decision of the game had (PROTOCOL.md, *Time*): ``decision_ms`` per
    decision, and an overage bank of ``overage_ms`` per game that time beyond it draws on."""

    decision_ms: int
    overage_ms: int

    def to_json(self) -> dict[str, int]:
        return {"decision_ms": self.decision_ms, "overage_ms": self.overage_ms}


def _time_control_of(record: Record) -> TimeControl | None:
    """The record's time control; ``ReplayMismatchError`` if it is there but malformed."""
    given = record.get("time_control")
    if given is None:
        return None
    if not isinstance(given, dict) or set(given) != {"decision_ms", "overage_ms"}:
        raise ReplayMismatchError(f"malformed time_control {given!r}")
    values = [given["decision_ms"], given["overage_ms"]]
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values):
        raise ReplayMismatchError(f"malformed time_control {given!r}")
    return TimeControl(values[0], values[1])


def _forfeit_deals_of(record: Record) -> int | None:
    """The record's setting of the forfeit rule F1 (None: a record without it, before
    version 5); ``ReplayMismatchError`` if it is there but malformed."""
    given = record.get("forfeit_deals")
    if given is None:
        return None
    if not isinstance(given, int) or isinstance(given, bool) or given < 0:
        raise ReplayMismatchError(f"malformed forfeit_deals {given!r}")
    return given


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


def to_record(
    game: Game,
    meta: dict[str, Any] | None = None,
    notes: Sequence[DecisionNote] | None = None,
    time_control: TimeControl | None = None,
    forfeit_deals: int | None = None,
) -> Record:
    """The game record of a game (finished or not) as plain JSON-ready data.

    ``notes`` has one entry per decision taken so far, keyed by its index in
    ``game.history``; without them each decision's time and fallback are null.
    ``time_control``: the time each decision had, so that a record alone can judge a
    timeout (``"time_control"``, absent when not given). ``forfeit_deals``: the setting
    of the forfeit rule F1 the game was played under (``arena.engine.forfeit``; 0: off),
    so that a replay applies it again (``"forfeit_deals"``, absent when not given).
    """
    if notes is not None and len(notes) != len(game.history):
        raise ValueError(f"{len(notes)} decision notes for a game of {len(game.history)} decisions")
    record: Record = {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "first_dealer": game.first_dealer,
        "arranged": game.is_arranged,
        "start_scores": list(game.start_scores),
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
    # Each deal's decisions are its stretch of the game's history (``DealLog.first_decision``).
    ends = [deal.first_decision for deal in game.deals[1:]] + [len(game.history)]
    for deal, log, end in zip(record["deals"], game.deals, ends, strict=True):
        deal["decisions"] = [
            _decision_json(seat, kind_of(action), notes[i] if notes is not None else _UNKNOWN)
            for i, (seat, action) in enumerate(
                game.history[log.first_decision : end], log.first_decision
            )
        ]
    if game.outcome is not None:
        record["result"] = {
            "winner": game.outcome.winner,
            "draw": game.outcome.is_draw,
            "scores": list(game.outcome.scores),
            "deals": game.outcome.deals,
            "forfeited": list(game.outcome.forfeited),
        }
    if time_control is not None:
        record["time_control"] = time_control.to_json()
    if forfeit_deals is not None:
        record["forfeit_deals"] = forfeit_deals
    if meta:
        record["meta"] = meta
    return record


def decision_slots(deal: dict[str, Any]) -> list[tuple[int, DecisionKind]]:
    """Who was asked what in a recorded deal, in the order the engine asked: the bids
    (R4.1), the trump (R5.1), each non-dealer's exchange (R5.2), the dealer's discard
    (R5.3) and each card played (R7)."""
    slots = [(int(bid["seat"]), DecisionKind.BID) for bid in deal["bids"]]
    if deal["thrown_in"] or "trump" not in deal:
        return slots
    slots.append((int(deal["bidder"]), DecisionKind.TRUMP))
    slots += [(int(exchange["seat"]), DecisionKind.DISCARD) for exchange in deal["exchanges"]]
    if deal["dealer_exchange"]["discarded"]:  # R5.3: at least two cards, so none is not yet
        slots.append((int(deal["dealer"]), DecisionKind.DISCARD))
    for trick in deal["tricks"]:
        leader = int(trick["leader"])
        slots += [((leader + i) % SEATS, DecisionKind.PLAY) for i in range(len(trick["cards"]))]
    return slots


def _decision_json(seat: int, kind: DecisionKind, note: DecisionNote) -> dict[str, Any]:
    return {
        "seat": seat,
        "kind": kind.value,
        "seconds": note.seconds,
        "credit": note.credit,
        "fallback": None if note.fallback is None else note.fallback.to_json(),
    }


_DECISION_KEYS: Final = {"seat", "kind", "seconds", "credit", "fallback"}
_DECISION_KEYS_V3: Final = _DECISION_KEYS - {"credit"}  # versions 3 and 4


def _seconds_of(value: Any, name: str) -> float | None:
    """A decision's ``seconds`` or ``credit``: null or a finite number of at least 0."""
    if value is not None and (
        type(value) not in (int, float) or not math.isfinite(value) or value < 0
    ):
        raise ReplayMismatchError(f"a decision's {name} must be null or >= 0, not {value!r}")
    number: float | None = value  # int or float as written: replay compares it as written
    return number


def _note_of(entry: Any, version: int = RECORD_VERSION) -> DecisionNote:
    """The note a recorded decision carries; ``ReplayMismatchError`` if it is malformed."""
    keys = _DECISION_KEYS if version >= CREDIT_VERSION else _DECISION_KEYS_V3
    if not isinstance(entry, dict) or set(entry) != keys:
        raise ReplayMismatchError(f"malformed decision {entry!r}")
    seconds = _seconds_of(entry["seconds"], "seconds")
    credit = _seconds_of(entry.get("credit"), "credit")
    if version >= CREDIT_VERSION and (credit is None) != (seconds is None):
        raise ReplayMismatchError(f"a decision has a credit exactly when it has seconds: {entry!r}")
    if version < CREDIT_VERSION and seconds is not None:
        credit = 0.0  # the record says nothing of it: read as none given
    if credit is not None and seconds is not None and credit > seconds:
        raise ReplayMismatchError(f"a decision's credit {credit!r} exceeds its seconds {seconds!r}")
    fallback = entry["fallback"]
    if fallback is None:
        return DecisionNote(seconds, None, credit)
    if (
        not isinstance(fallback, dict)
        or set(fallback) != {"fault", "reason", "sent"}
        or not all(isinstance(value, str) for value in fallback.values())
    ):
        raise ReplayMismatchError(f"malformed fallback {fallback!r}")
    return DecisionNote(seconds, Fallback(**fallback), credit)


def recorded_notes(record: Record) -> list[DecisionNote] | None:
    """The decision notes of a record, in game order (None for a record before version 3;
    a record before version 5 says nothing of credit, and its notes read as none given)."""
    version = record.get("version")
    if version in (1, 2):
        return None
    return [
        _note_of(entry, version if isinstance(version, int) else RECORD_VERSION)
        for deal in record["deals"]
        for entry in deal["decisions"]
    ]


# The fault whose fallback marks a decision that timed out (docs/PROTOCOL.md, "Faults").
TIMEOUT_FAULT: Final = "timeout"
# How far a judged decision's charged time may sit on the wrong side of its limit: the
# last digits of a reader's arithmetic (in whatever language) may differ from the referee's.
CLOCK_TOLERANCE_S: Final = 1e-6


@dataclass(frozen=True, slots=True)
class TimedDecision:
    """One decision the referee timed (a bot was asked and had the request), judged from
    the record alone (docs/GAME_RECORD.md, *Judging the clock*)."""

    deal_number: int  # 1, 2, …
    decision_index: int  # in the deal's ``decisions``
    seat: int
    seconds: float  # the bot's time
    credit: float  # of it, not charged to the seat
    bank_ms: float  # the seat's overage bank before the decision
    limit: float  # seconds it was allowed: ``decision_ms`` plus that bank
    timed_out: bool  # the record says it timed out (its fallback's fault)

    @property
    def charged(self) -> float:
        """The seconds charged to the seat's clock."""
        return max(0.0, self.seconds - self.credit)

    @property
    def agrees(self) -> bool:
        """A timeout was charged at least its limit, every other decision at most that."""
        if self.timed_out:
            return self.charged >= self.limit - CLOCK_TOLERANCE_S
        return self.charged <= self.limit + CLOCK_TOLERANCE_S


def judge_clock(record: Record) -> list[TimedDecision]:
    """Every timed decision of a refereed record with the limit it was held to, recomputed
    from the record alone: each seat's bank starts the game at ``overage_ms``; a decision
    charged more than ``decision_ms`` pays the rest from it (never below 0); a timeout
    empties it. ``ReplayMismatchError`` for a record that cannot be judged (no
    ``time_control``, or no credits: before version 5) or is malformed."""
    control = _time_control_of(record)
    version = record.get("version")
    if control is None or not isinstance(version, int) or version < CREDIT_VERSION:
        raise ReplayMismatchError(
            f"only a refereed record of version {CREDIT_VERSION} or later (time_control and "
            "each decision's credit) can be judged"
        )
    banks = [float(control.overage_ms)] * SEATS
    judged: list[TimedDecision] = []
    try:
        for number, deal in enumerate(record["deals"], start=1):
            for index, entry in enumerate(deal["decisions"]):
                note = _note_of(entry, version)
                if note.seconds is None or note.credit is None:
                    continue  # nobody was asked: an auto-played seat, an undelivered request
                seat = entry["seat"]
                if type(seat) is not int or seat not in range(SEATS):
                    raise ReplayMismatchError(f"deal {number} decision {index}: seat {seat!r}")
                bank = banks[seat]
                timed_out = note.fallback is not None and note.fallback.fault == TIMEOUT_FAULT
                decision = TimedDecision(
                    number,
                    index,
                    seat,
                    note.seconds,
                    note.credit,
                    bank,
                    (control.decision_ms + bank) / 1000,
                    timed_out,
                )
                judged.append(decision)
                over_ms = decision.charged * 1000 - control.decision_ms
                if over_ms > 0:
                    banks[seat] = max(0.0, bank - over_ms)
                if timed_out:
                    banks[seat] = 0.0
    except (KeyError, TypeError) as error:
        raise ReplayMismatchError(f"malformed game record: {error!r}") from error
    return judged


_CLOCK_KEYS: Final = frozenset({"seconds", "credit"})


def without_times(record: Record) -> Record:
    """The record without its decisions' times and credits: what the same deals and the
    same decisions make of a game wherever and however fast it is played (duplicate play,
    a resumed run, a cluster), so two such records compare equal."""
    return {
        **record,
        "deals": [
            {
                **deal,
                "decisions": [
                    {k: v for k, v in entry.items() if k not in _CLOCK_KEYS}
                    for entry in deal["decisions"]
                ],
            }
            if "decisions" in deal
            else deal
            for deal in record["deals"]
        ],
    }


def dumps(record: Record) -> str:
    """The record as compact JSON text, non-ASCII kept as it is (to be written as UTF-8,
    as the results database keeps it); control characters are escaped, as JSON does."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False)


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
        yield from deal_actions(deal)


def deal_actions(deal: dict[str, Any]) -> Iterator[Action]:
    """The actions of one recorded deal, in the order the engine asks for them."""
    for bid in deal["bids"]:
        yield BIDS[bid["bid"]] if bid["bid"] else PASS
    if deal["thrown_in"] or "trump" not in deal:
        return
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
    deal and the first dealer must also be the key's (R1.3, R3.1a), except the first deal
    of an arranged game, which was hand-built. Each recorded decision must name the seat
    the engine asked and the kind of decision it asked for. A record of version 5 on
    ends early where the forfeit rule F1 says, and only there (``_forfeit``).
    """
    try:
        notes = recorded_notes(record)
        forfeit_deals = _forfeit_deals_of(record)
        game = start_game(record, key)
        step = 0
        for deal in record["deals"]:
            _forfeit(game, notes, forfeit_deals)
            actions = list(deal_actions(deal))
            if actions and game.is_over:
                raise ReplayMismatchError(
                    f"the game is over before deal {deal['number']}, which the record plays"
                )
            asked = None if notes is None else deal["decisions"]
            if asked is not None and len(asked) != len(actions):
                raise ReplayMismatchError(
                    f"deal {deal['number']} records {len(asked)} decisions for its "
                    f"{len(actions)} actions"
                )
            for index, action in enumerate(actions):
                if asked is not None:
                    _check_asked(game, asked[index], f"deal {deal['number']} decision {index}")
                try:
                    game.apply(action)
                except EngineError as error:
                    raise ReplayMismatchError(
                        f"action {step} ({action}) in deal {game.deal_number} was refused: {error}"
                    ) from error
                step += 1
    except (KeyError, TypeError, ValueError, OverflowError, AttributeError, IndexError) as error:
        if isinstance(error, ReplayMismatchError):
            raise
        raise ReplayMismatchError(f"malformed game record: {error!r}") from error
    replayed = to_record(game, record.get("meta"), notes, _time_control_of(record), forfeit_deals)
    version = record.get("version")
    if version in (1, 2, 3, 4) and replayed["result"] is not None:
        del replayed["result"]["forfeited"]  # before the forfeit rule (version 5)
    if version in (3, 4):  # before the time control (4), the forfeit rule and credits (5)
        replayed["version"] = version
    if isinstance(version, int) and 3 <= version < CREDIT_VERSION:
        for deal in replayed["deals"]:
            for entry in deal["decisions"]:
                del entry["credit"]
    if version in (1, 2):
        # Records before version 3 have no decisions and no start scores.
        del replayed["start_scores"]
        for deal in replayed["deals"]:
            del deal["decisions"]
        replayed["version"] = version
    if version == 1:
        # A version 1 record also holds its seed, from the old guessable dealing: its
        # cards are checked as dealt, the seed itself is carried over unread.
        replayed["seed"] = record.get("seed")
    difference = first_difference(record, replayed) or _points_order(record, replayed)
    if difference is not None:
        raise ReplayMismatchError(f"replay differs from the record at {difference}")
    if record.get("result") is not None and game.phase is not Phase.OVER:
        raise ReplayMismatchError("the record claims a result but the game is not over")
    return game


def _forfeit(game: Game, notes: list[DecisionNote] | None, deals: int | None) -> None:
    """Before a recorded deal's first decision: end the game if the forfeit rule F1 says
    a team forfeits it, as the table did when it played the game."""
    if deals is None or game.is_over:
        return
    if notes is None:
        raise ReplayMismatchError(f"{FORFEIT_RULE}: forfeit_deals in a record without decisions")
    apply_forfeit(game, [note.fallback is not None for note in notes[: len(game.history)]], deals)


def start_game(record: Record, key: DealSource | None = None) -> Game:
    """The game a record starts from, before its first decision: dealt from ``key`` or the
    record's own deals, from its start scores and, if arranged, its first deal."""
    recorded = RecordedDeals(record)
    start = record.get("start_scores", [0, 0, 0])
    if (
        not isinstance(start, list)
        or len(start) != 3
        or not all(type(score) is int for score in start)
    ):
        raise ReplayMismatchError(f"start_scores must be three integers, not {start!r}")
    first_deal = None
    if record["arranged"] is True:
        hands, stock = recorded.deal(1)
        first_deal = (hands, stock, recorded.first_dealer())
    return Game(
        key if key is not None else recorded,
        draw_limit=int(record.get("draw_limit", DEFAULT_DRAW_LIMIT)),
        first_deal=first_deal,
        scores=(start[0], start[1], start[2]),
    )


def _check_asked(game: Game, entry: Any, where: str) -> None:
    """A recorded decision names the seat the engine asks and the kind it asks for."""
    if not isinstance(entry, dict):
        raise ReplayMismatchError(f"{where}: malformed decision {entry!r}")
    kind = game.decision_kind
    asked = (game.to_act, None if kind is None else kind.value)
    recorded = (entry.get("seat"), entry.get("kind"))
    if recorded != asked:
        raise ReplayMismatchError(
            f"{where}: the record says seat {recorded[0]} made a {recorded[1]} decision, "
            f"but the engine asked seat {asked[0]} for a {asked[1]} decision"
        )


def _points_order(record: Record, replayed: Record) -> str | None:
    """Where a deal's ``points`` lists its categories in another order than the engine's
    (first_difference compares objects by key, not by order)."""
    # Called once the two are equal but for order: the same deals, the same keys.
    for index, (deal, again) in enumerate(zip(record["deals"], replayed["deals"], strict=True)):
        if "points" in deal and list(deal["points"]) != list(again["points"]):
            return f"$.deals[{index}].points (keys in the order {list(deal['points'])})"
    return None


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
