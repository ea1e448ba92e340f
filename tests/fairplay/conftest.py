"""The fair-play suite starts real (hostile) bot processes; their programs are not tests."""

# The referee package sets grpc's environment and must be imported before grpc is.
import arena.referee  # noqa: F401

# The sandbox attackers (test_sandbox_attacks.py): each a ``bot.py`` run as a process.
collect_ignore_glob = ["bots/sb_*"]
