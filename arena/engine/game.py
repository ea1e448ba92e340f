"""The game of Schmier as a state machine: deal, bid, trump, discards, tricks, scoring, end.

``Game.apply`` is the one door through which a game changes (as ``Board.push`` is in
python-chess): it either advances the game or raises ``IllegalActionError`` (citing the
rule) or ``MalformedActionError``. ``Game.legal`` says what the seat to act may do.
Randomness enters only through the game's key (R1.3, R3.1a; see ``arena.engine.deals``),
so a game is fully determined by its key and the actions taken.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Final, NamedTuple

from arena.engine.actions import (
    MAX_BID,
    PLAYS,
    Action,
    Bid,
    DecisionKind,
    Discard,
    NameTrump,
    Pass,
    Play,
)
from arena.engine.cards import (
    ACE,
    CARDS,
    FULL_DECK_MASK,
    JOKER,
    LEADS,
    PROTECTED_TRUMP_MASKS,
    TRUMP_MASKS,
    TWO,
    Card,
    CardSet,
    Suit,
    card_of,
    game_value,
    indices_of_mask,
    left_bauer,
    right_bauer,
)
from arena.engine.deals import DealSource, GameKey
from arena.engine.errors import IllegalActionError, MalformedActionError
from arena.engine.events import (
    BidMade,
    CardPlayed,
    DealScored,
    DealStarted,
    DealThrownIn,
    Event,
    Exchanged,
    GameEnded,
    HandDealt,
    OwnExchange,
    TrickWon,
    TrumpNamed,
)
from arena.engine.legal import (
    BIDDING_CHOICES,
    NOTHING,
    PLAY_CHOICES,
    TRUMP_CHOICES,
    DiscardRule,
    Legal,
)

SEATS: Final = 6  # R1.1
TEAMS: Final = 3  # R1.2
HAND_SIZE: Final = 6  # R3.1
STOCK_SIZE: Final = 17  # R3.1
TRICKS: Final = 6  # R7.4
TARGET_SCORE: Final = 21  # R9.1
DEFAULT_DRAW_LIMIT: Final = 200  # R9.4
MAX_NON_DEALER_DISCARD: Final = 3  # R5.2

# Events are immutable values, and these are few: each is made once, here, rather than at
# every card, bid and trick.
_CARD_PLAYED: Final = tuple(tuple(CardPlayed(seat, card) for card in CARDS) for seat in range(6))
_BID_MADE: Final = tuple(tuple(BidMade(seat, amount) for amount in range(7)) for seat in range(6))
_BID_ENTRY: Final = tuple(tuple((seat, amount) for amount in range(7)) for seat in range(6))
# The history's entry of each card played by each seat, made once: most decisions are plays.
_PLAY_TAKEN: Final = tuple(tuple((seat, PLAYS[card.index]) for card in CARDS) for seat in range(6))
_TRICK_WON: Final = tuple(tuple(TrickWon(number, seat) for seat in range(6)) for number in range(7))


def team_of(seat: int) -> int:
    """R1.2: team t holds seats t and t+3."""
    return seat % TEAMS


def left_of(seat: int) -> int:
    """R1.1: play moves to seat s+1 mod 6."""
    return (seat + 1) % SEATS


class Phase(Enum):
    BIDDING = "bidding"  # R4
    TRUMP = "trump"  # R5.1
    DISCARD = "discard"  # R5.2-R5.4
    PLAY = "play"  # R7
    OVER = "over"  # R9


_PHASE_KIND: Final = {
    Phase.BIDDING: DecisionKind.BID,
    Phase.TRUMP: DecisionKind.TRUMP,
    Phase.DISCARD: DecisionKind.DISCARD,
    Phase.PLAY: DecisionKind.PLAY,
}

_PLAY: Final = DecisionKind.PLAY
_DISCARD: Final = DecisionKind.DISCARD
_NO_CARDS: Final = CardSet(0)

# The phases as module constants: on Python 3.11 reading ``Phase.PLAY`` costs a lookup
# through the enum's class many times dearer than a global, and apply() and legal() ask
# at every decision.
_BIDDING_PHASE: Final = Phase.BIDDING
_TRUMP_PHASE: Final = Phase.TRUMP
_DISCARD_PHASE: Final = Phase.DISCARD
_PLAY_PHASE: Final = Phase.PLAY
_OVER_PHASE: Final = Phase.OVER
_PLAY_CHOICES: Final = PLAY_CHOICES
_BAUER_BITS: Final = tuple((right_bauer(trump).bit, left_bauer(trump).bit) for trump in Suit)
_JOKER_BIT: Final = JOKER.bit
_SEAT_NUMBERS: Final = range(SEATS)  # R1.1
_ACE_TWO_BITS: Final = tuple((card_of(trump, ACE).bit, card_of(trump, TWO).bit) for trump in Suit)

_PHASE_RULE: Final = {
    Phase.BIDDING: "R4.2",
    Phase.TRUMP: "R5.1",
    Phase.DISCARD: "R5.2",
    Phase.PLAY: "R7.2",
    Phase.OVER: "R9.1",
}


class Trick(NamedTuple):
    """A completed trick (R7.3). A named tuple, as events are: one is made per trick."""

    leader: int
    cards: tuple[Card, ...]  # in the order played, from the leader
    winner: int

    def seat_of(self, position: int) -> int:
        return (self.leader + position) % SEATS


@dataclass(slots=True)
class DealLog:
    """Everything that happened in one deal; the game record is built from these."""

    number: int
    dealer: int
    hands: list[int]  # the six hands dealt, as masks (R3.1)
    stock: list[int]  # card indices, top first
    bids: list[tuple[int, int]] = field(default_factory=list)  # (seat, amount; 0 = pass)
    thrown_in: bool = False
    bidder: int | None = None
    contract: int = 0
    trump: Suit | None = None
    exchanges: list[tuple[int, int, list[int]]] = field(default_factory=list)
    dealer_pickup: list[int] = field(default_factory=list)
    dealer_discard: int = 0
    tricks: list[Trick] = field(default_factory=list)
    categories: dict[str, int | None] = field(default_factory=dict)
    game_totals: tuple[int, int, int] = (0, 0, 0)
    points: tuple[int, int, int] = (0, 0, 0)
    scores_after: tuple[int, int, int] = (0, 0, 0)
    # The index in ``Game.history`` of the deal's first decision: the deal's decisions are
    # the history from here to the next deal's.
    first_decision: int = 0

    def copy(self) -> DealLog:
        """A clone whose lists are its own (their items are never changed in place)."""
        return DealLog(
            self.number,
            self.dealer,
            list(self.hands),
            list(self.stock),
            list(self.bids),
            self.thrown_in,
            self.bidder,
            self.contract,
            self.trump,
            list(self.exchanges),
            list(self.dealer_pickup),
            self.dealer_discard,
            list(self.tricks),
            dict(self.categories),
            self.game_totals,
            self.points,
            self.scores_after,
            self.first_decision,
        )


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: the winning team, or None for a draw at the deal limit (R9.4).

    ``forfeited``: the teams that forfeited the game under the referee's rule F1
    (``Game.forfeit``; docs/SECURITY.md), each a loss; the winner is then the team that
    did not forfeit with the highest score, or None where those teams are level.
    """

    winner: int | None
    scores: tuple[int, int, int]
    deals: int
    forfeited: tuple[int, ...] = ()

    @property
    def is_draw(self) -> bool:
        """No team won and none lost by forfeit: every team drew."""
        return self.winner is None and not self.forfeited


