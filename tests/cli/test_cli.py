"""The ``arena`` command line through typer's CliRunner, with real bots and real result files."""

from __future__ import annotations

import gzip
import json
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from arena.cli import app

REPO_ROOT = Path(__file__).resolve().parents[2]
RANDOM = str(REPO_ROOT / "sample_bots" / "random")
GREEDY = str(REPO_ROOT / "sample_bots" / "greedy")
LOWEST = str(REPO_ROOT / "sample_bots" / "lowest")

pytestmark = pytest.mark.timeout(120)

# Wide enough that rich never truncates an entrant's name@version in a table cell.
ENV = {"COLUMNS": "200"}


def invoke(*args: str, columns: int = 200) -> Result:
    return CliRunner().invoke(app, list(args), env={**ENV, "COLUMNS": str(columns)})


def show(result: Result) -> str:
    return (
        f"exit code {result.exit_code}, exception {result.exception!r}\n"
        f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    )


def assert_ok(result: Result) -> None:
    assert result.exit_code == 0, show(result)
    assert result.exception is None, show(result)


def assert_clean_failure(result: Result, *phrases: str) -> None:
    """A non-zero exit with a one-line ``error:`` message naming the problem; no traceback."""
    assert result.exit_code != 0, show(result)
    assert isinstance(result.exception, SystemExit), show(result)
    assert "Traceback" not in result.output, show(result)
    assert "error:" in result.stderr, show(result)
    message = " ".join(result.stderr.split())  # rich may wrap a long message
    for phrase in phrases:
        assert phrase in message, show(result)


@dataclass
class StoredRun:
    db: Path
    run_id: str
    result: Result
    versions: dict[str, str]


def _labels_in(db: Path) -> dict[str, str]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return {
            name: version for name, version in conn.execute("SELECT name, version FROM entrants")
        }
    finally:
        conn.close()


def _run_id(db: Path) -> str:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        (row,) = conn.execute("SELECT id FROM runs").fetchall()
        return str(row[0])
    finally:
        conn.close()


@pytest.fixture(scope="module")
def stored_run(tmp_path_factory: pytest.TempPathFactory) -> StoredRun:
    """``arena run random greedy --games 1``: six games, stored in a fresh file."""
    db = tmp_path_factory.mktemp("cli-run") / "tmp" / "arena.db"
    result = invoke("run", RANDOM, GREEDY, "--games", "1", "--jobs", "2", "--db", str(db))
    assert_ok(result)
    return StoredRun(db, _run_id(db), result, _labels_in(db))


def _assert_standings_table(text: str, run: StoredRun, wide: bool = False) -> None:
    title = re.search(rf"Run {run.run_id} \(finished\): 6 games, (\d+) draws, 1 game seed;", text)
    assert title, text
    draws = int(title.group(1))
    columns = ["entrant", "games", "seeds", "win %", "95% CI", "vs par", "pts/deal"]
    if wide:
        columns += ["wins", "draws", "losses", "bids won", "faults", "ms/dec"]
    for column in columns:
        assert column in text
    rows = {}
    for name in ("random", "greedy"):
        label = f"{name}@{run.versions[name]}"
        cells = [
            [cell.strip() for cell in line.strip().strip("│").split("│")]
            for line in text.splitlines()
            if label in line
        ]
        # the standings row starts with the rank (the head-to-head rows name two entrants)
        (row,) = [c for c in cells if c[0].isdigit() and c[1] == label]
        rows[name] = row
    # each entrant holds 9 of the 18 team places of the six games, all dealt from game seed 0
    assert [int(rows[name][2]) for name in ("random", "greedy")] == [9, 9]
    assert [int(rows[name][3]) for name in ("random", "greedy")] == [1, 1]
    if wide:  # the wins and draws columns follow the seeds
        assert sum(int(row[4]) for row in rows.values()) == 6 - draws  # wins
        assert sum(int(row[5]) for row in rows.values()) == 3 * draws
    assert "Head to head" in text
    # two entrants: no ratings table (one pair, which the head-to-head already gives)
    assert "Ranking by rating" not in text


@pytest.mark.slow
def test_run_prints_a_standings_table(stored_run: StoredRun) -> None:
    text = stored_run.result.stdout
    assert f"run {stored_run.run_id}: 6 games played, 0 already stored" in text
    _assert_standings_table(text, stored_run)


