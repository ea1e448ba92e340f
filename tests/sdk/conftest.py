"""The SDK tests run bots as real processes against a real referee."""

from arena.wire.grpc_env import configure_grpc

# grpc reads its settings once, on import, and the test modules import grpc themselves.
configure_grpc()
