"""``arena try`` on real bots, started as real seats: a sound bot passes every request, a
wrong one is caught (illegal answers citing the rule, late answers) and fails the command."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from arena.bots.sandbox import sandbox_problem
from arena.cli import app
from arena.cli.try_ import DEFAULT_TRY_REQUESTS
from arena.referee.trial import CASES, DEFAULT_REQUESTS

REPO = Path(__file__).resolve().parents[2]
GREEDY = REPO / "sample_bots" / "greedy"
WRONG = Path(__file__).resolve().parent / "bots" / "wrong_bot"
OFFLINE = Path(__file__).resolve().parent / "bots" / "offline_build"
LINE = re.compile(r"^(\d+)/(\d+) (\w+): (.+) \((R[\d., R]+)\): (.*): (ok|late|illegal|\w+)(: .*)?$")

pytestmark = pytest.mark.timeout(180)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, ["try", *args], env={"COLUMNS": "300"})


def exchanges(result: Result) -> list[re.Match[str]]:
    return [m for line in result.stdout.splitlines() if (m := LINE.match(line))]


def test_default_request_count_is_the_librarys() -> None:
    assert DEFAULT_TRY_REQUESTS == DEFAULT_REQUESTS == 2 * len(CASES)


def test_greedy_answers_every_request_legally(tmp_path: Path) -> None:
    result = invoke(str(GREEDY), "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    lines = exchanges(result)
    assert len(lines) == DEFAULT_REQUESTS, result.output
    assert {m.group(7) for m in lines} == {"ok"}, result.output
    # Every case was asked, each kind with its rules.
    assert {m.group(4) for m in lines} == {case.name for case in CASES}
    assert f"all {DEFAULT_REQUESTS} answers legal and in time" in result.stdout
    assert "exited by itself after the match's end, status 0" in result.stdout
    (log,) = tmp_path.glob("logs/try-*-greedy/seat0.log")
    assert log.is_file()


def test_a_wrong_bot_is_caught_and_fails(tmp_path: Path) -> None:
    # wrong_bot revokes whenever it must follow suit and sleeps 0.6 s before naming trump.
    result = invoke(str(WRONG), "--requests", "14", "--decision-ms", "300", "--out", str(tmp_path))
    assert result.exit_code == 1, result.output
    lines = {m.group(4): m for m in exchanges(result)}
    assert len(lines) == 14 == len(CASES), result.output
    for name in ("follow suit", "a left bauer led, holding trump", "the joker led, holding trump"):
        line = lines[name]
        assert line.group(7) == "illegal", result.output
        assert line.group(8).startswith(": R7.2: must follow"), result.output
    assert lines["name trump"].group(7) == "late", result.output
    assert lines["cannot follow suit"].group(7) in ("ok", "late")  # nothing to revoke
    assert "answers were wrong or late" in result.stdout
    assert "the bot's log ends with:" in result.stderr
    assert "fault illegal: R7.2" in result.stderr  # the notice reached the bot


def test_a_bot_that_never_joins_is_reported(tmp_path: Path) -> None:
    silent = tmp_path / "silent"
    silent.write_text("#!/bin/sh\necho 'no join today' >&2\nexit 3\n")
    silent.chmod(0o755)
    result = invoke(str(silent), "--out", str(tmp_path / "out"))
    assert result.exit_code == 1, result.output
    assert "not joined: the bot's process ended before it joined" in result.stdout
    assert "no join today" in result.stderr  # its log's tail


def test_requests_must_be_positive(tmp_path: Path) -> None:
    result = invoke(str(GREEDY), "--requests", "0", "--out", str(tmp_path))
    assert result.exit_code == 2
    assert "--requests must be at least 1" in result.stderr


def test_a_build_that_needed_the_network_names_the_option(tmp_path: Path) -> None:
    """Issue 35: a build that failed for want of the network says so and names
    --build-network, instead of leaving the author with npm's error alone."""
    if sandbox_problem() is not None:
        pytest.skip(f"only the sandbox takes a build's network away: {sandbox_problem()}")
    result = invoke(str(OFFLINE), "--out", str(tmp_path))
    assert result.exit_code != 0, result.output
    said = " ".join(result.stderr.split())
    assert "offline_build did not build" in said, said
    assert "shows a network error" in said and "--build-network" in said, said
