"""Sample bot `pimc`: Perfect Information Monte Carlo, a searching reference opponent.

For each decision it samples complete deals consistent with what it knows
(``arena.engine.Determinizer``: voids, discard rules, counts — R5, R7.2, R10), plays
each legal choice out to the end of the deal on every sample with a fast greedy-like
policy for all seats, and picks the choice with the best average result for its team
(its own deal score, R8, less the mean of the other two teams'). Bids and trump are
chosen by simulating the deal as bidder under each trump; discards among a few
sensible subsets (never every subset).

Time: ``--budget-ms`` (in ``bot.toml``'s ``command``, default 200) per decision, never
more than half of the referee's decision time (docs/PROTOCOL.md: ``decision_ms``).
"""

from __future__ import annotations

import argparse
import random
import time

from arena.engine import (
    ACE,
    JOKER,
    PASS,
    PLAYS,
    TRUMPS,
    Action,
    CardSet,
    DecisionKind,
    Determinizer,
    Discard,
    Game,
    Suit,
    card_value,
    effective_suit,
    indices_of_mask,
    left_bauer,
    right_bauer,
    team_of,
    trick_power,
    trump_cards,
)
from arena.sdk import Bot, Decision, run

DEFAULT_BUDGET_MS = 200
MIN_SAMPLES = 1  # even when late, one whole sample: a choice needs at least one deal
MAX_SAMPLES = 400
# What a team gets from a deal it does not bid in, on average (6 points, bidder ~3).
PASS_VALUE = 1.0


class Tables:
    """Per-trump card facts by index, computed once: the rollouts' only arithmetic."""

    def __init__(self, trump: Suit) -> None:
        cards = [PLAYS[i].card for i in range(53)]
        self.trumps = trump_cards(trump).mask
        self.power = [trick_power(c, trump) for c in cards]
        self.suit = [int(effective_suit(c, trump)) for c in cards]
        self.value = [card_value(c) for c in cards]
        scoring = right_bauer(trump).bit | left_bauer(trump).bit | JOKER.bit
        # What giving a card away costs: Game value, and the bauers' and joker's points.
        self.weight = [
            card_value(c) * 10 + (60 if scoring >> c.index & 1 else 0) + self.power[c.index]
            for c in cards
        ]
        self.keep = [  # how much a card is worth keeping in a discard (high is kept)
            self.weight[c.index] + (50 if c.rank == ACE else 0) for c in cards
        ]


TABLES = {suit: Tables(suit) for suit in Suit}


def beats(t: Tables, card: int, best: int, led: int) -> bool:
    """R7.3: whether ``card`` takes the trick from ``best`` (trumps are above 100)."""
    if t.power[card] > 100:
        return t.power[card] > t.power[best]
    return t.power[best] < 100 and t.suit[card] == led and t.power[card] > t.power[best]


def rollout_play(game: Game, t: Tables) -> int:
    """A card for the seat to act: greedy's ideas in a few table lookups."""
    legal = game.legal_play_mask()
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    cards = indices_of_mask(legal)
    leader, played = game.current_trick
    power, weight = t.power, t.weight
    if not played:
        trumps = [c for c in cards if t.trumps >> c & 1]
        if trumps and power[max(trumps, key=power.__getitem__)] >= 114:  # A or K of trump
            return max(trumps, key=power.__getitem__)
        plain = [c for c in cards if not t.trumps >> c & 1]
        aces = [c for c in plain if power[c] == 13]
        if aces:
            return aces[0]
        return min(plain or cards, key=weight.__getitem__)
    seat = game.to_act
    led = t.suit[played[0].index]
    best, best_at = played[0].index, 0
    for position, card in enumerate(played[1:], 1):
        c = card.index
        if beats(t, c, best, led):
            best, best_at = c, position
    last = len(played) == 5
    if (leader + best_at - seat) % 3 == 0:  # the partner is winning
        if last or power[best] >= 113:
            return max(cards, key=lambda c: (t.value[c], -power[c]))
        return min(cards, key=weight.__getitem__)
    if power[best] > 100:
        winners = [c for c in cards if power[c] > power[best]]
    else:
        winners = [
            c for c in cards if power[c] > 100 or (t.suit[c] == led and power[c] > power[best])
        ]
    stake = sum(weight[c.index] for c in played)
    if winners and (last or stake >= 20 or power[best] < 100):
        return min(winners, key=power.__getitem__)
    return min(cards, key=weight.__getitem__)


def rollout_discard(game: Game, t: Tables) -> Discard:
    rule = game.discard_rule()
    spare = sorted(indices_of_mask(rule.may.mask & ~rule.must.mask), key=t.keep.__getitem__)
    if rule.dealer:
        chosen = rule.must.mask
        for c in spare[: rule.min_count - len(rule.must)]:
            chosen |= 1 << c
        return Discard(CardSet(chosen))
    weak = [c for c in spare if t.power[c] not in (13, 9)][: rule.max_count]  # keep A, T
    return Discard(CardSet(sum(1 << c for c in weak)))


def best_rollout_trump(hand: int) -> Suit:
    """The suit with the most trumps in ``hand`` (the others' trump choice in a rollout)."""
    return max(Suit, key=lambda s: ((hand & TABLES[s].trumps).bit_count(), -s))


def finish_deal(game: Game) -> None:
    """Every seat plays the fast policy until the deal in progress is scored."""
    deals = len(game.deals)
    while len(game.deals) == deals and not game.is_over:
        kind = game.decision_kind
        if kind is DecisionKind.PLAY:
            assert game.trump is not None
            game.apply(PLAYS[rollout_play(game, TABLES[game.trump])])
        elif kind is DecisionKind.DISCARD:
            assert game.trump is not None
            game.apply(rollout_discard(game, TABLES[game.trump]))
        elif kind is DecisionKind.TRUMP:
            game.apply(TRUMPS[best_rollout_trump(game.hands[game.to_act])])
        else:
            game.apply(PASS)


