"""Determinization: complete games that agree with what one seat knows (R10), for search.

A seat's view hides the other hands, the stock and every face-down discard (R3.2).
``Determinizer(view).sample(rng)`` returns a ``Game`` at the same decision point whose
``view`` for that seat equals the given one, with the hidden cards placed uniformly at
random among all the placements consistent with the public facts:

- every card the seat has seen is where it saw it (its hand, its discards and
  replacements, the dealer's pick-up for the dealer, every card played);
- the hand, stock and discard counts are the public ones (R5.2, R5.3);
- a seat that did not follow suit holds no card of the suit led (R7.2, R2.4);
- a non-dealer discards no trump (R5.2);
- the dealer discards a trump only when keeping six trumps, and never the Ace, the 2,
  a bauer or the joker (R5.4).

What is uniform: each assignment of the unseen cards to the places they can be now
(each other hand, each seat's discards, the stock in order). Each such assignment is
reached by the same number of deal histories (which cards of a hand were replacements,
which of the dealer's were picked up), so this is also uniform over whole deals. Bids
and the choice of discards are not taken as evidence: the other bots' policies are
unknown.

The method is exact. Every fact above says "cards of this class may not be in this
place", where a card's class is its effective suit (R2.4) with the five protected trumps
apart: at most five classes. The number of consistent assignments is then a sum, over
how many cards of each class go to each place, of products of binomial coefficients; it
is counted by dynamic programming over the places (places that allow the same classes
are merged and split uniformly afterwards), and a sample draws those counts place by
place in proportion to the number of completions, then deals each class's cards by a
uniform shuffle. The dealer's either/or (no trump discarded, or six trumps kept) makes
the consistent set a union of two such sets: a part is drawn in proportion to its size
and its sample kept with probability one over the number of parts holding it, which is
exactly uniform over the union. The counting happens once per view; each sample then
costs a few shuffles and the replay of the deal's public actions.
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from arena.engine.actions import BIDS, PASS, PLAYS, TRUMPS, Action, Discard
from arena.engine.cards import (
    DECK_SIZE,
    EFFECTIVE_SUITS,
    FULL_DECK_MASK,
    PROTECTED_TRUMP_MASKS,
    CardSet,
    Suit,
    indices_of_mask,
)
from arena.engine.game import SEATS, STOCK_SIZE, Game, Phase
from arena.engine.view import View

__all__ = ["Determinizer", "determinize"]

_PROTECTED_CLASS: Final = 4  # the protected trumps (R5.4), apart from the other trumps
_NO_TRUMP_CLASSES: Final = (0,)  # before trump is named every card is alike
# The two largest groups of places are counted in closed form, the others by dynamic
# programming over their class counts; beyond this many (a bound on) combinations of
# those counts, constraints of hands are checked by rejection instead.
_MAX_COST: Final = 400
_MAX_TRIES: Final = 100_000  # samples rejected before a view is declared impossible

# A place is where an unseen card may be now: another seat's hand, the discards of the
# non-dealers other than the seat, the dealer's discards, or the stock still undealt.
Place = tuple[str, int]
_NON_DEALER_DISCARDS: Final[Place] = ("discards", -1)
_DEALER_DISCARDS: Final[Place] = ("dealer-discards", -1)
_STOCK: Final[Place] = ("stock", -1)


def _hand(seat: int) -> Place:
    return ("hand", seat)


@dataclass(frozen=True, slots=True)
class _Group:
    """Places that allow the same classes, filled together and split uniformly after."""

    allowed: tuple[int, ...]
    members: tuple[tuple[Place, int], ...]  # (place, capacity)

    @property
    def capacity(self) -> int:
        return sum(cap for _, cap in self.members)

    @property
    def splits(self) -> int:
        """How many ways the group's cards can be split among its places."""
        ways, left = 1, self.capacity
        for _, cap in self.members:
            ways *= math.comb(left, cap)
            left -= cap
        return ways


