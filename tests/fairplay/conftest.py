"""The fair-play suite starts real (hostile) bot processes; their programs are not tests."""

from arena.wire.grpc_env import configure_grpc

# grpc reads its settings once, on import, and the test modules import grpc themselves.
configure_grpc()

# The attackers (test_sandbox_attacks.py, test_kernel_channels.py …): each a program run
# as a process, never imported.
collect_ignore_glob = ["bots/*"]
