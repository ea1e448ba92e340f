"""The transport's own limit: a bare gRPC ping-pong with referee-sized messages.

The server half runs in the benchmark's process with the referee's server flavour and
options; the client half is a separate OS process (``python -m arena.bench.pingpong``),
as a bot is, using the SDK's client flavour.
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

from arena.referee.server import SERVICE_NAME
from arena.seats.link import MAX_MESSAGE_BYTES
from arena.v1 import arena_pb2 as pb
from arena.wire.grpc_env import configure_grpc

configure_grpc()  # grpc reads its settings once, when first imported
import grpc  # noqa: E402


def sample_request() -> pb.RefereeMessage:
    """A decision request of typical size: mid-deal, a trick in progress."""
    import random

    from arena.engine import Game, view
    from arena.engine.randomplay import random_action
    from arena.wire.protocol import KIND_TO_PB, legal_to_pb, view_to_pb

    game = Game(seed=3)
    rng = random.Random(3)
    while game.decision_kind is None or game.phase.value != "play" or len(game.deal.tricks) < 2:
        game.apply(random_action(game, rng))
    kind = game.decision_kind
    assert kind is not None
    return pb.RefereeMessage(
        events=[pb.Event(card_played=pb.CardPlayed(seat=1, card="JH"))] * 3,
        request=pb.DecisionRequest(
            id=1,
            kind=KIND_TO_PB[kind],
            view=view_to_pb(view(game, game.to_act), 0),
            legal=legal_to_pb(game.legal()),
            time_ms=1000,
            bank_ms=10000,
        ),
    )


async def serve_pingpong(address: str, rounds: int, streams: int = 1) -> tuple[float, str]:
    """Round trips driven by the server, as the referee drives its seats.

    ``streams`` client processes connect; the server sends a sample request to each in
    turn and waits for its answer. One stream is the classic ping-pong; six mimic a
    table's pattern of six processes taking turns. Returns the seconds ``rounds`` took.
    """
    reply = sample_request()
    loop = asyncio.get_running_loop()
    contexts: list[Any] = []
    all_joined = loop.create_future()
    finished = loop.create_future()

    async def handler(request_iterator: Any, context: grpc.aio.ServicerContext) -> None:
        await context.read()  # the client's hello
        contexts.append(context)
        if len(contexts) == streams and not all_joined.done():
            all_joined.set_result(None)
        await finished

    method = grpc.stream_stream_rpc_method_handler(
        handler,
        request_deserializer=lambda raw: raw,
        response_serializer=pb.RefereeMessage.SerializeToString,
    )
    server = grpc.aio.server(options=[("grpc.max_receive_message_length", MAX_MESSAGE_BYTES)])
    server.add_generic_rpc_handlers(
        [grpc.method_handlers_generic_handler(SERVICE_NAME, {"Play": method})]
    )
    server.add_insecure_port(address)
    await server.start()
    clients = [
        await asyncio.create_subprocess_exec(sys.executable, "-m", "arena.bench.pingpong", address)
        for _ in range(streams)
    ]
    try:
        await asyncio.wait_for(all_joined, timeout=60)
        for context in contexts:  # warm-up
            await context.write(reply)
            await context.read()
        started = time.perf_counter()
        for turn in range(rounds):
            context = contexts[turn % streams]
            await context.write(reply)
            await context.read()
        seconds = time.perf_counter() - started
    finally:
        finished.set_result(None)
        await server.stop(0.5)
        for client in clients:
            await client.wait()
    return seconds, f"{len(reply.SerializeToString())} bytes down"


async def _client(address: str) -> None:
    answer = pb.BotMessage(answer=pb.Answer(request_id=1, card="JH"))
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.stream_stream(
            f"/{SERVICE_NAME}/Play",
            request_serializer=pb.BotMessage.SerializeToString,
            response_deserializer=pb.RefereeMessage.FromString,
        )()
        await call.write(answer)  # hello
        try:
            while (message := await call.read()) is not grpc.aio.EOF:
                del message
                await call.write(answer)
        except grpc.aio.AioRpcError:
            pass  # the server stopped: the benchmark is over


if __name__ == "__main__":
    from arena.wire.loop import run as run_loop

    run_loop(_client(sys.argv[1]))