class _Layout:
    """One set of constraints ("class c may not be in place p"): counted and sampled.

    Groups are filled in order of capacity; the two largest come last and are counted
    in closed form (Vandermonde: the classes both allow are one pool, of which the
    second-to-last takes what its own classes leave room for), so only the small groups
    before them (hands with voids) are counted by dynamic programming.
    """

    def __init__(
        self,
        places: dict[Place, tuple[int, tuple[int, ...]]],
        sizes: tuple[int, ...],
        class_masks: list[int],
        keep: frozenset[Place] = frozenset(),
    ) -> None:
        every = tuple(range(len(sizes)))
        places = dict(places)
        # With many different void patterns the counting grows fast; the weakest
        # constraints of hands are then dropped from the count and checked on each
        # sample instead (rejection: still exactly uniform).
        self.checks: list[tuple[Place, int]] = []
        candidates = sorted(
            (
                place
                for place, (cap, allowed) in places.items()
                if place[0] == "hand" and cap and allowed != every and place not in keep
            ),
            key=lambda place: places[place][0] * _barred(places[place][1], class_masks).bit_count(),
        )
        while _counting_cost(_groups(places)) > _MAX_COST and candidates:
            place = candidates.pop(0)
            cap, allowed = places[place]
            self.checks.append((place, _barred(allowed, class_masks)))
            places[place] = (cap, every)
        groups = _groups(places)
        groups.sort(key=lambda g: (g.capacity, len(g.allowed)))
        self.groups = groups
        self.sizes = sizes
        self._counts: dict[tuple[int, tuple[int, ...]], int] = {}
        self._choices: dict[
            tuple[int, tuple[int, ...]], tuple[list[int], list[tuple[int, ...]]]
        ] = {}
        splits = math.prod(g.splits for g in groups)
        self.size = self._count(0, sizes) * splits

    def holds(self, placed: dict[Place, list[int]]) -> bool:
        """Whether a sample keeps the constraints left out of the count."""
        return all(not _mask(placed[place]) & barred for place, barred in self.checks)

    def _count(self, index: int, left: tuple[int, ...]) -> int:
        """Placements of the ``left`` cards of each class into groups ``index`` and after."""
        remaining = len(self.groups) - index
        if remaining <= 2:
            return self._last_two(index, left)
        key = (index, left)
        known = self._counts.get(key)
        if known is not None:
            return known
        total = sum(weight for _, weight in self._takes(index, left))
        self._counts[key] = total
        return total

    def _takes(self, index: int, left: tuple[int, ...]) -> Iterator[tuple[tuple[int, ...], int]]:
        """Each class count group ``index`` may take of ``left`` with a placement of the
        rest, and its weight: the placements of all of ``left`` in which it takes that."""
        group = self.groups[index]
        for take in _compositions(group.capacity, group.allowed, left):
            rest = tuple(n - t for n, t in zip(left, take, strict=True))
            ways = self._count(index + 1, rest)
            if ways:
                yield take, ways * _ways_to_choose(left, take)

    def _last_two(self, index: int, left: tuple[int, ...]) -> int:
        first, second = self._final_pair(index)
        room = first.capacity if first else 0
        if sum(left) != room + (second.capacity if second else 0):
            return 0
        shared = 0
        for c, n in enumerate(left):
            if not n:
                continue
            in_first = first is not None and c in first.allowed
            in_second = second is not None and c in second.allowed
            if in_first and in_second:
                shared += n
            elif in_first:
                room -= n
            elif not in_second:
                return 0
        return math.comb(shared, room) if 0 <= room <= shared else 0

    def _final_pair(self, index: int) -> tuple[_Group | None, _Group | None]:
        last = self.groups[index:]
        if len(last) == 2:
            return last[0], last[1]
        return None, (last[0] if last else None)

    def _options(
        self, index: int, left: tuple[int, ...]
    ) -> tuple[list[int], list[tuple[int, ...]]]:
        """The possible class counts of group ``index`` and their cumulative weights."""
        key = (index, left)
        cached = self._choices.get(key)
        if cached is not None:
            return cached
        cumulative: list[int] = []
        takes: list[tuple[int, ...]] = []
        running = 0
        for take, weight in self._takes(index, left):
            running += weight
            cumulative.append(running)
            takes.append(take)
        self._choices[key] = (cumulative, takes)
        return cumulative, takes

    def sample(self, cards: list[list[int]], rng: random.Random) -> dict[Place, list[int]]:
        """A uniform placement of the classes' ``cards``."""
        if not self.groups:
            return {}
        shuffled = [rng.sample(pool, len(pool)) for pool in cards]
        start = [0] * len(cards)
        left = self.sizes
        piles: list[list[int]] = []
        last = max(0, len(self.groups) - 2)
        for index in range(last):
            cumulative, options = self._options(index, left)
            take = options[bisect.bisect_right(cumulative, rng.randrange(cumulative[-1]))]
            pile: list[int] = []
            for c, n in enumerate(take):
                pile.extend(shuffled[c][start[c] : start[c] + n])
                start[c] += n
            piles.append(pile)
            left = tuple(n - t for n, t in zip(left, take, strict=True))
        first, second = self._final_pair(last)
        own: list[int] = []
        shared: list[int] = []
        rest: list[int] = []
        for c, pool in enumerate(shuffled):
            cards_left = pool[start[c] :]
            if first is not None and c in first.allowed:
                (shared if second is not None and c in second.allowed else own).extend(cards_left)
            else:
                rest.extend(cards_left)
        if first is not None:
            # A uniform subset of the shared pool fills what the first's own classes leave.
            room = first.capacity - len(own)
            rng.shuffle(shared)
            piles.append(own + shared[:room])
            rest.extend(shared[room:])
        piles.append(rest)
        placed: dict[Place, list[int]] = {}
        for group, pile in zip(self.groups, piles, strict=True):
            rng.shuffle(pile)
            at = 0
            for place, cap in group.members:
                placed[place] = pile[at : at + cap]
                at += cap
        return placed


