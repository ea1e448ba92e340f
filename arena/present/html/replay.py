"""The replay page of one game: its stored record replayed through the engine, decision by
decision, as one self-contained HTML file (``arena replay GAME --html FILE``).

Every state the page shows comes from the engine: at each step the face-up state (every
hand, the stock, the exchanges) is read from the replayed ``Game`` and each seat's view
from ``view(game, seat)`` (R10); each step's events are the engine's, each marked with
the seats ``is_told_to`` lets know it. The page only draws them; it knows no rule.

The page's JSON shares repeated lists and objects (a hand that did not change, the tricks
so far, the public part of the six views): each is stored once in ``table`` and referred
to as ``"@<index>"`` (see ``_Interner``). No bot-provided string goes through the table,
so a bot cannot forge a reference.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Final

from arena.engine import (
    SEATS,
    DecisionKind,
    Game,
    Phase,
    ReplayMismatchError,
    View,
    replay,
    team_of,
    view,
)
from arena.engine.actions import Action, Play
from arena.engine.cards import Card, CardSet, Suit, card_texts
from arena.engine.events import (
    DealScored,
    DealStarted,
    DealThrownIn,
    Event,
    GameEnded,
    HandDealt,
    OwnExchange,
    TrickWon,
    is_told_to,
)
from arena.engine.game import DealLog, Trick
from arena.engine.legal import Legal
from arena.engine.record import RecordedDeals, recorded_actions, start_game, texts
from arena.present.html.page import content_security_policy, script_json
from arena.present.safe_text import printable
from arena.tournament.bundle import GameBundle, SiblingGame, seat_log_tails
from arena.tournament.store import entrant_label

__all__ = [
    "DOCUMENT_FORMAT",
    "bundle_of_record",
    "record_log_dir",
    "render_replay",
    "replay_document",
    "write_replay",
]

DOCUMENT_FORMAT: Final = "schmier-replay"
DOCUMENT_VERSION: Final = 1
LABEL_LIMIT: Final = 80  # characters of an entrant label shown
LOG_LINE_LIMIT: Final = 300  # characters of one log line shown
SENT_LIMIT: Final = 200  # characters shown of what a bot sent in a faulty answer

Json = Any
# What a step says: the kind of step ("deal", "bid", "trump", "discard", "play", "pickup",
# "trick", "scored", "thrown_in", "over"), its deal, the seat deciding, the engine's events
# (each with the seats told it), the slots that changed, and for a decision its action,
# its index among the game's decisions, its time and fault, and the legal choices the
# seat had (``_legal_json``); "next" is the seat of the next decision.
STEP_KEYS: Final = (
    "kind",
    "deal",
    "seat",
    "events",
    "set",
    "action",
    "decision_index",
    "decision",
    "legal",
    "next",
)


class _Ref(str):
    """A reference to an entry of the table, as the interner made it."""


def _key(value: Json) -> object:
    """A hashable stand-in for an interned child: equal only for equal JSON."""
    if isinstance(value, list):
        return ("[", *map(_key, value))
    if isinstance(value, dict):
        return ("{", *((name, _key(item)) for name, item in value.items()))
    if isinstance(value, bool | float):  # True == 1 == 1.0 in Python, not in JSON
        return (type(value).__name__, value)
    return value


class _Interner:
    """Stores each list or object once, in ``table``.

    ``intern(value)`` returns ``value`` with every list or object of two items or more
    (children first) replaced by the string ``"@<index>"`` of its entry; equal values
    share one entry.
    The card lists and tricks the engine gives again and again are cached by their
    engine value, so a step costs what changed in it, not the whole deal again.
    """

    def __init__(self) -> None:
        self.table: list[Json] = []
        self._index: dict[object, int] = {}
        self._masks: dict[int, Json] = {}
        self._tricks: dict[tuple[int, int], Json] = {}
        self._ordered: dict[tuple[int, ...], Json] = {}
        # The public part of a view (R10), by the engine's values: see _seat_views.
        self.public: dict[tuple[object, ...], Json] = {}

    def __call__(self, value: Json) -> Json:
        if isinstance(value, _Ref):
            return value
        key: object
        if isinstance(value, dict):
            value = {name: self(item) for name, item in value.items()}
            key = ("{", *((name, _key(item)) for name, item in value.items()))
        elif isinstance(value, list):
            value = [self(item) for item in value]
            key = ("[", *map(_key, value))
        elif isinstance(value, str) and value.startswith("@"):
            raise ValueError(f"a string of the page's data looks like a reference: {value!r}")
        else:
            return value
        if len(value) < 2:  # as short as its reference, or nearly
            return value
        index = self._index.get(key)
        if index is None:
            index = self._index[key] = len(self.table)
            self.table.append(value)
        return _Ref(f"@{index}")

    def cards(self, mask: int) -> Json:
        """A set of cards, in card order."""
        found = self._masks.get(mask)
        if found is None:
            found = self._masks[mask] = self(card_texts(mask))
        return found

    def ordered(self, indices: Sequence[int]) -> Json:
        """Cards in a given order (the stock, a draw), by their engine indices."""
        key = tuple(indices)
        found = self._ordered.get(key)
        if found is None:
            found = self._ordered[key] = self(texts(list(indices)))
        return found

    def trick(self, deal: int, number: int, trick: Trick) -> Json:
        key = (deal, number)
        found = self._tricks.get(key)
        if found is None:
            # (seat, card) in the order played, as the trick in progress is shown
            plays = [[trick.seat_of(i), str(card)] for i, card in enumerate(trick.cards)]
            found = self._tricks[key] = self([trick.leader, plays, trick.winner])
        return found


def _json_value(value: object) -> Json:
    if isinstance(value, Card | Suit):
        return str(value)
    if isinstance(value, CardSet):
        return card_texts(value.mask)
    if isinstance(value, tuple | list):
        return [_json_value(item) for item in value]
    return value


def _event(event: Event) -> dict[str, Json]:
    """An engine event as JSON, with the seats R10 lets know it (``is_told_to``)."""
    out: dict[str, Json] = {"type": type(event).__name__}
    for name, value in event._asdict().items():
        if name == "audience":
            continue
        if name == "categories":
            out[name] = dict(value)
        else:
            out[name] = _json_value(value)
    out["told"] = [seat for seat in range(SEATS) if is_told_to(event, seat)]
    return out


def _public_json(seen: View, intern: _Interner) -> dict[str, Json]:
    """The part of a seat's view that R10 tells every seat."""
    return {
        "deal": seen.deal_number,
        "dealer": seen.dealer,
        "phase": seen.phase.value,
        "scores": intern(list(seen.scores)),
        "bids": intern([list(bid) for bid in seen.bids]),
        "bidder": seen.bidder,
        "contract": seen.contract,
        "trump": None if seen.trump is None else str(seen.trump),
        "xcounts": intern([list(exchange) for exchange in seen.exchanges]),
        "tricks": intern(
            [
                intern.trick(seen.deal_number, number, trick)
                for number, trick in enumerate(seen.tricks)
            ]
        ),
        "trick": intern([[who, str(card)] for who, card in seen.trick_cards]),
        "sizes": intern(list(seen.hand_sizes)),
    }


