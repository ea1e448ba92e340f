"""The arena's own trouble never becomes a result, and a bot's failure to start is loud.

Real runs through the command line, with real processes: a match whose six seats all miss
their join although their processes run is played again with the same deals and never
counted; one that never can be played stops the run with the reason; a bot that crashes
at start is named, with its exit status, its log's end and the log's path, as it happens,
in the report and through ``arena logs``.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from .test_cli import GREEDY, assert_clean_failure, assert_ok, invoke, show

REPO = Path(__file__).resolve().parents[2]
CRASH_AT_START = str(REPO / "tests" / "submit_bots" / "crash_at_start")

# Each seat's first start (per seat number, across the run) sleeps through its join
# deadline while its process runs; every later start plays. With three such entrants the
# first match has no seat joined: the machine's trouble by the rule, not the bots'.
LATE_ONCE = """\
import os, time
from pathlib import Path

marker = Path(os.environ["SCHMIER_TEST_ONCE"]) / ("seat" + os.environ["ARENA_SEAT"])
try:
    marker.open("x").close()
except FileExistsError:
    from arena.engine import random_legal_action
    from arena.sdk import Bot, run
    import random

    class Late(Bot):
        def decide(self, decision):
            return random_legal_action(decision.legal, random.Random(0))

    run(Late())
else:
    time.sleep(600)
"""
NEVER_JOINS = "import time\ntime.sleep(600)\n"


def bots(root: Path, program: str) -> list[str]:
    paths = []
    for name in ("north", "east", "west"):
        bot = root / name
        bot.mkdir(parents=True)
        (bot / "bot.py").write_text(program)
        (bot / "bot.toml").write_text(f'name = "{name}"\ncommand = ["python3", "bot.py"]\n')
        paths.append(str(bot))
    return paths


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_match_nobody_could_join_is_played_again_and_never_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    once = tmp_path / "once"
    once.mkdir()
    monkeypatch.setenv("SCHMIER_TEST_ONCE", str(once))
    db = tmp_path / "r.db"
    args = ["run", *bots(tmp_path / "bots", LATE_ONCE), "--games", "1", "--jobs", "1"]
    # Unsandboxed, so that the bots can leave their markers where the next start sees them.
    result = invoke(*args, "--db", str(db), "--no-sandbox", "--pass-env", "SCHMIER_TEST_ONCE")
    assert_ok(result)
    said = " ".join(result.stderr.split())
    assert "no seat joined within its 10 s although 6 of the bots' processes were running" in said
    assert "not counted; playing it again with the same deals (attempt 2 of 3)" in said
    with sqlite3.connect(db) as conn:
        games = conn.execute("SELECT count(*) FROM games").fetchone()[0]
        faults = conn.execute("SELECT kind, reason FROM faults").fetchall()
    assert games == 6, show(result)  # the six seatings, each once: the failed attempt is not
    assert faults == [], faults


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_match_that_never_can_be_played_stops_the_run_with_the_reason(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    result = invoke("run", *bots(tmp_path / "bots", NEVER_JOINS), "--games", "1", "--db", str(db))
    assert_clean_failure(
        result, "no seat joined within its 10 s", "tried 3 times, so the run stops"
    )
    assert "attempt 3 of 3" in " ".join(result.stderr.split())
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM games").fetchone()[0] == 0


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_bot_that_crashes_at_start_is_named_with_its_status_log_and_path(
    tmp_path: Path,
) -> None:
    db = tmp_path / "r.db"
    result = invoke("run", CRASH_AT_START, GREEDY, "--games", "1", "--db", str(db))
    assert_ok(result)
    # As it happens, on stderr: the entrant, its exit status, its own last words, its log.
    said = " ".join(result.stderr.split())
    assert re.search(r"crash_at_start@\w+ never joined \(seat \d, match ", said), said
    assert "its process exited with status 3 before it joined" in said, said
    assert "its log ends: cannot start: missing model file" in said, said
    logged = re.search(r"log: (\S+seat\d\.log)", said)
    assert logged is not None, said
    log = Path(logged.group(1))
    assert log.is_file() and log.is_relative_to(tmp_path / "r-logs"), log
    # In the report: how many of its seats never joined, and why.
    report = " ".join(result.stdout.split())
    assert re.search(r"crash_at_start@\w+ never joined at \d+ seats \(auto-played\)", report)
    assert "exited with status 3" in report
    # And through arena logs: the run's seat logs listed, one printed.
    run_id = re.search(r"run ([0-9a-f]{12}):", result.stdout)
    assert run_id is not None, result.stdout
    listing = invoke("logs", run_id.group(1), "--db", str(db))
    assert_ok(listing)
    assert str(log) in " ".join(listing.stdout.split())
    with sqlite3.connect(db) as conn:  # a game of the match that log belongs to
        game = conn.execute(
            "SELECT min(g.id) FROM games g JOIN matches m ON m.id = g.match_id "
            "WHERE m.match_key = ?",
            (log.parent.name,),
        ).fetchone()[0]
    seat = int(re.search(r"seat(\d)\.log", log.name).group(1))  # type: ignore[union-attr]
    shown = invoke("logs", run_id.group(1), str(game), str(seat), "--db", str(db))
    assert_ok(shown)
    assert "missing model file" in shown.stdout
