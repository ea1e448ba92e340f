"""Shared helpers for the engine tests: hand-built deals, scripted play, a reference model.

The reference model (``ref_*``) restates RULES.md in the plainest possible code, written
from the rules and not from the engine, so property tests can compare the two.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterable
from typing import Any

from arena.engine import (
    CARDS,
    PASS,
    Action,
    Bid,
    Card,
    CardSet,
    DecisionKind,
    Discard,
    Game,
    NameTrump,
    Play,
    Suit,
    Trick,
)
from arena.engine.events import Event, is_told_to
from arena.engine.forfeit import FORFEIT_DEALS, apply_forfeit
from arena.engine.game import Phase
from arena.engine.randomplay import random_action, random_legal_action
from arena.engine.record import DecisionNote, Fallback

FULL = (1 << 53) - 1
# The text of every card of the pack, suit by suit and rank by rank, then the joker.
ALL_TEXTS = [rank + suit for suit in "CDHS" for rank in "23456789TJQKA"] + ["JK"]
Policy = Callable[[Game, random.Random], Action]


# --- small conversions ------------------------------------------------------------------


def idx(text: str) -> int:
    return Card.parse(text).index


def mask(texts: str | Iterable[str]) -> int:
    if isinstance(texts, str):
        texts = texts.split()
    out = 0
    for text in texts:
        out |= Card.parse(text).bit
    return out


def mask_of_indices(indices: Iterable[int]) -> int:
    out = 0
    for index in indices:
        out |= 1 << index
    return out


def texts_of(m: int) -> set[str]:
    return {str(c) for c in CardSet(m)}


def advance(seed: int, steps: int) -> Game:
    """A game of ``seed`` after ``steps`` random legal decisions (bids only now and then),
    or over before them."""
    rng = random.Random(seed)
    game = Game(seed=seed)
    for _ in range(steps):
        if game.is_over:
            break
        game.apply(random_legal_action(game.legal(), rng))
    return game


# --- hand-built deals -------------------------------------------------------------------

# Trump hearts, dealer 5, seat 0 bids. Seat 0 holds the six best trumps and wins every
# trick; the dealer holds the 2 of trump (Low) and the joker after the pick-up. Worked out
# by hand from R6.1: team 0 wins High, Right, Left, Joker and Game (5), team 2 wins Low (1).
SWEEP_HANDS = [
    "AH KH QH JH JD TH",
    "2C 3C 4C 5C 6C 7C",
    "8C 9C TC JC QC KC",
    "AC 2D 3D 4D 5D 6D",
    "7D 8D 9D TD QD KD",
    "AD 2S 3S 4S 5S 6S",
]
# The default stock is the rest of the pack in card order: 2H..9H, 7S..AS, JK.
SWEEP_DEALER_KEEPS = "2H 6H 7H 8H 9H JK"  # R5.4: 9 trumps held, keep 6 incl. 2H and JK
SWEEP_PLAY = (
    "AH 2C 8C AC 7D JK "
    "KH 3C 9C 2D 8D 2H "
    "QH 4C TC 3D 9D 6H "
    "JH 5C JC 4D TD 7H "
    "JD 6C QC 5D QD 8H "
    "TH 7C KC 6D KD 9H"
)

# Trump hearts, dealer 5, seat 0 bids; the stock holds no trump and the dealer keeps its
# six dealt cards. By hand (R2.6, R6, R7.3):
#   trick 1 led by 0: AH 4H 6H 8H JK 5S -> seat 0 (AH); values 4+1 = 5 to team 0
#   trick 2 led by 0: 2H KH 7H 9H TH 6S -> seat 1 (KH); values 3+10 = 13 to team 1
#   trick 3 led by 1: 5H QH JH JD 7S 3H -> seat 2 (QH); values 2+1+1 = 4 to team 2
#   trick 4 led by 2: 2S AS 3S KS JS 4S -> seat 3 (AS); values 4+3+1 = 8 to team 0
#   trick 5 led by 3: 5C 6C 7C 8C 2C 9C -> seat 2 (9C); value 0
#   trick 6 led by 2: 2D 3D 4D 5D 6D 9D -> seat 1 (9D); value 0
# Game totals 13, 13, 4: a tie, so nobody wins the Game point (R6.2). High and Low go to
# team 0 (seat 0 holds AH and 2H), Right and Left to team 2 (trick 3), Joker to team 0.
# Points: team 0 three, team 1 none, team 2 two; five in all (R6.3).
TIE_HANDS = [
    "AH 2H 3H JS 8C 6D",
    "KH 4H 5H 4S 2C 9D",
    "QH 6H 7H 2S 9C 2D",
    "JH 8H 9H AS 5C 3D",
    "JD TH JK 3S 6C 4D",
    "5S 6S 7S KS 7C 5D",
]
TIE_PLAY = (
    "AH 4H 6H 8H JK 5S "
    "2H KH 7H 9H TH 6S "
    "5H QH JH JD 7S 3H "
    "2S AS 3S KS JS 4S "
    "5C 6C 7C 8C 2C 9C "
    "2D 3D 4D 5D 6D 9D"
)
TIE_WINNERS = [0, 1, 2, 3, 2, 1]


def fill_hands(given: dict[int, str]) -> list[str]:
    """Six hands: the given ones, the other seats filled with unused cards in card order."""
    used = 0
    for text in given.values():
        used |= mask(text)
    spare = [c for c in CARDS if not used & c.bit]
    hands = []
    for seat in range(6):
        if seat in given:
            hands.append(given[seat])
        else:
            hands.append(" ".join(str(c) for c in spare[:6]))
            spare = spare[6:]
    return hands


def bid_and_name(game: Game, bidder: int, amount: int, trump: Suit) -> None:
    """R4: everyone passes except ``bidder``, who bids ``amount``; then trump is named."""
    while game.phase is Phase.BIDDING:
        game.apply(Bid(amount) if game.to_act == bidder else PASS)
    game.apply(NameTrump(trump))


def keep_hands(game: Game) -> None:
    """R5.2-R5.3: non-dealers discard nothing; the dealer puts back what it picked up when
    that is legal, else the rule's own example discard."""
    while game.phase is Phase.DISCARD:
        if game.to_act != game.dealer:
            game.apply(Discard(CardSet()))
            continue
        rule = game.discard_rule()
        pickup = CardSet(mask_of_indices(game.deal.dealer_pickup))
        game.apply(Discard(pickup if rule.is_legal(pickup) else rule.example()))


