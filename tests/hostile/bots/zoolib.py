"""The hostile zoo: bots that each misbehave in one way, for ``tests/hostile``.

Every zoo bot is a directory with a ``bot.toml`` and a ``bot.py`` calling
``main("<behaviour>")`` (``exit_at_start`` is a shell script instead). They build on the
referee tests' recorder bot (``tests/referee/bots/botlib.py``): it speaks raw gRPC, plays
legally, and records every message it receives (``messages.bin``) and every answer it
sends (``answers.jsonl``) in the seat's working directory, so a test reads what each seat
was asked and told with ``tests/referee/harness.py``.

- ``recorder:<mode>`` runs the recorder with one of its own fault modes
  (``TEST_BOT_FAULT_<seat>``), e.g. ``recorder:card_not_held``;
- every other behaviour is a ``ZooSeat`` hook below (``before_*``: before joining,
  ``on_*``: at each decision, ``after_*``: once the stream has ended).

What a test needs to know beyond the messages (the status of a refused join, the pids of
children, ...) goes to ``zoo.jsonl`` in the working directory, one JSON object a line.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "referee" / "bots"))

import botlib  # first: it sets grpc's environment (configure_grpc) and imports grpc
import grpc

from arena.engine import Action, DecisionKind
from arena.sdk import Decision
from arena.v1 import arena_pb2 as pb
from arena.wire.protocol import PROTOCOL_VERSION, action_to_answer

PLAY = "/arena.v1.Referee/Play"
BEHAVIOURS = (
    "never_answers",  # joins and reads, but never answers
    "late_answers",  # every answer 150 ms after decision time plus bank
    "bank_drainer",  # overdraws by up to 80 ms while the bank holds 120 ms or more
    "wrong_phase",  # every answer sets the field of another kind than asked
    "malformed",  # garbage, an empty message, a truncated answer, an answer with no choice
    "oversized",  # third decision: an answer of 100 KB (the limit is 64 KiB)
    "double_join",  # first decision: a second Join on the same stream, then the answer
    "stolen_token",  # first decision: joins on new streams with other seats' tokens
    "token_reuse",  # first decision and after the match: joins again with its own token
    "many_streams",  # before joining: 50 streams with junk tokens, 10 that never join
    "output_flood",  # 40 MB of output on stdout and stderr while it plays
    "memory_hog",  # third decision: allocates until the memory limit stops it
    "lingering_children",  # third decision: forks sleepers in its group, then crashes
    "sigterm_ignorer",  # ignores SIGTERM (and so does its child); stays after the match
    "escaping_child",  # third decision: starts a child in a session of its own, plays on
    "stale_flood",  # each decision from the second: 50 copies of its previous answer first
)
STOLEN_TOKENS = Path("..") / "stolen_tokens.json"  # written by the test into the match's logs
FLOOD_BYTES = 40 * 1024 * 1024


def note(**fields: Any) -> None:
    """One observation for the test, in ``zoo.jsonl``."""
    with Path("zoo.jsonl").open("a") as out:
        out.write(json.dumps(fields) + "\n")


def _identity(raw: bytes) -> bytes:
    return raw


def _answer(**fields: Any) -> bytes:
    return pb.BotMessage(answer=pb.Answer(**fields)).SerializeToString()


def join_bytes(token: str) -> bytes:
    join = pb.Join(token=token, bot_name="zoo", bot_version="1", protocol_version=PROTOCOL_VERSION)
    return pb.BotMessage(join=join).SerializeToString()


# A connection of its own for each try, as another process would have: a seat's
# connection carries one stream, and grpc shares one connection between a process's
# channels to the same address.
OWN_CONNECTION = [("grpc.use_local_subchannel_pool", 1)]


async def try_join(address: str, token: str, wait: float = 10.0) -> str:
    """Join with ``token`` on a new stream: the referee's status, or ACCEPTED if it took it."""
    async with grpc.aio.insecure_channel(address, options=OWN_CONNECTION) as channel:
        call = channel.stream_stream(
            PLAY, request_serializer=_identity, response_deserializer=_identity
        )()
        try:
            await call.write(join_bytes(token))
            raw = await asyncio.wait_for(call.read(), wait)
        except grpc.aio.AioRpcError as error:
            return error.code().name
        except TimeoutError:
            call.cancel()
            return "NO_ANSWER"
        call.cancel()
        return "EOF" if raw is grpc.aio.EOF else "ACCEPTED"


