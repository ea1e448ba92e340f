"""The bot options are one value (``BotFlags``) that every command starting bots shares."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.cli.common import BotFlags, with_bot_flags

BOT_COMMANDS = ("run", "compare", "play", "try", "serve", "submit")
FLAGS = (
    "--sandbox",
    "--workdir-mb",
    "--memory-mb",
    "--cpu-seconds",
    "--cpu-cores",
    "--processes",
    "--log-kb",
    "--build-disk-mb",
    "--build-network",
    "--pass-env",
)


@pytest.mark.parametrize("command", BOT_COMMANDS)
def test_every_command_that_starts_bots_takes_the_same_flags(command: str) -> None:
    shown = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    for flag in FLAGS:
        assert flag in shown.output, (command, flag)
    # serve and submit always build (in the sandbox): they offer no --no-build
    assert ("--no-build" in shown.output) == (command not in ("serve", "submit"))


def test_the_flags_reach_the_command_as_one_value() -> None:
    seen: list[BotFlags] = []

    @with_bot_flags()
    def command(name: str, bot_flags: BotFlags) -> None:
        seen.append(bot_flags)

    command("x", memory_mb=512, cpu_cores=0.5, pass_env=["LANG"])
    assert seen == [BotFlags(memory_mb=512, cpu_cores=0.5, pass_env=["LANG"])]
    command("y")  # every flag left out: the defaults
    assert seen[-1] == BotFlags()


def test_a_command_without_the_parameter_is_refused_when_defined() -> None:
    with pytest.raises(TypeError, match="takes no bot_flags"):

        @with_bot_flags()
        def command(name: str) -> None: ...


def test_a_bad_flag_is_a_clear_error_before_any_bot_starts() -> None:
    done = CliRunner().invoke(app, ["run", "--cpu-cores", "0", "--games", "1"])
    assert done.exit_code == 2
    assert "--cpu-cores must be more than 0" in done.output


def test_the_build_disk_cap_is_one_value_for_builds_and_seats() -> None:
    from arena.bots import Limits

    assert BotFlags().options(warn=False).limits.disk_bytes == Limits().disk_bytes
    assert BotFlags(build_disk_mb=32).options(warn=False).limits.disk_bytes == 32 * 1024 * 1024
    done = CliRunner().invoke(app, ["run", "--build-disk-mb", "0", "--games", "1"])
    assert done.exit_code == 2
    assert "--build-disk-mb must be from 1 to 1024" in done.output


@pytest.mark.parametrize("command", ("run", "compare", "serve"))
def test_the_commands_that_play_on_a_cluster_take_its_flags(command: str) -> None:
    shown = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"})
    for flag in ("--cluster", "--cluster-tls-ca", "--cluster-tls-cert", "--cluster-tls-key"):
        assert flag in shown.output, (command, flag)


def test_tls_files_without_a_cluster_are_refused(tmp_path: Path) -> None:
    done = CliRunner().invoke(app, ["run", "--cluster-tls-ca", str(tmp_path / "ca.pem")])
    assert done.exit_code == 2
    assert "need --cluster" in done.output