def deal_deltas(game: Game, deal_index: int) -> tuple[int, int, int]:
    """Each team's score change in that deal (R8.1-R8.2: a set-back loses the contract)."""
    deal = game.deals[deal_index]
    if deal.bidder is None:
        return (0, 0, 0)
    bidding = team_of(deal.bidder)
    return tuple(  # type: ignore[return-value]
        -deal.contract
        if team == bidding and deal.points[team] < deal.contract
        else deal.points[team]
        for team in range(3)
    )


def team_value(deltas: tuple[int, int, int], team: int) -> float:
    others = sum(deltas) - deltas[team]
    return deltas[team] - others / 2


class PimcBot(Bot):
    name = "pimc"
    version = "1"

    def __init__(self, budget_ms: int = DEFAULT_BUDGET_MS) -> None:
        self.budget = budget_ms / 1000
        self.rng = random.Random()
        self.last_samples = 0  # deals sampled for the last decision (arena bench pimc)

    def decide(self, decision: Decision) -> Action:
        started = time.perf_counter()
        kind = decision.kind
        if kind is DecisionKind.PLAY and len(decision.legal) == 1:
            return decision.legal[0]
        determinizer = Determinizer(decision.engine_view)
        budget = self.budget
        if decision.time_ms:  # never more than half the referee's decision time
            budget = min(budget, decision.time_ms / 2000)
        deadline = started + budget
        if kind is DecisionKind.BID:
            return self._bid(decision, determinizer, deadline)
        candidates: list[Action]
        if kind is DecisionKind.TRUMP:
            candidates = list(TRUMPS)
        elif kind is DecisionKind.DISCARD:
            candidates = discard_candidates(decision)
        else:
            candidates = list(decision.legal)
        if len(candidates) == 1:
            return candidates[0]
        team = team_of(decision.seat)
        totals = [0.0] * len(candidates)
        samples = 0
        while samples < MIN_SAMPLES or (samples < MAX_SAMPLES and time.perf_counter() < deadline):
            game = determinizer.sample(self.rng)
            deal_index = len(game.deals) - 1
            values = []
            for action in candidates:
                trial = game.copy()
                trial.apply(action)
                finish_deal(trial)
                values.append(team_value(deal_deltas(trial, deal_index), team))
                if samples >= MIN_SAMPLES and time.perf_counter() > deadline:
                    break  # out of time: this sample is left unfinished, and out
            if len(values) < len(candidates):
                break
            totals = [total + value for total, value in zip(totals, values, strict=True)]
            samples += 1
        self.last_samples = samples
        return candidates[max(range(len(candidates)), key=totals.__getitem__)]

    def _bid(self, decision: Decision, determinizer: Determinizer, deadline: float) -> Action:
        """Simulate the deal as bidder under each trump; bid the amount whose expected
        score (R8.1: the points taken, or minus the contract) beats passing."""
        legal = [a for a in decision.legal if a is not PASS]
        if not legal:
            return PASS
        lowest = legal[0]
        seat = decision.seat
        team = team_of(seat)
        points: list[list[int]] = [[] for _ in Suit]
        samples = 0
        while samples < MIN_SAMPLES or (samples < MAX_SAMPLES and time.perf_counter() < deadline):
            game = determinizer.sample(self.rng)
            for suit in Suit:
                trial = game.copy()
                trial.apply(lowest)
                while trial.decision_kind is DecisionKind.BID:
                    trial.apply(PASS)  # the others let this seat have the contract
                trial.apply(TRUMPS[suit])
                deal_index = len(trial.deals) - 1
                finish_deal(trial)
                points[suit].append(trial.deals[deal_index].points[team])
            samples += 1
        self.last_samples = samples
        view = decision.engine_view
        dealer_alone = seat == view.dealer and view.bidder is None
        pass_value = 0.0 if dealer_alone else PASS_VALUE  # R4.5: all pass, nothing scored
        if view.bidder is not None and team_of(view.bidder) == team:
            pass_value += 1.0  # the partner already bids: outbid it only when clearly better
        best_action: Action = PASS
        best = pass_value
        for action in legal:
            amount = action.amount  # type: ignore[union-attr]
            for taken in points:
                value = sum(p if p >= amount else -amount for p in taken) / len(taken)
                if value > best:
                    best_action, best = action, value
        return best_action


def discard_candidates(decision: Decision) -> list[Action]:
    """A few subsets: for a non-dealer the 0 to 3 weakest spare cards; for the dealer
    the weakest by three orders (R5.2-R5.4 hold for each)."""
    rule = decision.discard_rule
    assert decision.trump is not None
    t = TABLES[decision.trump]
    spare = indices_of_mask(rule.may.mask & ~rule.must.mask)
    if not rule.dealer:
        weak = sorted(spare, key=t.keep.__getitem__)
        return [Discard(CardSet(sum(1 << c for c in weak[:k]))) for k in range(rule.max_count + 1)]
    need = rule.min_count - len(rule.must)
    orders = (
        sorted(spare, key=t.keep.__getitem__),
        sorted(spare, key=t.power.__getitem__),
        sorted(spare, key=lambda c: (t.value[c], t.power[c])),
    )
    seen: dict[int, Action] = {}
    for order in orders:
        mask = rule.must.mask | sum(1 << c for c in order[:need])
        seen.setdefault(mask, Discard(CardSet(mask)))
    return list(seen.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget-ms", type=int, default=DEFAULT_BUDGET_MS)
    run(PimcBot(parser.parse_args().budget_ms))


if __name__ == "__main__":
    main()
