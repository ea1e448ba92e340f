"""Each channel's own limit: bare ping-pongs with referee-sized messages, over gRPC and over pipes.

The gRPC one: the server half runs in the benchmark's process with the referee's server
flavour and options; the client half is a separate OS process (``python -m
arena.bench.pingpong``), as a bot is, using the SDK's client flavour.

The pipe one, the floor of a stdio seat: this process writes a decision request of the
same size as one JSON line on a client process's stdin and reads its answer line from its
stdout (``python -m arena.bench.pingpong --pipe``), JSON both ways (each side encodes its
message and parses the other's), with plain blocking reads and writes: all a table over
stdio could not do without.

Both take turns over one or six client processes, as a table's six seats do, and count
each side's CPU (this process's, and the clients' from ``/proc``).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any

from arena.bench.cpu import tree_cpu_seconds
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


@dataclass(frozen=True)
class PingPong:
    """``rounds`` round trips: their wall seconds, and each side's CPU seconds."""

    rounds: int
    seconds: float
    server_cpu: float  # this process
    clients_cpu: float  # every client process together
    note: str = ""  # the messages' sizes

    @property
    def per_second(self) -> float:
        return self.rounds / self.seconds

    @property
    def server_us(self) -> float:
        """The server's CPU per round trip, in microseconds."""
        return self.server_cpu / self.rounds * 1e6

    @property
    def client_us(self) -> float:
        return self.clients_cpu / self.rounds * 1e6


async def serve_pingpong(address: str, rounds: int, streams: int = 1) -> PingPong:
    """Round trips driven by the server, as the referee drives its seats.

    ``streams`` client processes connect; the server sends a sample request to each in
    turn and waits for its answer. One stream is the classic ping-pong; six mimic a
    table's pattern of six processes taking turns.
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
        pids = [client.pid for client in clients]
        before = (time.perf_counter(), time.process_time(), sum(tree_cpu_seconds(pids)))
        for turn in range(rounds):
            context = contexts[turn % streams]
            await context.write(reply)
            await context.read()
        after = (time.perf_counter(), time.process_time(), sum(tree_cpu_seconds(pids)))
    finally:
        finished.set_result(None)
        await server.stop(0.5)
        for client in clients:
            await client.wait()
    seconds, server, clients_cpu = (b - a for a, b in zip(before, after, strict=True))
    note = f"{len(reply.SerializeToString())} bytes down"
    return PingPong(rounds, seconds, server, clients_cpu, note)


ANSWER_LINE = {"answer": {"requestId": "1", "card": "JH"}}


def _json_line(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode() + b"\n"


def pipe_pingpong(rounds: int, clients: int = 1) -> PingPong:
    """Round trips over pipes, driven by this process, JSON both ways (the module's
    docstring): ``clients`` processes take turns, as a table's six seats do."""
    from arena.wire.pbjson import to_json

    request = to_json(sample_request())
    command = [sys.executable, "-m", "arena.bench.pingpong", "--pipe"]
    processes = [
        subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        for _ in range(clients)
    ]
    writers = [p.stdin.fileno() for p in processes if p.stdin is not None]
    readers = [p.stdout for p in processes if p.stdout is not None]
    try:
        for writer, reader in zip(writers, readers, strict=True):  # warm-up
            os.write(writer, _json_line(request))
            json.loads(reader.readline())
        pids = [p.pid for p in processes]
        before = (time.perf_counter(), time.process_time(), sum(tree_cpu_seconds(pids)))
        for turn in range(rounds):
            os.write(writers[turn % clients], _json_line(request))
            json.loads(readers[turn % clients].readline())
        after = (time.perf_counter(), time.process_time(), sum(tree_cpu_seconds(pids)))
    finally:
        for process in processes:
            if process.stdin is not None:
                process.stdin.close()
            process.wait(timeout=30)
            if process.stdout is not None:
                process.stdout.close()
    seconds, server, clients_cpu = (b - a for a, b in zip(before, after, strict=True))
    sizes = f"{len(_json_line(request))} bytes down, {len(_json_line(ANSWER_LINE))} up"
    return PingPong(rounds, seconds, server, clients_cpu, sizes)


def _pipe_client() -> None:
    """The client half of the pipe ping-pong: parse each request line, answer one line."""
    out = sys.stdout.fileno()
    for line in sys.stdin.buffer:
        json.loads(line)
        os.write(out, _json_line(ANSWER_LINE))


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
    if sys.argv[1] == "--pipe":
        _pipe_client()
    else:
        from arena.wire.loop import run as run_loop

        run_loop(_client(sys.argv[1]))
