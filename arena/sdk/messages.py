"""A Python bot over gRPC: decisions read from the protocol's messages, and a message heard.

Imported by a bot that plays over gRPC (``arena.sdk.bot.play_stream``) or reads a
request's messages; a bot over standard input and output never imports it
(``arena.sdk.stdio``).
"""

from __future__ import annotations

from arena.engine import CardSet, DecisionKind, Legal, Suit, View
from arena.v1 import arena_pb2 as pb
from arena.wire.protocol import (
    KIND_FROM_PB,
    PROTOCOL_VERSION,
    SUIT_FROM_PB,
    action_to_answer,
    legal_from_pb,
    parse_cards,
    view_from_pb,
)

from .bot import Bot, Decision, overrides

__all__ = ["PROTOCOL_VERSION", "MessageDecision", "hear", "pb"]


class MessageDecision(Decision):
    """A decision asked in a ``DecisionRequest`` message (gRPC)."""

    def __init__(self, request: pb.DecisionRequest) -> None:
        self._source = request
        self.kind = KIND_FROM_PB[request.kind]
        self.seat = request.view.seat
        self.request_id = request.id
        self.game_index = request.view.game_index
        self.time_ms = request.time_ms
        self.bank_ms = request.bank_ms

    def _hand(self) -> CardSet:
        return parse_cards(self._source.view.hand)

    def _trump(self) -> Suit | None:
        return SUIT_FROM_PB.get(self._source.view.trump)

    def _legal(self) -> Legal:
        hand = self.hand if self.kind is DecisionKind.DISCARD else CardSet(0)
        return legal_from_pb(self.kind, self._source.legal, self.seat, hand)

    def _engine_view(self) -> View:
        return view_from_pb(self._source.view, self.kind)

    def _request_message(self) -> pb.DecisionRequest:
        return self._source


def hear(bot: Bot, message: pb.RefereeMessage) -> pb.Answer | None:
    """Give ``bot`` what ``message`` brings (its events, then a welcome, a notice or a
    request) and return the answer to a request (None for any other message)."""
    if message.events and overrides(bot, "on_events"):
        bot.on_events(list(message.events))
    body = message.WhichOneof("body")
    if body == "request":
        request = message.request
        return action_to_answer(request.id, bot.decide(MessageDecision(request)))
    if body == "welcome":
        bot.on_welcome(message.welcome)
    elif body == "notice":
        bot.on_notice(message.notice)
    return None