def _public_key(seen: View) -> tuple[object, ...]:
    return (
        seen.deal_number,
        seen.dealer,
        seen.phase,
        seen.scores,
        seen.bids,
        seen.bidder,
        seen.contract,
        seen.trump,
        seen.exchanges,
        seen.tricks,
        seen.trick_cards,
        seen.hand_sizes,
    )


def _slots(game: Game, intern: _Interner) -> dict[str, Json]:
    """The page's state at this moment, as named slots, every one read from the engine.

    Face up (what nobody at the table sees): ``hand0`` … ``hand5``, ``stock``,
    ``exchanges`` (each with its cards), ``pickup`` and ``ddiscard`` (the dealer's).
    Each seat's view (``view(game, seat)``, R10): ``own0`` … ``own5`` (its hand, its own
    discards and what it drew or picked up), and the public part, in the slots of
    ``_public_json`` from seat 0's view; ``pub1`` … ``pub5`` hold a seat's whole public
    part only where it differs from seat 0's (null otherwise).
    """
    deal = game.deal
    slots: dict[str, Json] = {
        f"hand{seat}": intern.cards(game.hands[seat]) for seat in range(SEATS)
    }
    slots.update(
        stock=intern.ordered(game.stock),
        exchanges=intern(
            [
                [seat, intern.cards(discarded), intern.ordered(received)]
                for seat, discarded, received in deal.exchanges
            ]
        ),
        pickup=intern.ordered(deal.dealer_pickup),
        ddiscard=intern.cards(deal.dealer_discard),
    )
    views = [view(game, seat) for seat in range(SEATS)]
    shared = _public_key(views[0])
    slots.update(_public_json(views[0], intern))
    for seat, seen in enumerate(views):
        slots[f"own{seat}"] = intern(
            [
                intern.cards(seen.hand.mask),
                intern.cards(seen.own_discarded.mask),
                intern.cards(seen.own_received.mask),
            ]
        )
        if seat:
            differs = _public_key(seen) != shared
            slots[f"pub{seat}"] = intern(_public_json(seen, intern)) if differs else None
    return slots


