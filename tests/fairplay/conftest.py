"""The fair-play suite starts real (hostile) bot processes; their programs are not tests."""

import pytest

from arena.bots.sandbox import sandbox_problem
from arena.wire.grpc_env import configure_grpc

# grpc reads its settings once, on import, and the test modules import grpc themselves.
configure_grpc()

# The attackers (test_sandbox_attacks.py, test_kernel_channels.py …): each a program run
# as a process, never imported.
collect_ignore_glob = ["bots/*"]


@pytest.fixture
def sandbox_required() -> None:
    """Fails (never skips) the test where the sandbox does not work: the modules that mark
    themselves ``usefixtures("sandbox_required")`` are about what it confines."""
    problem = sandbox_problem()
    if problem is not None:
        pytest.fail(f"these tests need the sandbox: {problem} (.ci/run installs bubblewrap)")