def _groups(places: dict[Place, tuple[int, tuple[int, ...]]]) -> list[_Group]:
    by_allowed: dict[tuple[int, ...], list[tuple[Place, int]]] = {}
    for place, (cap, allowed) in places.items():
        if cap:
            by_allowed.setdefault(allowed, []).append((place, cap))
    return [_Group(allowed, tuple(members)) for allowed, members in by_allowed.items()]


def _counting_cost(groups: list[_Group]) -> int:
    """A bound on the class-count combinations the dynamic programming goes through."""
    by_size = sorted(groups, key=lambda g: (g.capacity, len(g.allowed)))[:-2]
    return math.prod(
        math.comb(g.capacity + len(g.allowed) - 1, len(g.allowed) - 1) for g in by_size
    )


def _barred(allowed: tuple[int, ...], class_masks: list[int]) -> int:
    """The unseen cards of the classes not ``allowed``."""
    barred = 0
    for c, mask in enumerate(class_masks):
        if c not in allowed:
            barred |= mask
    return barred


def _ways_to_choose(left: tuple[int, ...], take: tuple[int, ...]) -> int:
    ways = 1
    for n, t in zip(left, take, strict=True):
        if t:
            ways *= math.comb(n, t)
    return ways


def _compositions(
    total: int, allowed: tuple[int, ...], left: tuple[int, ...]
) -> Iterator[tuple[int, ...]]:
    """Every way to take ``total`` cards from the ``allowed`` classes, at most ``left[c]``
    of class c."""
    bounds = [left[c] for c in allowed]
    if sum(bounds) < total:
        return
    take = [0] * len(left)

    def fill(position: int, need: int) -> Iterator[tuple[int, ...]]:
        if position == len(allowed) - 1:
            if need <= bounds[position]:
                take[allowed[position]] = need
                yield tuple(take)
                take[allowed[position]] = 0
            return
        room_after = sum(bounds[position + 1 :])
        for n in range(max(0, need - room_after), min(need, bounds[position]) + 1):
            take[allowed[position]] = n
            yield from fill(position + 1, need - n)
        take[allowed[position]] = 0

    if not allowed:
        if total == 0:
            yield tuple(take)
        return
    yield from fill(0, total)


class _SampledDeals:
    """Deals after the sampled one: shuffled from a seed of the sample (R3.1)."""

    def __init__(self, seed: int, dealer: int) -> None:
        self.seed = seed
        self.dealer = dealer

    def first_dealer(self) -> int:
        return self.dealer

    def deal(self, number: int) -> tuple[list[int], list[int]]:
        deck = list(range(DECK_SIZE))
        random.Random(self.seed * 1000 + number).shuffle(deck)
        hands = [sum(1 << i for i in deck[6 * s : 6 * s + 6]) for s in range(SEATS)]
        return hands, deck[6 * SEATS :]


