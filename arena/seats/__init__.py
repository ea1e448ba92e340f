"""The seat channels: how the table speaks to each seat, one implementation per transport.

- :mod:`~arena.seats.channel`: the ``SeatChannel`` interface, in engine types;
- :mod:`~arena.seats.link`: a launched seat's join and end (``SeatLink``), and a gRPC
  seat's stream;
- :mod:`~arena.seats.grpc_seat`: a bot that dials the referee over gRPC;
- :mod:`~arena.seats.stdio`: a bot that speaks JSON lines on its standard input and output;
- :mod:`~arena.seats.inprocess`: a Python ``Bot`` object called in this process.

The table (``arena.referee.table``), ``arena try``, the benchmarks and the statistics
study all play through these, so what they measure is what the arena plays with.
"""