def deal_cards(key: DealSource, deal_number: int) -> tuple[list[int], list[int]]:
    """R3.1, R3.1a: the six hands and the stock of deal ``deal_number`` of the game ``key``
    deals (see ``GameKey.deal``: the same key, the same cards to the same seats)."""
    return key.deal(deal_number)


def winner_after_deal(scores: tuple[int, int, int], bidding_team: int) -> int | None:
    """R9.1-R9.3: the team that has won after a scored deal, or None if play goes on.

    >>> winner_after_deal((22, 22, 5), bidding_team=1)  # R9.2: the bidders win the tie
    1
    >>> winner_after_deal((22, 22, 5), bidding_team=2) is None  # R9.3: nobody yet
    True
    """
    if max(scores) < TARGET_SCORE:
        return None  # as after most deals
    over = [t for t in range(TEAMS) if scores[t] >= TARGET_SCORE]
    top = max(scores[t] for t in over)
    leaders = [t for t in over if scores[t] == top]
    if len(leaders) == 1:
        return leaders[0]  # R9.1-R9.2
    if bidding_team in leaders:
        return bidding_team  # R9.2
    return None  # R9.3


def forfeit_winner(scores: Sequence[int], forfeited: Collection[int]) -> int | None:
    """F1 (docs/SECURITY.md): the winner of a game that ``forfeited`` forfeit: of the
    other teams, the one with the strictly highest score; None where they are level, or
    where no team is left.

    >>> forfeit_winner((5, 9, 2), forfeited={1})  # team 1 forfeits though it leads
    0
    >>> forfeit_winner((4, 0, 4), forfeited={1}) is None  # the two others are level
    True
    """
    left = [team for team in range(TEAMS) if team not in forfeited]
    if not left:
        return None
    top = max(scores[team] for team in left)
    leaders = [team for team in left if scores[team] == top]
    return leaders[0] if len(leaders) == 1 else None


