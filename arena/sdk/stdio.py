"""A Python bot over standard input and output (``protocol = "stdio"``): JSON lines, a pipe's cost.

One blocking read wakes the bot for a whole request; the line is parsed once by the
standard library's ``json``; the ``Decision`` reads its values straight from that
(``arena.wire.jsonlines``), and only those the bot asks for; the answer is one line,
written with one ``write``. No gRPC, protobuf or event loop is imported: a bot starts
sooner and each decision costs little more than the pipe. The protocol's messages are
made (protobuf imported then) only for a bot that reads them: ``decision.view``,
``decision.request``, or an ``on_welcome``, ``on_events`` or ``on_notice`` of its own.
"""

from __future__ import annotations

import json
import os
import sys
from typing import IO, TYPE_CHECKING, Any

from arena.engine import CardSet, DecisionKind, Legal, Suit, View
from arena.wire.jsonlines import answer_line, join_line, legal_from_json, view_from_json
from arena.wire.values import KIND_BY_NAME, SUIT_BY_NAME, parse_cards

from .bot import Bot, Decision, log_notice, overrides

if TYPE_CHECKING:
    from arena.v1 import arena_pb2 as pb

__all__ = ["JsonDecision", "play_stdio"]


class JsonDecision(Decision):
    """A decision asked in a line of JSON (the ``request`` of a ``RefereeMessage``)."""

    def __init__(self, request: dict[str, Any]) -> None:
        self._source = request
        self._view = view = request["view"]
        self.kind = KIND_BY_NAME[request["kind"]]
        self.seat = view["seat"]
        self.request_id = int(request["id"])
        self.game_index = view["gameIndex"]
        self.time_ms = request["timeMs"]
        self.bank_ms = request["bankMs"]

    def _hand(self) -> CardSet:
        return parse_cards(self._view["hand"])

    def _trump(self) -> Suit | None:
        return SUIT_BY_NAME.get(self._view["trump"])

    def _legal(self) -> Legal:
        hand = self.hand if self.kind is DecisionKind.DISCARD else None
        return legal_from_json(self.kind, self._source["legal"], self.seat, hand)

    def _engine_view(self) -> View:
        return view_from_json(self._view, self.kind)

    def _request_message(self) -> pb.DecisionRequest:
        request: pb.DecisionRequest = _message(self._source, "DecisionRequest")
        return request


def _message(value: Any, name: str) -> Any:
    """A JSON value as the protocol's message ``name`` (protobuf imported now, once)."""
    from arena.v1 import arena_pb2 as pb
    from arena.wire.pbjson import from_json

    return from_json(value, getattr(pb, name)(), ignore_unknown_fields=True)


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data) :]


def play_stdio(bot: Bot, reader: IO[bytes] | None = None, writer: int = 1) -> str:
    """Play the match over standard input and output: one JSON message per line each way
    (docs/PROTOCOL.md §8), from ``reader`` (stdin) to the file descriptor ``writer``
    (stdout); return the reason the match ended."""
    lines = sys.stdin.buffer if reader is None else reader
    on_events = overrides(bot, "on_events")
    on_welcome = overrides(bot, "on_welcome")
    on_notice = overrides(bot, "on_notice")
    _write_all(writer, join_line(bot.name, bot.version))
    for line in lines:
        message = json.loads(line)
        if on_events and message.get("events"):
            bot.on_events([_message(event, "Event") for event in message["events"]])
        request = message.get("request")
        if request is not None:
            decision = JsonDecision(request)
            _write_all(writer, answer_line(decision.request_id, bot.decide(decision)))
        elif "matchOver" in message:
            return str(message["matchOver"].get("reason", ""))
        elif "notice" in message:
            notice = message["notice"]
            if on_notice:
                bot.on_notice(_message(notice, "Notice"))
            else:
                log_notice(bot.name, notice["kind"], notice["reason"], notice["fallback"])
        elif "welcome" in message and on_welcome:
            bot.on_welcome(_message(message["welcome"], "Welcome"))
    return "the referee closed the bot's standard input"