async def silent_stream(address: str, wait: float = 30.0) -> str:
    """Open a stream and send nothing: the status the referee ends it with."""
    async with grpc.aio.insecure_channel(address, options=OWN_CONNECTION) as channel:
        call = channel.stream_stream(
            PLAY, request_serializer=_identity, response_deserializer=_identity
        )()
        try:
            await asyncio.wait_for(call.read(), wait)
        except grpc.aio.AioRpcError as error:
            return error.code().name
        except TimeoutError:
            call.cancel()
            return "NO_ANSWER"
        return "ANSWERED"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _flood_output(total: int) -> None:
    chunk = (b"flood " * 174763)[: (1 << 20) - 1] + b"\n"  # 1 MiB
    written = 0
    while written < total:
        _write_all(1 if written % (2 << 20) == 0 else 2, chunk)
        written += len(chunk)
    note(flooded=written)


_OTHER_KIND: dict[DecisionKind, Callable[[pb.DecisionRequest], dict[str, Any]]] = {
    DecisionKind.BID: lambda r: {"card": r.view.hand[0]},  # a card when a bid is asked
    DecisionKind.TRUMP: lambda r: {"bid": 0},  # a pass when trump is asked
    DecisionKind.DISCARD: lambda r: {"trump": pb.SUIT_CLUBS},  # a suit when a discard is
    DecisionKind.PLAY: lambda r: {"discard": pb.CardList()},  # an (empty) discard for a card
}