def _check_report_json(data: dict[str, Any], run_id: str, games: int) -> None:
    assert data["run"]["id"] == run_id
    assert data["run"]["status"] == "finished"
    assert data["games"] == games
    standings = data["standings"]
    assert {s["entrant"].split("@")[0] for s in standings} == {"random", "greedy"}
    for s in standings:
        assert s["games"] == s["wins"] + s["draws"] + s["losses"]
    assert sum(s["games"] for s in standings) == 3 * games
    assert sum(s["wins"] for s in standings) == games - data["draws"]
    # every game of a run with --games 1 is dealt from game seed 0 (R3.1a)
    assert data["seeds"] == 1
    assert all(s["seeds"] == 1 for s in standings)
    assert all(h["seeds"] == 1 for h in data["head_to_head"])
    assert data["head_to_head"]
    assert "over game seeds" in data["intervals"]["method"]
    # one seed is too few for any interval: none is given, and each figure says so
    assert all(s["ci_low"] is None and s["too_few_seeds"] for s in standings)
    assert data["ratings"] == []  # two entrants


@pytest.mark.slow
def test_run_json_prints_only_valid_json_with_standings(tmp_path: Path) -> None:
    db = tmp_path / "json.db"
    result = invoke("run", RANDOM, GREEDY, "--games", "1", "--jobs", "2", "--db", str(db), "--json")
    assert_ok(result)
    data = json.loads(result.stdout)  # nothing but the JSON document on stdout
    _check_report_json(data, _run_id(db), 6)


@pytest.mark.slow
def test_the_same_run_again_plays_nothing_and_reports_the_same(stored_run: StoredRun) -> None:
    db = str(stored_run.db)
    result = invoke("run", RANDOM, GREEDY, "--games", "1", "--jobs", "2", "--db", db)
    assert_ok(result)
    assert f"run {stored_run.run_id}: 0 games played, 6 already stored" in result.stdout
    _assert_standings_table(result.stdout, stored_run)
    again = invoke("run", RANDOM, GREEDY, "--games", "1", "--jobs", "2", "--db", db, "--json")
    assert_ok(again)
    _check_report_json(json.loads(again.stdout), stored_run.run_id, 6)


@pytest.mark.slow
def test_report_prints_the_standings_of_the_stored_run(stored_run: StoredRun) -> None:
    result = invoke("report", "--db", str(stored_run.db))
    assert_ok(result)
    _assert_standings_table(result.stdout, stored_run)
    by_id = invoke("report", stored_run.run_id, "--db", str(stored_run.db))
    assert_ok(by_id)
    _assert_standings_table(by_id.stdout, stored_run)
    wide = invoke("report", "--db", str(stored_run.db), "--wide")
    assert_ok(wide)
    _assert_standings_table(wide.stdout, stored_run, wide=True)


@dataclass
class ThreeEntrantRun:
    db: Path
    result: Result  # of ``arena run`` at 80 columns


@pytest.fixture(scope="module")
def three_entrant_run(tmp_path_factory: pytest.TempPathFactory) -> ThreeEntrantRun:
    """``arena run random greedy lowest --games 2`` at 80 columns: twelve games on two seeds."""
    db = tmp_path_factory.mktemp("cli-three") / "arena.db"
    args = ("run", RANDOM, GREEDY, LOWEST, "--games", "2", "--jobs", "2", "--db", str(db))
    result = invoke(*args, columns=80)
    assert_ok(result)
    return ThreeEntrantRun(db, result)


NARROW_HEADERS = ("#", "entrant", "rating", "95% CI", "games", "seeds", "win %", "vs par")
WIDE_HEADERS = ("wins", "draws", "losses", "bids won", "faults", "ms/dec", "A ahead", "B ahead")


def _header_cells(text: str) -> set[str]:
    return {cell.strip() for line in text.splitlines() if "┃" in line for cell in line.split("┃")}


def _assert_whole_at_80_columns(text: str) -> None:
    assert "…" not in text, text
    tables = [line for line in text.splitlines() if "│" in line or "┃" in line or "━" in line]
    assert tables and max(len(line) for line in tables) <= 80, text
    headers = _header_cells(text)
    assert set(NARROW_HEADERS) | {"pts/deal", "B", "A %"} <= headers, text
    assert not set(WIDE_HEADERS) & headers, text
    assert text.index("Ranking by rating") < text.index("Standings by win rate"), text


