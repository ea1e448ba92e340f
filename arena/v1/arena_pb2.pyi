from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ProtocolVersion(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PROTOCOL_VERSION_UNSPECIFIED: _ClassVar[ProtocolVersion]
    PROTOCOL_VERSION_1: _ClassVar[ProtocolVersion]

class Suit(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUIT_UNSPECIFIED: _ClassVar[Suit]
    SUIT_CLUBS: _ClassVar[Suit]
    SUIT_DIAMONDS: _ClassVar[Suit]
    SUIT_HEARTS: _ClassVar[Suit]
    SUIT_SPADES: _ClassVar[Suit]

class DecisionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECISION_KIND_UNSPECIFIED: _ClassVar[DecisionKind]
    DECISION_KIND_BID: _ClassVar[DecisionKind]
    DECISION_KIND_TRUMP: _ClassVar[DecisionKind]
    DECISION_KIND_DISCARD: _ClassVar[DecisionKind]
    DECISION_KIND_PLAY: _ClassVar[DecisionKind]
PROTOCOL_VERSION_UNSPECIFIED: ProtocolVersion
PROTOCOL_VERSION_1: ProtocolVersion
SUIT_UNSPECIFIED: Suit
SUIT_CLUBS: Suit
SUIT_DIAMONDS: Suit
SUIT_HEARTS: Suit
SUIT_SPADES: Suit
DECISION_KIND_UNSPECIFIED: DecisionKind
DECISION_KIND_BID: DecisionKind
DECISION_KIND_TRUMP: DecisionKind
DECISION_KIND_DISCARD: DecisionKind
DECISION_KIND_PLAY: DecisionKind

class BotMessage(_message.Message):
    __slots__ = ("join", "answer")
    JOIN_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    join: Join
    answer: Answer
    def __init__(self, join: _Optional[_Union[Join, _Mapping]] = ..., answer: _Optional[_Union[Answer, _Mapping]] = ...) -> None: ...

class Join(_message.Message):
    __slots__ = ("token", "bot_name", "bot_version", "protocol_version")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    BOT_VERSION_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    token: str
    bot_name: str
    bot_version: str
    protocol_version: ProtocolVersion
    def __init__(self, token: _Optional[str] = ..., bot_name: _Optional[str] = ..., bot_version: _Optional[str] = ..., protocol_version: _Optional[_Union[ProtocolVersion, str]] = ...) -> None: ...

class Answer(_message.Message):
    __slots__ = ("request_id", "bid", "trump", "discard", "card")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    bid: int
    trump: Suit
    discard: CardList
    card: str
    def __init__(self, request_id: _Optional[int] = ..., bid: _Optional[int] = ..., trump: _Optional[_Union[Suit, str]] = ..., discard: _Optional[_Union[CardList, _Mapping]] = ..., card: _Optional[str] = ...) -> None: ...

class CardList(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class RefereeMessage(_message.Message):
    __slots__ = ("events", "welcome", "request", "notice", "match_over")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    NOTICE_FIELD_NUMBER: _ClassVar[int]
    MATCH_OVER_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[Event]
    welcome: Welcome
    request: DecisionRequest
    notice: Notice
    match_over: MatchOver
    def __init__(self, events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., welcome: _Optional[_Union[Welcome, _Mapping]] = ..., request: _Optional[_Union[DecisionRequest, _Mapping]] = ..., notice: _Optional[_Union[Notice, _Mapping]] = ..., match_over: _Optional[_Union[MatchOver, _Mapping]] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("seat", "team", "partner", "games", "decision_ms", "overage_ms", "draw_limit", "team_names", "match_id")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    PARTNER_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    OVERAGE_MS_FIELD_NUMBER: _ClassVar[int]
    DRAW_LIMIT_FIELD_NUMBER: _ClassVar[int]
    TEAM_NAMES_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    seat: int
    team: int
    partner: int
    games: int
    decision_ms: int
    overage_ms: int
    draw_limit: int
    team_names: _containers.RepeatedScalarFieldContainer[str]
    match_id: str
    def __init__(self, seat: _Optional[int] = ..., team: _Optional[int] = ..., partner: _Optional[int] = ..., games: _Optional[int] = ..., decision_ms: _Optional[int] = ..., overage_ms: _Optional[int] = ..., draw_limit: _Optional[int] = ..., team_names: _Optional[_Iterable[str]] = ..., match_id: _Optional[str] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("game_started", "deal_started", "bid_made", "deal_thrown_in", "trump_named", "exchanged", "own_exchange", "card_played", "trick_won", "deal_scored", "game_ended")
    GAME_STARTED_FIELD_NUMBER: _ClassVar[int]
    DEAL_STARTED_FIELD_NUMBER: _ClassVar[int]
    BID_MADE_FIELD_NUMBER: _ClassVar[int]
    DEAL_THROWN_IN_FIELD_NUMBER: _ClassVar[int]
    TRUMP_NAMED_FIELD_NUMBER: _ClassVar[int]
    EXCHANGED_FIELD_NUMBER: _ClassVar[int]
    OWN_EXCHANGE_FIELD_NUMBER: _ClassVar[int]
    CARD_PLAYED_FIELD_NUMBER: _ClassVar[int]
    TRICK_WON_FIELD_NUMBER: _ClassVar[int]
    DEAL_SCORED_FIELD_NUMBER: _ClassVar[int]
    GAME_ENDED_FIELD_NUMBER: _ClassVar[int]
    game_started: GameStarted
    deal_started: DealStarted
    bid_made: BidMade
    deal_thrown_in: DealThrownIn
    trump_named: TrumpNamed
    exchanged: Exchanged
    own_exchange: OwnExchange
    card_played: CardPlayed
    trick_won: TrickWon
    deal_scored: DealScored
    game_ended: GameEnded
    def __init__(self, game_started: _Optional[_Union[GameStarted, _Mapping]] = ..., deal_started: _Optional[_Union[DealStarted, _Mapping]] = ..., bid_made: _Optional[_Union[BidMade, _Mapping]] = ..., deal_thrown_in: _Optional[_Union[DealThrownIn, _Mapping]] = ..., trump_named: _Optional[_Union[TrumpNamed, _Mapping]] = ..., exchanged: _Optional[_Union[Exchanged, _Mapping]] = ..., own_exchange: _Optional[_Union[OwnExchange, _Mapping]] = ..., card_played: _Optional[_Union[CardPlayed, _Mapping]] = ..., trick_won: _Optional[_Union[TrickWon, _Mapping]] = ..., deal_scored: _Optional[_Union[DealScored, _Mapping]] = ..., game_ended: _Optional[_Union[GameEnded, _Mapping]] = ...) -> None: ...

class GameStarted(_message.Message):
    __slots__ = ("game_index", "first_dealer")
    GAME_INDEX_FIELD_NUMBER: _ClassVar[int]
    FIRST_DEALER_FIELD_NUMBER: _ClassVar[int]
    game_index: int
    first_dealer: int
    def __init__(self, game_index: _Optional[int] = ..., first_dealer: _Optional[int] = ...) -> None: ...

class DealStarted(_message.Message):
    __slots__ = ("deal_number", "dealer", "hand")
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    deal_number: int
    dealer: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, deal_number: _Optional[int] = ..., dealer: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ...) -> None: ...

class BidMade(_message.Message):
    __slots__ = ("seat", "amount")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    amount: int
    def __init__(self, seat: _Optional[int] = ..., amount: _Optional[int] = ...) -> None: ...

class DealThrownIn(_message.Message):
    __slots__ = ("deal_number",)
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    deal_number: int
    def __init__(self, deal_number: _Optional[int] = ...) -> None: ...

class TrumpNamed(_message.Message):
    __slots__ = ("seat", "suit", "contract")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SUIT_FIELD_NUMBER: _ClassVar[int]
    CONTRACT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    suit: Suit
    contract: int
    def __init__(self, seat: _Optional[int] = ..., suit: _Optional[_Union[Suit, str]] = ..., contract: _Optional[int] = ...) -> None: ...

class Exchanged(_message.Message):
    __slots__ = ("seat", "discarded", "received")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DISCARDED_FIELD_NUMBER: _ClassVar[int]
    RECEIVED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    discarded: int
    received: int
    def __init__(self, seat: _Optional[int] = ..., discarded: _Optional[int] = ..., received: _Optional[int] = ...) -> None: ...

class OwnExchange(_message.Message):
    __slots__ = ("discarded", "received")
    DISCARDED_FIELD_NUMBER: _ClassVar[int]
    RECEIVED_FIELD_NUMBER: _ClassVar[int]
    discarded: _containers.RepeatedScalarFieldContainer[str]
    received: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, discarded: _Optional[_Iterable[str]] = ..., received: _Optional[_Iterable[str]] = ...) -> None: ...

class CardPlayed(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class TrickWon(_message.Message):
    __slots__ = ("trick_number", "winner")
    TRICK_NUMBER_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    trick_number: int
    winner: int
    def __init__(self, trick_number: _Optional[int] = ..., winner: _Optional[int] = ...) -> None: ...

class DealScored(_message.Message):
    __slots__ = ("deal_number", "bidder", "contract", "high", "low", "right", "left", "joker", "game", "game_totals", "points", "scores")
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    BIDDER_FIELD_NUMBER: _ClassVar[int]
    CONTRACT_FIELD_NUMBER: _ClassVar[int]
    HIGH_FIELD_NUMBER: _ClassVar[int]
    LOW_FIELD_NUMBER: _ClassVar[int]
    RIGHT_FIELD_NUMBER: _ClassVar[int]
    LEFT_FIELD_NUMBER: _ClassVar[int]
    JOKER_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    GAME_TOTALS_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    deal_number: int
    bidder: int
    contract: int
    high: int
    low: int
    right: int
    left: int
    joker: int
    game: int
    game_totals: _containers.RepeatedScalarFieldContainer[int]
    points: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, deal_number: _Optional[int] = ..., bidder: _Optional[int] = ..., contract: _Optional[int] = ..., high: _Optional[int] = ..., low: _Optional[int] = ..., right: _Optional[int] = ..., left: _Optional[int] = ..., joker: _Optional[int] = ..., game: _Optional[int] = ..., game_totals: _Optional[_Iterable[int]] = ..., points: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[int]] = ...) -> None: ...

class GameEnded(_message.Message):
    __slots__ = ("winner", "scores", "deals")
    WINNER_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    DEALS_FIELD_NUMBER: _ClassVar[int]
    winner: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    deals: int
    def __init__(self, winner: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., deals: _Optional[int] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("id", "kind", "view", "legal", "time_ms", "bank_ms")
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    TIME_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    id: int
    kind: DecisionKind
    view: View
    legal: LegalChoices
    time_ms: int
    bank_ms: int
    def __init__(self, id: _Optional[int] = ..., kind: _Optional[_Union[DecisionKind, str]] = ..., view: _Optional[_Union[View, _Mapping]] = ..., legal: _Optional[_Union[LegalChoices, _Mapping]] = ..., time_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ...) -> None: ...

class View(_message.Message):
    __slots__ = ("seat", "game_index", "deal_number", "dealer", "scores", "hand", "bids", "bidder", "contract", "trump", "exchanges", "own_discarded", "own_received", "tricks", "current_trick")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    GAME_INDEX_FIELD_NUMBER: _ClassVar[int]
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    BIDS_FIELD_NUMBER: _ClassVar[int]
    BIDDER_FIELD_NUMBER: _ClassVar[int]
    CONTRACT_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    EXCHANGES_FIELD_NUMBER: _ClassVar[int]
    OWN_DISCARDED_FIELD_NUMBER: _ClassVar[int]
    OWN_RECEIVED_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    CURRENT_TRICK_FIELD_NUMBER: _ClassVar[int]
    seat: int
    game_index: int
    deal_number: int
    dealer: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    hand: _containers.RepeatedScalarFieldContainer[str]
    bids: _containers.RepeatedCompositeFieldContainer[BidMade]
    bidder: int
    contract: int
    trump: Suit
    exchanges: _containers.RepeatedCompositeFieldContainer[Exchanged]
    own_discarded: _containers.RepeatedScalarFieldContainer[str]
    own_received: _containers.RepeatedScalarFieldContainer[str]
    tricks: _containers.RepeatedCompositeFieldContainer[Trick]
    current_trick: Trick
    def __init__(self, seat: _Optional[int] = ..., game_index: _Optional[int] = ..., deal_number: _Optional[int] = ..., dealer: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., hand: _Optional[_Iterable[str]] = ..., bids: _Optional[_Iterable[_Union[BidMade, _Mapping]]] = ..., bidder: _Optional[int] = ..., contract: _Optional[int] = ..., trump: _Optional[_Union[Suit, str]] = ..., exchanges: _Optional[_Iterable[_Union[Exchanged, _Mapping]]] = ..., own_discarded: _Optional[_Iterable[str]] = ..., own_received: _Optional[_Iterable[str]] = ..., tricks: _Optional[_Iterable[_Union[Trick, _Mapping]]] = ..., current_trick: _Optional[_Union[Trick, _Mapping]] = ...) -> None: ...

class Trick(_message.Message):
    __slots__ = ("leader", "cards", "winner")
    LEADER_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    leader: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    winner: int
    def __init__(self, leader: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., winner: _Optional[int] = ...) -> None: ...

class LegalChoices(_message.Message):
    __slots__ = ("bids", "suits", "cards", "discard")
    BIDS_FIELD_NUMBER: _ClassVar[int]
    SUITS_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    bids: _containers.RepeatedScalarFieldContainer[int]
    suits: _containers.RepeatedScalarFieldContainer[Suit]
    cards: _containers.RepeatedScalarFieldContainer[str]
    discard: DiscardRule
    def __init__(self, bids: _Optional[_Iterable[int]] = ..., suits: _Optional[_Iterable[_Union[Suit, str]]] = ..., cards: _Optional[_Iterable[str]] = ..., discard: _Optional[_Union[DiscardRule, _Mapping]] = ...) -> None: ...

class DiscardRule(_message.Message):
    __slots__ = ("may", "must", "min_count", "max_count", "dealer")
    MAY_FIELD_NUMBER: _ClassVar[int]
    MUST_FIELD_NUMBER: _ClassVar[int]
    MIN_COUNT_FIELD_NUMBER: _ClassVar[int]
    MAX_COUNT_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    may: _containers.RepeatedScalarFieldContainer[str]
    must: _containers.RepeatedScalarFieldContainer[str]
    min_count: int
    max_count: int
    dealer: bool
    def __init__(self, may: _Optional[_Iterable[str]] = ..., must: _Optional[_Iterable[str]] = ..., min_count: _Optional[int] = ..., max_count: _Optional[int] = ..., dealer: _Optional[bool] = ...) -> None: ...

class Notice(_message.Message):
    __slots__ = ("kind", "reason", "request_id", "fallback")
    KIND_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    FALLBACK_FIELD_NUMBER: _ClassVar[int]
    kind: str
    reason: str
    request_id: int
    fallback: str
    def __init__(self, kind: _Optional[str] = ..., reason: _Optional[str] = ..., request_id: _Optional[int] = ..., fallback: _Optional[str] = ...) -> None: ...

class MatchOver(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...
