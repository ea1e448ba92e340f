"""Secret deals: every card of a game follows from its 256-bit key by a keyed function.

A game is dealt from a ``GameKey`` (R1.3, R3.1a). HMAC-SHA256 under the key serves as a
deterministic random bit generator: counter-mode blocks, cut into 32-bit words, turned
into unbiased draws by rejection sampling, which drive a Fisher–Yates shuffle. HMAC is
a pseudorandom function, so without the key no number of observed hands (of this game,
or of other games of the same run) helps to predict another card; with the key, deal k
is always the same cards to the same seats, which duplicate play and replay rely on.

The arena derives one key per game from its run's secret (``arena.tournament.schedule``).
``GameKey.from_seed`` makes a key from a small integer, for tests, doctests and
reproducible runs only: anyone who knows the seed can know every card.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import itertools
import operator
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import ClassVar, Final, Protocol

from arena.engine.cards import DECK_SIZE

KEY_BYTES: Final = 32
MIN_KEY_BYTES: Final = 16  # 128 bits: below that a key could be searched for
_SEATS: Final = 6  # R1.1 (game.py imports this module, so the constant is repeated)
_HAND_SIZE: Final = 6  # R3.1
_WORD: Final = 1 << 32
_WORDS_PER_BLOCK: Final = 8  # one SHA-256 output
# A shuffle draws 52 times, in [0, 53) down to [0, 2); a draw refuses a word (see _below)
# with a chance below 2**-26, so 52 words (7 blocks) nearly always do.
_DRAW_SIZES: Final = tuple(range(DECK_SIZE, 1, -1))
# Each draw's rejection limit (see _below) lies above 2**32 - 53, since 2**32 mod n < n:
# a word at or above one starts with three 0xFF bytes.
_REJECTABLE_WORD_START: Final = b"\xff\xff\xff"
_DEAL_BLOCKS: Final = -(-len(_DRAW_SIZES) // _WORDS_PER_BLOCK)
_DEAL_WORDS: Final = struct.Struct(f">{_WORDS_PER_BLOCK * _DEAL_BLOCKS}I")
_BLOCK_COUNTERS: Final = tuple(counter.to_bytes(8, "big") for counter in range(_DEAL_BLOCKS))
_SHA256_BLOCK: Final = 64  # bytes: HMAC pads its key to this
_INNER_PAD: Final = bytes(byte ^ 0x36 for byte in range(256))  # RFC 2104, as bytes.translate
_OUTER_PAD: Final = bytes(byte ^ 0x5C for byte in range(256))  # tables
_BITS: Final = tuple(1 << index for index in range(DECK_SIZE))  # a hand's mask is their sum
# Domain labels: each is followed by fixed-width integers, and no label is a prefix of
# another, so no two draws of one key ever hash the same message.
_DEAL_LABEL: Final = b"schmier-arena/deal:"
_DEALER_LABEL: Final = b"schmier-arena/first-dealer:"
_SEED_LABEL: Final = b"schmier-arena/test-seed:"


class DealSource(Protocol):
    """Where a game's cards come from: a ``GameKey``, or the deals of a record (replay)."""

    def first_dealer(self) -> int:
        """R1.3: the dealer of deal 1."""
        ...

    def deal(self, number: int) -> tuple[list[int], list[int]]:
        """R3.1, R3.1a: the six hands (as masks) and the stock (top first) of deal ``number``."""
        ...


@dataclass(frozen=True, slots=True)
class SecretKey:
    """Bytes every card follows from: refused when too short to be secret, never shown."""

    secret: bytes = field(repr=False)
    DESCRIBED_AS: ClassVar[str] = "a key"

    def __post_init__(self) -> None:
        check_secret(self.secret, self.DESCRIBED_AS)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(<secret>)"