class _SnapshotDeals:
    """The record's deals (``RecordedDeals``), and a hook for the moment a deal is over.

    The engine scores a deal and starts the next inside the same ``apply``; the one moment
    in between is when it asks its source for the next deal's cards, so the finished
    deal's last state (hands empty, every trick, the new scores) is read there.
    """

    def __init__(self, record: Mapping[str, Any]) -> None:
        self._deals = RecordedDeals(dict(record))
        self.on_next_deal: Callable[[], None] | None = None

    def first_dealer(self) -> int:
        return self._deals.first_dealer()

    def deal(self, number: int) -> tuple[list[int], list[int]]:
        if number > 1 and self.on_next_deal is not None:
            self.on_next_deal()
        return self._deals.deal(number)


class _Snapshot:
    def __init__(self, game: Game, intern: _Interner) -> None:
        self.slots = _slots(game, intern)
        self.events_seen = len(game.events)


def _changes(slots: dict[str, Json], before: dict[str, Json]) -> dict[str, Json]:
    """The slots that differ from the step before: a step stores only what changed."""
    return {name: value for name, value in slots.items() if before.get(name, ...) != value}


def _step_kind(event: Event, dealer: int) -> str:
    """Which step of the page an event belongs to, besides the decision that caused it."""
    if isinstance(event, TrickWon):
        return "trick"
    if isinstance(event, DealScored):
        return "scored"
    if isinstance(event, DealThrownIn):
        return "thrown_in"
    if isinstance(event, GameEnded):
        return "over"
    if isinstance(event, DealStarted | HandDealt):
        return "deal"
    if isinstance(event, OwnExchange) and event.seat == dealer and not event.discarded:
        return "pickup"  # R5.3: the dealer takes up the stock after the last exchange
    return "decision"


def _decision_records(record: Mapping[str, Any]) -> list[list[Mapping[str, Any]]]:
    """Per deal, the recorded decisions (record version 3), or none for older records."""
    out: list[list[Mapping[str, Any]]] = []
    for deal in record["deals"]:
        decisions = deal.get("decisions") if isinstance(deal, Mapping) else None
        out.append(
            [d for d in decisions if isinstance(d, Mapping)] if isinstance(decisions, list) else []
        )
    return out