def play_cards(game: Game, script: str) -> None:
    for text in script.split():
        game.apply(Play(Card.parse(text)))


def to_play(
    hands: list[str],
    *,
    dealer: int = 5,
    bidder: int = 0,
    bid: int = 3,
    trump: Suit = Suit.HEARTS,
    stock: str | None = None,
    scores: tuple[int, int, int] = (0, 0, 0),
    draw_limit: int = 200,
) -> Game:
    """An arranged game brought to the first lead: one bid, trump named, hands kept."""
    game = Game.arranged(hands, dealer, stock=stock, scores=scores, draw_limit=draw_limit)
    bid_and_name(game, bidder, bid, trump)
    keep_hands(game)
    assert game.phase is Phase.PLAY
    return game


def sweep_game(bid: int = 3, scores: tuple[int, int, int] = (0, 0, 0), **kw: Any) -> Game:
    """SWEEP_HANDS at the first lead, the dealer keeping SWEEP_DEALER_KEEPS."""
    game = Game.arranged(SWEEP_HANDS, 5, scores=scores, **kw)
    bid_and_name(game, 0, bid, Suit.HEARTS)
    for _ in range(5):
        game.apply(Discard(CardSet()))
    held = game.hand(5)
    game.apply(Discard(held - CardSet.parse(SWEEP_DEALER_KEEPS)))
    return game


