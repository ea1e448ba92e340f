"""The bot side of the contract for Python bots: a ``Bot`` answers ``Decision``s; ``run`` plays.

``run`` plays the match the arena started the bot for: over its standard input and output
when its manifest says ``protocol = "stdio"`` (``arena.sdk.stdio``: JSON lines, with no
gRPC, protobuf or event loop imported), otherwise over gRPC (``play_stream``). A
``Decision`` gives the bot the same values whichever it is: the kind, the seat, the hand,
the trump, the legal choices and the view as engine values, read from the request only
when first asked for; the request's protobuf messages (``view``, ``request``) are made
only for a bot that reads them, as are those of the ``on_…`` hooks a bot overrides.
"""

from __future__ import annotations

import functools
import os
import sys
import time
from typing import TYPE_CHECKING, Any

from arena.engine import (
    PASS,
    TRUMPS,
    Action,
    CardSet,
    DecisionKind,
    DiscardRule,
    Legal,
    Suit,
    View,
)
from arena.engine.cards import most_trumps

if TYPE_CHECKING:  # the generated messages: imported where a bot uses them, never here
    from arena.v1 import arena_pb2 as pb
    from arena.wire.seat import Request

__all__ = ["Bot", "Decision", "RefereeRefused", "run"]


class RefereeRefused(RuntimeError):
    """The referee refused this bot (wrong token, late join, bad protocol version)."""


class Decision:
    """One decision request, with its view and legal choices as engine values.

    ``kind``, ``seat``, ``request_id``, ``game_index``, ``time_ms`` (this decision's time,
    the match's ``decision_ms``) and ``bank_ms`` (the overage bank left) are plain values;
    the hand, the trump, the legal choices and the views are read from the request when
    first used: a bot answers within its time, and most decisions need only one of them.
    """

    kind: DecisionKind
    seat: int
    request_id: int
    game_index: int
    time_ms: int
    bank_ms: int

    @classmethod
    def from_request(cls, request: pb.DecisionRequest) -> Decision:
        """The decision a gRPC ``DecisionRequest`` asks for."""
        from .messages import MessageDecision

        return MessageDecision(request)

    @classmethod
    def from_engine(cls, request: Request) -> Decision:
        """The decision the table's ``Request`` asks for, in this process (no transport)."""
        return EngineDecision(request)

    @functools.cached_property
    def hand(self) -> CardSet:
        return self._hand()

    @functools.cached_property
    def trump(self) -> Suit | None:
        return self._trump()

    @functools.cached_property
    def legal(self) -> Legal:
        """The legal choices (``arena.engine.Legal``): listed for a bid, the trump or a
        play, lowest first; for a discard, ``discard_rule`` describes them."""
        return self._legal()

    @property
    def discard_rule(self) -> DiscardRule:
        """R5.2-R5.4: which cards may or must go, and how many (discard decisions only)."""
        return self.legal.discard_rule

    @functools.cached_property
    def engine_view(self) -> View:
        """The view as the engine's ``View``: what ``arena.engine.view`` gives this seat
        now, ready for ``arena.engine.Determinizer`` and other search helpers."""
        return self._engine_view()

    @functools.cached_property
    def view(self) -> pb.View:
        """Everything the seat may know (R10), as the protocol's ``View`` message."""
        return self.request.view

    @functools.cached_property
    def request(self) -> pb.DecisionRequest:
        """The request as the protocol's ``DecisionRequest`` message."""
        return self._request_message()

    # What each source of requests reads (gRPC's messages, stdio's JSON, the engine's).

    def _hand(self) -> CardSet:
        raise NotImplementedError

    def _trump(self) -> Suit | None:
        raise NotImplementedError

    def _legal(self) -> Legal:
        raise NotImplementedError

    def _engine_view(self) -> View:
        raise NotImplementedError

    def _request_message(self) -> pb.DecisionRequest:
        raise NotImplementedError


class EngineDecision(Decision):
    """A decision asked by a table in this process: its values are the engine's own."""

    def __init__(self, request: Request) -> None:
        self._source = request
        self.kind = request.kind
        self.seat = request.view.seat
        self.request_id = request.id
        self.game_index = request.game_index
        self.time_ms = request.time_ms
        self.bank_ms = request.bank_ms

    def _hand(self) -> CardSet:
        return self._source.view.hand

    def _trump(self) -> Suit | None:
        return self._source.view.trump

    def _legal(self) -> Legal:
        return self._source.legal

    def _engine_view(self) -> View:
        return self._source.view

    def _request_message(self) -> pb.DecisionRequest:
        from arena.wire.protocol import request_to_pb

        return request_to_pb(self._source)


def log_notice(name: str, kind: str, reason: str, fallback: str) -> None:
    """What a bot logs of a fault by default: one line on stderr."""
    print(f"[{name}] fault {kind}: {reason} (played {fallback})", file=sys.stderr)


class Bot:
    """Override ``bid``, ``trump``, ``discard`` and ``play`` (or ``decide`` for all)."""

    name = "python-bot"
    version = "0"

    def decide(self, decision: Decision) -> Action:
        if decision.kind is DecisionKind.PLAY:
            return self.play(decision)
        if decision.kind is DecisionKind.BID:
            return self.bid(decision)
        if decision.kind is DecisionKind.DISCARD:
            return self.discard(decision)
        return self.trump(decision)

    def bid(self, decision: Decision) -> Action:
        return PASS

    def trump(self, decision: Decision) -> Action:
        return TRUMPS[most_trumps(decision.hand)]

    def discard(self, decision: Decision) -> Action:
        return decision.legal.example()  # the smallest legal discard

    def play(self, decision: Decision) -> Action:
        return decision.legal.example()  # the legal card of lowest index

    def on_welcome(self, welcome: pb.Welcome) -> None:
        """Called once, with the seat, team and time settings."""

    def on_events(self, events: list[pb.Event]) -> None:
        """Called with each batch of events (R10), before any decision that follows them."""

    def on_notice(self, notice: pb.Notice) -> None:
        """A fault of this bot; by default logged to stderr."""
        log_notice(self.name, notice.kind, notice.reason, notice.fallback)


