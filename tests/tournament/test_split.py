"""The default split of a run's tables over referee processes: measured on the machine
(a file ``arena bench tournament`` writes), else a conservative rule; said once how to
measure it. Every measurement here is a file the test writes: nothing is timed."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from arena.tournament.split import (
    SPREAD_MARGIN,
    MeasuredSplit,
    best_processes,
    default_referee_processes,
    read_split,
    record_split,
    referee_processes,
    split_path,
    spread_candidate,
)

from .helpers import arena_command, sample_path


def _measured(cores: int, tables: int, processes: int, ratio: float = 1.3) -> MeasuredSplit:
    return MeasuredSplit(
        cores=cores,
        tables=tables,
        processes=processes,
        spread_processes=spread_candidate(tables, cores),
        spread_ratio=ratio,
        measured_at="2026-01-01T00:00:00+00:00",
    )


@pytest.mark.parametrize(
    ("jobs", "cores", "referees"),
    [
        (1, 16, 1),  # one table: nothing to spread
        (2, 16, 1),  # two tables: one referee carries them
        (3, 16, 2),
        (8, 4, 4),
        (16, 16, 8),
        (2, 2, 1),  # two cores: two tables' bots fill them, every table here
        (8, 2, 1),
        (5, 1, 1),
    ],
)
def test_unmeasured_two_tables_per_referee_process_on_three_or_more_cores(
    jobs: int, cores: int, referees: int
) -> None:
    assert referee_processes(jobs, cores) == referees


@pytest.mark.parametrize(
    ("measured", "jobs", "referees"),
    [
        # Spreading won on 2 cores: one table per referee process, where the rule says none.
        (_measured(cores=2, tables=2, processes=2), 2, 2),
        (_measured(cores=2, tables=2, processes=2), 5, 5),
        # One referee won for 4 tables on 8 cores: 4 tables per process from then on.
        (_measured(cores=8, tables=4, processes=1, ratio=0.9), 4, 1),
        (_measured(cores=8, tables=4, processes=1, ratio=0.9), 8, 2),
        (_measured(cores=8, tables=4, processes=1, ratio=0.9), 9, 3),
        (_measured(cores=8, tables=8, processes=8), 1, 1),  # one table still plays here
    ],
)
def test_a_measured_split_scales_by_the_tables_one_referee_carried_best(
    measured: MeasuredSplit, jobs: int, referees: int
) -> None:
    assert referee_processes(jobs, measured.cores, measured) == referees


def test_a_measurement_of_another_core_count_is_not_this_machines() -> None:
    other = _measured(cores=16, tables=16, processes=16)
    assert referee_processes(8, 4, other) == referee_processes(8, 4) == 4


@pytest.mark.parametrize(
    ("tables", "spread", "ratio", "best"),
    [
        (4, 4, 1.40, 4),
        (4, 4, SPREAD_MARGIN, 4),
        (4, 4, 1.02, 1),  # within the margin: no processes for nothing
        (2, 2, 0.80, 1),
        (1, 1, 2.00, 1),  # one table has nothing to split
    ],
)
def test_the_spread_is_chosen_only_where_it_beat_one_referee_by_the_margin(
    tables: int, spread: int, ratio: float, best: int
) -> None:
    assert best_processes(tables, spread, ratio) == best


def test_a_recorded_split_is_read_back_for_its_core_count_only(tmp_path: Path) -> None:
    path = tmp_path / "cache" / "referee-split.json"
    two, eight = _measured(2, 2, 2), _measured(8, 8, 1, ratio=1.01)
    record_split(path, two)
    record_split(path, eight)
    assert read_split(path, 2) == two
    assert read_split(path, 8) == eight
    assert read_split(path, 4) is None
    stored = json.loads(path.read_text())
    assert sorted(stored["by_cores"]) == ["2", "8"]
    assert stored["by_cores"]["2"]["processes"] == 2
    record_split(path, _measured(2, 2, 1, ratio=0.95))  # measured again: replaced
    replaced = read_split(path, 2)
    assert replaced is not None and replaced.processes == 1
    assert read_split(path, 8) == eight


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        "[1, 2]",
        '{"format": 99, "by_cores": {"2": {}}}',
        '{"format": 1, "by_cores": {"2": {"cores": 2, "tables": "many"}}}',
        '{"format": 1, "by_cores": {"2": {"cores": 3, "tables": 2, "processes": 2, '
        '"spread_processes": 2, "spread_ratio": 1.5, "measured_at": ""}}}',
    ],
)
def test_a_file_that_is_not_a_measurement_is_no_measurement(tmp_path: Path, content: str) -> None:
    path = tmp_path / "referee-split.json"
    path.write_text(content)
    assert read_split(path, 2) is None
    assert default_referee_processes(2, 2, path)[0] == 1
    record_split(path, _measured(2, 2, 2))  # and measuring replaces it
    assert default_referee_processes(2, 2, path) == (2, None)


def test_the_default_follows_the_file_and_says_how_to_measure_once(tmp_path: Path) -> None:
    path = tmp_path / "referee-split.json"
    assert default_referee_processes(1, 4, path) == (1, None)  # one table: nothing to say
    assert not path.exists()
    processes, hint = default_referee_processes(8, 4, path)
    assert processes == 4
    assert hint is not None and "arena bench tournament" in hint
    assert "\n" not in hint
    assert default_referee_processes(8, 4, path) == (4, None)  # said once
    record_split(path, _measured(cores=4, tables=4, processes=4))
    assert default_referee_processes(8, 4, path) == (8, None)
    assert default_referee_processes(8, 2, path) == (1, None)  # other cores: the rule, quietly


def test_the_file_is_where_the_environment_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_REFEREE_SPLIT", str(tmp_path / "mine.json"))
    assert split_path() == tmp_path / "mine.json"
    monkeypatch.delenv("ARENA_REFEREE_SPLIT")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert split_path() == tmp_path / "xdg" / "schmier-arena" / "referee-split.json"


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_arena_run_says_once_how_to_measure_the_split(tmp_path: Path) -> None:
    """The real command, twice: the hint is one line on stderr the first time only; an
    explicit --referees says nothing."""
    split = tmp_path / "referee-split.json"
    env = {**os.environ, "ARENA_REFEREE_SPLIT": str(split), "COLUMNS": "200"}

    def arena_run(*extra: str) -> subprocess.CompletedProcess[str]:
        command = [
            *arena_command(),
            "run",
            str(sample_path("random")),
            str(sample_path("greedy")),
            *("--games", "2", "--jobs", "2", "--db", str(tmp_path / "arena.db"), *extra),
        ]
        done = subprocess.run(
            command, cwd=tmp_path, capture_output=True, text=True, env=env, timeout=200
        )
        assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
        return done

    explicit = arena_run("--referees", "1")
    assert "arena bench tournament" not in explicit.stderr and not split.exists()
    first = arena_run()
    hints = [line for line in first.stderr.splitlines() if "arena bench tournament" in line]
    assert len(hints) == 1, first.stderr
    assert "arena bench tournament" not in first.stdout
    again = arena_run()
    assert "arena bench tournament" not in again.stderr + again.stdout