def _decision_json(decision: Mapping[str, Any]) -> dict[str, Json] | None:
    """A recorded decision's time and fault (every string made printable text), or None
    where the record knows neither (the decisions of a record made without the referee)."""
    seconds = decision.get("seconds")
    fallback = decision.get("fallback")
    if not isinstance(seconds, int | float) and not isinstance(fallback, Mapping):
        return None
    return {
        # to the microsecond: the referee's clock says no more
        "seconds": round(float(seconds), 6) if isinstance(seconds, int | float) else None,
        "fallback": {
            key: printable(str(fallback.get(key, "")), SENT_LIMIT)
            for key in ("fault", "reason", "sent")
        }
        if isinstance(fallback, Mapping)
        else None,
    }


def _legal_json(legal: Legal, action: Action, intern: _Interner) -> dict[str, Json]:
    """The choices the engine gave the seat at a decision, and which one was taken.

    Bids and trumps: ``{"actions": [...], "chosen": i}`` (as the actions are written);
    plays: ``{"cards": [...], "chosen": i}``; a discard, which the engine describes by a
    rule rather than a list (R5.2-R5.4): the cards it may put down, those it must, how
    many, the rule's id and the number of legal discards.
    """
    if legal.kind is DecisionKind.DISCARD:
        rule = legal.discard_rule
        return {
            "may": intern.cards(rule.may.mask),
            "must": intern.cards(rule.must.mask),
            "min": rule.min_count,
            "max": rule.max_count,
            "rule": rule.rule,
            "count": len(legal),
        }
    choices = list(legal)
    chosen = choices.index(action) if action in choices else None
    if legal.kind is DecisionKind.PLAY:
        cards = [str(choice.card) for choice in choices if isinstance(choice, Play)]
        return {"cards": intern(cards), "chosen": chosen}
    return {"actions": intern([str(choice) for choice in choices]), "chosen": chosen}


def _deal_summary(deal: DealLog) -> dict[str, Json]:
    """A deal as the engine scored it (R6, R8): bid, trump, points by category, scores."""
    scored = len(deal.tricks) == 6
    return {
        "number": deal.number,
        "dealer": deal.dealer,
        "thrown_in": deal.thrown_in,
        "bidder": deal.bidder,
        "contract": deal.contract,
        "trump": None if deal.trump is None else str(deal.trump),
        "points": dict(deal.categories) if scored else None,
        "game_totals": list(deal.game_totals) if scored else None,
        "points_won": list(deal.points) if scored else None,
        "scores": list(deal.scores_after) if scored else None,
    }


def _steps(record: Mapping[str, Any], intern: _Interner) -> tuple[list[dict[str, Json]], list[int]]:
    """One step per decision, and one per trick won, pick-up, deal scored or dealt; and
    the scores the game started from."""
    source = _SnapshotDeals(record)
    game = start_game(dict(record), source)
    opening_scores = list(game.scores)
    shown = _Snapshot(game, intern).slots
    steps: list[dict[str, Json]] = [
        {
            "kind": "deal",
            "deal": 1,
            "seat": None,
            "events": intern([_event(e) for e in game.events]),
            "set": shown,
        }
    ]
    decisions = _decision_records(record)
    index_in_deal = 0
    finished: list[_Snapshot] = []  # the state of a deal the last action ended
    source.on_next_deal = lambda: finished.append(_Snapshot(game, intern))
    for number, action in enumerate(recorded_actions(dict(record))):
        seat, kind, deal_number = game.to_act, game.decision_kind, game.deal_number
        dealer = game.deal.dealer
        legal = _legal_json(game.legal(), action, intern)
        before = len(game.events)
        finished.clear()
        game.apply(action)
        after = _Snapshot(game, intern)
        recorded = decisions[deal_number - 1]
        decision = recorded[index_in_deal] if index_in_deal < len(recorded) else None
        index_in_deal = 0 if game.deal_number != deal_number else index_in_deal + 1
        groups: dict[str, list[Event]] = {}
        order: list[str] = []
        snapshot_of: dict[str, _Snapshot] = {}
        for position, event in enumerate(game.events[before:], start=before):
            group = _step_kind(event, dealer)
            if group not in groups:
                groups[group] = []
                order.append(group)
                ended = finished and position < finished[0].events_seen
                snapshot_of[group] = finished[0] if ended else after
            groups[group].append(event)
        for group in order:
            snapshot = snapshot_of[group]
            step: dict[str, Json] = {
                "kind": kind.value if group == "decision" and kind else group,
                "deal": game.deal_number if group == "deal" else deal_number,
                "seat": seat if group == "decision" else None,
                "events": intern([_event(e) for e in groups[group]]),
                "set": _changes(snapshot.slots, shown),
            }
            shown = snapshot.slots
            if group == "decision":
                step["action"] = str(action)
                step["decision_index"] = number
                step["legal"] = legal
                known = None if decision is None else _decision_json(decision)
                if known is not None:
                    step["decision"] = known
            steps.append(step)
    # Who decides next, for the page to point at: the seat of the next decision step.
    upcoming: int | None = None
    for step in reversed(steps):
        step["next"] = upcoming
        if "decision_index" in step:
            upcoming = step["seat"]
    return steps, opening_scores


