"""The hostile suite starts real bot processes; ``bots/`` holds that zoo, not tests."""

from arena.wire.grpc_env import configure_grpc

# grpc reads its settings once, on import, and the test modules import grpc themselves.
configure_grpc()

collect_ignore = ["bots"]


def pytest_terminal_summary(terminalreporter) -> None:  # type: ignore[no-untyped-def]
    """What the hostile suite tried and saw, for the record."""
    from .helpers import TALLY

    if not any(TALLY.values()):
        return
    write = terminalreporter.write_line
    terminalreporter.section("hostile bots")
    write(
        f"scenarios: {sum(TALLY['scenarios'].values())} {dict(sorted(TALLY['scenarios'].items()))}"
    )
    for name in ("games", "faults", "problems"):
        write(f"{name}: {sum(TALLY[name].values())} {dict(sorted(TALLY[name].items()))}")
