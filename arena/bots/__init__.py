"""Describe bots on disk (bot.toml / executables) and run them as limited, killable processes."""

from arena.bots.manifest import (
    MANIFEST_NAME,
    BotBuildError,
    BotSpec,
    BotSpecError,
    compute_version,
    load_bot,
    read_log_tail,
    resolve_command,
)
from arena.bots.process import (
    BotProcess,
    BotStartError,
    Limits,
    start_bot,
)

__all__ = [
    "MANIFEST_NAME",
    "BotBuildError",
    "BotProcess",
    "BotSpec",
    "BotSpecError",
    "BotStartError",
    "Limits",
    "compute_version",
    "load_bot",
    "read_log_tail",
    "resolve_command",
    "start_bot",
]
