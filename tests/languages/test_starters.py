"""The starters of ``arena new``, in every language it offers: each is written, built by its
own manifest in the sandbox, plays a short ``arena run`` against the random sample bot with
no fault on its seats, and answers every recorded request of ``arena try`` legally."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from arena.bots.samples import sample_bots_dir
from arena.cli import app
from arena.referee.trial import DEFAULT_REQUESTS

RANDOM_BOT = sample_bots_dir() / "random"
NEEDS = {
    "python": (),
    "node": ("node", "npm"),
    "cpp": ("cmake", "g++", "pkg-config", "protoc", "grpc_cpp_plugin"),
    "ruby": ("ruby", "protoc", "grpc_ruby_plugin"),
}
# npm ci downloads the node starter's two packages: the operator gives its build the network.
BUILD_OPTIONS = {"python": [], "node": ["--build-network"], "cpp": [], "ruby": []}


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "300"})


def _missing(language: str) -> list[str]:
    missing = [tool for tool in NEEDS[language] if shutil.which(tool) is None]
    if missing and os.environ.get("CI"):  # on CI a missing toolchain is a broken setup
        raise RuntimeError(f"the {language} starter's test needs {', '.join(missing)} on PATH")
    return missing


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("language", sorted(NEEDS))
def test_starter_builds_and_plays_without_a_fault(language: str, tmp_path: Path) -> None:
    missing = _missing(language)
    if missing:
        pytest.skip(f"not on PATH: {', '.join(missing)}")
    name = f"start_{language}"
    made = invoke("new", name, "--lang", language, "--dir", str(tmp_path))
    assert made.exit_code == 0, made.output
    bot = str(tmp_path / name)
    db = tmp_path / "results" / "arena.db"
    build = BUILD_OPTIONS[language]
    ran = invoke(
        "run", bot, str(RANDOM_BOT), "--games", "1", "--jobs", "2", "--db", str(db), *build
    )
    assert ran.exit_code == 0, ran.output
    with sqlite3.connect(db) as conn:
        games = conn.execute("SELECT count(*) FROM games").fetchone()[0]
        names = {row[0] for row in conn.execute("SELECT name FROM entrants")}
        # The starter's own seats: a random seat that missed its join on a loaded machine
        # is not the starter's doing; nor is a game in which no seat at all joined (the
        # machine could not start the match's processes in time: the arena's trouble).
        own = "JOIN entrants e ON e.id = s.entrant_id WHERE e.name = ?"
        decisions = conn.execute(f"SELECT sum(decisions) FROM seat_stats s {own}", (name,))
        faults = conn.execute(
            "SELECT f.game_id, f.kind, f.reason FROM faults f JOIN seat_stats s"
            f" ON s.game_id = f.game_id AND s.seat = f.seat {own}",
            (name,),
        ).fetchall()
        nobody_joined = {
            game
            for (game,) in conn.execute(
                "SELECT game_id FROM faults WHERE kind = 'no_join'"
                " GROUP BY game_id HAVING count(DISTINCT seat) = 6"
            )
        }
        played = decisions.fetchone()[0]
    faults = [fault for fault in faults if fault[0] not in nobody_joined]
    assert len(nobody_joined) < games, "no match started at all"
    assert names == {name, "random"}
    assert games == 6 and played > 0 and faults == [], ran.output
    # The same version, already built: every recorded request answered legally, in time.
    tried = invoke("try", bot, "--out", str(tmp_path / "try"), *build)
    assert tried.exit_code == 0, tried.output
    assert f"all {DEFAULT_REQUESTS} answers legal and in time" in tried.stdout