@pytest.mark.slow
def test_run_and_report_fit_80_columns(three_entrant_run: ThreeEntrantRun) -> None:
    run_output = three_entrant_run.result.stdout
    # the report that ``arena run`` prints once its games are played (not its progress line)
    _assert_whole_at_80_columns(run_output[run_output.index("\nRun ") :])
    report = invoke("report", "--db", str(three_entrant_run.db), columns=80)
    assert_ok(report)
    _assert_whole_at_80_columns(report.stdout)
    rating_lines = [
        line
        for line in report.stdout.splitlines()
        # a rating, or (beyond the rated field) the place that stands for it
        if re.match(r"^\d │ \w+@[0-9a-f]{12} │ +([+-]\d+|above|below|apart) │", line)
    ]
    assert len(rating_lines) == 3, report.stdout
    for line in rating_lines:  # the figures of a rating line are whole
        # two seeds are too few for an interval (stats.MIN_SEEDS_FOR_INTERVAL): said so
        assert re.search(r"│ +too few seeds │ +12 │ +2$", line), line


@pytest.mark.slow
def test_report_wide_adds_the_secondary_columns(three_entrant_run: ThreeEntrantRun) -> None:
    result = invoke("report", "--db", str(three_entrant_run.db), "--wide", columns=80)
    assert_ok(result)
    assert "…" not in result.stdout, result.stdout
    assert set(NARROW_HEADERS) | set(WIDE_HEADERS) <= _header_cells(result.stdout)


@pytest.mark.slow
def test_report_json_of_three_entrants_has_ratings(three_entrant_run: ThreeEntrantRun) -> None:
    result = invoke("report", "--db", str(three_entrant_run.db), "--json", columns=80)
    assert_ok(result)
    data = json.loads(result.stdout)
    assert data["seeds"] == 2
    ratings = data["ratings"]
    assert {r["entrant"].split("@")[0] for r in ratings} == {"random", "greedy", "lowest"}
    # best first; an entrant beyond the rated field (never behind, or never ahead of, the
    # others) has no rating, and comes first (last)
    rated = [r["rating"] for r in ratings if r["place"] == "rated"]
    assert rated == sorted(rated, reverse=True)
    for r in ratings:
        assert (r["games"], r["seeds"]) == (12, 2)
        # two seeds are too few for an interval: none, and said so
        assert r["low"] is None and r["high"] is None and r["too_few_seeds"], r


@pytest.mark.slow
def test_report_json(stored_run: StoredRun) -> None:
    result = invoke("report", "--db", str(stored_run.db), "--json")
    assert_ok(result)
    data = json.loads(result.stdout)
    _check_report_json(data, stored_run.run_id, 6)
    assert data["par"] == pytest.approx(1 / 3)


def _deal_count(db: Path, game_id: int) -> int:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return int(conn.execute("SELECT deals FROM games WHERE id = ?", (game_id,)).fetchone()[0])
    finally:
        conn.close()


def _assert_replay_text(text: str, deals: int) -> None:
    assert "Deal 1" in text
    assert len(re.findall(r"^Deal \d+ — dealer seat \d", text, re.MULTILINE)) == deals
    assert "trick 1:" in text
    assert "scores:" in text
    last = text.strip().splitlines()[-1]
    assert " wins after " in last or last.startswith("Draw after"), last


@pytest.mark.slow
def test_replay_of_a_stored_game(stored_run: StoredRun) -> None:
    for game_id in (1, 6):
        result = invoke("replay", str(game_id), "--db", str(stored_run.db))
        assert_ok(result)
        _assert_replay_text(result.stdout, _deal_count(stored_run.db, game_id))


@pytest.mark.slow
def test_replay_of_the_record_file_of_arena_play(tmp_path: Path) -> None:
    out = tmp_path / "play"
    played = invoke("play", RANDOM, GREEDY, RANDOM, "--seed", "3", "--out", str(out))
    assert_ok(played)
    assert "record: " in played.stdout
    record_path = out / "games" / "play-3.json.gz"
    assert str(record_path) in " ".join(played.stdout.split())
    with gzip.open(record_path, "rt") as f:
        record = json.load(f)
    result = invoke("replay", str(record_path))
    assert_ok(result)
    _assert_replay_text(result.stdout, len(record["deals"]))


@pytest.mark.slow
def test_bench_engine_prints_decisions_per_second() -> None:
    result = invoke("bench", "engine", "--games", "20", "--rounds", "1")
    assert_ok(result)
    lines = [line.strip() for line in result.stdout.splitlines()]
    assert any(re.fullmatch(r"[\d,.]+ decisions/s", line) for line in lines), result.stdout