def _siblings(
    siblings: Sequence[SiblingGame],
) -> tuple[list[dict[str, Json]], dict[int, list[dict[str, Json]]]]:
    """The other seatings of the seed (their entrants per seat, or why one does not
    replay), and for each deal number how each of them played the same cards."""
    games: list[dict[str, Json]] = []
    by_deal: dict[int, list[dict[str, Json]]] = {}
    for sibling in siblings:
        entry: dict[str, Json] = {
            "game_id": sibling.game_id,
            "labels": [printable(label, LABEL_LIMIT) for label in sibling.labels],
        }
        games.append(entry)
        try:
            game = replay(sibling.record)
        except ReplayMismatchError as error:  # named on the page, not fatal to it
            entry["error"] = printable(str(error), SENT_LIMIT)
            continue
        for deal in game.deals:
            by_deal.setdefault(deal.number, []).append(
                {"game_id": sibling.game_id, **_deal_summary(deal)}
            )
    return games, by_deal


def bundle_of_record(record: dict[str, Any], name: str, log_dir: Path | None = None) -> GameBundle:
    """The bundle of a record read from a file, which has no store around it: entrants
    from its ``meta`` (one per team, as the arena writes it) or else "seat N", its game
    index from ``meta`` or 0, the run named ``name``; the seats' logs from ``log_dir``
    (``seat0.log`` …) if given, and no other seatings."""
    meta = record.get("meta")
    entrants = meta.get("entrants") if isinstance(meta, dict) else None
    labels = tuple(f"seat {seat}" for seat in range(SEATS))
    if (
        isinstance(entrants, list)
        and len(entrants) == 3
        and all(isinstance(e, dict) and isinstance(e.get("name"), str) for e in entrants)
    ):
        by_team = [entrant_label(e["name"], str(e.get("version") or "")) for e in entrants]
        labels = tuple(by_team[team_of(seat)] for seat in range(SEATS))
    index = meta.get("game_index") if isinstance(meta, dict) else None
    return GameBundle(
        game_id=index if type(index) is int else 0,
        run_id=name,
        record=record,
        labels=labels,
        seed_index=index if type(index) is int else 0,
        log_tails=((),) * SEATS if log_dir is None else seat_log_tails(log_dir),
        siblings=(),
    )


# A match id as the arena makes them (``play-3``, ``play-20250101-120000-a1b2c3``, ``t0-s1-…``):
# one path component, never "." or "..".
_MATCH_ID: Final = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")


