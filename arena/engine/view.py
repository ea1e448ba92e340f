"""What one seat may know of a game (R10), and nothing else.

``view(game, seat)`` is the only way another layer learns about a game on behalf of a
seat: the referee builds every decision request from it.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.engine.actions import DecisionKind
from arena.engine.cards import Card, CardSet, Suit
from arena.engine.game import STOCK_SIZE, Game, Phase, Trick, team_of


@dataclass(frozen=True, slots=True)
class View:
    """One seat's knowledge of the game at this moment (R10)."""

    seat: int
    team: int
    deal_number: int
    dealer: int
    phase: Phase
    to_act: int | None
    decision: DecisionKind | None
    scores: tuple[int, int, int]
    hand: CardSet
    bids: tuple[tuple[int, int], ...]  # (seat, amount), 0 = pass, in order (R4)
    bidder: int | None
    contract: int
    trump: Suit | None
    exchanges: tuple[tuple[int, int, int], ...]  # (seat, discarded, received) counts (R5.2)
    own_discarded: CardSet  # R3.2: a seat knows its own discards
    own_received: CardSet  # its replacements, or for the dealer the pick-up (R5.3)
    tricks: tuple[Trick, ...]  # completed tricks of this deal
    trick_leader: int | None  # the trick in progress
    trick_cards: tuple[tuple[int, Card], ...]  # (seat, card) played to it so far

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """Public: how many cards each seat holds now."""
        if self.phase is Phase.PLAY:
            sizes = [6 - len(self.tricks)] * 6
            for seat, _ in self.trick_cards:
                sizes[seat] -= 1
            return tuple(sizes)
        if self.phase is Phase.OVER:
            return (0,) * 6
        sizes = [6] * 6
        if self.phase is Phase.DISCARD and self.to_act == self.dealer:
            # R5.3: the dealer has picked up what the others left in the stock.
            sizes[self.dealer] += STOCK_SIZE - sum(received for _, _, received in self.exchanges)
        return tuple(sizes)


def view(game: Game, seat: int) -> View:
    """R10: what ``seat`` may know now; never another hand, discard or the stock."""
    if not 0 <= seat < 6:
        raise ValueError(f"R1.1: seats are 0..5, not {seat}")
    deal = game.deal
    own_discarded = own_received = 0
    exchanges: list[tuple[int, int, int]] = []
    for who, discarded, received in deal.exchanges:
        exchanges.append((who, discarded.bit_count(), len(received)))
        if who == seat:
            own_discarded = discarded
            for index in received:
                own_received |= 1 << index
    dealer_done = game.phase in (Phase.PLAY, Phase.OVER) and deal.trump is not None
    if dealer_done:
        exchanges.append((deal.dealer, deal.dealer_discard.bit_count(), len(deal.dealer_pickup)))
    if seat == deal.dealer and deal.dealer_pickup:
        # R10: the dealer alone is told the cards picked up from the stock.
        for index in deal.dealer_pickup:
            own_received |= 1 << index
        own_discarded = deal.dealer_discard
    in_progress = game.phase is Phase.PLAY
    leader, cards = game.current_trick
    return View(
        seat=seat,
        team=team_of(seat),
        deal_number=deal.number,
        dealer=deal.dealer,
        phase=game.phase,
        to_act=None if game.is_over else game.to_act,
        decision=game.decision_kind,
        scores=(game.scores[0], game.scores[1], game.scores[2]),
        hand=game.hand(seat) if not game.is_over else CardSet(0),
        bids=tuple(deal.bids),
        bidder=deal.bidder,
        contract=deal.contract,
        trump=deal.trump,
        exchanges=tuple(exchanges),
        own_discarded=CardSet(own_discarded),
        own_received=CardSet(own_received),
        tricks=tuple(deal.tricks),
        trick_leader=leader if in_progress else None,
        trick_cards=tuple(((leader + i) % 6, c) for i, c in enumerate(cards))
        if in_progress
        else (),
    )
