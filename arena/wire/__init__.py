"""The wire: the message mapping the referee's seats and the Python SDK share to speak ``arena.v1``.

- :mod:`~arena.wire.values`: the contract's spellings of cards, suits and kinds, and the
  one reading of an answer, a view and the legal choices, with no generated code;
- :mod:`~arena.wire.protocol`: engine values to and from protobuf messages (gRPC);
- :mod:`~arena.wire.jsonlines`: engine values to and from the JSON lines of stdio seats,
  byte for byte protobuf's JSON mapping, with no generated code;
- :mod:`~arena.wire.pbjson`: that mapping through the generated messages (what reads a
  bot's line in any form the mapping allows);
- :mod:`~arena.wire.answers`: a bot's answer, bytes or a line, to an action or a refused
  answer (the fault kinds are protocol words, :mod:`~arena.wire.faults`);
- :mod:`~arena.wire.seat`: what a table says to a seat, in engine types;
- :mod:`~arena.wire.grpc_env`: the gRPC settings, applied before grpc is imported;
- :mod:`~arena.wire.loop`: the event loop every asynchronous part runs on.

It depends on the engine and the generated ``arena.v1`` code only; the seats and the SDK
build on it.
"""