# --- policies ---------------------------------------------------------------------------


def eager_action(game: Game, rng: random.Random) -> Action:
    """Bids the lowest legal bid with probability 0.3 (games then average ~18 deals);
    otherwise plays like ``random_action``."""
    legal = game.legal()
    if legal.kind is DecisionKind.BID and len(legal) > 1:
        return legal[1] if rng.random() < 0.3 else PASS
    return random_action(game, rng)


def always_pass(game: Game, rng: random.Random) -> Action:
    return PASS


POLICIES: dict[str, Policy] = {"random": random_action, "eager": eager_action}


# --- invariants -------------------------------------------------------------------------


def assert_cards_conserved(game: Game) -> None:
    """R2.1, R3.1, R5.2-R5.3: hands, stock, discards and tricks hold each card exactly once."""
    deal = game.deal
    parts = [*game.hands, mask_of_indices(game.stock)]
    parts += [discarded for _, discarded, _ in deal.exchanges]
    parts.append(deal.dealer_discard)
    parts += [mask_of_indices(c.index for c in t.cards) for t in deal.tricks]
    parts.append(mask_of_indices(c.index for c in game.current_trick[1]))
    seen = 0
    for part in parts:
        assert seen & part == 0, f"card(s) {texts_of(seen & part)} in two places"
        seen |= part
    assert seen == FULL, f"cards missing: {texts_of(FULL & ~seen)}"


def knowable(game: Game, deal_number: int, seat: int) -> int:
    """R3.2, R10: the cards ``seat`` may know of in a deal, as far as it has gone: its own
    dealt hand, its own replacements or (dealer) pick-up, and every card played."""
    deal = game.deals[deal_number - 1]
    known = deal.hands[seat]
    for who, _, received in deal.exchanges:
        if who == seat:
            known |= mask_of_indices(received)
    if seat == deal.dealer:
        known |= mask_of_indices(deal.dealer_pickup)
    for trick in deal.tricks:
        known |= mask_of_indices(c.index for c in trick.cards)
    if deal is game.deal:
        known |= mask_of_indices(c.index for c in game.current_trick[1])
    return known


def cards_mentioned(obj: object) -> int:
    """Every card named anywhere inside a View, an event or a tuple of them."""
    if isinstance(obj, Card):
        return obj.bit
    if isinstance(obj, CardSet):
        return obj.mask
    if isinstance(obj, Trick):
        return cards_mentioned(obj.cards)
    if isinstance(obj, tuple | list):
        out = 0
        for item in obj:
            out |= cards_mentioned(item)
        return out
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return cards_mentioned([getattr(obj, f.name) for f in dataclasses.fields(obj)])
    return 0


# --- the reference model (from RULES.md, not from the engine) ---------------------------

SAME_COLOUR = {"H": "D", "D": "H", "S": "C", "C": "S"}  # R2.2
PLAIN_ORDER = "AKQJT98765432"  # R2.5, high to low
VALUES = {"A": 4, "K": 3, "Q": 2, "J": 1, "T": 10}  # R2.6; the joker is worth 1


def ref_trump_order(trump: str) -> list[str]:
    """R2.3: the 15 trumps, high to low."""
    t = trump
    return (
        [f"A{t}", f"K{t}", f"Q{t}", f"J{t}", f"J{SAME_COLOUR[t]}"]
        + [f"{r}{t}" for r in "T98765432"]
        + ["JK"]
    )


def ref_suit(card: str, trump: str) -> str:
    """R2.4: the suit a card counts as once trump is named."""
    if card == "JK" or card == f"J{SAME_COLOUR[trump]}":
        return trump
    return card[-1]


def ref_value(card: str) -> int:
    return 1 if card == "JK" else VALUES.get(card[0], 0)