@dataclass(frozen=True, slots=True, repr=False)  # SecretKey's repr hides the secret
class GameKey(SecretKey):
    """The secret a game is dealt from; its repr never shows the secret.

    >>> key = GameKey.from_seed(7)
    >>> key.deal(3) == GameKey.from_seed(7).deal(3) != key.deal(4)
    True
    >>> key
    GameKey(<secret>)
    """

    DESCRIBED_AS: ClassVar[str] = "a game key"

    @classmethod
    def from_seed(cls, seed: int) -> GameKey:
        """A key made from an integer: for tests, doctests and reproducible runs only.

        Anyone who knows (or guesses) the seed can know every card of the game.
        """
        return cls(hashlib.sha256(_SEED_LABEL + str(int(seed)).encode()).digest())

    def first_dealer(self) -> int:
        """R1.3: the first dealer, drawn from the key."""
        return _below(_words(self.secret, _DEALER_LABEL), _SEATS)

    def deal(self, number: int) -> tuple[list[int], list[int]]:
        """R3.1, R3.1a: deal ``number`` (1, 2, …): the six hands as masks, the stock top first.

        Depends on the key and the deal number only, and hands go to absolute seats (seat
        s gets cards 6s‥6s+5 of the shuffled deck), so the same key gives the same cards
        to the same seats whoever sits there: the basis of duplicate play.
        """
        if number < 1:
            raise ValueError(f"R3.1a: deals are numbered from 1, not {number}")
        # Fisher–Yates: draw j in [0, i] for i = 52 … 1, as _below draws from _words. This
        # runs at every deal, so the blocks are made at once and, as nearly always, when
        # _below would take the first word for every draw (no three 0xFF bytes stand
        # anywhere in the blocks), all the draws are made by one map in C.
        blocks = _deal_blocks(self.secret, number)
        if _REJECTABLE_WORD_START in blocks:
            stream = _words(self.secret, _DEAL_LABEL + number.to_bytes(8, "big"))
            draws = [_below(stream, size) for size in _DRAW_SIZES]
        else:
            draws = list(map(operator.mod, _DEAL_WORDS.unpack(blocks), _DRAW_SIZES))
        # The deck holds the cards' bits, so that a hand's mask is the sum of its slice.
        deck = list(_BITS)
        i = DECK_SIZE - 1
        for j in draws:
            deck[i], deck[j] = deck[j], deck[i]
            i -= 1
        hands = [
            sum(deck[0:6]),
            sum(deck[6:12]),
            sum(deck[12:18]),
            sum(deck[18:24]),
            sum(deck[24:30]),
            sum(deck[30:36]),
        ]
        return hands, [bit.bit_length() - 1 for bit in deck[_HAND_SIZE * _SEATS :]]


def check_secret(secret: object, what: str) -> None:
    """Refuse a key too short to be secret (``what`` names it in the error)."""
    if not isinstance(secret, bytes) or len(secret) < MIN_KEY_BYTES:
        raise ValueError(f"{what} is at least {MIN_KEY_BYTES} bytes of secret")


def _words(secret: bytes, label: bytes) -> Iterator[int]:
    """The 32-bit big-endian words of HMAC-SHA256(secret, label ‖ counter), counter 0, 1 …"""
    for counter in itertools.count():
        block = hmac.digest(secret, label + counter.to_bytes(8, "big"), "sha256")
        yield from struct.unpack(f">{_WORDS_PER_BLOCK}I", block)


@functools.lru_cache(maxsize=64)
def _deal_pads(secret: bytes) -> tuple[hashlib._Hash, hashlib._Hash]:
    """HMAC-SHA256 under ``secret`` taken apart (RFC 2104): the inner hash having taken in
    the key's inner pad and the deal label, and the outer hash its outer pad. Every block
    of every deal of a key starts from these two states, and copying a hashlib state
    costs far less than ``hmac`` keying, copying and finishing its pair of them."""
    key = hashlib.sha256(secret).digest() if len(secret) > _SHA256_BLOCK else secret
    key = key.ljust(_SHA256_BLOCK, b"\0")
    inner = hashlib.sha256(key.translate(_INNER_PAD) + _DEAL_LABEL)
    outer = hashlib.sha256(key.translate(_OUTER_PAD))
    return inner, outer


def _deal_blocks(secret: bytes, number: int) -> bytes:
    """The first ``_DEAL_BLOCKS`` blocks of ``_words(secret, deal label)``, as bytes:
    HMAC(key, m) = H(outer pad ‖ H(inner pad ‖ m)), with m the label, deal number and
    block counter (``test_deals`` checks them against ``hmac.digest``)."""
    inner_pad, outer_pad = _deal_pads(secret)
    inner_deal = inner_pad.copy()
    inner_deal.update(number.to_bytes(8, "big"))
    blocks = b""
    for counter in _BLOCK_COUNTERS:
        inner = inner_deal.copy()
        inner.update(counter)
        outer = outer_pad.copy()
        outer.update(inner.digest())
        blocks += outer.digest()
    return blocks


def _below(words: Iterator[int], n: int) -> int:
    """A uniform integer in [0, n): words at or above the largest multiple of n that fits
    in 32 bits are skipped, so that ``% n`` favours no value."""
    limit = _WORD - _WORD % n
    for word in words:
        if word < limit:
            return word % n
    raise AssertionError("the word stream is endless")
