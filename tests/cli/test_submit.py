"""arena submit / arena bots / registered entrants, with real bots and real processes."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.bots.samples import sample_bots_dir
from arena.cli import app
from arena.tournament.registry import Registry

REPO = Path(__file__).resolve().parents[2]
SAMPLES = sample_bots_dir()
BAD = REPO / "tests" / "submit_bots"
runner = CliRunner()


def submit(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["submit", *args])
    assert "Traceback" not in result.output
    return result.exit_code, result.output


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("bot", ["greedy", "random", "lowest", "node", "cpp"])
def test_submit_accepts_each_sample_bot(bot: str, tmp_path: Path) -> None:
    registry = tmp_path / "registry"
    # npm ci downloads the node bot's packages: the operator gives its build the network.
    network = ["--build-network"] if bot == "node" else []
    code, output = submit(str(SAMPLES / bot), "--registry", str(registry), "--games", "1", *network)
    assert code == 0, output
    assert "FAIL" not in output and f"registered {bot}@" in output
    entry = Registry(registry).find(bot)
    spec = Registry(registry).load(entry)  # the registered copy runs and hashes the same
    assert spec.version == entry.version and spec.name == bot
    listing = runner.invoke(app, ["bots", "--registry", str(registry)])
    assert listing.exit_code == 0 and entry.version in listing.output


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    ("bot", "check", "reason", "log"),
    [
        ("crash_at_start", "starts and joins", "exited with status 3", "missing model file"),
        ("never_joins", "starts and joins", "ran but did not join within 3 s", "thinking"),
        ("illegal_card", "answers every decision legally", "R7.2", "fault illegal"),
    ],
)
def test_submit_refuses_a_bad_bot_with_the_reason_and_log(
    bot: str, check: str, reason: str, log: str, tmp_path: Path
) -> None:
    registry = tmp_path / "registry"
    code, output = submit(
        str(BAD / bot), "--registry", str(registry), "--games", "1", "--join-timeout", "3"
    )
    assert code != 0
    assert f"{bot} refused: {check}" in output and reason in output, output
    assert log in output, output  # the tail of the bot's own log
    # The seat logs stay, in the registry's logs, and the log a fault names is one of
    # them (issue 35: it was in a temporary directory, deleted when submit ended).
    (seat_log,) = (registry / "logs").glob(f"submit-*-{bot}/seat0.log")
    assert log in seat_log.read_text()
    if check == "starts and joins":
        assert f"log: {seat_log}" in "".join(output.split()).replace("log:", "log: "), output
    assert Registry(registry).entries() == []
    if check == "starts and joins":  # never seen answering: nothing after the join passed
        assert "ok  answers" not in output and "ok  stays connected" not in output, output
        assert output.count("not run: the bot never joined") == 4, output


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_run_plays_registered_bots_by_name(tmp_path: Path) -> None:
    registry = tmp_path / "registry"
    for bot in ("greedy", "lowest"):
        assert submit(str(SAMPLES / bot), "--registry", str(registry), "--games", "1")[0] == 0
    result = runner.invoke(
        app,
        [
            "run",
            "--all-registered",
            "--registry",
            str(registry),
            "--games",
            "1",
            "--db",
            str(tmp_path / "a.db"),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert '"greedy@' in result.output and '"lowest@' in result.output
    missing = runner.invoke(app, ["run", "nosuchbot", "greedy", "--registry", str(registry)])
    assert missing.exit_code != 0 and "no registered bot 'nosuchbot'" in missing.output


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_run_builds_a_bot_that_says_how(tmp_path: Path) -> None:
    """A bot whose manifest has a build command is built before it plays."""
    bot = tmp_path / "built"
    bot.mkdir()
    (bot / "bot.py.in").write_text("from arena.sdk import Bot, run\n\nrun(Bot())\n")
    (bot / "bot.toml").write_text(
        'name = "built"\ncommand = ["python3", "bot.py"]\n'
        'build = ["sh", "-c", "cp bot.py.in bot.py"]\n'
    )
    result = runner.invoke(
        app,
        ["run", str(bot), str(SAMPLES / "random"), "--games", "1", "--db", str(tmp_path / "a.db")],
    )
    assert result.exit_code == 0, result.output
    assert not (bot / "bot.py").exists()  # built in the version's copy, never in the source
    assert "faults by kind" not in result.output  # the built bot joined and played cleanly
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "bot.toml").write_text(
        'name = "broken"\ncommand = ["./bot"]\nbuild = ["sh", "-c", "echo no compiler; exit 4"]\n'
    )
    failed = runner.invoke(
        app, ["run", str(broken), str(SAMPLES / "random"), "--db", str(tmp_path / "b.db")]
    )
    assert failed.exit_code != 0 and "broken did not build" in failed.output
    assert "Traceback" not in failed.output


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_submitted_bot_that_generates_code_runs_by_its_version(tmp_path: Path) -> None:
    """A build that writes gen/ (stubs, say) changes neither the source nor the version:
    the version arena submit registers is the one arena run NAME@VERSION finds."""
    bot = tmp_path / "gen_bot"
    (bot / "src").mkdir(parents=True)
    (bot / "src" / "main.py").write_text("from arena.sdk import Bot, run\n\nrun(Bot())\n")
    (bot / "bot.toml").write_text(
        'name = "gen_bot"\ncommand = ["python3", "gen/bot.py"]\n'
        'build = "mkdir -p gen && cp src/main.py gen/bot.py"\n'
    )
    registry = tmp_path / "registry"
    code, output = submit(str(bot), "--registry", str(registry), "--games", "1")
    assert code == 0, output
    entry = Registry(registry).find("gen_bot")
    assert not (bot / "gen").exists()
    result = runner.invoke(
        app,
        [
            "run",
            f"gen_bot@{entry.version}",
            str(SAMPLES / "random"),
            "--games",
            "1",
            "--registry",
            str(registry),
            "--db",
            str(tmp_path / "a.db"),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert f'"gen_bot@{entry.version}"' in result.output
