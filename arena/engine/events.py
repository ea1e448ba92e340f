"""What the table learns as the game goes on, each event marked with who may know it (R10).

Events are named tuples because the engine makes one per card played, on the hot path.

An event with ``audience is None`` is public; otherwise only that seat may be told.
``is_told_to`` is the one place that reads this (R10): the wire's ``EventTranslator``,
which turns events into what each seat is sent, asks it and never decides visibility
itself.
"""

from __future__ import annotations

from typing import NamedTuple

from arena.engine.cards import Card, CardSet, Suit


class DealStarted(NamedTuple):
    """A new deal (R3): its number (thrown-in deals count, R3.1a) and dealer."""

    deal_number: int
    dealer: int
    audience: None = None


class HandDealt(NamedTuple):
    """R3.2: a seat's own six cards; told to that seat only."""

    seat: int
    cards: CardSet

    @property
    def audience(self) -> int:
        return self.seat


class BidMade(NamedTuple):
    """R4.2: a bid (``amount`` 3‥6) or a pass (``amount`` 0)."""

    seat: int
    amount: int
    audience: None = None


class DealThrownIn(NamedTuple):
    """R4.5: all six passed; the same dealer deals again."""

    deal_number: int
    audience: None = None


class TrumpNamed(NamedTuple):
    """R5.1: the bidder names trump; ``contract`` is their bid."""

    seat: int
    suit: Suit
    contract: int
    audience: None = None


class Exchanged(NamedTuple):
    """R5.2-R5.3: how many cards a seat put down and took up (public counts only)."""

    seat: int
    discarded: int
    received: int
    audience: None = None


class OwnExchange(NamedTuple):
    """R5.2-R5.3: which cards a seat discarded and received; told to that seat only.

    A non-dealer gets one, after its exchange. The dealer gets two: its pick-up from the
    stock (``received``) as soon as it has picked up, before it must discard (R5.3,
    R10), then its discard (``discarded``).
    """

    seat: int
    discarded: CardSet
    received: CardSet

    @property
    def audience(self) -> int:
        return self.seat


class CardPlayed(NamedTuple):
    """R7.2: a card played to the current trick."""

    seat: int
    card: Card
    audience: None = None


class TrickWon(NamedTuple):
    """R7.3: the winner of trick ``trick_number`` (1‥6), who leads next."""

    trick_number: int
    winner: int
    audience: None = None


class DealScored(NamedTuple):
    """R6 and R8: which team won each point, the points per team and the new scores.

    ``categories`` maps "high", "low", "right", "left", "joker", "game" to a team, or
    None for a Game point that nobody won (R6.2).
    """

    deal_number: int
    bidder: int
    contract: int
    categories: tuple[tuple[str, int | None], ...]
    game_totals: tuple[int, int, int]
    points: tuple[int, int, int]
    scores: tuple[int, int, int]
    audience: None = None


class GameEnded(NamedTuple):
    """R9: the winning team, or None for a draw (R9.4)."""

    winner: int | None
    scores: tuple[int, int, int]
    deals: int
    audience: None = None


Event = (
    DealStarted
    | HandDealt
    | BidMade
    | DealThrownIn
    | TrumpNamed
    | Exchanged
    | OwnExchange
    | CardPlayed
    | TrickWon
    | DealScored
    | GameEnded
)


def is_public(event: Event) -> bool:
    """R10: whether every seat may be told ``event``."""
    return event.audience is None


def is_told_to(event: Event, seat: int) -> bool:
    """R10: whether ``seat`` may be told ``event``: the public events and its own."""
    audience = event.audience
    return audience is None or audience == seat
