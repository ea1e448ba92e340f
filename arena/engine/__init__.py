"""The rules of Schmier (docs/RULES.md) as a pure Python core: no I/O, no global state.

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
from arena.engine.cards import CARDS, JOKER, Card, CardSet, Suit, left_bauer, right_bauer
from arena.engine.deals import DealSource, GameKey
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
from arena.engine.view import View, view

__all__ = [
    "BIDS",
    "CARDS",
    "JOKER",
    "MAX_BID",
    "MIN_BID",
    "PASS",
    "PLAYS",
    "SEATS",
    "TEAMS",
    "TRUMPS",
    "Action",
    "Bid",
    "Card",
    "CardSet",
    "DealLog",
    "DealSource",
    "DecisionKind",
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
    "deal_cards",
    "dumps",
    "left_bauer",
    "left_of",
    "loads",
    "parse_action",
    "random_legal_action",
    "replay",
    "right_bauer",
    "team_of",
    "to_record",
    "view",
]
