"""The wire: what the referee and the Python SDK share to speak ``arena.v1``.

- :mod:`~arena.wire.protocol`: engine values to and from protobuf messages;
- :mod:`~arena.wire.answers`: a bot's answer bytes to an action or a refused answer (the
  fault kinds are protocol words);
- :mod:`~arena.wire.grpc_env`: the gRPC settings, applied before grpc is imported;
- :mod:`~arena.wire.loop`: the event loop every asynchronous part runs on.

It depends on the engine and the generated ``arena.v1`` code only; the referee and the
SDK build on it and never on each other.
"""