class Determinizer:
    """The games consistent with one seat's view, counted once and then sampled.

    >>> from arena.engine import Game, view
    >>> game = Game(seed=3)
    >>> known = view(game, game.to_act)
    >>> sample = Determinizer(known).sample(random.Random(1))
    >>> view(sample, known.seat) == known
    True
    """

    def __init__(self, seen: View) -> None:
        if seen.phase is Phase.OVER:
            raise ValueError("R9.1: the game is over; there is nothing left to sample")
        self.view = seen
        seat, dealer, trump = seen.seat, seen.dealer, seen.trump
        self.played: list[list[int]] = [[] for _ in range(SEATS)]
        voids: list[set[int]] = [set() for _ in range(SEATS)]
        tricks = [(t.leader, t.cards) for t in seen.tricks]
        if seen.trick_leader is not None and seen.trick_cards:
            tricks.append((seen.trick_leader, tuple(c for _, c in seen.trick_cards)))
        known = seen.hand.mask | seen.own_discarded.mask | seen.own_received.mask
        for leader, cards in tricks:
            assert trump is not None
            suits = EFFECTIVE_SUITS[trump]
            led = suits[cards[0].index]
            for position, card in enumerate(cards):
                player = (leader + position) % SEATS
                self.played[player].append(card.index)
                known |= card.bit
                if suits[card.index] != led:
                    voids[player].add(led)  # R7.2: could not follow
        unseen = FULL_DECK_MASK & ~known
        self.classes = self._classes(trump)
        self.cards: list[list[int]] = [[] for _ in self.classes]
        class_of = self._class_of(trump)
        for index in indices_of_mask(unseen):
            self.cards[class_of[index]].append(index)
        sizes = tuple(len(pool) for pool in self.cards)
        class_masks = [_mask(pool) for pool in self.cards]

        every = tuple(range(len(self.classes)))
        trump_classes = () if trump is None else (int(trump), _PROTECTED_CLASS)
        plain = tuple(c for c in every if c not in trump_classes)

        def allowed_in_hand(player: int) -> tuple[int, ...]:
            barred = set(voids[player])
            if trump is not None and int(trump) in barred:
                barred.add(_PROTECTED_CLASS)
            return tuple(c for c in every if c not in barred)

        hand_sizes = seen.hand_sizes
        places: dict[Place, tuple[int, tuple[int, ...]]] = {}
        for player in range(SEATS):
            if player != seat:
                places[_hand(player)] = (hand_sizes[player], allowed_in_hand(player))
        # R5.2: what each non-dealer exchanged is public; non-dealers discard no trump.
        self.exchanged = [(who, out) for who, out, _ in seen.exchanges if who != dealer]
        hidden_discards = sum(out for who, out in self.exchanged if who != seat)
        places[_NON_DEALER_DISCARDS] = (hidden_discards, plain)
        received = sum(back for who, _, back in seen.exchanges if who != dealer)
        self.picked_up = seen.phase is Phase.PLAY or (
            seen.phase is Phase.DISCARD and seen.to_act == dealer
        )
        places[_STOCK] = (0 if self.picked_up else STOCK_SIZE - received, every)
        self.dealer_discarded = next(
            (out for who, out, _ in seen.exchanges if who == dealer and seen.phase is Phase.PLAY),
            0,
        )
        self.layouts: list[_Layout] = []
        if dealer == seat or not self.dealer_discarded:
            self.layouts.append(_Layout(places, sizes, class_masks))
        else:
            # R5.4: either the dealer discarded no trump (holding at most six) ...
            no_trump = dict(places)
            no_trump[_DEALER_DISCARDS] = (self.dealer_discarded, plain)
            self.layouts.append(_Layout(no_trump, sizes, class_masks))
            # ... or kept six trumps, every card it plays or holds, and no protected one went.
            assert trump is not None
            if all(EFFECTIVE_SUITS[trump][i] == trump for i in self.played[dealer]):
                six_trumps = dict(places)
                cap, allowed = places[_hand(dealer)]
                six_trumps[_hand(dealer)] = (cap, tuple(c for c in allowed if c in trump_classes))
                not_protected = tuple(c for c in every if c != _PROTECTED_CLASS)
                six_trumps[_DEALER_DISCARDS] = (self.dealer_discarded, not_protected)
                self.layouts.append(
                    _Layout(six_trumps, sizes, class_masks, keep=frozenset({_hand(dealer)}))
                )
        self.trump_mask = 0
        if trump is not None:
            self.trump_mask = sum(1 << i for i in range(DECK_SIZE) if class_of[i] in trump_classes)
        # The number of placements the layouts count (exact unless a check was left out).
        self.count = sum(layout.size for layout in self.layouts)
        if self.count == 0:
            raise ValueError("no deal is consistent with this view")
        self._weights = list(itertools.accumulate(layout.size for layout in self.layouts))

    @staticmethod
    def _classes(trump: Suit | None) -> tuple[int, ...]:
        return _NO_TRUMP_CLASSES if trump is None else (0, 1, 2, 3, _PROTECTED_CLASS)

    @staticmethod
    def _class_of(trump: Suit | None) -> list[int]:
        if trump is None:
            return [0] * DECK_SIZE
        protected = PROTECTED_TRUMP_MASKS[trump]
        return [
            _PROTECTED_CLASS if protected >> i & 1 else EFFECTIVE_SUITS[trump][i]
            for i in range(DECK_SIZE)
        ]

    def sample_placement(self, rng: random.Random) -> dict[Place, list[int]]:
        """Where each unseen card is now, uniformly among the consistent placements."""
        for _ in range(_MAX_TRIES):
            pick = bisect.bisect_right(self._weights, rng.randrange(self.count))
            layout = self.layouts[pick]
            placed = layout.sample(self.cards, rng)
            if not layout.holds(placed):
                continue
            if len(self.layouts) == 1 or rng.random() < 1 / self._parts_holding(placed):
                return placed
        # Only a view no game can lead to gets here (every real deal is consistent).
        raise ValueError(f"no consistent deal found in {_MAX_TRIES} tries")

    def _parts_holding(self, placed: dict[Place, list[int]]) -> int:
        """How many of the two R5.4 parts hold this placement (1 or 2)."""
        dealer = self.view.dealer
        dealer_discards = sum(1 << i for i in placed.get(_DEALER_DISCARDS, []))
        in_no_trump = not dealer_discards & self.trump_mask
        dealer_hand = sum(1 << i for i in placed.get(_hand(dealer), []))
        in_six_trumps = (
            len(self.layouts) == 2
            and not dealer_hand & ~self.trump_mask
            and not dealer_discards & PROTECTED_TRUMP_MASKS[self._trump()]
        )
        return int(in_no_trump) + int(in_six_trumps)

    def _trump(self) -> Suit:
        assert self.view.trump is not None
        return self.view.trump

    def sample(self, rng: random.Random) -> Game:
        """A game at the view's decision point, uniform among those consistent with it."""
        return self._rebuild(self.sample_placement(rng), rng)

    def _rebuild(self, placed: dict[Place, list[int]], rng: random.Random) -> Game:
        """Deal the sampled cards as a first deal and replay the deal's public actions."""
        seen = self.view
        seat, dealer = seen.seat, seen.dealer
        kept = [0] * SEATS  # each seat's cards now and those it played
        for player in range(SEATS):
            held = seen.hand.mask if player == seat else _mask(placed.get(_hand(player), []))
            kept[player] = held | _mask(self.played[player])
        hands = list(kept)
        discards: dict[int, int] = {}
        stock: list[int] = []
        pile = list(placed.get(_NON_DEALER_DISCARDS, []))
        for player, out in self.exchanged:
            if player == seat:
                got = indices_of_mask(seen.own_received.mask)
                rng.shuffle(got)
                discarded = seen.own_discarded.mask
            else:
                # Which of its cards were replacements is not known: any `out` of them.
                got = rng.sample(indices_of_mask(kept[player]), out)
                discarded = _mask(pile[:out])
                del pile[:out]
            stock.extend(got)
            hands[player] = (kept[player] & ~_mask(got)) | discarded
            discards[player] = discarded
        if self.picked_up:
            if dealer == seat:
                pickup = indices_of_mask(seen.own_received.mask)
                rng.shuffle(pickup)
                pool = kept[dealer] | seen.own_discarded.mask
                discards[dealer] = seen.own_discarded.mask
            else:
                dealt_out = _mask(placed.get(_DEALER_DISCARDS, []))
                pool = kept[dealer] | dealt_out
                # Which of the dealer's cards came from the stock is not known either.
                pickup = rng.sample(indices_of_mask(pool), pool.bit_count() - 6)
                discards[dealer] = dealt_out
            stock.extend(pickup)
            hands[dealer] = pool & ~_mask(pickup)
        else:
            stock.extend(placed.get(_STOCK, []))
        game = Game(
            _SampledDeals(rng.getrandbits(48), dealer),
            first_deal=(hands, stock, dealer),
            scores=seen.scores,
        )
        game.deal.number = seen.deal_number
        for action in self._public_actions(discards):
            game.apply(action)
        return game

    def _public_actions(self, discards: dict[int, int]) -> Iterator[Action]:
        seen = self.view
        for _, amount in seen.bids:
            yield BIDS[amount] if amount else PASS
        if seen.trump is None:
            return
        yield TRUMPS[seen.trump]
        for player, _ in self.exchanged:
            yield Discard(CardSet(discards[player]))
        if seen.phase is not Phase.PLAY:
            return
        yield Discard(CardSet(discards[seen.dealer]))
        for trick in seen.tricks:
            for card in trick.cards:
                yield PLAYS[card.index]
        for _, card in seen.trick_cards:
            yield PLAYS[card.index]


def _mask(indices: list[int]) -> int:
    mask = 0
    for index in indices:
        mask |= 1 << index
    return mask


def determinize(seen: View, rng: random.Random) -> Game:
    """One game consistent with ``seen``, uniformly at random (see ``Determinizer``)."""
    return Determinizer(seen).sample(rng)
