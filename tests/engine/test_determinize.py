"""Determinization: every sample agrees with the seat's view (R10), and the hidden cards
are placed uniformly among the placements the public facts allow (R5.2, R5.4, R7.2)."""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
from collections import Counter
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import (
    ACE,
    JOKER,
    TWO,
    Card,
    CardSet,
    Discard,
    Game,
    Play,
    Suit,
    View,
    card_of,
    effective_suit,
    left_bauer,
    right_bauer,
    trump_cards,
    view,
)
from arena.engine.determinize import Determinizer, Place
from arena.engine.game import Phase

from .helpers import advance, bid_and_name, keep_hands

SAMPLES = 3000
SIGMAS = 4.5  # per-cell bound; with a fixed seed the test is deterministic


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 160), other=st.integers(0, 5))
def test_every_sample_agrees_with_the_view(seed: int, steps: int, other: int) -> None:
    game = advance(seed, steps)
    if game.is_over:
        return
    rng = random.Random(seed)
    for seat in {game.to_act, other}:
        seen = view(game, seat)
        determinizer = Determinizer(seen)
        for _ in range(3):
            sample = determinizer.sample(rng)  # replays the deal: every action legal again
            assert view(sample, seat) == seen
            assert sample.to_act == game.to_act and sample.phase is game.phase
            check_hidden_discards(sample)


def check_hidden_discards(sample: Game) -> None:
    """R5.2: no non-dealer discarded a trump; R5.4: the dealer only when keeping six."""
    deal = sample.deal
    if deal.trump is None:
        return
    trumps = trump_cards(deal.trump).mask
    for _, discarded, _ in deal.exchanges:
        assert not discarded & trumps
    if deal.dealer_discard & trumps:
        kept = sample.hands[deal.dealer]
        for trick in deal.tricks:
            kept |= trick.cards[(deal.dealer - trick.leader) % 6].bit
        assert kept & trumps == kept


def test_a_decided_game_has_nothing_to_sample() -> None:
    game = advance(1, 10_000)
    assert game.is_over
    try:
        Determinizer(view(game, 0))
    except ValueError as error:
        assert "R9.1" in str(error)
    else:
        raise AssertionError("a game that is over was determinized")


def frequencies(determinizer: Determinizer, samples: int, seed: int) -> Counter[tuple[int, Place]]:
    rng = random.Random(seed)
    seen: Counter[tuple[int, Place]] = Counter()
    for _ in range(samples):
        for place, cards in determinizer.sample_placement(rng).items():
            for index in cards:
                seen[index, place] += 1
    return seen


def assert_frequencies(
    observed: Counter[tuple[int, Place]], expected: dict[tuple[int, Place], float], n: int
) -> None:
    """Each (card, place) cell within SIGMAS standard deviations of its binomial mean."""
    assert set(observed) <= {cell for cell, p in expected.items() if p > 0}, "impossible cell"
    for cell, p in expected.items():
        mean, spread = n * p, math.sqrt(n * p * (1 - p))
        assert abs(observed[cell] - mean) <= SIGMAS * spread + 1, (cell, observed[cell], mean)