def overrides(bot: Bot, hook: str) -> bool:
    """Whether ``bot`` has its own ``hook`` (``on_events`` …): only then are its messages made."""
    return getattr(type(bot), hook) is not getattr(Bot, hook)


def _grpc() -> tuple[Any, Any]:
    """grpc and its generated stub, imported when first used (a stdio bot never does),
    after grpc's settings (``configure_grpc``), which it reads once, when imported."""
    from arena.wire.grpc_env import configure_grpc

    configure_grpc()
    import grpc

    from arena.v1 import arena_pb2_grpc

    return grpc, arena_pb2_grpc


# Joining again after a connection the referee could not serve: the first pause, the
# longest, and how long a bot dialling an address of its own (started by hand, not by the
# arena) keeps trying: as long as the referee waits for a seat left open for a person.
JOIN_RETRY_FIRST_S = 0.05
JOIN_RETRY_MAX_S = 1.0
JOIN_BY_HAND_S = 600.0


class _Unreached(Exception):
    """The referee never read this join: the connection failed or broke before it did."""


async def play_stream(bot: Bot, address: str, token: str) -> str:
    """Join as the seat of ``token`` and answer until the match ends; return the reason.

    A join is tried again, with the same token, whenever the referee could not be reached
    (UNAVAILABLE: no connection, or one closed before any answer): on a machine too busy to
    serve a bot at once, the bot keeps trying until the referee itself refuses it (the
    seat's deadline has passed: DEADLINE_EXCEEDED), never giving up first
    (docs/PROTOCOL.md §2). It stops trying when a unix socket's file is gone (the match is
    over) or after ``JOIN_BY_HAND_S``.
    """
    import asyncio  # here: a bot over stdio never runs an event loop

    started = time.monotonic()
    pause = JOIN_RETRY_FIRST_S
    said = False
    while True:
        try:
            return await _play_once(bot, address, token)
        except _Unreached as unreached:
            gone = address.startswith("unix:") and not os.path.exists(address[5:])
            if gone or time.monotonic() - started > JOIN_BY_HAND_S:
                raise RefereeRefused(f"cannot reach the referee at {address}") from None
            if not said:  # once: the seat's log shows why the join came late, if it does
                print(
                    f"[{bot.name}] cannot reach the referee at {address} yet ({unreached}); "
                    "trying again until it answers",
                    file=sys.stderr,
                )
                said = True
            await asyncio.sleep(pause)
            pause = min(2 * pause, JOIN_RETRY_MAX_S)


async def _play_once(bot: Bot, address: str, token: str) -> str:
    """One stream: join, then answer until the match ends."""
    grpc, arena_pb2_grpc = _grpc()
    from .messages import PROTOCOL_VERSION, hear, pb

    async with grpc.aio.insecure_channel(address) as channel:
        # The generated stub has no type annotations; its Play is a stream-stream call.
        call = arena_pb2_grpc.RefereeStub(channel).Play()
        join = pb.Join(
            token=token,
            bot_name=bot.name,
            bot_version=bot.version,
            protocol_version=PROTOCOL_VERSION,
        )
        heard = False  # the referee has answered: the join was read
        try:
            await call.write(pb.BotMessage(join=join))
            while True:
                message = await call.read()
                if message is grpc.aio.EOF:
                    return "the referee closed the stream"
                heard = True
                answer = hear(bot, message)
                if answer is not None:
                    await call.write(pb.BotMessage(answer=answer))
                elif message.WhichOneof("body") == "match_over":
                    await call.done_writing()
                    return str(message.match_over.reason)
        except grpc.aio.AioRpcError as error:
            code = error.code()
            if code in (
                grpc.StatusCode.UNAUTHENTICATED,
                grpc.StatusCode.ALREADY_EXISTS,
                grpc.StatusCode.FAILED_PRECONDITION,
                grpc.StatusCode.DEADLINE_EXCEEDED,
                grpc.StatusCode.INVALID_ARGUMENT,
            ):
                raise RefereeRefused(f"{code.name}: {error.details()}") from None
            if code is grpc.StatusCode.UNAVAILABLE:
                if not heard:
                    raise _Unreached(error.details() or code.name) from None
                raise RefereeRefused(f"the connection to the referee at {address} broke") from None
            raise


def run(bot: Bot, address: str | None = None, token: str | None = None) -> None:
    """Connect to the referee named by ARENA_ADDRESS with ARENA_TOKEN, and play the match;
    or, when the arena started the bot with ``ARENA_PROTOCOL=stdio``, play it over
    standard input and output (print nothing else to stdout then: log to stderr).

    Problems end the process with a one-line message on stderr and exit status 2.
    """
    if address is None and os.environ.get("ARENA_PROTOCOL") == "stdio":
        from .stdio import play_stdio

        try:
            play_stdio(bot)
        except (BrokenPipeError, KeyboardInterrupt):
            sys.exit(130)
        return
    address = address or os.environ.get("ARENA_ADDRESS")
    token = token or os.environ.get("ARENA_TOKEN")
    if not address or not token:
        sys.exit(f"[{bot.name}] ARENA_ADDRESS and ARENA_TOKEN must be set (the arena sets them)")
    from arena.wire.loop import run as run_loop

    try:
        run_loop(play_stream(bot, address, token))
    except RefereeRefused as error:
        print(f"[{bot.name}] the referee refused this bot: {error}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
