"""Sample bot `greedy`: a simple, honest heuristic player of Schmier.

- bids what its hand can surely take (High and Low in hand, bauers, joker, length);
- names the suit that makes its hand strongest;
- discards its weakest non-trumps, keeping aces and tens;
- wins tricks that hold points when it can, as cheaply as it can, leads sure
  trump winners to draw the others' trumps, and gives its tens only to tricks its own
  side is winning.
"""

from __future__ import annotations

from arena.engine import (
    ACE,
    JOKER,
    PASS,
    PLAYS,
    TEN,
    TRUMPS,
    TWO,
    Card,
    CardSet,
    Discard,
    Suit,
    beats,
    card_of,
    card_value,
    effective_suit,
    is_trump,
    left_bauer,
    right_bauer,
    trick_power,
    trump_cards,
    winning_card,
    winning_position,
)
from arena.sdk import Bot, Decision, run


def trump_strength(hand: CardSet, trump: Suit) -> float:
    """Points the bidding side may expect with ``trump``: sure ones and likely ones."""
    trumps = hand & trump_cards(trump)
    expected = 0.0
    if card_of(trump, ACE) in trumps:
        expected += 1.0  # High is the holder's (R6.1)
    if card_of(trump, TWO) in trumps:
        expected += 1.0  # so is Low
    if right_bauer(trump) in trumps:
        expected += 0.75
    if left_bauer(trump) in trumps:
        expected += 0.5
    if JOKER in trumps:
        expected += 0.4
    expected += 0.3 * max(0, len(trumps) - 2)
    return expected


def best_trump(hand: CardSet) -> tuple[Suit, float]:
    return max(((s, trump_strength(hand, s)) for s in Suit), key=lambda x: (x[1], -x[0]))


def point_weight(card: Card, trump: Suit) -> int:
    """How much giving this card away costs: game value, plus the scoring trumps."""
    weight = card_value(card) * 10
    if card in (right_bauer(trump), left_bauer(trump), JOKER):
        weight += 60
    return weight + trick_power(card, trump)


class GreedyBot(Bot):
    name = "greedy"
    version = "1"

    def bid(self, decision: Decision):
        _, strength = best_trump(decision.hand)
        # The partner and the exchange usually add about a point.
        amount = int(strength + 0.9)
        for action in decision.legal[1:]:
            if action.amount == min(amount, 6):
                return action
        return PASS

    def trump(self, decision: Decision):
        return TRUMPS[best_trump(decision.hand)[0]]

    def discard(self, decision: Decision):
        rule = decision.discard_rule
        assert decision.trump is not None
        trump = decision.trump
        spare = rule.may - rule.must
        # Weakest first: low plain cards, keeping aces and tens for last.
        order = sorted(spare, key=lambda c: point_weight(c, trump) + (50 if c.rank == ACE else 0))
        wanted = rule.max_count if not rule.dealer else rule.min_count
        if not rule.dealer:
            order = [c for c in order if c.rank not in (ACE, TEN)]
            wanted = min(wanted, len(order))
        chosen = rule.must | CardSet.of(order[: max(0, wanted - len(rule.must))])
        return Discard(chosen)

    def play(self, decision: Decision):
        view = decision.engine_view
        trump = decision.trump
        assert trump is not None
        seat = decision.seat
        legal = [a.card for a in decision.legal]
        trick_cards = [card for _, card in view.trick_cards]
        played = CardSet.of(trick_cards)
        for trick in view.tricks:
            played |= CardSet.of(trick.cards)
        unseen_trumps = trump_cards(trump) - played - decision.hand
        top_unseen = max((trick_power(c, trump) for c in unseen_trumps), default=0)

        def power(card: Card) -> int:
            return trick_power(card, trump)

        def weight(card: Card) -> int:
            return point_weight(card, trump)

        if not trick_cards:
            sure = [c for c in legal if is_trump(c, trump) and power(c) > top_unseen]
            if sure and unseen_trumps:
                return self._action(max(sure, key=power))
            plain = [c for c in legal if not is_trump(c, trump)]
            pool = [c for c in plain if c.rank == ACE] or plain or legal
            if pool[0].rank == ACE:
                return self._action(pool[0])
            return self._action(min(pool, key=weight))

        position = len(trick_cards)
        last = position == 5
        leader = view.trick_leader
        assert leader is not None
        winner_seat = (leader + winning_position(trick_cards, trump)) % 6
        partner_winning = winner_seat % 3 == seat % 3
        best = winning_card(trick_cards, trump)
        led = effective_suit(trick_cards[0], trump)
        winners = [c for c in legal if beats(c, best, trump, led)]
        at_stake = sum(weight(c) for c in trick_cards)

        if partner_winning:
            safe = last or (power(best) > top_unseen and is_trump(best, trump))
            if safe:
                return self._action(max(legal, key=lambda c: (card_value(c), -power(c))))
            return self._action(min(legal, key=weight))
        if winners:
            sure_winners = [c for c in winners if last or power(c) > top_unseen]
            if sure_winners and (at_stake >= 20 or last):
                return self._action(min(sure_winners, key=power))
            if at_stake >= 40 or led != trump:
                return self._action(min(winners, key=power))
        return self._action(min(legal, key=weight))

    @staticmethod
    def _action(card: Card):
        return PLAYS[card.index]


if __name__ == "__main__":
    run(GreedyBot())
