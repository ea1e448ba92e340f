"""What a hostile bot can reach with the default options (issue #9, items 2, 4 and 7).

Each attacker (``bots/sb_*``) plays team 0 (seats 0 and 3) against the sample bots with
real processes over real gRPC, through ``play_one_game`` with its defaults or through
``arena run``. It tries its attack once every seat has joined, then plays on, and writes
what it found as one ``SB-REPORT`` JSON line to its seat log (its working directory is a
tmpfs that is gone when the match ends). Every test checks both what the attacker saw or
did and that no seat, the attacker's included, recorded a fault.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.bots import BotSpec, load_bot
from arena.bots.samples import sample_bots_dir
from arena.bots.sandbox import DEFAULT_WORKDIR_BYTES, WORKDIR
from arena.cli import app
from arena.tournament.play import PlayResult, play_one_game
from arena.tournament.store import logs_beside

BOTS = Path(__file__).resolve().parent / "bots"
REPO = Path(__file__).resolve().parents[2]
SAMPLES = sample_bots_dir()
ATTACKER_SEATS = (0, 3)
SEED = 7
ALLOWED_ENV = {
    "PATH",
    "HOME",
    "LANG",
    "ARENA_ADDRESS",
    "ARENA_TOKEN",
    "ARENA_SEAT",
    "ARENA_SEED",
    "ARENA_BOT_DIR",
    "ARENA_PROTO_DIR",
    "PYTHONUNBUFFERED",
}
_MiB = 1024 * 1024

pytestmark = [pytest.mark.timeout(180), pytest.mark.usefixtures("sandbox_required")]


def reports_in(log: Path) -> list[dict[str, Any]]:
    lines = log.read_text(errors="replace").splitlines()
    return [json.loads(line.removeprefix("SB-REPORT ")) for line in lines if "SB-REPORT " in line]


def report_of(result: PlayResult, seat: int) -> dict[str, Any]:
    found = reports_in(result.log_dir / f"seat{seat}.log")
    assert len(found) == 1, (result.log_dir / f"seat{seat}.log").read_text(errors="replace")
    return found[0]


def copied(name: str, into: Path, files: dict[str, str] | None = None) -> BotSpec:
    """The attacker ``name`` copied under ``into``, with ``files`` baked in beside it."""
    target = into / name
    shutil.copytree(BOTS / name, target)
    for file, text in (files or {}).items():
        (target / file).write_text(text)
    return load_bot(target)


def play_clean(attacker: BotSpec, out: Path) -> PlayResult:
    """One game with default options; no seat may record a fault."""
    opponents = [load_bot(SAMPLES / "random"), load_bot(SAMPLES / "greedy")]
    result = play_one_game([attacker, *opponents], SEED, out)
    assert result.report.faults == (), result.report.faults
    assert all(seat.faults == 0 for seat in result.report.seats)
    return result


@pytest.mark.slow
def test_proc_shows_no_other_process_and_no_token(tmp_path: Path) -> None:
    result = play_clean(load_bot(BOTS / "sb_proc"), tmp_path)
    for seat in ATTACKER_SEATS:
        found = report_of(result, seat)
        assert found["stolen"] == [], found  # no other seat's token anywhere
        # No procfs at all (its own processes' files tell of the machine): no process's
        # directory, its own included, and so no environ or cmdline to read.
        assert found["pids"] == [] and found["readable"] == 0, found


@pytest.mark.slow
def test_signals_reach_no_other_bot(tmp_path: Path) -> None:
    result = play_clean(load_bot(BOTS / "sb_signal"), tmp_path)
    for seat in ATTACKER_SEATS:
        found = report_of(result, seat)
        # Only the sandbox's own init, which the kernel shields from its namespace's SIGKILL.
        assert set(found["reachable"]) <= {1}, found
        assert found["everything"].startswith("refused"), found  # kill(-1): no one to signal
    # Every victim played to the end (play_clean): no seat was closed by a signal.


@pytest.mark.slow
def test_partners_cannot_talk_over_loopback_or_abstract_sockets(tmp_path: Path) -> None:
    result = play_clean(load_bot(BOTS / "sb_tcp"), tmp_path)
    listener, connector = (report_of(result, seat) for seat in ATTACKER_SEATS)
    # A seat may open unix sockets only (arena/bots/syscalls.py): no TCP socket at all.
    assert listener["listen_tcp"].startswith("refused"), listener
    assert listener["listen_abstract"] == "listening", listener
    assert listener["accepted"] == [], listener
    assert connector["connect_tcp"].startswith("refused"), connector
    assert connector["connect_abstract"].startswith("refused"), connector


@pytest.mark.slow
def test_other_seats_and_matches_files_are_invisible(tmp_path: Path) -> None:
    out = tmp_path / "out"
    other_match = tmp_path / "earlier" / "logs" / "play-1"
    other_match.mkdir(parents=True)
    (other_match / "seat0.log").write_text("another match's log\n")
    targets = {
        "logs": str(out / "logs"),  # its own match's and seat's logs, the partner's
        "other_match": str(other_match),
        "other_match_log": str(other_match / "seat0.log"),
        "records": str(out / "games"),
        "arena_tmp": "/tmp",  # the referee's socket directory lives under the host's /tmp
        "checkout": str(REPO),  # the arena's package is in it, so is arena-results/
    }
    attacker = copied("sb_files", tmp_path / "bots", {"targets.json": json.dumps(targets)})
    result = play_clean(attacker, out)
    for seat in ATTACKER_SEATS:
        found = report_of(result, seat)
        assert found["cwd"] == found["home"] == str(WORKDIR), found
        assert found["own_dir"] == [f"mine-{seat}"], found  # fresh, and not the partner's
        assert found["homes"] == [WORKDIR.name], found
        seen = found["targets"]
        assert found["beside_socket"] == [found["socket_dir"]], found  # no other seat's
        assert seen.pop("arena_tmp").startswith("listed: "), found
        checkout = seen.pop("checkout").removeprefix("listed: ").split(",")
        assert not {"README.md", "sample_bots", "tests", "arena-results"} & set(checkout), found
        for name, what in seen.items():
            assert what.startswith("refused"), (name, found)
        for key in ("write_code", "write_root", "write_usr"):
            assert found[key].startswith("refused"), found
    assert not (attacker.directory / "planted").exists()
    # Nothing of the sandboxed working dirs on disk: only the logs in the match's directory.
    assert sorted(p.name for p in result.log_dir.iterdir()) == [f"seat{s}.log" for s in range(6)]


@pytest.mark.slow
def test_a_full_disk_stops_at_the_cap_and_leaves_nothing(tmp_path: Path) -> None:
    result = play_clean(load_bot(BOTS / "sb_disk"), tmp_path)
    for seat in ATTACKER_SEATS:
        found = report_of(result, seat)
        for where in ("home", "tmp"):
            assert found[where]["error"] == "ENOSPC", found
            # Whole MiB writes up to the cap (the last partial one may not fit).
            assert DEFAULT_WORKDIR_BYTES - _MiB <= found[where]["written"], found
            assert found[where]["written"] <= DEFAULT_WORKDIR_BYTES, found
    kept = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert sum(p.stat().st_size for p in kept) < 4 * _MiB, kept
    assert not any(p.name == "fill" for p in kept)


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", [True, False], ids=["sandboxed", "unsandboxed"])
def test_the_environment_is_the_allowlist_and_the_operators_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sandbox: bool
) -> None:
    monkeypatch.setenv("SB_CANARY", "the arena's secret")
    monkeypatch.setenv("SB_WANTED", "asked for by name")
    opponents = [load_bot(SAMPLES / "random"), load_bot(SAMPLES / "greedy")]
    result = play_one_game(
        [load_bot(BOTS / "sb_env"), *opponents],
        SEED,
        tmp_path,
        sandbox=sandbox,
        pass_env=("SB_WANTED",),  # as --pass-env SB_WANTED
    )
    assert result.report.faults == (), result.report.faults
    for seat in ATTACKER_SEATS:
        found = report_of(result, seat)
        env = found["env"]
        assert "SB_CANARY" not in env, env
        assert env["SB_WANTED"] == "asked for by name", env
        # PWD: bwrap sets it on --chdir.
        assert set(env) <= ALLOWED_ENV | {"SB_WANTED", "PWD"}, env
        assert env["ARENA_SEAT"] == str(seat)
        home = str(WORKDIR) if sandbox else str((result.log_dir / f"seat{seat}").resolve())
        assert env["HOME"] == found["cwd"] == home, found


@pytest.mark.slow
def test_arena_run_keeps_the_results_database_and_logs_from_bots(tmp_path: Path) -> None:
    results = tmp_path / "results"
    db = results / "arena.db"
    targets = {
        "db": str(db),
        "db_dir": str(results),
        "logs": str(results / "logs"),
        "registry": str(tmp_path / "registry"),
    }
    attacker = copied("sb_files", tmp_path / "bots", {"targets.json": json.dumps(targets)})
    (tmp_path / "registry").mkdir()
    outcome = CliRunner().invoke(
        app,
        [
            "run",
            str(attacker.directory),
            str(SAMPLES / "random"),
            str(SAMPLES / "greedy"),
            "--games",
            "1",
            "--jobs",
            "2",
            "--db",
            str(db),
            "--registry",
            str(tmp_path / "registry"),
        ],
        env={"COLUMNS": "200"},
    )
    assert outcome.exit_code == 0, outcome.output
    assert "trusted code" not in outcome.output  # sandboxed: no warning
    found = [r for log in logs_beside(db).rglob("seat*.log") for r in reports_in(log)]
    assert len(found) == 12, found  # six seatings, the attacker in two seats of each
    for report in found:
        for name, what in report["targets"].items():
            assert what.startswith("refused"), (name, report)
    with sqlite3.connect(db) as store:
        assert store.execute("SELECT COUNT(*) FROM faults").fetchone()[0] == 0
        assert store.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 6


@pytest.mark.slow
def test_no_sandbox_says_in_one_line_that_bots_are_trusted(tmp_path: Path) -> None:
    outcome = CliRunner().invoke(
        app,
        [
            "play",
            str(SAMPLES / "random"),
            str(SAMPLES / "greedy"),
            str(SAMPLES / "lowest"),
            "--out",
            str(tmp_path),
            "--no-sandbox",
        ],
        env={"COLUMNS": "200"},
    )
    assert outcome.exit_code == 0, outcome.output
    warnings = [line for line in outcome.stderr.splitlines() if "trusted code" in line]
    assert len(warnings) == 1, outcome.stderr
    assert "--no-sandbox" in warnings[0]
    # Unsandboxed, the working dirs stay on disk beside the logs.
    assert [p.name for p in tmp_path.glob("logs/*/seat0")] == ["seat0"]
