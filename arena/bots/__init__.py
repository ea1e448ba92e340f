"""Describe bots on disk (bot.toml / executables) and run them as limited, killable processes."""

from arena.bots.manifest import (
    MANIFEST_NAME,
    BotBuildError,
    BotSpec,
    BotSpecError,
    build_bot,
    compute_version,
    load_bot,
    read_log_tail,
    resolve_command,
)
from arena.bots.process import (
    BotProcess,
    BotStartError,
    Limits,
    alive_processes_in_group,
    start_bot,
    wait_until_gone,
)

__all__ = [
    "MANIFEST_NAME",
    "BotBuildError",
    "BotProcess",
    "BotSpec",
    "BotSpecError",
    "BotStartError",
    "Limits",
    "alive_processes_in_group",
    "build_bot",
    "compute_version",
    "load_bot",
    "read_log_tail",
    "resolve_command",
    "start_bot",
    "wait_until_gone",
]
