"""Text renderings of a game record, readable as a card table (``arena replay``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from arena.present.safe_text import printable

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
CATEGORY_NAMES = {
    "high": "High",
    "low": "Low",
    "right": "Right bauer",
    "left": "Left bauer",
    "joker": "Joker",
    "game": "Game",
}


def _team_names(record: dict[str, Any]) -> list[str]:
    meta = record.get("meta")
    entrants = meta.get("entrants") if isinstance(meta, dict) else None
    if (
        isinstance(entrants, list)
        and len(entrants) == 3
        and all(isinstance(e, dict) and isinstance(e.get("name"), str) for e in entrants)
    ):
        return [f"team {t} ({e['name']})" for t, e in enumerate(entrants)]
    return [f"team {t}" for t in range(3)]


def record_lines(record: dict[str, Any]) -> Iterator[str]:
    """The game deal by deal: hands, bids, trump, exchanges, tricks, points, scores.

    A record file may come from anywhere and names its entrants as their manifests did:
    every line is made printable (control characters escaped), so a line is only text.
    """
    for line in _lines(record):
        yield printable(line)


def _lines(record: dict[str, Any]) -> Iterator[str]:
    teams = _team_names(record)
    yield f"First dealer seat {record['first_dealer']}"
    yield "Teams: " + "; ".join(f"{name} = seats {t} and {t + 3}" for t, name in enumerate(teams))
    for deal in record["deals"]:
        yield ""
        yield f"Deal {deal['number']} — dealer seat {deal['dealer']}"
        for seat, hand in enumerate(deal["hands"]):
            yield f"  seat {seat} holds {' '.join(hand)}"
        bids = ", ".join(
            f"seat {b['seat']} {'passes' if b['bid'] == 0 else 'bids ' + str(b['bid'])}"
            for b in deal["bids"]
        )
        yield f"  bidding: {bids}"
        if deal["thrown_in"]:
            yield "  all passed: thrown in, the same dealer deals again (R4.5)"
            continue
        if "trump" not in deal:
            continue
        yield (
            f"  seat {deal['bidder']} names {SUIT_NAMES[deal['trump']]} trump, "
            f"contract {deal['contract']}"
        )
        for exchange in deal["exchanges"]:
            gave = " ".join(exchange["discarded"]) or "nothing"
            got = " ".join(exchange["received"]) or "nothing"
            yield f"  seat {exchange['seat']} discards {gave}, draws {got}"
        dealer_exchange = deal.get("dealer_exchange")
        if dealer_exchange and dealer_exchange["discarded"]:
            yield (
                f"  dealer seat {deal['dealer']} picks up {' '.join(dealer_exchange['picked_up'])}"
                f" and discards {' '.join(dealer_exchange['discarded'])}"
            )
        for number, trick in enumerate(deal["tricks"], start=1):
            plays = " ".join(
                f"{(trick['leader'] + i) % 6}:{card}" for i, card in enumerate(trick["cards"])
            )
            won = "in progress" if trick["winner"] is None else f"seat {trick['winner']} wins"
            yield f"  trick {number}: {plays}  → {won}"
        if "points" in deal:
            won = ", ".join(
                f"{CATEGORY_NAMES[name]} {'nobody' if team is None else 'team ' + str(team)}"
                for name, team in deal["points"].items()
            )
            yield f"  points: {won}"
            yield f"  card values (R6.2): {deal['game_totals']}; points won {deal['points_won']}"
            yield f"  scores: {deal['scores']}"
    result = record.get("result")
    yield ""
    if result is None:
        yield "The game is unfinished."
    elif result["draw"]:
        yield f"Draw after {result['deals']} deals (R9.4); scores {result['scores']}"
    else:
        yield (
            f"{teams[result['winner']]} wins after {result['deals']} deals; "
            f"scores {result['scores']}"
        )
