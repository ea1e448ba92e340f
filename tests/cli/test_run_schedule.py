"""``arena run --schedule …``: a field too large for the full round robin plays a sample.

Real bot processes: the Python sample bots under twelve names, one game per seating.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from tournament.helpers import copy_bot
from typer.testing import CliRunner, Result

from arena.cli import app

pytestmark = pytest.mark.timeout(120)

ENV = {"COLUMNS": "200"}
SAMPLES = ("random", "greedy", "lowest")


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), env=ENV)


def show(result: Result) -> str:
    return f"exit code {result.exit_code}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"


def twelve_entrants(root: Path) -> list[str]:
    """The three Python samples, four copies each under distinct names."""
    return [
        str(copy_bot(SAMPLES[i % 3], root / f"bot{i}", f"{SAMPLES[i % 3]}{i}")) for i in range(12)
    ]


def stored_matches(db: Path) -> list[tuple[str, tuple[int, int, int], int]]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            """
            SELECT m.match_key, m.entrant_team0, m.entrant_team1, m.entrant_team2,
                   (SELECT count(*) FROM games g WHERE g.match_id = m.id)
            FROM matches m
            """
        ).fetchall()
        return [(str(r[0]), (r[1], r[2], r[3]), int(r[4])) for r in rows]
    finally:
        conn.close()


def run_settings(db: Path) -> dict[str, object]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        ((settings,),) = conn.execute("SELECT settings FROM runs").fetchall()
        return dict(json.loads(settings))
    finally:
        conn.close()


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_twelve_entrant_sampled_run_completes_resumes_and_is_rated(tmp_path: Path) -> None:
    bots = twelve_entrants(tmp_path / "bots")
    db = tmp_path / "results" / "arena.db"
    # Six triples: each of the twelve entrants plays in one or two of them.
    command = ("run", *bots, "--games", "1", "--matches", "36", "--jobs", "2")
    command += ("--decision-ms", "300", "--db", str(db))
    result = invoke(*command)
    assert result.exit_code == 0, show(result)
    assert (
        "schedule: sampled, 36 of the full round robin's 1,320 matches "
        "(auto: the full one is over 240; --matches 36)"
    ) in result.stdout, show(result)
    assert ": 36 games played, 0 already stored" in result.stdout, show(result)

    matches = stored_matches(db)
    assert len(matches) == 36 and all(games == 1 for _, _, games in matches)
    assert all(key.startswith("p") for key, _, _ in matches)  # the sampled schedule's keys
    assert len({entrant for _, seating, _ in matches for entrant in seating}) == 12
    assert run_settings(db)["schedule"] == {"kind": "sampled", "matches": 36}

    again = invoke(*command)  # the same command resumes the same sample: nothing to play
    assert again.exit_code == 0, show(again)
    assert ": 0 games played, 36 already stored" in again.stdout, show(again)

    report = invoke("report", "--db", str(db), "--json")
    assert report.exit_code == 0, show(report)
    ratings = json.loads(report.stdout)["ratings"]
    assert len(ratings) == 12
    # one game per match: one seed, too few for an interval (said, never a point)
    assert all(r["low"] is None and r["high"] is None and r["too_few_seeds"] for r in ratings)
    rated = [r["rating"] for r in ratings if r["place"] == "rated"]  # the others: no rating
    assert rated == sorted(rated, reverse=True)
    assert "Ranking by rating" in result.stdout  # and arena run's own report ranks by it


@pytest.mark.parametrize(
    ("options", "phrase"),
    [
        (("--schedule", "full", "--matches", "12"), "--matches sizes a sampled schedule"),
        (("--schedule", "sampled"), "a sampled schedule needs at least three entrants"),
        (("--matches", "0"), "--matches must be at least 1"),
    ],
)
def test_a_schedule_that_cannot_be_played_is_refused_before_any_game(
    tmp_path: Path, options: tuple[str, ...], phrase: str
) -> None:
    db = tmp_path / "arena.db"
    samples = Path(__file__).resolve().parents[2] / "sample_bots"
    result = invoke(
        "run", str(samples / "random"), str(samples / "greedy"), *options, "--db", str(db)
    )
    assert result.exit_code != 0, show(result)
    assert "Traceback" not in result.output, show(result)
    assert "error:" in result.stderr and phrase in " ".join(result.stderr.split()), show(result)
    assert not db.exists()
