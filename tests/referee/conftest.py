"""The referee tests start real bot processes; ``bots/`` holds those bots, not tests."""

# The referee package sets grpc's environment (quiet logs, no fork handlers) and must be
# imported before grpc is; the test modules import grpc themselves.
import arena.referee  # noqa: F401

collect_ignore = ["bots"]
