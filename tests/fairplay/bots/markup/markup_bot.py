"""A bot whose text is hostile: markup and terminal escapes in its answers, Join and log.

Each card it must play, it first answers with the next of ``CARD_TEXTS`` (a malformed
answer: the referee records a fault and plays the fallback); every other decision is
answered legally by the SDK's defaults. Its Join names it with markup and escapes, and
it writes escapes to stdout and stderr, which the arena keeps in the seat's log.
"""

from __future__ import annotations

import os
import sys

from arena.engine import DecisionKind
from arena.sdk import Bot, Decision
from arena.v1 import arena_pb2 as pb
from arena.wire.loop import run as run_loop
from arena.wire.protocol import PROTOCOL_VERSION, action_to_answer

CARD_TEXTS = (
    "[/]",  # closes a tag that was never opened: rich raises MarkupError
    "[bold red]x",  # would style what follows
    "\x1b[2J\x1b]0;pwned\x07",  # clears the screen, sets the terminal's title
    "\u202eKJ",  # right-to-left override: reverses what follows on the line
    "\u2066[/]\u2069\u200b",  # an isolate around markup, a zero-width space
    "A\rB\x08\x7f\x9b",  # carriage return, backspace, DEL, the C1 CSI
)
JOIN_NAME = "[bold red]pwn[/]\x1b]0;name\x07"
JOIN_VERSION = "[/]\u202e1"
LOG_LINE = "log: \x1b[31m[bold red]red[/] \x1b]0;pwned\x07 \u202eevil\r\x08 [/]"


async def play(address: str, token: str) -> None:
    import grpc  # arena.sdk has set grpc's environment (configure_grpc)

    legal = Bot()
    hostile = iter(CARD_TEXTS)
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.stream_stream(
            "/arena.v1.Referee/Play",
            request_serializer=pb.BotMessage.SerializeToString,
            response_deserializer=pb.RefereeMessage.FromString,
        )()
        join = pb.Join(
            token=token,
            bot_name=JOIN_NAME,
            bot_version=JOIN_VERSION,
            protocol_version=PROTOCOL_VERSION,
        )
        await call.write(pb.BotMessage(join=join))
        while True:
            message = await call.read()
            if message is grpc.aio.EOF:
                return
            body = message.WhichOneof("body")
            if body == "match_over":
                await call.done_writing()
                return
            if body != "request":
                continue
            request = message.request
            decision = Decision.from_request(request)
            text = next(hostile, None) if decision.kind is DecisionKind.PLAY else None
            if text is None:
                answer = action_to_answer(request.id, legal.decide(decision))
            else:
                answer = pb.Answer(request_id=request.id, card=text)
            await call.write(pb.BotMessage(answer=answer))


if __name__ == "__main__":
    print(LOG_LINE, flush=True)
    print(LOG_LINE, file=sys.stderr, flush=True)
    run_loop(play(os.environ["ARENA_ADDRESS"], os.environ["ARENA_TOKEN"]))