def record_log_dir(record: Mapping[str, Any], path: Path) -> Path | None:
    """Where ``arena play`` left the seat logs of the record at ``path``: it writes
    ``OUT/games/<match id>.json.gz`` and ``OUT/logs/<match id>/seat0.log`` …, and the
    record's ``meta`` names the match. None when there is no such directory."""
    meta = record.get("meta")
    match_id = meta.get("match_id") if isinstance(meta, Mapping) else None
    if not isinstance(match_id, str) or not _MATCH_ID.fullmatch(match_id):
        return None
    games = path.resolve().parent
    if games.name != "games":
        return None
    directory = games.parent / "logs" / match_id
    return directory if directory.is_dir() else None


def replay_document(bundle: GameBundle) -> dict[str, Json]:
    """The replay page's data: the bundle's record replayed through the engine.

    Raises ``ReplayMismatchError`` if the record does not replay (as ``arena replay``).
    """
    record = bundle.record
    game = replay(record)  # the record is proof of a legal game, or nothing is shown
    intern = _Interner()
    steps, opening_scores = _steps(record, intern)
    sibling_games, siblings = _siblings(bundle.siblings)
    first_step: dict[int, int] = {}
    scored_step: dict[int, int] = {}
    end_step: dict[int, int] = {}
    for index, step in enumerate(steps):
        first_step.setdefault(step["deal"], index)
        if step["kind"] == "scored":
            scored_step[step["deal"]] = index
        if step["kind"] in ("scored", "thrown_in"):
            end_step[step["deal"]] = index
    deals = []
    for deal in game.deals:
        summary = _deal_summary(deal)
        summary["first_step"] = first_step[deal.number]
        summary["scored_step"] = scored_step.get(deal.number)
        summary["end_step"] = end_step.get(deal.number)
        summary["siblings"] = siblings.get(deal.number, [])
        deals.append(summary)
    outcome = game.outcome
    labels = [printable(label, LABEL_LIMIT) for label in bundle.labels]
    return {
        "format": DOCUMENT_FORMAT,
        "version": DOCUMENT_VERSION,
        "game": {
            "id": bundle.game_id,
            "run": printable(str(bundle.run_id), LABEL_LIMIT),
            "seed_index": bundle.seed_index,
            "labels": labels,
            "team_of_seat": [team_of(seat) for seat in range(SEATS)],
            "first_dealer": game.first_dealer,
            "draw_limit": game.draw_limit,
            "result": None
            if outcome is None
            else {
                "winner": outcome.winner,
                "scores": list(outcome.scores),
                "deals": outcome.deals,
            },
            "over": game.phase is Phase.OVER,
            "siblings": sibling_games,
        },
        "chart": [list(opening_scores)]
        + [list(deal.scores_after) for deal in game.deals if len(deal.tricks) == 6],
        "deals": deals,
        "logs": [[printable(line, LOG_LINE_LIMIT) for line in tail] for tail in bundle.log_tails],
        # By column, each key written once: {"kind": [...], "deal": [...], ...}.
        "steps": {key: [step.get(key) for step in steps] for key in STEP_KEYS},
        "table": intern.table,
    }


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def render_replay(bundle: GameBundle) -> str:
    """The replay page of ``bundle``'s game: one HTML file, no request of any kind."""
    document = replay_document(bundle)
    script = _asset("replay.js")
    style = _asset("replay.css")
    policy = content_security_policy(script, data_images=True)
    title = html.escape(f"Schmier game {bundle.game_id}")
    return _PAGE.format(
        policy=policy,
        title=title,
        style=style,
        data=script_json(document),
        script=script,
    )


def write_replay(bundle: GameBundle, path: Path) -> None:
    """Write the replay page of ``bundle``'s game to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_replay(bundle), encoding="utf-8")


_PAGE: Final = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{title}</title>
<style>{style}</style>
</head>
<body>
<noscript>This replay needs JavaScript (it runs offline; the page loads nothing).</noscript>
<script id="replay-data" type="application/json">{data}</script>
<script>{script}</script>
</body>
</html>
"""