def ref_winner(trump: str, cards: list[str]) -> int:
    """R7.3: the position of the winning card."""
    order = ref_trump_order(trump)
    trumps = [i for i, c in enumerate(cards) if c in order]
    if trumps:
        return min(trumps, key=lambda i: order.index(cards[i]))
    led = ref_suit(cards[0], trump)
    followers = [i for i, c in enumerate(cards) if ref_suit(c, trump) == led]
    return min(followers, key=lambda i: PLAIN_ORDER.index(cards[i][0]))


def ref_legal(hand: set[str], trick: list[str], trump: str) -> set[str]:
    """R7.2: the cards a seat may play to ``trick`` (cards so far, the lead first)."""
    if not trick:
        return set(hand)
    led = ref_suit(trick[0], trump)
    follow = {c for c in hand if ref_suit(c, trump) == led}
    return follow or set(hand)


def ref_winner_after_deal(scores: list[int], bidding_team: int) -> int | None:
    """R9.1-R9.3."""
    over = {t: s for t, s in enumerate(scores) if s >= 21}
    if not over:
        return None
    top = max(over.values())
    leaders = [t for t, s in over.items() if s == top]
    if len(leaders) == 1:
        return leaders[0]
    return bidding_team if bidding_team in leaders else None


def check_played_deal(deal: dict[str, Any]) -> None:
    """Check one played deal of a record against the reference model: hands through the
    exchanges (R5), legal plays (R7.2), trick winners and leads (R7.1, R7.3), points (R6)."""
    trump = deal["trump"]
    dealer = deal["dealer"]
    order = ref_trump_order(trump)
    hands = [set(h) for h in deal["hands"]]
    stock = list(deal["stock"])
    # R5.2: left of the dealer round to the dealer's right, replacements from the top.
    seats = [(dealer + k) % 6 for k in range(1, 6)]
    assert [e["seat"] for e in deal["exchanges"]] == seats
    for exchange in deal["exchanges"]:
        seat, discarded, received = exchange["seat"], exchange["discarded"], exchange["received"]
        assert set(discarded) <= hands[seat]
        assert len(discarded) <= 3 and not set(discarded) & set(order)
        assert received == stock[: len(discarded)]
        del stock[: len(discarded)]
        hands[seat] = (hands[seat] - set(discarded)) | set(received)
        assert len(hands[seat]) == 6
    # R5.3-R5.4: the dealer takes the rest of the stock and discards back to six.
    picked, dropped = deal["dealer_exchange"]["picked_up"], deal["dealer_exchange"]["discarded"]
    assert picked == stock
    held = hands[dealer] | set(picked)
    assert set(dropped) <= held
    hands[dealer] = held - set(dropped)
    assert len(hands[dealer]) == 6
    trumps_held = held & set(order)
    assert len(hands[dealer] & set(order)) == min(6, len(trumps_held))
    protected = {f"A{trump}", f"2{trump}", f"J{trump}", f"J{SAME_COLOUR[trump]}", "JK"}
    assert protected & trumps_held <= hands[dealer]
    # R5.5: the five scoring trumps are all in hands.
    in_hands = set().union(*hands)
    assert protected <= in_hands
    holder = {c: s for s, h in enumerate(hands) for c in h}
    # R7: the tricks.
    leader = deal["bidder"]  # R7.1
    captured: list[list[str]] = [[], [], []]
    assert len(deal["tricks"]) == 6  # R7.4
    for trick in deal["tricks"]:
        assert trick["leader"] == leader
        played: list[str] = []
        for k, card in enumerate(trick["cards"]):
            seat = (leader + k) % 6
            assert card in ref_legal(hands[seat], played, trump), (seat, card, played)
            hands[seat].discard(card)
            played.append(card)
        winner = (leader + ref_winner(trump, played)) % 6
        assert trick["winner"] == winner
        captured[winner % 3] += played
        leader = winner
    assert all(not h for h in hands)  # R7.4

    def team_capturing(card: str) -> int:
        return next(t for t in range(3) if card in captured[t])

    totals = [sum(ref_value(c) for c in captured[t]) for t in range(3)]
    best = max(totals)
    expected = {
        "high": holder[f"A{trump}"] % 3,
        "low": holder[f"2{trump}"] % 3,
        "right": team_capturing(f"J{trump}"),
        "left": team_capturing(f"J{SAME_COLOUR[trump]}"),
        "joker": team_capturing("JK"),
        "game": totals.index(best) if totals.count(best) == 1 else None,
    }
    assert deal["points"] == expected
    assert deal["game_totals"] == totals
    points = [sum(1 for t in expected.values() if t == team) for team in range(3)]
    assert deal["points_won"] == points
    assert sum(points) in (5, 6)  # R6.3