def test_before_trump_every_unseen_card_is_anywhere_alike() -> None:
    """R3.1-R3.2: in the bidding, 6 of the 47 unseen cards in each other hand, 17 in the
    stock, at every stock position alike."""
    game = Game(seed=11)
    seen = view(game, game.to_act)
    determinizer = Determinizer(seen)
    observed = frequencies(determinizer, SAMPLES, seed=1)
    unseen = [i for i in range(53) if not seen.hand.mask >> i & 1]
    expected: dict[tuple[int, Place], float] = {}
    for index in unseen:
        for seat in range(6):
            if seat != seen.seat:
                expected[index, ("hand", seat)] = 6 / 47
        expected[index, ("stock", -1)] = 17 / 47
    assert_frequencies(observed, expected, SAMPLES)
    # The stock's order: the top card is any unseen card alike.
    rng = random.Random(2)
    tops = Counter(determinizer.sample(rng).stock[0] for _ in range(SAMPLES // 2))
    assert set(tops) <= set(unseen)
    assert max(tops.values()) < SAMPLES // 2 / 47 + SIGMAS * math.sqrt(SAMPLES / 2 / 47) + 1


def test_while_exchanging_hidden_discards_are_plain_cards_and_the_rest_is_alike() -> None:
    """R5.2: the discards of the seats before are non-trumps, drawn alike from the unseen
    ones; every other unseen card is in a hand or the stock alike."""
    game = Game.arranged(
        [
            "AH KH QH JH 2C 3C",
            "9H 4C 5C 6C 7C 8C",
            "TH 9C TC JC QC KC",
            "JD AC 2D 3D 4D 5D",
            "JK 6D 7D 8D 9D TD",
            "2H 3H 4H 5H 6H 7H",
        ],
        dealer=5,
    )
    bid_and_name(game, 0, 3, Suit.HEARTS)
    rng = random.Random(3)
    while game.to_act != 3:  # seats 0, 1 and 2 exchange at most three plain cards each
        rule = game.discard_rule()
        game.apply(rule_discard(rule.may.mask, min(rule.max_count, 3 - game.to_act % 3), rng))
    seen = view(game, 3)
    determinizer = Determinizer(seen)
    observed = frequencies(determinizer, SAMPLES, seed=4)
    trumps = trump_cards(Suit.HEARTS).mask
    unseen = [
        i
        for i in range(53)
        if not (seen.hand.mask | seen.own_received.mask | seen.own_discarded.mask) >> i & 1
    ]
    hidden_out = sum(out for who, out, _ in seen.exchanges)
    plain = [i for i in unseen if not trumps >> i & 1]
    others = len(unseen) - hidden_out
    expected: dict[tuple[int, Place], float] = {}
    for index in unseen:
        out = 0.0 if trumps >> index & 1 else hidden_out / len(plain)
        expected[index, ("discards", -1)] = out
        for seat in (0, 1, 2, 4, 5):
            expected[index, ("hand", seat)] = (1 - out) * 6 / others
        stock = 17 - sum(back for _, _, back in seen.exchanges)
        expected[index, ("stock", -1)] = (1 - out) * stock / others
    assert_frequencies(observed, expected, SAMPLES)


def rule_discard(may: int, count: int, rng: random.Random) -> Discard:
    cards = [i for i in range(53) if may >> i & 1]
    return Discard(CardSet(sum(1 << i for i in rng.sample(cards, count))))


# The dealer (seat 5) holds six trumps and picks up 17 plain cards, all discarded (R5.4).
# To another seat both readings stay open while the dealer plays only trumps: it
# discarded no trump, or it held more than six and kept six.
DEALER_TRUMPS = [
    "AH KH 2C 3C 6C 7C",
    "QH JH 9H 8H 4C 5C",
    "TH 9C TC JC QC KC",
    "JD AC 2D 3D 4D 5D",
    "JK 6D 7D 8D 9D TD",
    "2H 3H 4H 5H 6H 7H",
]


def last_trick_view(seed: int) -> View:
    """The view of the third seat to play to the last trick, after random play that
    keeps trumps back when it can (so some are still unseen at the end)."""
    game = Game.arranged(DEALER_TRUMPS, dealer=5)
    bid_and_name(game, 0, 3, Suit.HEARTS)
    keep_hands(game)
    rng = random.Random(seed)
    trumps = trump_cards(Suit.HEARTS)
    while len(game.deal.tricks) < 5 or len(game.current_trick[1]) < 2:
        legal = game.legal()
        plain = [a for a in legal if isinstance(a, Play) and a.card not in trumps]
        game.apply(rng.choice(plain or list(legal)))
    assert game.phase is Phase.PLAY
    return view(game, game.to_act)


def exact_placement_odds(seen: View) -> dict[tuple[int, Place], float]:
    """By brute force over the other hands (one card each at the last trick), with the
    discards counted by binomials: the chance of each card in each place."""
    trump = seen.trump
    assert trump is not None and seen.dealer != seen.seat
    trumps = trump_cards(trump).mask
    protected = CardSet.of(
        [card_of(trump, ACE), card_of(trump, TWO), right_bauer(trump), left_bauer(trump), JOKER]
    ).mask
    played: dict[int, list[Card]] = {s: [] for s in range(6)}
    voids: dict[int, set[Suit]] = {s: set() for s in range(6)}
    tricks = [(t.leader, list(t.cards)) for t in seen.tricks]
    tricks.append((seen.trick_leader or 0, [c for _, c in seen.trick_cards]))
    for leader, cards in tricks:
        led = effective_suit(cards[0], trump)
        for position, card in enumerate(cards):
            who = (leader + position) % 6
            played[who].append(card)
            if effective_suit(card, trump) != led:
                voids[who].add(led)
    known = seen.hand.mask | seen.own_discarded.mask | seen.own_received.mask
    for cards in played.values():
        known |= CardSet.of(cards).mask
    unseen = [i for i in range(53) if not known >> i & 1]
    holders = [s for s in range(6) if s != seen.seat and seen.hand_sizes[s]]
    assert all(seen.hand_sizes[s] == 1 for s in holders)
    n = sum(out for who, out, _ in seen.exchanges if who not in (seen.seat, seen.dealer))
    dealer_plays_trumps = all(c.bit & trumps for c in played[seen.dealer])
    weight: Counter[tuple[int, Place]] = Counter()
    total = 0
    for held in itertools.permutations(unseen, len(holders)):
        if any(
            effective_suit(Card.parse(str(CardSet(1 << i))), trump) in voids[s]
            for s, i in zip(holders, held, strict=True)
        ):
            continue
        rest = [i for i in unseen if i not in held]
        six_trumps = dealer_plays_trumps and all(
            trumps >> i & 1 for s, i in zip(holders, held, strict=True) if s == seen.dealer
        )
        no_protected = not any(protected >> i & 1 for i in rest)

        split = DiscardSplit(rest, n, trumps, six_trumps and no_protected, six_trumps)
        count = split.ways(None)
        if not count:
            continue
        total += count
        for s, i in zip(holders, held, strict=True):
            weight[i, ("hand", s)] += count
        for i in rest:
            in_dealer = split.ways(i)
            weight[i, ("dealer-discards", -1)] += in_dealer
            weight[i, ("discards", -1)] += count - in_dealer
    return {cell: w / total for cell, w in weight.items()}


@dataclass
class DiscardSplit:
    """The cards not in hands (``rest``) split into the non-dealers' ``n`` discards and
    the dealer's (R5.2, R5.4): no trump among them, or the dealer kept six trumps."""

    rest: list[int]
    n: int
    trumps: int
    six_trumps_kept: bool  # the dealer's cards all trumps, no protected one in the rest
    dealer_all_trumps: bool

    def ways(self, in_dealer_discards: int | None) -> int:
        """All the splits, or those with card ``in_dealer_discards`` in the dealer's."""
        rest_trumps = [i for i in self.rest if self.trumps >> i & 1]
        plain = len(self.rest) - len(rest_trumps)
        fixed = in_dealer_discards is not None
        r = len(self.rest) - fixed
        card_is_plain = fixed and not self.trumps >> (in_dealer_discards or 0) & 1
        no_trump = math.comb(r, self.n) if not rest_trumps else 0
        six = math.comb(plain - card_is_plain, self.n) if self.six_trumps_kept else 0
        both = math.comb(r, self.n) if self.dealer_all_trumps and not rest_trumps else 0
        return no_trump + six - both


def test_the_last_trick_matches_a_brute_force_count() -> None:
    """R5.4 and R7.2 together: the dealer's two readings (which overlap: placements
    counted in both must not count twice), voids, the exact odds."""
    seen = last_trick_view(seed=0)
    determinizer = Determinizer(seen)
    assert len(determinizer.layouts) == 2 and all(lay.size for lay in determinizer.layouts)
    expected = exact_placement_odds(seen)
    observed = frequencies(determinizer, SAMPLES, seed=6)
    assert_frequencies(observed, expected, SAMPLES)


def test_a_view_no_game_leads_to_is_refused() -> None:
    """A view whose seat holds a seventh card leaves one card too few for the others."""
    seen = last_trick_view(seed=0)
    extra = next(i for pool in Determinizer(seen).cards for i in pool)
    impossible = dataclasses.replace(seen, hand=seen.hand | CardSet(1 << extra))
    with pytest.raises(ValueError, match="no deal is consistent"):
        Determinizer(impossible)