class ZooSeat(botlib.Seat):
    """The recorder's seat, playing legally except where a hook of its behaviour says."""

    def __init__(self, seat: int, behaviour: str, address: str, token: str) -> None:
        super().__init__(seat, "")
        self.behaviour = behaviour
        self.address = address
        self.token = token
        self.background: list[asyncio.Future[Any]] = []

    async def respond(self, request: pb.DecisionRequest) -> list[bytes]:
        self.decisions += 1
        decision = Decision.from_request(request)
        action = self.player.decide(decision)
        good = pb.BotMessage(answer=action_to_answer(request.id, action)).SerializeToString()
        hook = getattr(self, "on_" + self.behaviour, None)
        out = None if hook is None else await hook(request, decision, action, good)
        if out is None:
            self.log_answer(request.id, str(action))
            return [good]
        return list(out)

    def spawn(self, coroutine: Awaitable[Any]) -> None:
        self.background.append(asyncio.ensure_future(coroutine))

    # --- answers --------------------------------------------------------------------------

    async def on_never_answers(self, request: Any, *_: Any) -> list[bytes]:
        return []

    async def on_late_answers(
        self, request: pb.DecisionRequest, decision: Decision, action: Action, good: bytes
    ) -> list[bytes]:
        self.log_answer(request.id, str(action))
        late = (request.time_ms + request.bank_ms) / 1000 + 0.15
        self.later.append(asyncio.ensure_future(self.send_later(late, good)))
        return []

    async def on_bank_drainer(self, request: pb.DecisionRequest, *_: Any) -> None:
        over = min(80, request.bank_ms - 100) if request.bank_ms >= 120 else 0
        note(request=request.id, game=request.view.game_index, bank_ms=request.bank_ms, over=over)
        if over > 0:
            await asyncio.sleep((request.time_ms + over) / 1000)

    async def on_wrong_phase(
        self, request: pb.DecisionRequest, decision: Decision, *_: Any
    ) -> list[bytes]:
        self.log_answer(request.id, "raw")
        return [_answer(request_id=request.id, **_OTHER_KIND[decision.kind](request))]

    async def on_malformed(
        self, request: pb.DecisionRequest, decision: Decision, action: Action, good: bytes
    ) -> list[bytes]:
        self.log_answer(request.id, "raw")
        variants = (
            botlib.GARBAGE,
            b"",  # a BotMessage with no body
            good[:-1],  # an answer cut short
            _answer(request_id=request.id),  # an answer that sets no choice
        )
        return [variants[self.decisions % len(variants)]]

    async def on_stale_flood(
        self, request: pb.DecisionRequest, decision: Decision, action: Action, good: bytes
    ) -> list[bytes]:
        previous, self.previous = getattr(self, "previous", None), good
        self.log_answer(request.id, str(action))
        return ([previous] * 50 if previous else []) + [good]

    async def on_oversized(self, request: pb.DecisionRequest, *_: Any) -> list[bytes] | None:
        if self.decisions != 3:
            return None
        self.log_answer(request.id, "raw")
        huge = _answer(request_id=request.id, card="Z" * 100_000)
        note(oversized=len(huge), request=request.id)
        return [huge]

    async def on_double_join(
        self, request: pb.DecisionRequest, decision: Decision, action: Action, good: bytes
    ) -> list[bytes] | None:
        if self.decisions != 1:
            return None
        self.log_answer(request.id, "raw")
        return [join_bytes(self.token), good]

    # --- tokens and streams ---------------------------------------------------------------

    async def on_stolen_token(self, *_: Any) -> None:
        if self.decisions == 1:
            self.spawn(self._steal())

    async def _steal(self) -> None:
        deadline = time.monotonic() + 15
        while not STOLEN_TOKENS.exists() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        tokens = json.loads(STOLEN_TOKENS.read_text())
        for label, token in tokens.items():
            note(join=label, status=await try_join(self.address, token))

    async def on_token_reuse(self, *_: Any) -> None:
        if self.decisions == 1:
            self.spawn(self._reuse("during"))

    async def _reuse(self, when: str) -> None:
        note(reuse=when, status=await try_join(self.address, self.token))

    async def after_token_reuse(self) -> None:
        await self._reuse("after")

    async def before_many_streams(self) -> None:
        async def silent() -> None:
            note(silent=await silent_stream(self.address))

        for _ in range(10):
            self.spawn(silent())
        junk = [f"junk-{self.seat}-{n}" for n in range(50)]
        statuses = await asyncio.gather(*(try_join(self.address, t) for t in junk))
        note(junk=sorted(statuses))

    # --- the process ----------------------------------------------------------------------

    async def before_output_flood(self) -> None:
        threading.Thread(target=_flood_output, args=(FLOOD_BYTES,), daemon=True).start()

    async def on_memory_hog(self, *_: Any) -> None:
        if self.decisions != 3:
            return
        note(hog="allocating")
        hog = []
        while True:  # until the limit stops it: an OOM kill (cgroup) or MemoryError (RLIMIT_AS)
            hog.append(b"\x01" * (32 << 20))

    async def on_lingering_children(self, *_: Any) -> None:
        if self.decisions != 3:
            return
        children = [subprocess.Popen(["sleep", "300"]) for _ in range(2)]
        children.append(subprocess.Popen(["sh", "-c", "sleep 300 & sleep 300 & wait"]))
        note(children=[c.pid for c in children])
        time.sleep(0.2)  # let sh start its own children
        os._exit(4)

    async def on_escaping_child(self, *_: Any) -> None:
        if self.decisions == 3:  # setsid: out of the bot's process group, as a daemon would
            child = subprocess.Popen(["sleep", "300"], start_new_session=True)
            note(escaped=child.pid)

    async def before_sigterm_ignorer(self) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        child = subprocess.Popen(["sleep", "300"])  # SIG_IGN is inherited across exec
        note(child=child.pid)

    async def after_sigterm_ignorer(self) -> None:
        note(ignoring="SIGTERM")
        while True:
            time.sleep(0.5)


async def _run(seat: ZooSeat) -> None:
    behaviour = seat.behaviour
    before = getattr(seat, "before_" + behaviour, None)
    if before is not None:
        await before()
    await seat.serve(seat.address, seat.token)
    after = getattr(seat, "after_" + behaviour, None)
    if after is not None:
        await after()
    if seat.background:
        await asyncio.wait(seat.background, timeout=1.0)


def main(behaviour: str) -> None:
    seat = int(os.environ["ARENA_SEAT"])
    if behaviour.startswith("recorder:"):
        os.environ[f"TEST_BOT_FAULT_{seat}"] = behaviour.removeprefix("recorder:")
        botlib.main()
        return
    if behaviour not in BEHAVIOURS:
        sys.exit(f"unknown zoo behaviour {behaviour!r}")
    address, token = os.environ["ARENA_ADDRESS"], os.environ["ARENA_TOKEN"]
    try:
        asyncio.run(_run(ZooSeat(seat, behaviour, address, token)))
    except grpc.aio.AioRpcError as error:
        note(error=error.code().name, details=error.details())
        sys.exit(f"zoo {behaviour}: {error.code().name}: {error.details()}")
