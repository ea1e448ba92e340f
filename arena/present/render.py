"""Text renderings of a game record, readable as a card table (``arena replay``).

Every action the referee played in a seat's place (a fallback, docs/PROTOCOL.md "Faults")
is marked where it appears, with the fault and its reason on a line below, so that no
fallback reads as the bot's own move.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from arena.engine.forfeit import RULE as FORFEIT_RULE
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


def result_text(
    winner: int | None,
    forfeited: Sequence[int],
    teams: Sequence[str],
    forfeit_deals: int | None = None,
) -> str:
    """How a game ended, in words: who won, a draw (R9.4), or who forfeited (F1, after
    ``forfeit_deals`` deals without a decision of their own, where it is known)."""
    if not forfeited:
        return "draw" if winner is None else f"{teams[winner]} wins"
    lost = " and ".join(teams[team] for team in forfeited)
    verb = "forfeits" if len(forfeited) == 1 else "forfeit"
    span = "deal after deal" if forfeit_deals is None else f"{forfeit_deals} deals in a row"
    head = f"{lost} {verb} ({FORFEIT_RULE}: a seat made no decision of its own in {span})"
    if winner is not None:
        return f"{head}; {teams[winner]} wins"
    left = [teams[team] for team in range(3) if team not in forfeited]
    return f"{head}; {' and '.join(left)} are level: neither wins" if left else head


class _Fallbacks:
    """A deal's decisions in the engine's order, to mark the ones the referee played: each
    rendered action asks ``mark`` for its marker and collects its note line."""

    def __init__(self, deal: dict[str, Any]) -> None:
        decisions = deal.get("decisions")  # absent before version 3
        self._decisions: list[Any] = decisions if isinstance(decisions, list) else []
        self._next = 0
        self.notes: list[str] = []

    def mark(self, seat: int, what: str) -> str:
        """The marker of the next decision (" [fallback]" or ""), its note kept."""
        index = self._next
        self._next += 1
        entry = self._decisions[index] if index < len(self._decisions) else None
        fallback = entry.get("fallback") if isinstance(entry, dict) else None
        if not isinstance(fallback, dict):
            return ""
        sent = fallback.get("sent") or ""
        note = f"    fallback: seat {seat}'s {what} is the referee's, not the bot's: "
        note += f"{fallback.get('fault')}: {fallback.get('reason')}"
        self.notes.append(note + (f" (the bot sent {sent})" if sent else ""))
        return " [fallback]"

    def take(self) -> list[str]:
        notes, self.notes = self.notes, []
        return notes


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
        fallbacks = _Fallbacks(deal)
        bids = []
        for b in deal["bids"]:
            said = "passes" if b["bid"] == 0 else f"bids {b['bid']}"
            marker = fallbacks.mark(b["seat"], "pass" if b["bid"] == 0 else "bid")
            bids.append(f"seat {b['seat']} {said}{marker}")
        if not bids:  # the game ended as this deal was dealt (F1), or a record stops here
            yield "  no decision taken in this deal"
            continue
        yield f"  bidding: {', '.join(bids)}"
        yield from fallbacks.take()
        if deal["thrown_in"]:
            yield "  all passed: thrown in, the same dealer deals again (R4.5)"
            continue
        if "trump" not in deal:
            continue
        marker = fallbacks.mark(deal["bidder"], "trump")
        yield (
            f"  seat {deal['bidder']} names {SUIT_NAMES[deal['trump']]} trump{marker}, "
            f"contract {deal['contract']}"
        )
        yield from fallbacks.take()
        for exchange in deal["exchanges"]:
            gave = " ".join(exchange["discarded"]) or "nothing"
            got = " ".join(exchange["received"]) or "nothing"
            marker = fallbacks.mark(exchange["seat"], "discard")
            yield f"  seat {exchange['seat']} discards {gave}{marker}, draws {got}"
            yield from fallbacks.take()
        dealer_exchange = deal.get("dealer_exchange")
        if dealer_exchange and dealer_exchange["discarded"]:
            marker = fallbacks.mark(deal["dealer"], "discard")
            yield (
                f"  dealer seat {deal['dealer']} picks up {' '.join(dealer_exchange['picked_up'])}"
                f" and discards {' '.join(dealer_exchange['discarded'])}{marker}"
            )
            yield from fallbacks.take()
        for number, trick in enumerate(deal["tricks"], start=1):
            plays = []
            for i, card in enumerate(trick["cards"]):
                seat = (trick["leader"] + i) % 6
                plays.append(f"{seat}:{card}{fallbacks.mark(seat, 'card ' + card)}")
            won = "in progress" if trick["winner"] is None else f"seat {trick['winner']} wins"
            yield f"  trick {number}: {' '.join(plays)}  → {won}"
            yield from fallbacks.take()
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
        deals = record.get("forfeit_deals")
        said = result_text(result["winner"], result.get("forfeited", []), teams, deals)
        said = f"{said[0].upper()}{said[1:]}"
        yield f"{said} after {result['deals']} deals; scores {result['scores']}"
