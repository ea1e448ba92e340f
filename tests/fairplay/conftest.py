"""The fair-play suite starts real (hostile) bot processes; their programs are not tests."""

from arena.wire.grpc_env import configure_grpc

# grpc reads its settings once, on import, and the test modules import grpc themselves.
configure_grpc()

# The sandbox attackers (test_sandbox_attacks.py): each a ``bot.py`` run as a process.
collect_ignore_glob = ["bots/sb_*"]
