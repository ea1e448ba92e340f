"""``arena play``: one game of three real bots over gRPC from the command line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.engine import replay
from arena.tournament.play import read_record
from arena.tournament.schedule import RunKey

from .harness import SAMPLE_BOTS

SAMPLES = [str(SAMPLE_BOTS / name) for name in ("greedy", "random", "lowest")]


def invoke(args: list[str]) -> tuple[int, str, BaseException | None]:
    result = CliRunner().invoke(app, args)
    return result.exit_code, result.output, result.exception


def lines_starting(output: str, prefix: str) -> list[str]:
    return [line[len(prefix) :].strip() for line in output.splitlines() if line.startswith(prefix)]


@pytest.mark.timeout(120)
def test_play_three_sample_bots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, output, exception = invoke(["play", *SAMPLES, "--seed", "3", "--out", "out"])
    assert code == 0, output
    assert exception is None
    assert "Traceback" not in output

    (result,) = lines_starting(output, "result: ")
    assert result == "draw" or result in {f"team {t} wins" for t in range(3)}
    (record_text,) = lines_starting(output, "record: ")
    record_path = Path(record_text)
    assert record_path == Path("out/games/play-3.json.gz")
    assert record_path.is_file()
    record = read_record(record_path)
    game = replay(record)
    assert game.outcome is not None and record["result"] is not None
    winner = game.outcome.winner
    assert result == ("draw" if winner is None else f"team {winner} wins")
    # The record holds no seed or key; --seed 3 dealt game 0 of the run of seed 3.
    assert "seed" not in record
    replay(record, RunKey.from_seed(3).game(0))
    assert [e["name"] for e in record["meta"]["entrants"]] == ["greedy", "random", "lowest"]
    # The table names each entrant with its score, and there were no faults.
    for team, name in enumerate(["greedy", "random", "lowest"]):
        row = next(line for line in output.splitlines() if f"team {team} (seats" in line)
        assert name in row
        assert str(game.outcome.scores[team]) in row
    assert "fault:" not in output
    (logs,) = lines_starting(output, "seat logs: ")
    assert sorted(p.name for p in Path(logs).iterdir() if p.suffix == ".log") == [
        f"seat{s}.log" for s in range(6)
    ]


@pytest.mark.timeout(120)
def test_record_path_is_printed_on_one_line(tmp_path: Path) -> None:
    """The record path is for copying: it must not be wrapped at the console width."""
    out = tmp_path / ("a-results-directory-with-a-long-name-" * 3)
    code, output, _ = invoke(["play", *SAMPLES, "--seed", "2", "--out", str(out)])
    assert code == 0, output
    record = out / "games" / "play-2.json.gz"
    assert record.is_file()
    assert lines_starting(output, "record: ") == [str(record)], output


@pytest.mark.parametrize(
    ("entrants", "message"),
    [
        (SAMPLES[:2], "play takes three entrants (one per team), not 2"),
        ([*SAMPLES, SAMPLES[0]], "play takes three entrants (one per team), not 4"),
        ([*SAMPLES[:2], "/no/such/bot"], "bot path /no/such/bot does not exist"),
        ([*SAMPLES[:2], "{empty}"], "bot directory {empty} has no bot.toml manifest"),
    ],
    ids=["two entrants", "four entrants", "missing path", "no bot.toml"],
)
def test_play_refuses_bad_entrants(tmp_path: Path, entrants: list[str], message: str) -> None:
    empty = tmp_path / "not-a-bot"
    empty.mkdir()
    entrants = [e.replace("{empty}", str(empty)) for e in entrants]
    message = message.replace("{empty}", str(empty))
    code, output, exception = invoke(["play", *entrants, "--out", str(tmp_path / "out")])
    assert code != 0
    assert isinstance(exception, SystemExit)  # a clean exit, not a crash
    assert "Traceback" not in output
    # (Compared with whitespace normalised: wrapping is test_error_is_one_line's concern.)
    assert " ".join(output.split()) == f"error: {message}"
    assert not (tmp_path / "out").exists()  # nothing was started


def test_error_is_one_line(tmp_path: Path) -> None:
    """``cli.fail``: "a clear one-line error", even when the path in it is long."""
    missing = tmp_path / ("no-such-bot-directory-with-a-long-name-" * 3)
    code, output, _ = invoke(["play", *SAMPLES[:2], str(missing)])
    assert code != 0
    assert output.splitlines() == [f"error: bot path {missing} does not exist"]


def test_play_refuses_a_seat_out_of_range(tmp_path: Path) -> None:
    code, output, exception = invoke(
        ["play", *SAMPLES, "--manual", "6", "--out", str(tmp_path / "out")]
    )
    assert code != 0 and isinstance(exception, SystemExit)
    assert output.strip() == "error: R1.1: seats are 0..5"


def test_sample_bots_are_where_the_tests_expect() -> None:
    for path in SAMPLES:
        assert os.path.isfile(os.path.join(path, "bot.toml")), path
