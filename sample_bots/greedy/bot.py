"""Sample bot `greedy`: a simple, honest heuristic player of Schmier.

- bids what its hand can surely take (High and Low in hand, bauers, joker, length);
- names the suit that makes its hand strongest;
- discards its weakest non-trumps, keeping aces and tens;
- wins tricks that hold points when it can, as cheaply as it can, leads sure
  trump winners to draw the others' trumps, and gives its tens only to tricks its own
  side is winning.
"""

from __future__ import annotations

from arena.engine import PASS, TRUMPS, Card, CardSet, Discard, Suit
from arena.engine.cards import (
    ACE,
    CARDS,
    EFFECTIVE_SUITS,
    GAME_VALUES,
    JOKER,
    POWER,
    TEN,
    TRUMP_MASKS,
    TWO,
    card_of,
    cards_of_mask,
    left_bauer,
    right_bauer,
)
from arena.engine.game import winning_position
from arena.sdk import Bot, Decision, run


def trump_strength(hand: int, trump: Suit) -> float:
    """Points the bidding side may expect with ``trump``: sure ones and likely ones."""
    trumps = hand & TRUMP_MASKS[trump]
    expected = 0.0
    if trumps & card_of(trump, ACE).bit:
        expected += 1.0  # High is the holder's (R6.1)
    if trumps & card_of(trump, TWO).bit:
        expected += 1.0  # so is Low
    if trumps & right_bauer(trump).bit:
        expected += 0.75
    if trumps & left_bauer(trump).bit:
        expected += 0.5
    if trumps & JOKER.bit:
        expected += 0.4
    expected += 0.3 * max(0, trumps.bit_count() - 2)
    return expected


def best_trump(hand: int) -> tuple[Suit, float]:
    return max(((s, trump_strength(hand, s)) for s in Suit), key=lambda x: (x[1], -x[0]))


def point_weight(card: Card, trump: Suit) -> int:
    """How much giving this card away costs: game value, plus the scoring trumps."""
    weight = GAME_VALUES[card.index] * 10
    if card.index in (right_bauer(trump).index, left_bauer(trump).index, JOKER.index):
        weight += 60
    return weight + POWER[trump][card.index]


class GreedyBot(Bot):
    name = "greedy"
    version = "1"

    def bid(self, decision: Decision):
        _, strength = best_trump(decision.hand.mask)
        # The partner and the exchange usually add about a point.
        amount = int(strength + 0.9)
        for action in decision.legal[1:]:
            if action.amount == min(amount, 6):
                return action
        return PASS

    def trump(self, decision: Decision):
        return TRUMPS[best_trump(decision.hand.mask)[0]]

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
        view = decision.view
        trump = decision.trump
        assert trump is not None
        seat = decision.seat
        legal = [a.card for a in decision.legal]
        played = 0
        for trick in view.tricks:
            for text in trick.cards:
                played |= Card.parse(text).bit
        trick_cards = [Card.parse(t).index for t in view.current_trick.cards]
        for index in trick_cards:
            played |= 1 << index
        unseen_trumps = TRUMP_MASKS[trump] & ~played & ~decision.hand.mask
        power = POWER[trump]
        top_unseen = max((power[c.index] for c in cards_of_mask(unseen_trumps)), default=0)

        def weight(card: Card) -> int:
            return point_weight(card, trump)

        if not trick_cards:
            sure = [c for c in legal if c.bit & TRUMP_MASKS[trump] and power[c.index] > top_unseen]
            if sure and unseen_trumps:
                return self._action(max(sure, key=lambda c: power[c.index]))
            plain = [c for c in legal if not c.bit & TRUMP_MASKS[trump]]
            pool = [c for c in plain if c.rank == ACE] or plain or legal
            if pool[0].rank == ACE:
                return self._action(pool[0])
            return self._action(min(pool, key=weight))

        position = len(trick_cards)
        last = position == 5
        leader = view.current_trick.leader
        winner_seat = (leader + winning_position(trump, trick_cards)) % 6
        partner_winning = winner_seat % 3 == seat % 3
        winners = [c for c in legal if winning_position(trump, [*trick_cards, c.index]) == position]
        at_stake = sum(weight(CARDS[i]) for i in trick_cards)

        if partner_winning:
            winning_card = trick_cards[winning_position(trump, trick_cards)]
            safe = last or (
                power[winning_card] > top_unseen and winning_card in TRUMP_MASKS_SET[trump]
            )
            if safe:
                return self._action(
                    max(legal, key=lambda c: (GAME_VALUES[c.index], -power[c.index]))
                )
            return self._action(min(legal, key=weight))
        if winners:
            sure_winners = [c for c in winners if last or power[c.index] > top_unseen]
            if sure_winners and (at_stake >= 20 or last):
                return self._action(min(sure_winners, key=lambda c: power[c.index]))
            if at_stake >= 40 or EFFECTIVE_SUITS[trump][trick_cards[0]] != trump:
                return self._action(min(winners, key=lambda c: power[c.index]))
        return self._action(min(legal, key=weight))

    @staticmethod
    def _action(card: Card):
        from arena.engine import PLAYS

        return PLAYS[card.index]


TRUMP_MASKS_SET = {s: {c.index for c in cards_of_mask(TRUMP_MASKS[s])} for s in Suit}


if __name__ == "__main__":
    run(GreedyBot())
