"""The rules of Schmier (docs/RULES.md) as a pure Python core: no I/O, no global state.

Everything exported here is public, for the arena's other layers and for bots alike: cards
and actions, ``Game`` and its ``Legal`` choices (``arena.engine.legal``), what a seat may
know (``view``, R10), game records, what a bot needs to reason about tricks
(``winning_card``, ``beats``, ``effective_suit``, ``is_trump``, ``trick_power``, in
``arena.engine.tricks``) and the card indices of a bitmask (``indices_of_mask``). The
other names of the submodules are the engine's own.

>>> from arena.engine import Game, view
>>> game = Game(seed=1)
>>> len(view(game, 0).hand)
6
"""

from arena.engine.actions import (
    BIDS,
    MAX_BID,
    MIN_BID,
    PASS,
    PLAYS,
    TRUMPS,
    Action,
    Bid,
    DecisionKind,
    Discard,
    NameTrump,
    Pass,
    Play,
    parse_action,
)
from arena.engine.cards import (
    ACE,
    CARDS,
    JACK,
    JOKER,
    KING,
    QUEEN,
    TEN,
    TWO,
    Card,
    CardSet,
    Suit,
    card_of,
    card_value,
    indices_of_mask,
    left_bauer,
    right_bauer,
)
from arena.engine.deals import DealSource, GameKey
from arena.engine.determinize import Determinizer
from arena.engine.errors import (
    EngineError,
    IllegalActionError,
    MalformedActionError,
    ReplayMismatchError,
)
from arena.engine.events import Event
from arena.engine.game import (
    SEATS,
    TEAMS,
    DealLog,
    Game,
    Outcome,
    Phase,
    Trick,
    deal_cards,
    left_of,
    team_of,
)
from arena.engine.legal import DiscardRule, Legal
from arena.engine.randomplay import random_legal_action
from arena.engine.record import Record, dumps, loads, replay, to_record
from arena.engine.tricks import (
    beats,
    effective_suit,
    is_trump,
    trick_power,
    trump_cards,
    winning_card,
    winning_position,
)
from arena.engine.view import View, view

__all__ = [
    "ACE",
    "BIDS",
    "CARDS",
    "JACK",
    "JOKER",
    "KING",
    "MAX_BID",
    "MIN_BID",
    "PASS",
    "PLAYS",
    "QUEEN",
    "SEATS",
    "TEAMS",
    "TEN",
    "TRUMPS",
    "TWO",
    "Action",
    "Bid",
    "Card",
    "CardSet",
    "DealLog",
    "DealSource",
    "DecisionKind",
    "Determinizer",
    "Discard",
    "DiscardRule",
    "EngineError",
    "Event",
    "Game",
    "GameKey",
    "IllegalActionError",
    "Legal",
    "MalformedActionError",
    "NameTrump",
    "Outcome",
    "Pass",
    "Phase",
    "Play",
    "Record",
    "ReplayMismatchError",
    "Suit",
    "Trick",
    "View",
    "beats",
    "card_of",
    "card_value",
    "deal_cards",
    "dumps",
    "effective_suit",
    "indices_of_mask",
    "is_trump",
    "left_bauer",
    "left_of",
    "loads",
    "parse_action",
    "random_legal_action",
    "replay",
    "right_bauer",
    "team_of",
    "to_record",
    "trick_power",
    "trump_cards",
    "view",
    "winning_card",
    "winning_position",
]
