"""The referee: the only layer that runs the gRPC server. It deals, asks, enforces, and
survives bots; what it shares with the SDK (the protocol, the gRPC settings) is in
:mod:`arena.wire`."""
