"""Keyed deals (R1.3, R3.1, R3.1a): every card follows from the game's key by HMAC-SHA256."""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections import Counter

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from arena.engine import Game, GameKey, deals
from arena.engine.cards import DECK_SIZE, FULL_DECK_MASK
from arena.engine.deals import KEY_BYTES

SECRETS = st.binary(min_size=16, max_size=64)
DEALS = st.integers(1, 2**40)


@given(secret=SECRETS, number=DEALS)
def test_R3_1_every_keyed_deal_is_53_cards_six_to_each_seat_17_in_the_stock(
    secret: bytes, number: int
) -> None:
    """R3.1: whatever the key and deal number, the deal is a permutation of the pack."""
    hands, stock = GameKey(secret).deal(number)
    assert len(hands) == 6 and all(mask.bit_count() == 6 for mask in hands)
    assert len(stock) == 17 and len(set(stock)) == 17
    dealt = 0
    for mask in hands:
        assert not dealt & mask
        dealt |= mask
    for index in stock:
        assert 0 <= index < DECK_SIZE and not dealt >> index & 1
        dealt |= 1 << index
    assert dealt == FULL_DECK_MASK


@given(secret=SECRETS, number=DEALS)
def test_R3_1a_the_same_key_and_deal_number_give_the_same_deal(secret: bytes, number: int) -> None:
    """R3.1a: deal k depends on the key and k only: a fresh key object deals it again."""
    assert GameKey(secret).deal(number) == GameKey(bytes(secret)).deal(number)
    assert GameKey(secret).first_dealer() == GameKey(bytes(secret)).first_dealer()


def test_R3_1a_deals_differ_across_keys_and_deal_numbers() -> None:
    """Another key or another deal number: another deal (no two of 400 share a hand)."""
    keys = [GameKey(hashlib.sha256(bytes([k])).digest()) for k in range(20)]
    seen: dict[tuple[int, int], tuple[int, int]] = {}
    for k, key in enumerate(keys):
        for number in range(1, 21):
            hands, _ = key.deal(number)
            for seat, mask in enumerate(hands):
                assert (mask, seat) not in seen, (k, number, seen.get((mask, seat)))
                seen[(mask, seat)] = (k, number)
    assert len(seen) == 20 * 20 * 6


def test_R1_3_the_first_dealer_is_drawn_from_the_key() -> None:
    """R1.3: the same key, the same first dealer; over many keys every seat deals first,
    about equally often."""
    dealers = Counter(GameKey.from_seed(s).first_dealer() for s in range(1200))
    assert set(dealers) == set(range(6))
    assert all(150 <= n <= 250 for n in dealers.values()), dealers
    assert Game(GameKey.from_seed(9)).first_dealer == GameKey.from_seed(9).first_dealer()


@given(secret=st.binary(min_size=16, max_size=100), number=st.integers(1, 2**40))
@example(secret=bytes(range(KEY_BYTES)), number=3)
def test_R3_1a_the_deal_is_the_documented_function_of_the_key(secret: bytes, number: int) -> None:
    """The derivation written out independently: HMAC-SHA256(key, label ‖ deal ‖ counter),
    32-bit big-endian words, rejection sampling, Fisher–Yates from the top of the deck.
    Pinning it keeps every stored run's deals reproducible from its key (keys longer than
    SHA-256's 64-byte block included, which HMAC hashes first)."""
    words: list[int] = []
    counter = 0

    def below(n: int) -> int:
        nonlocal counter
        while True:
            if not words:
                label = b"schmier-arena/deal:" + number.to_bytes(8, "big")
                block = hmac.new(secret, label + counter.to_bytes(8, "big"), "sha256").digest()
                words.extend(reversed(struct.unpack(">8I", block)))
                counter += 1
            word = words.pop()
            if word < 2**32 - 2**32 % n:
                return word % n

    deck = list(range(DECK_SIZE))
    for i in range(DECK_SIZE - 1, 0, -1):
        j = below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    hands, stock = GameKey(secret).deal(number)
    assert stock == deck[36:]
    assert [sorted(i for i in range(DECK_SIZE) if m >> i & 1) for m in hands] == [
        sorted(deck[6 * s : 6 * s + 6]) for s in range(6)
    ]


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(secret=SECRETS, number=DEALS)
def test_R3_1a_the_rejecting_path_deals_as_the_one_pass_path(
    secret: bytes, number: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A word at or above a draw's rejection limit comes once in tens of millions of draws,
    so ``deal`` checks for one at once and only then draws word by word. With the check
    made to fail always, the word-by-word path must deal the very same cards."""
    key = GameKey(secret)
    one_pass = key.deal(number)
    with monkeypatch.context() as patch:
        patch.setattr(deals, "_REJECTABLE_WORD_START", b"")  # found in any blocks
        assert key.deal(number) == one_pass


def test_each_card_goes_to_each_seat_about_equally_often() -> None:
    """No bias from the draws: over 3000 deals each (card, seat) pair is near 3000/53·6."""
    counts: Counter[tuple[int, int]] = Counter()
    key = GameKey.from_seed(2026)
    deals = 3000
    for number in range(1, deals + 1):
        hands, _ = key.deal(number)
        for seat, mask in enumerate(hands):
            for index in range(DECK_SIZE):
                if mask >> index & 1:
                    counts[(index, seat)] += 1
    expected = deals * 6 / DECK_SIZE  # ≈ 340, standard deviation ≈ 17
    assert all(abs(counts[(c, s)] - expected) < 6 * 17 for c in range(DECK_SIZE) for s in range(6))


def test_a_key_must_be_long_enough_and_numbers_start_at_one() -> None:
    with pytest.raises(ValueError, match="at least 16 bytes"):
        GameKey(bytes(15))
    with pytest.raises(ValueError, match=r"R3\.1a"):
        GameKey(bytes(32)).deal(0)
    with pytest.raises(TypeError, match="exactly one"):
        Game(GameKey(bytes(32)), seed=1)


def test_a_rejected_word_is_found_by_its_first_three_bytes() -> None:
    """``deal`` looks for three 0xFF bytes to find a word ``_below`` would reject: every
    draw's limit must leave only words starting with them above it."""
    smallest_so_starting = int.from_bytes(deals._REJECTABLE_WORD_START + b"\x00", "big")
    for size in range(2, DECK_SIZE + 1):
        limit = 2**32 - 2**32 % size  # the words _below rejects are these and above
        assert limit >= smallest_so_starting
