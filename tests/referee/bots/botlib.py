"""The referee tests' own bot: it records every message, plays legally, misbehaves on request.

Started by the tests as a real process (``recorder/bot.toml``), one per seat. It speaks
raw gRPC (bytes both ways), so it can send anything, garbage included:

- every ``RefereeMessage`` received is appended to ``messages.bin`` in the working
  directory (the seat's directory of the match), each as a 4-byte big-endian length and
  the message's bytes, exactly as they came off the wire;
- every answer sent is a JSON line in ``answers.jsonl``: the request id and the action
  sent (``str(action)``), or ``"raw"`` for something deliberately wrong;
- ``TEST_BOT_FAULT_<seat>`` (e.g. ``TEST_BOT_FAULT_0=malformed``) picks a misbehaviour
  for that seat, one of ``FAULT_MODES``; without it the seat plays legally.

The legal play is a bidder that counts its sure points (like the sample bot ``greedy``)
and otherwise random legal choices, seeded from ARENA_SEED: so games are short and a
match is repeatable.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import struct
import sys
import time
from pathlib import Path
from typing import Any

from arena.engine import CARDS, JOKER, PASS, TRUMPS, Action, DecisionKind, Suit
from arena.engine.cards import ACE, TRUMP_MASKS, TWO, card_of, left_bauer, right_bauer
from arena.engine.randomplay import random_discard
from arena.sdk import Bot, Decision
from arena.v1 import arena_pb2 as pb
from arena.wire.grpc_env import configure_grpc
from arena.wire.protocol import PROTOCOL_VERSION, action_to_answer

configure_grpc()  # grpc reads its settings once, when first imported
import grpc  # noqa: E402

FAULT_MODES = (
    "card_not_held",  # every play: a card the seat does not hold (R7.2)
    "revoke",  # every play that must follow: a held card that does not follow (R7.2)
    "trump_discard",  # every non-dealer discard holding a trump: discard one (R5.2)
    "low_bid",  # every bid after someone bid: the highest bid again (R4.2)
    "wrong_request",  # every decision: a legal answer, but to request id + 1000
    "wrong_kind",  # every play: answer with a bid
    "malformed",  # every decision: bytes that are not a BotMessage
    "timeout",  # the first decision: answer only after decision time plus bank
    "exit",  # the fifth decision: the process exits without answering
    "flood",  # from the first decision on: 300 unsolicited copies of its answer
    "chaos",  # every decision: malformed, wrong kind, wrong request in turn
    "early_pass",  # on the welcome: a pass for request 1, before it is sent
    "slow_join",  # join 1.5 s late
)
GARBAGE = b"\xff\xfe this is not a protobuf message \x00\x01"


class Player(Bot):
    """Bids its sure points, otherwise random legal choices."""

    name = "recorder"
    version = "1"

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)

    def bid(self, decision: Decision) -> Action:
        amount = min(6, int(max(_strength(decision.hand.mask, s) for s in Suit) + 0.9))
        for action in decision.legal[1:]:
            if action.amount == amount:
                return action  # type: ignore[no-any-return]
        return PASS

    def trump(self, decision: Decision) -> Action:
        mask = decision.hand.mask
        return TRUMPS[max(Suit, key=lambda s: (_strength(mask, s), -s))]

    def discard(self, decision: Decision) -> Action:
        return random_discard(decision.discard_rule, self.rng)

    def play(self, decision: Decision) -> Action:
        return self.rng.choice(decision.legal)  # type: ignore[no-any-return]


def _strength(hand: int, trump: Suit) -> float:
    trumps = hand & TRUMP_MASKS[trump]
    sure = (card_of(trump, ACE), card_of(trump, TWO))
    likely = (right_bauer(trump), left_bauer(trump), JOKER)
    return (
        sum(1.0 for c in sure if trumps & c.bit)
        + sum(0.5 for c in likely if trumps & c.bit)
        + 0.3 * max(0, trumps.bit_count() - 2)
    )


def _answer(**fields: Any) -> bytes:
    return pb.BotMessage(answer=pb.Answer(**fields)).SerializeToString()


class Seat:
    """One seat's connection: records, answers, misbehaves."""

    def __init__(self, seat: int, mode: str) -> None:
        if mode and mode not in FAULT_MODES:
            sys.exit(f"unknown fault mode {mode!r}")
        self.seat = seat
        self.mode = mode
        self.player = Player(os.environ.get("ARENA_SEED", "0"))
        self.decisions = 0
        self.lock = asyncio.Lock()
        self.later: list[asyncio.Future[None]] = []
        self.call: Any = None
        self.messages = Path("messages.bin").open("ab", buffering=0)  # noqa: SIM115
        self.answers = Path("answers.jsonl").open("a", buffering=1)  # noqa: SIM115

    def log_time(self, what: str) -> None:
        """When this seat did or saw ``what``, on the machine's clock (shared by processes)."""
        with Path("times.jsonl").open("a") as out:
            out.write(json.dumps({"what": what, "at": time.time()}) + "\n")

    def log_answer(self, request_id: int, sent: str) -> None:
        self.answers.write(json.dumps({"request_id": request_id, "sent": sent}) + "\n")

    async def respond(self, request: pb.DecisionRequest) -> list[bytes]:
        """The messages to send for ``request``: normally its answer, else the fault."""
        self.decisions += 1
        decision = Decision.from_request(request)
        action = self.player.decide(decision)
        bad = self.misbehave(request, decision, action)
        if bad is not None:
            self.log_answer(request.id, "raw")
            return bad
        self.log_answer(request.id, str(action))
        good = pb.BotMessage(answer=action_to_answer(request.id, action)).SerializeToString()
        if self.mode == "timeout" and self.decisions == 1:
            # Answer late, but go on reading: later requests are answered in time.
            late = (request.time_ms + request.bank_ms) / 1000 + 0.3
            self.later.append(asyncio.ensure_future(self.send_later(late, good)))
            return []
        if self.mode == "flood" and self.decisions == 1:
            # Unsolicited copies of this answer, sent on while the game goes on.
            self.later.append(asyncio.ensure_future(self.flood(good, 300)))
        return [good]

    async def flood(self, raw: bytes, copies: int) -> None:
        for _ in range(copies):
            await self.write(raw)

    async def send_later(self, delay: float, raw: bytes) -> None:
        await asyncio.sleep(delay)
        await self.write(raw)

    async def write(self, raw: bytes) -> None:
        async with self.lock:
            await self.call.write(raw)

    def misbehave(
        self, request: pb.DecisionRequest, decision: Decision, action: Action
    ) -> list[bytes] | None:
        mode, rid, kind = self.mode, request.id, decision.kind
        view, legal = request.view, request.legal
        if mode == "chaos":
            mode = ("malformed", "wrong_kind", "wrong_request")[self.decisions % 3]
            if mode == "wrong_kind":
                return [_answer(request_id=rid, **_other_kind(kind))]
        if mode == "exit" and self.decisions == 5:
            os._exit(3)
        if mode == "malformed":
            return [GARBAGE]
        if mode == "wrong_request":
            wrong = action_to_answer(rid + 1000, action)
            return [pb.BotMessage(answer=wrong).SerializeToString()]
        if mode == "wrong_kind" and kind is DecisionKind.PLAY:
            return [_answer(request_id=rid, bid=3)]
        if mode == "card_not_held" and kind is DecisionKind.PLAY:
            card = next(str(c) for c in CARDS if str(c) not in view.hand)
            return [_answer(request_id=rid, card=card)]
        if mode == "revoke" and kind is DecisionKind.PLAY:
            revokes = [t for t in view.hand if t not in legal.cards]
            if revokes:
                return [_answer(request_id=rid, card=revokes[0])]
        if mode == "trump_discard" and kind is DecisionKind.DISCARD and not legal.discard.dealer:
            trumps = [t for t in view.hand if t not in legal.discard.may]
            if trumps:
                return [_answer(request_id=rid, discard=pb.CardList(cards=trumps[:1]))]
        if mode == "low_bid" and kind is DecisionKind.BID:
            highest = max((b.amount for b in view.bids), default=0)
            if highest:
                return [_answer(request_id=rid, bid=highest)]
        return None

    async def serve(self, address: str, token: str) -> None:
        async with grpc.aio.insecure_channel(address) as channel:
            call = self.call = channel.stream_stream(
                "/arena.v1.Referee/Play",
                request_serializer=_identity,
                response_deserializer=_identity,
            )()
            join = pb.Join(
                token=token, bot_name="recorder", bot_version="1", protocol_version=PROTOCOL_VERSION
            )
            if self.mode == "slow_join":
                await asyncio.sleep(1.5)
            self.log_time("joined")
            await self.write(pb.BotMessage(join=join).SerializeToString())
            while True:
                raw = await call.read()
                if raw is grpc.aio.EOF:
                    return
                self.messages.write(struct.pack(">I", len(raw)) + raw)
                message = pb.RefereeMessage.FromString(raw)
                if message.events:
                    self.player.on_events(list(message.events))
                body = message.WhichOneof("body")
                if body == "welcome":
                    self.log_time("welcome")
                    if self.mode == "early_pass":
                        self.log_answer(1, "pass")
                        await self.write(_answer(request_id=1, bid=0))
                if body == "request":
                    if self.mode == "early_pass" and message.request.id == 1:
                        continue  # answered before it was asked
                    for out in await self.respond(message.request):
                        await self.write(out)
                elif body == "match_over":
                    async with self.lock:
                        await call.done_writing()


def _other_kind(kind: DecisionKind) -> dict[str, Any]:
    """An answer field of another decision kind than ``kind``."""
    if kind is DecisionKind.BID:
        return {"card": "2C"}
    return {"bid": 3}


def _identity(raw: bytes) -> bytes:
    return raw


def main() -> None:
    seat = int(os.environ["ARENA_SEAT"])
    mode = os.environ.get(f"TEST_BOT_FAULT_{seat}", "")
    try:
        asyncio.run(Seat(seat, mode).serve(os.environ["ARENA_ADDRESS"], os.environ["ARENA_TOKEN"]))
    except grpc.aio.AioRpcError as error:
        sys.exit(f"recorder: {error.code().name}: {error.details()}")
