"""The referee tests start real bot processes; ``bots/`` holds those bots, not tests."""

from arena.wire.grpc_env import configure_grpc

# grpc reads its settings once, on import, and the test modules import grpc themselves.
configure_grpc()

collect_ignore = ["bots"]