def check_record(record: dict[str, Any], start: tuple[int, int, int] = (0, 0, 0)) -> None:
    """A whole record against the reference model: deals, dealers, R8 scores, R9 result."""
    scores = list(start)
    dealer = record["first_dealer"]
    winner: int | None = None
    deals = record["deals"]
    for k, deal in enumerate(deals, start=1):
        assert deal["number"] == k
        assert deal["dealer"] == dealer  # R1.3
        bids = deal["bids"]
        assert [b["seat"] for b in bids] == [(dealer + j) % 6 for j in range(1, len(bids) + 1)]
        high = 0
        for b in bids:
            assert b["bid"] == 0 or high < b["bid"] <= 6  # R4.2
            high = max(high, b["bid"])
        if deal["thrown_in"]:
            assert high == 0 and len(bids) == 6  # R4.5
            continue
        if "points_won" not in deal:
            assert k == len(deals)  # only the last deal may be unfinished
            continue
        assert len(bids) == 6 or bids[-1]["bid"] == 6  # R4.3-R4.4
        assert deal["contract"] == high
        assert deal["bidder"] == next(b["seat"] for b in bids if b["bid"] == high)
        check_played_deal(deal)
        bidding_team = deal["bidder"] % 3
        for team, won in enumerate(deal["points_won"]):
            if team == bidding_team and won < deal["contract"]:
                scores[team] -= deal["contract"]  # R8.1: set back by the contract
            else:
                scores[team] += won  # R8.1-R8.2
        assert deal["scores"] == scores
        winner = ref_winner_after_deal(scores, bidding_team)
        if winner is not None:
            assert k == len(deals)
        dealer = (dealer + 1) % 6
    result = record["result"]
    if result is None:
        return
    assert result["scores"] == scores
    assert result["deals"] == len(deals)
    if winner is None:  # R9.4: a draw at the deal limit
        assert result["draw"] and result["winner"] is None
        assert len(deals) == record["draw_limit"]
    else:
        assert not result["draw"] and result["winner"] == winner
        assert scores[winner] >= 21


def events_for(game: Game, seat: int, start: int = 0) -> list[Event]:
    """R10: the events from index ``start`` on that ``seat`` may be told, in order, as
    ``events.is_told_to`` decides for the referee."""
    return [e for e in game.events[start:] if is_told_to(e, seat)]


def refereed(
    seed: int, marked: Callable[[int, int], Fallback | None], forfeit_deals: int = FORFEIT_DEALS
) -> tuple[Game, list[DecisionNote]]:
    """A random game in which the referee played the decisions ``marked(deal, seat)`` gives
    a fallback for, with the forfeit rule F1 applied at each deal's end as the table does."""
    rng = random.Random(seed)
    game = Game(seed=seed)
    notes: list[DecisionNote] = []
    while not game.is_over:
        number, seat = game.deal_number, game.to_act
        game.apply(random_action(game, rng))
        fallback = marked(number, seat)
        notes.append(DecisionNote(None if fallback else 0.01, fallback))
        if game.deal_number != number:
            apply_forfeit(game, [n.fallback is not None for n in notes], forfeit_deals)
    return game, notes
