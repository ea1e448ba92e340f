"""The bot side of the contract for Python bots: connect, join, answer until the match ends."""

from __future__ import annotations

import asyncio
import functools
import os
import sys
import time
from typing import IO

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
from arena.v1 import arena_pb2 as pb
from arena.wire.grpc_env import configure_grpc
from arena.wire.loop import run as run_loop
from arena.wire.protocol import (
    KIND_FROM_PB,
    PROTOCOL_VERSION,
    SUIT_FROM_PB,
    action_to_answer,
    legal_from_pb,
    parse_cards,
    view_from_pb,
)

configure_grpc()  # grpc reads its settings once, when first imported
import grpc  # noqa: E402

from arena.v1 import arena_pb2_grpc  # noqa: E402 - generated; it imports grpc


class RefereeRefused(RuntimeError):
    """The referee refused this bot (wrong token, late join, bad protocol version)."""


class Decision:
    """One decision request, with its view and legal choices as engine values.

    The hand and the legal choices are read from the request when first used: a bot
    answers within its time, and most decisions need only one of them.
    """

    def __init__(self, request: pb.DecisionRequest) -> None:
        self.request = request
        self.kind = KIND_FROM_PB[request.kind]
        self.seat: int = request.view.seat

    @classmethod
    def from_request(cls, request: pb.DecisionRequest) -> Decision:
        return cls(request)

    @property
    def view(self) -> pb.View:
        """Everything the seat may know (R10), as sent by the referee."""
        return self.request.view

    @functools.cached_property
    def engine_view(self) -> View:
        """The same view as the engine's ``View``: what ``arena.engine.view`` gives this
        seat now, ready for ``arena.engine.Determinizer`` and other search helpers."""
        return view_from_pb(self.request.view, self.kind)

    @functools.cached_property
    def hand(self) -> CardSet:
        return parse_cards(self.request.view.hand)

    @functools.cached_property
    def trump(self) -> Suit | None:
        return SUIT_FROM_PB.get(self.request.view.trump)

    @functools.cached_property
    def legal(self) -> Legal:
        """The legal choices (``arena.engine.Legal``): listed for a bid, the trump or a
        play, lowest first; for a discard, ``discard_rule`` describes them."""
        hand = self.hand if self.kind is DecisionKind.DISCARD else CardSet(0)
        return legal_from_pb(self.kind, self.request.legal, self.seat, hand)

    @property
    def discard_rule(self) -> DiscardRule:
        """R5.2-R5.4: which cards may or must go, and how many (discard decisions only)."""
        return self.legal.discard_rule


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
        print(
            f"[{self.name}] fault {notice.kind}: {notice.reason} (played {notice.fallback})",
            file=sys.stderr,
        )


def _hear(bot: Bot, message: pb.RefereeMessage) -> pb.Answer | None:
    """Give ``bot`` what ``message`` brings (its events, then a welcome, a notice or a
    request) and return the answer to a request (None for any other message)."""
    if message.events:
        bot.on_events(list(message.events))
    body = message.WhichOneof("body")
    if body == "request":
        request = message.request
        return action_to_answer(request.id, bot.decide(Decision.from_request(request)))
    if body == "welcome":
        bot.on_welcome(message.welcome)
    elif body == "notice":
        bot.on_notice(message.notice)
    return None


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
    async with grpc.aio.insecure_channel(address) as channel:
        # The generated stub has no type annotations; its Play is a stream-stream call.
        call = arena_pb2_grpc.RefereeStub(channel).Play()  # type: ignore[no-untyped-call]
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
                answer = _hear(bot, message)
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


def _stdio_line(message: pb.BotMessage) -> bytes:
    import json  # here, not at import time: most bots speak gRPC (start-up is paid per match)

    from arena.wire.jsonlines import to_json

    return json.dumps(to_json(message), separators=(",", ":")).encode() + b"\n"


def play_stdio(bot: Bot, reader: IO[bytes], writer: IO[bytes]) -> str:
    """Play the match over standard input and output (``protocol = "stdio"`` in the bot's
    manifest): one JSON message per line each way (docs/PROTOCOL.md); return the reason
    the match ended."""
    import json

    from arena.wire.jsonlines import from_json

    join = pb.Join(bot_name=bot.name, bot_version=bot.version, protocol_version=PROTOCOL_VERSION)
    writer.write(_stdio_line(pb.BotMessage(join=join)))
    writer.flush()
    for line in reader:
        message = from_json(json.loads(line), pb.RefereeMessage(), ignore_unknown_fields=True)
        answer = _hear(bot, message)
        if answer is not None:
            writer.write(_stdio_line(pb.BotMessage(answer=answer)))
            writer.flush()
        elif message.WhichOneof("body") == "match_over":
            return str(message.match_over.reason)
    return "the referee closed the bot's standard input"


def run(bot: Bot, address: str | None = None, token: str | None = None) -> None:
    """Connect to the referee named by ARENA_ADDRESS with ARENA_TOKEN, and play the match;
    or, when the arena started the bot with ``ARENA_PROTOCOL=stdio``, play it over
    standard input and output (print nothing else to stdout then: log to stderr).

    Problems end the process with a one-line message on stderr and exit status 2.
    """
    if address is None and os.environ.get("ARENA_PROTOCOL") == "stdio":
        try:
            play_stdio(bot, sys.stdin.buffer, sys.stdout.buffer)
        except (BrokenPipeError, KeyboardInterrupt):
            sys.exit(130)
        return
    address = address or os.environ.get("ARENA_ADDRESS")
    token = token or os.environ.get("ARENA_TOKEN")
    if not address or not token:
        sys.exit(f"[{bot.name}] ARENA_ADDRESS and ARENA_TOKEN must be set (the arena sets them)")
    try:
        run_loop(play_stream(bot, address, token))
    except RefereeRefused as error:
        print(f"[{bot.name}] the referee refused this bot: {error}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