def first_dealer(key: DealSource) -> int:
    """R1.3: the first dealer, drawn from the game's key."""
    return key.first_dealer()


class Game:
    """One game of Schmier, from the first deal to its outcome.

    >>> game = Game(seed=7)
    >>> game.phase, game.to_act == left_of(game.dealer)
    (<Phase.BIDDING: 'bidding'>, True)
    """

    # Slots: a game has more attributes than CPython 3.11 keeps in an instance's shared
    # key table (30), past which every attribute read and write of apply() and legal()
    # goes through a dictionary of its own.
    __slots__ = (
        "_ace_seat",
        "_best_power",
        "_best_seat",
        "_discard_masks",
        "_follow_mask",
        "_leads",
        "_led_suit",
        "_trick",
        "_trick_leader",
        "_trick_mask",
        "_two_seat",
        "_win_power",
        "_won",
        "bidder",
        "dealer",
        "deals",
        "decisions",
        "draw_limit",
        "events",
        "first_dealer",
        "hands",
        "high_bid",
        "history",
        "is_arranged",
        "is_over",
        "key",
        "outcome",
        "phase",
        "scores",
        "start_scores",
        "stock",
        "to_act",
        "trump",
    )

    def __init__(
        self,
        key: DealSource | None = None,
        *,
        seed: int | None = None,
        draw_limit: int = DEFAULT_DRAW_LIMIT,
        first_deal: tuple[list[int], list[int], int] | None = None,
        scores: tuple[int, int, int] = (0, 0, 0),
    ) -> None:
        """Start a game dealt from ``key``: a ``GameKey`` (the arena derives a secret one
        per game), or the deals of a record being replayed.

        ``seed`` instead makes the key with ``GameKey.from_seed``: for tests, doctests and
        reproducible runs only, since anyone who knows the seed can know every card.
        ``first_deal`` (hands, stock, dealer) and ``scores`` set up a hand-built situation
        for scenario tests and analysis (see ``Game.arranged``)."""
        if draw_limit < 1:
            raise ValueError("R9.4: the deal limit must be at least 1")
        if isinstance(key, int):
            raise TypeError("an integer seed is given as Game(seed=N), for tests only")
        if (key is None) == (seed is None):
            raise TypeError("a game is dealt from a key or from a seed: give exactly one")
        if key is None:
            assert seed is not None
            key = GameKey.from_seed(seed)
        self.key: DealSource = key
        self.draw_limit = draw_limit
        # A hand-built first deal or scores other than 0-0-0: not a game as dealt (R3.1a).
        self.is_arranged = first_deal is not None or scores != (0, 0, 0)
        self.first_dealer = first_deal[2] if first_deal else self.key.first_dealer()
        self.dealer = self.first_dealer
        self.start_scores = (scores[0], scores[1], scores[2])
        self.scores = list(scores)
        self.deals: list[DealLog] = []
        self.events: list[Event] = []
        # Every decision taken, (seat, action), in order: the one spine that the record's
        # decisions, the referee's notes and its faults are keyed by (an index into it).
        self.history: list[tuple[int, Action]] = []
        self.outcome: Outcome | None = None
        self.is_over = False
        self.decisions = 0
        # Per-deal state, set by _start_deal.
        self.phase = Phase.BIDDING
        self.to_act = 0
        self.hands: list[int] = []
        self.stock: list[int] = []
        self.high_bid = 0
        self.bidder: int | None = None
        self.trump: Suit | None = None
        self._trick_leader = 0
        self._trick: list[Card] = []  # in play order
        self._trick_mask = 0
        self._led_suit = 0  # R7.2: the effective suit of the card led
        self._follow_mask = 0  # R7.2: the cards that follow it
        self._win_power: tuple[int, ...] = ()  # R7.3: by card index, 0 if it cannot win
        self._best_power = 0  # the power and seat of the card winning the trick so far
        self._best_seat = 0
        self._leads: tuple[tuple[int, int, tuple[int, ...]], ...] = ()  # LEADS[trump]
        # (decision, discard_masks() at it): apply() asks again what the player asked
        self._discard_masks: tuple[int, tuple[int, int, int, int]] = (-1, (0, 0, 0, 0))
        self._won = [0, 0, 0]  # masks of cards in tricks won, per team
        self._ace_seat = -1
        self._two_seat = -1
        self._start_deal(first_deal[:2] if first_deal else None)

    @classmethod
    def arranged(
        cls,
        hands: list[str],
        dealer: int,
        stock: str | None = None,
        scores: tuple[int, int, int] = (0, 0, 0),
        seed: int = 0,
        draw_limit: int = DEFAULT_DRAW_LIMIT,
        key: GameKey | None = None,
    ) -> Game:
        """A game whose first deal is given as text, for hand-built situations.

        ``hands`` are six strings of six cards; ``stock`` the 17 others, top first (by
        default the rest of the pack in card order). Later deals come from ``key``, or
        else from ``seed`` (``GameKey.from_seed``).

        >>> g = Game.arranged(["AH KH QH JH JD TH", "2C 3C 4C 5C 6C 7C", "8C 9C TC JC QC KC",
        ...     "AC 2D 3D 4D 5D 6D", "7D 8D 9D TD QD KD", "AD 2S 3S 4S 5S 6S"], dealer=5)
        >>> str(g.hand(0))
        'JD TH JH QH KH AH'
        """
        masks = [CardSet.parse(h).mask for h in hands]
        if len(masks) != SEATS or any(m.bit_count() != HAND_SIZE for m in masks):
            raise ValueError("R3.1: six hands of six cards each")
        used = 0
        for m in masks:
            if used & m:
                raise ValueError("R2.1: a card is dealt twice")
            used |= m
        if stock is None:
            stock_cards = indices_of_mask(FULL_DECK_MASK & ~used)
        else:
            stock_cards = [Card.parse(t).index for t in stock.split()]
        if sorted(stock_cards) != indices_of_mask(FULL_DECK_MASK & ~used):
            raise ValueError("R3.1: the stock is the 17 cards not dealt, each once")
        return cls(
            key or GameKey.from_seed(seed),
            draw_limit=draw_limit,
            first_deal=(masks, stock_cards, dealer),
            scores=scores,
        )

    def copy(self) -> Game:
        """An independent clone, for search: acting on it never changes this game.

        Cheap: the state of the deal in progress is copied; events, finished deals and
        the key are immutable or never written again, so they are shared (the lists
        holding them are copied, so each game appends to its own).

        >>> game = Game(seed=7)
        >>> clone = game.copy()
        >>> clone.apply(clone.legal().example())
        >>> game.decisions, clone.decisions
        (0, 1)
        """
        clone = Game.__new__(Game)
        # Every slot, written out (a loop of setattr costs five times as much); the
        # copy tests check that none is left unset.
        clone.key = self.key
        clone.draw_limit = self.draw_limit
        clone.is_arranged = self.is_arranged
        clone.first_dealer = self.first_dealer
        clone.dealer = self.dealer
        clone.start_scores = self.start_scores
        clone.scores = list(self.scores)
        clone.deals = self.deals[:-1]
        clone.deals.append(self.deals[-1].copy())
        clone.events = list(self.events)
        clone.history = list(self.history)
        clone.outcome = self.outcome
        clone.is_over = self.is_over
        clone.decisions = self.decisions
        clone.phase = self.phase
        clone.to_act = self.to_act
        clone.hands = list(self.hands)
        clone.stock = list(self.stock)
        clone.high_bid = self.high_bid
        clone.bidder = self.bidder
        clone.trump = self.trump
        clone._trick_leader = self._trick_leader
        clone._trick = list(self._trick)
        clone._trick_mask = self._trick_mask
        clone._led_suit = self._led_suit
        clone._follow_mask = self._follow_mask
        clone._win_power = self._win_power
        clone._best_power = self._best_power
        clone._best_seat = self._best_seat
        clone._leads = self._leads
        clone._discard_masks = self._discard_masks
        clone._won = list(self._won)
        clone._ace_seat = self._ace_seat
        clone._two_seat = self._two_seat
        return clone

    # --- questions ----------------------------------------------------------------

    @property
    def deal(self) -> DealLog:
        """The current (or last) deal."""
        return self.deals[-1]

    def deal_of(self, decision: int) -> tuple[int, int]:
        """(deal number, index in that deal's decisions) of ``history[decision]``, or of
        the decision being asked now when ``decision`` is ``len(history)``.

        >>> game = Game(seed=7)
        >>> game.deal_of(0)
        (1, 0)
        """
        if not 0 <= decision <= len(self.history):
            raise IndexError(f"no decision {decision} in a history of {len(self.history)}")
        for deal in reversed(self.deals):
            if deal.first_decision <= decision:
                return deal.number, decision - deal.first_decision
        raise AssertionError("the first deal starts at decision 0")

    @property
    def deal_number(self) -> int:
        return len(self.deals)

    @property
    def decision_kind(self) -> DecisionKind | None:
        return _PHASE_KIND.get(self.phase)

    def hand(self, seat: int) -> CardSet:
        return CardSet(self.hands[seat])

    def legal(self) -> Legal:
        """What the seat to act may do (see ``arena.engine.legal``)."""
        phase = self.phase
        if phase is _PLAY_PHASE:
            # legal_play_mask written out: the hot path of search.
            mask = self.hands[self.to_act]
            if self._trick:
                mask = mask & self._follow_mask or mask
            return _PLAY_CHOICES[mask]
        if phase is _BIDDING_PHASE:
            return BIDDING_CHOICES[self.high_bid]
        if phase is _TRUMP_PHASE:
            return TRUMP_CHOICES
        if phase is _DISCARD_PHASE:
            return Legal(_DISCARD, (), self.discard_rule())  # Legal.of_discard
        return NOTHING

    def legal_play_mask(self) -> int:
        """R7.2: the cards the seat to act may play, as a mask."""
        hand = self.hands[self.to_act]
        if not self._trick:
            return hand
        follow = hand & self._follow_mask
        return follow or hand

    def discard_rule(self) -> DiscardRule:
        """R5.2 for a non-dealer; R5.3-R5.4 for the dealer (after the pick-up)."""
        must, may, min_count, max_count = self.discard_masks()
        seat = self.to_act
        dealer = seat == self.dealer
        return DiscardRule(
            seat,
            CardSet(self.hands[seat]),
            CardSet(may),
            CardSet(must) if must else _NO_CARDS,
            min_count,
            max_count,
            dealer,
            "R5.4" if dealer else "R5.2",
        )

    def discard_masks(self) -> tuple[int, int, int, int]:
        """``discard_rule()`` as plain values, ``(must, may, min_count, max_count)`` with
        the card sets as masks: a discard D is legal exactly when ``must ⊆ D ⊆ may`` and
        ``min_count <= |D| <= max_count``. For search and the random player, which need
        no ``DiscardRule`` object at every discard; ``apply`` checks by the same values."""
        if self.phase is not _DISCARD_PHASE:
            raise IllegalActionError(_PHASE_RULE[self.phase], "nobody is discarding now")
        cached = self._discard_masks
        if cached[0] == self.decisions:
            return cached[1]  # asked again at the same decision (by apply, say)
        assert self.trump is not None
        seat = self.to_act
        hand = self.hands[seat]
        trumps = hand & TRUMP_MASKS[self.trump]
        non_trumps = hand & ~trumps
        if seat != self.dealer:
            # R5.2: 0 to 3 cards, never a trump.
            masks = (0, non_trumps, 0, min(MAX_NON_DEALER_DISCARD, non_trumps.bit_count()))
        else:
            excess = hand.bit_count() - HAND_SIZE
            if trumps.bit_count() <= HAND_SIZE:
                # R5.4: with at most 6 trumps, every trump is kept.
                masks = (0, non_trumps, excess, excess)
            else:
                # R5.4: keep six trumps (so every non-trump goes), never the protected five.
                may = non_trumps | (trumps & ~PROTECTED_TRUMP_MASKS[self.trump])
                masks = (non_trumps, may, excess, excess)
        self._discard_masks = (self.decisions, masks)
        return masks

    # --- the one door -----------------------------------------------------------------

    def apply(self, action: Action) -> None:
        """Advance the game by the action of the seat to act, or raise without change."""
        kind = type(action)
        if kind is Play and self.phase is _PLAY_PHASE:
            # R7: a card played, written out here rather than in a method of its own, since
            # it is most of the decisions of a game (and of a search's simulations).
            card = action.card  # type: ignore[union-attr]
            # Test-found fix: a Play around something other than a Card crashed with a
            # TypeError/AttributeError; apply's contract is MalformedActionError (as for
            # NameTrump and Discard), with the game unchanged.
            if not isinstance(card, Card):
                raise MalformedActionError(f"not a card: {card!r}")
            seat = self.to_act
            index = card.index
            bit = 1 << index
            hand = self.hands[seat]
            if not hand & bit:
                raise IllegalActionError("R7.2", f"seat {seat} does not hold {card}")
            trick = self._trick
            if trick:
                follow = hand & self._follow_mask
                if follow and not follow & bit:
                    self._refuse_revoke(follow)
                # R7.3: the trick's winner is kept up to date, card by card.
                power = self._win_power[index]
                if power > self._best_power:
                    self._best_power = power
                    self._best_seat = seat
            else:
                # R7.2, R2.4: the card led sets the suit to follow and which cards can win.
                self._led_suit, self._follow_mask, self._win_power = self._leads[index]
                self._best_power = self._win_power[index]
                self._best_seat = seat
            self.hands[seat] = hand ^ bit
            trick.append(card)
            self._trick_mask |= bit
            self.events.append(_CARD_PLAYED[seat][index])
            self.history.append(_PLAY_TAKEN[seat][index])
            self.decisions += 1
            if len(trick) < SEATS:
                self.to_act = seat + 1 if seat < SEATS - 1 else 0  # R1.1
            else:
                self._finish_trick()
            return
        phase = self.phase
        # In the history before the phase's step, so that a deal the step starts (a
        # throw-in) begins after this decision; taken back if the step refuses the action.
        # (The count waits: the discard masks' cache is keyed by it.)
        self.history.append((self.to_act, action))
        try:
            if kind is Pass and phase is _BIDDING_PHASE:
                self._bid(0)
            elif kind is Bid and phase is _BIDDING_PHASE:
                self._bid(action.amount)  # type: ignore[union-attr]
            elif kind is Discard and phase is _DISCARD_PHASE:
                self._discard(action.cards)  # type: ignore[union-attr]
            elif kind is NameTrump and phase is _TRUMP_PHASE:
                self._name_trump(action.suit)  # type: ignore[union-attr]
            elif kind not in (Pass, Bid, NameTrump, Discard, Play):
                raise MalformedActionError(f"not an action: {action!r}")
            elif phase is _OVER_PHASE:
                raise IllegalActionError("R9.1", f"the game is over; {action} is too late")
            else:
                expected = _PHASE_KIND[phase].value
                raise IllegalActionError(
                    _PHASE_RULE[phase],
                    f"seat {self.to_act} must make a {expected} decision now, not {action}",
                )
        except BaseException:
            self.history.pop()
            raise
        self.decisions += 1

    # --- the phases -------------------------------------------------------------------

    def _start_deal(self, arranged: tuple[list[int], list[int]] | None = None) -> None:
        number = len(self.deals) + 1
        hands, stock = (list(arranged[0]), list(arranged[1])) if arranged else self.key.deal(number)
        self.deals.append(
            DealLog(number, self.dealer, list(hands), list(stock), first_decision=len(self.history))
        )
        self.hands = hands
        self.stock = stock
        self.phase = _BIDDING_PHASE
        self.to_act = (self.dealer + 1) % SEATS  # R4.1
        self.high_bid = 0
        self.bidder = None
        self.trump = None
        self._won = [0, 0, 0]
        self._trick = []
        self._trick_mask = 0
        self.events.append(DealStarted(number, self.dealer))
        self.events.extend(map(HandDealt, _SEAT_NUMBERS, map(CardSet, hands)))

    def _bid(self, amount: int) -> None:
        seat = self.to_act
        if amount and amount <= self.high_bid:
            raise IllegalActionError(
                "R4.2", f"a bid must be higher than {self.high_bid}; {amount} is not"
            )
        self.deals[-1].bids.append(_BID_ENTRY[seat][amount])
        self.events.append(_BID_MADE[seat][amount])
        if amount:
            self.high_bid, self.bidder = amount, seat
        if amount == MAX_BID:  # R4.3
            self._start_trump()
        elif seat == self.dealer:  # R4.4
            if self.bidder is None:
                self._throw_in()
            else:
                self._start_trump()
        else:
            self.to_act = left_of(seat)

    def _throw_in(self) -> None:
        """R4.5: nothing is scored and the same dealer deals the next deal number."""
        self.deal.thrown_in = True
        self.events.append(DealThrownIn(self.deal_number))
        if self.deal_number >= self.draw_limit:
            self._end(None)
        else:
            self._start_deal()

    def _start_trump(self) -> None:
        assert self.bidder is not None
        self.deal.bidder, self.deal.contract = self.bidder, self.high_bid
        self.phase = _TRUMP_PHASE
        self.to_act = self.bidder  # R5.1

    def _name_trump(self, suit: Suit) -> None:
        assert self.bidder is not None
        if not isinstance(suit, Suit):
            raise MalformedActionError(f"not a suit: {suit!r}")
        self.trump = self.deal.trump = suit
        self.events.append(TrumpNamed(self.bidder, suit, self.high_bid))
        self.phase = _DISCARD_PHASE
        self.to_act = left_of(self.dealer)  # R5.2

    def _discard(self, cards: CardSet) -> None:
        if not isinstance(cards, CardSet):
            raise MalformedActionError(f"a discard is a set of cards, not {cards!r}")
        must, may, min_count, max_count = self.discard_masks()
        mask = cards.mask
        count = mask.bit_count()
        # DiscardRule.check's conditions on masks (may lies within the hand): the rule is
        # made only to say which rule a discard breaks.
        if mask & ~may or must & ~mask or not min_count <= count <= max_count:
            self.discard_rule().check(cards)
        seat = self.to_act
        deal = self.deals[-1]
        events = self.events
        if seat != self.dealer:
            stock = self.stock
            received = stock[:count]  # R5.2: at once, from the top of the stock
            del stock[:count]
            got = 0
            for index in received:
                got |= 1 << index
            self.hands[seat] = (self.hands[seat] & ~mask) | got
            deal.exchanges.append((seat, mask, received))
            events.append(Exchanged(seat, count, count))
            events.append(OwnExchange(seat, cards, CardSet(got)))
            seat = self.to_act = seat + 1 if seat < SEATS - 1 else 0  # R1.1
            if seat == self.dealer:
                self._dealer_picks_up()
            return
        self.hands[seat] &= ~mask
        deal.dealer_discard = mask
        events.append(Exchanged(seat, count, len(deal.dealer_pickup)))
        events.append(OwnExchange(seat, cards, _NO_CARDS))
        self._start_play()

    def _dealer_picks_up(self) -> None:
        """R5.3: the dealer takes the whole stock into hand before discarding."""
        picked = 0
        for index in self.stock:
            picked |= 1 << index
        self.hands[self.dealer] |= picked
        self.deal.dealer_pickup = self.stock
        self.stock = []
        # R10: the dealer is told its pick-up before it must discard.
        self.events.append(OwnExchange(self.dealer, _NO_CARDS, CardSet(picked)))

    def _start_play(self) -> None:
        assert self.trump is not None and self.bidder is not None
        self.phase = _PLAY_PHASE
        self.to_act = self._trick_leader = self.bidder  # R7.1
        self._trick = []
        self._trick_mask = 0
        self._leads = LEADS[self.trump]
        ace, two = _ACE_TWO_BITS[self.trump]
        for seat, hand in enumerate(self.hands):
            if hand & ace:
                self._ace_seat = seat
            if hand & two:
                self._two_seat = seat

    def _refuse_revoke(self, follow: int) -> None:
        led = Suit(self._led_suit)
        what = "trump" if led == self.trump else led.noun
        raise IllegalActionError("R7.2", f"must follow {what} (holding {CardSet(follow)})")

    def _finish_trick(self) -> None:
        """R7.3: the trick goes to its highest trump, else its highest card of the suit led."""
        winner = self._best_seat
        tricks = self.deals[-1].tricks
        tricks.append(Trick(self._trick_leader, tuple(self._trick), winner))
        self._won[winner % TEAMS] |= self._trick_mask  # R1.2: the winner's team
        self.events.append(_TRICK_WON[len(tricks)][winner])
        self._trick = []
        self._trick_mask = 0
        self._trick_leader = self.to_act = winner
        if len(tricks) == TRICKS:
            self._score_deal()

    def _score_deal(self) -> None:
        """R6 points, R8 scoring, then R9's end-of-game test."""
        assert self.trump is not None and self.bidder is not None
        deal = self.deals[-1]
        first, second, third = self._won  # the cards each team took in tricks
        right, left = _BAUER_BITS[self.trump]
        totals = (game_value(first), game_value(second), game_value(third))
        best = max(totals)
        game_team = totals.index(best) if totals.count(best) == 1 else None  # R6.2
        # R6.1: a category goes to the team that took its card in a trick (R5.5: these
        # five are always played, so a card neither of the first two teams took the
        # third did).
        categories: dict[str, int | None] = {
            "high": team_of(self._ace_seat),
            "low": team_of(self._two_seat),
            "right": 0 if first & right else 1 if second & right else 2,
            "left": 0 if first & left else 1 if second & left else 2,
            "joker": 0 if first & _JOKER_BIT else 1 if second & _JOKER_BIT else 2,
            "game": game_team,
        }
        points = [0, 0, 0]
        for team in categories.values():
            if team is not None:
                points[team] += 1
        bidding_team = team_of(self.bidder)
        for team in range(TEAMS):
            if team == bidding_team and points[team] < self.high_bid:
                self.scores[team] -= self.high_bid  # R8.1: set back by the contract
            else:
                self.scores[team] += points[team]  # R8.1-R8.2
        deal.categories = categories
        deal.game_totals = totals
        deal.points = (points[0], points[1], points[2])
        deal.scores_after = (self.scores[0], self.scores[1], self.scores[2])
        self.events.append(
            DealScored(
                deal.number,
                self.bidder,
                self.high_bid,
                tuple(categories.items()),
                totals,
                deal.points,
                deal.scores_after,
            )
        )
        winner = winner_after_deal(deal.scores_after, bidding_team)
        if winner is not None:
            self._end(winner)
        elif self.deal_number >= self.draw_limit:
            self._end(None)  # R9.4
        else:
            self.dealer = left_of(self.dealer)  # R1.3
            self._start_deal()

    def forfeit(self, teams: Collection[int]) -> None:
        """End the game now as a loss for ``teams``: the referee's rule F1 (a seat that
        faulted on every decision of several deals in a row; docs/SECURITY.md), decided by
        the referee from what the engine cannot know, as a resignation is. The winner is
        ``forfeit_winner``'s; the deal in progress is left as it is.

        >>> game = Game(seed=7)
        >>> game.forfeit({2})
        >>> game.outcome
        Outcome(winner=None, scores=(0, 0, 0), deals=1, forfeited=(2,))
        """
        forfeited = tuple(sorted(set(teams)))
        if not forfeited or not all(team in range(TEAMS) for team in forfeited):
            raise ValueError(f"F1: the teams that forfeit are some of 0, 1, 2, not {teams!r}")
        if self.is_over:
            raise IllegalActionError("R9.1", "the game is over; no team can forfeit it")
        self._end(forfeit_winner(self.scores, forfeited), forfeited)

    def _end(self, winner: int | None, forfeited: tuple[int, ...] = ()) -> None:
        self.phase = _OVER_PHASE
        self.is_over = True
        scores = (self.scores[0], self.scores[1], self.scores[2])
        self.outcome = Outcome(winner, scores, self.deal_number, forfeited)
        self.events.append(GameEnded(winner, scores, self.deal_number))

    # --- for tests and tools ----------------------------------------------------------

    @property
    def current_trick(self) -> tuple[int, tuple[Card, ...]]:
        """The leader and the cards played so far to the trick in progress."""
        return self._trick_leader, tuple(self._trick)