def _figure(pattern: str, text: str) -> float:
    match = re.search(pattern, text, re.MULTILINE)
    assert match is not None, f"no line matching {pattern!r} in:\n{text}"
    return float(match.group(1))


@pytest.mark.slow
def test_bench_referee_prints_each_round_and_the_median_ratio() -> None:
    """Six real bot processes and both ping-pongs, twice; the ratio is a median of rounds."""
    result = invoke("bench", "referee", "--games", "1", "--pingpong", "300", "--rounds", "2")
    assert_ok(result)
    out = result.stdout
    rounds = re.findall(
        r"^round \d+: \d+ decisions/s over gRPC.* ratio ([\d.]+) over gRPC, [\d.]+ over stdio$",
        out,
        re.M,
    )
    assert len(rounds) == 2, out
    per_second = _figure(r"^(\d+) decisions/s over gRPC \(median round\)$", out)
    six = _figure(r"^(\d+) round trips/s bare gRPC ping-pong, six client processes", out)
    one = _figure(r"^(\d+) round trips/s bare gRPC ping-pong, one client process", out)
    ratio = _figure(r"^ratio: ([\d.]+)$", out)
    assert per_second > 0 and six > 0 and one > 0
    assert min(map(float, rounds)) - 0.01 <= ratio <= max(map(float, rounds)) + 0.01
    assert _figure(r"^ratio to the one-process ping-pong: ([\d.]+) over gRPC", out) > 0
    assert _figure(r"^(\d+) decisions/s over stdio \(median round", out) > 0
    assert re.search(
        r"^round trip per decision over gRPC: median [\d.]+ ms, p99 [\d.]+ ms; "
        r"over stdio: median [\d.]+ ms, p99 [\d.]+ ms$",
        out,
        re.M,
    )


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_bench_tournament_prints_scaling_and_start_up_share(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    split = tmp_path / "referee-split.json"
    monkeypatch.setenv("ARENA_REFEREE_SPLIT", str(split))  # not the session's: it is read
    result = invoke("bench", "tournament", "--games", "1", "--jobs", "2", "--rounds", "1")
    assert_ok(result)
    out = result.stdout
    assert re.search(r"^round 1: 6 games, \d+ decisions in ", out, re.M), out
    assert _figure(r"^([\d.]+) games/s with 2 tables \(median round\)$", out) > 0
    assert _figure(r"^one table alone: ([\d.]+) games/s$", out) > 0
    assert _figure(r"^scaling: ([\d.]+) of one table × 2$", out) > 0
    assert 0 <= _figure(r"^start-up share of wall time: ([\d.]+)%", out) < 100
    busy = re.search(
        r"^CPU kept busy: ([\d.]+) cores with 2 tables, ([\d.]+) with one table, of \d+; "
        r"so 2 tables can reach at most ([\d.]+) of one table × 2$",
        out,
        re.M,
    )
    assert busy is not None, out
    cores, single_cores, ceiling = map(float, busy.groups())
    assert cores > 0 and single_cores > 0  # the bots' CPU is counted: they were waited for
    assert 0 < ceiling <= 1
    referees = re.search(
        r"^referee CPU: one referee for 2 tables kept ([\d.]+) of a core busy; spread over "
        r"2 referee processes, the busiest kept ([\d.]+) \(1.00: the referee is the ceiling\)$",
        out,
        re.M,
    )
    assert referees is not None, out
    assert all(float(share) > 0 for share in referees.groups())
    spread = _figure(r"^([\d.]+) games/s with 2 tables spread over 2 referee processes", out)
    ratio = _figure(r"^referee processes to one referee: ([\d.]+) \(games/s ratio\)$", out)
    assert spread > 0 and ratio > 0
    # The faster split is recorded for arena run, whichever it was on this machine.
    recorded = json.loads(split.read_text())["by_cores"]
    (entry,) = recorded.values()
    assert (entry["tables"], entry["spread_processes"]) == (2, 2)
    assert entry["processes"] == (2 if entry["spread_ratio"] >= 1.05 else 1)
    assert f"recorded as arena run's default: 2 tables on {entry['cores']} CPUs" in out


# --- bad input: a clear message and a non-zero exit, never a traceback ----------------------


def test_run_with_an_entrant_that_does_not_exist(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    missing = tmp_path / "no-such-bot"
    result = invoke("run", RANDOM, str(missing), "--games", "1", "--db", str(db))
    assert_clean_failure(result, str(missing), "does not exist")
    assert not db.exists()


def test_run_with_a_bot_directory_without_a_manifest(tmp_path: Path) -> None:
    bot = tmp_path / "not-a-bot"
    bot.mkdir()
    (bot / "bot.py").write_text("print('hello')\n")
    result = invoke("run", RANDOM, str(bot), "--games", "1", "--db", str(tmp_path / "a.db"))
    assert_clean_failure(result, "bot.toml", "manifest")


NOT_A_DATABASE = "these are my notes, not a database\n" * 10


def test_run_into_a_results_file_that_is_not_a_database(tmp_path: Path) -> None:
    db = tmp_path / "tmp" / "arena.db"
    db.parent.mkdir()
    db.write_text(NOT_A_DATABASE)
    result = invoke("run", RANDOM, GREEDY, "--games", "1", "--db", str(db))
    assert_clean_failure(result, "not a results store")
    assert db.read_text() == NOT_A_DATABASE  # left untouched


def test_report_of_a_results_file_that_is_not_a_database(tmp_path: Path) -> None:
    db = tmp_path / "tmp" / "arena.db"
    db.parent.mkdir()
    db.write_text(NOT_A_DATABASE)
    result = invoke("report", "--db", str(db))
    assert_clean_failure(result, "not a results store")
    assert db.read_text() == NOT_A_DATABASE


def test_report_of_a_database_that_does_not_exist(tmp_path: Path) -> None:
    db = tmp_path / "missing.db"
    result = invoke("report", "--db", str(db))
    assert_clean_failure(result, "no results database")
    assert not db.exists()


@pytest.mark.slow
def test_logs_takes_latest_and_a_game_id(stored_run: StoredRun) -> None:
    """Issue 35: ``arena logs latest`` is the newest run's; a game id alone is that game's
    seating (its run found from it), and a seat after it prints that seat's log."""
    db = str(stored_run.db)
    by_run = invoke("logs", stored_run.run_id, "--db", db)
    assert_ok(by_run)
    assert invoke("logs", "latest", "--db", db).stdout == by_run.stdout
    seating = invoke("logs", "2", "--db", db)
    assert_ok(seating)
    assert seating.stdout == invoke("logs", stored_run.run_id, "2", "--db", db).stdout
    lines = seating.stdout.splitlines()
    assert [re.search(r"  seat (\d)  ", line).group(1) for line in lines] == list("012345")  # type: ignore[union-attr]
    assert all(line in by_run.stdout for line in lines)
    one = invoke("logs", "2", "3", "--db", db)
    assert_ok(one)
    assert one.stdout == invoke("logs", stored_run.run_id, "2", "3", "--db", db).stdout
    assert_clean_failure(invoke("logs", "999999", "--db", db), "no run and no game 999999")
    assert_clean_failure(invoke("logs", "nonsense", "--db", db), "no run 'nonsense'")
    assert_clean_failure(invoke("logs", "2", "6", "--db", db), "R1.1: seats are 0..5")


def test_logs_help_promises_only_what_a_log_holds() -> None:
    """The help says what a seat's log is: the bot's own output, and an arena line only
    where the arena cut the log or could not start the bot (issue 35: it promised an
    arena line that no log has)."""
    result = invoke("logs", "--help")
    assert_ok(result)
    said = " ".join(result.stdout.replace("│", " ").split())
    assert "only where it cut the log at the cap or could not start the bot" in said, said
    assert "'latest'" in said and "game id" in said


@pytest.mark.slow
def test_report_of_a_run_that_does_not_exist(stored_run: StoredRun) -> None:
    result = invoke("report", "feedfacecafe", "--db", str(stored_run.db))
    assert_clean_failure(result, "feedfacecafe")


@pytest.mark.slow
def test_replay_of_a_game_id_that_does_not_exist(stored_run: StoredRun) -> None:
    result = invoke("replay", "9999", "--db", str(stored_run.db))
    assert_clean_failure(result, "no game 9999")


def test_replay_with_a_database_that_does_not_exist(tmp_path: Path) -> None:
    result = invoke("replay", "1", "--db", str(tmp_path / "missing.db"))
    assert_clean_failure(result, "no results database")


@pytest.mark.slow
@pytest.mark.parametrize(
    "game",
    [
        # Beyond SQLite's 64-bit integers: OverflowError escapes game_record.
        "99999999999999999999999",
        # str.isdigit() accepts superscript digits, which int() refuses: ValueError.
        "²",
    ],
    ids=["huge-id", "superscript-digit"],
)
def test_replay_of_a_game_id_that_cannot_exist(stored_run: StoredRun, game: str) -> None:
    result = invoke("replay", game, "--db", str(stored_run.db))
    assert_clean_failure(result)


def test_run_with_one_entrant(tmp_path: Path) -> None:
    result = invoke("run", RANDOM, "--games", "1", "--db", str(tmp_path / "a.db"))
    assert_clean_failure(result, "at least two entrants")


def test_run_with_the_same_entrant_twice(tmp_path: Path) -> None:
    # Entrants are told apart by name@version, so this is a one-entrant "tournament":
    # both directories become a single entrant row and a single line of standings.
    db = tmp_path / "a.db"
    result = invoke("run", GREEDY, GREEDY, "--games", "1", "--jobs", "2", "--db", str(db))
    assert_clean_failure(result)


def test_run_with_no_games(tmp_path: Path) -> None:
    result = invoke("run", RANDOM, GREEDY, "--games", "0", "--db", str(tmp_path / "a.db"))
    assert_clean_failure(result, "--games must be at least 1")


def test_play_with_two_entrants(tmp_path: Path) -> None:
    result = invoke("play", RANDOM, GREEDY, "--out", str(tmp_path))
    assert_clean_failure(result, "three entrants")


def _record_file(stored_run: StoredRun) -> tuple[dict[str, Any], bytes]:
    from arena.tournament.store import ResultsStore

    with ResultsStore.open(stored_run.db) as store:
        record = store.game_record(1)
    return record, gzip.compress(json.dumps(record).encode())


def _replay(path: Path, content: bytes) -> Result:
    """``arena replay`` of a file of ``content`` written at ``path``."""
    path.write_bytes(content)
    return invoke("replay", str(path))


@pytest.mark.slow
def test_replay_of_files_that_are_not_records(stored_run: StoredRun, tmp_path: Path) -> None:
    record, _ = _record_file(stored_run)
    cases: dict[str, bytes] = {
        "notes.json": b"not json at all",
        "empty.json": b"",
        "list.json": b"[1, 2, 3]",
        "other.json": b'{"format": "something else"}',
        "notgz.json.gz": b"plain text, not gzip",
    }
    edited = dict(record, result=None)
    cases["edited.json"] = json.dumps(edited).encode()
    for name, content in cases.items():
        assert_clean_failure(_replay(tmp_path / name, content))


@pytest.mark.slow
@pytest.mark.parametrize(
    "damage",
    ["truncated", "corrupted"],
)
def test_replay_of_a_damaged_record_file(
    stored_run: StoredRun, tmp_path: Path, damage: str
) -> None:
    # A record file cut short (an interrupted copy, a full disk) or with flipped bytes.
    _, packed = _record_file(stored_run)
    if damage == "truncated":
        damaged = packed[: len(packed) // 2]  # EOFError inside gzip
    else:
        flipped = bytearray(packed)
        for i in range(20, 60):
            flipped[i] ^= 0xFF
        damaged = bytes(flipped)  # zlib.error inside gzip
    result = _replay(tmp_path / f"{damage}.json.gz", damaged)
    assert_clean_failure(result, "cannot read a game record")


@pytest.mark.slow
@pytest.mark.parametrize(
    "edit",
    ["infinite-draw-limit", "entrants-not-objects"],
)
def test_replay_of_a_record_with_malformed_fields(
    stored_run: StoredRun, tmp_path: Path, edit: str
) -> None:
    record, _ = _record_file(stored_run)
    if edit == "infinite-draw-limit":
        # json writes float('inf') as Infinity and reads it back: int() raises OverflowError.
        record["draw_limit"] = float("inf")
    else:
        # meta is free-form (docs/GAME_RECORD.md): odd entrants must not break rendering.
        record["meta"]["entrants"] = [1, 2, 3]
    result = _replay(tmp_path / f"{edit}.json", json.dumps(record).encode())
    if edit == "infinite-draw-limit":
        assert_clean_failure(result)
    else:
        assert result.exit_code == 0, show(result)
        assert "Deal 1" in result.output and "team 0 = seats 0 and 3" in result.output
