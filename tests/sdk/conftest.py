"""The SDK tests run bots as real processes against a real referee."""

# The referee package sets grpc's environment and must be imported before grpc is.
import arena.referee  # noqa: F401
