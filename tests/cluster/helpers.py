"""Running ``arena run`` against a local cluster, and reading back what it stored."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from tournament.helpers import (
    arena_command,
    integrity_check,
    run_statuses,
    runs,
    sample_path,
    stored_game_count,
    stored_keys,
    stored_results,
)

from arena.tournament.schedule import choose_schedule, round_robin
from arena.tournament.store import ResultsStore

# Deterministic players: the same deals give the same games wherever they are played.
ENTRANTS = (str(sample_path("greedy")), str(sample_path("lowest")))


def expected_keys(games: int, sampled: tuple[int, int] | None = None) -> set[tuple[str, int]]:
    """Every (match, game) of a two-entrant run of ``games`` games per seating, or with
    ``sampled`` (entrants, matches), of such a sampled run."""
    if sampled is None:
        schedule = round_robin(2, games)
    else:
        schedule = choose_schedule(sampled[0], "sampled", sampled[1]).build(sampled[0], games)
    return {(m.key, i) for m in schedule for i in range(games)}


def run_command(
    db: Path, games: int, *extra: str, entrants: tuple[str, ...] = ENTRANTS
) -> list[str]:
    return [*arena_command(), "run", *entrants, "--games", str(games), "--db", str(db), *extra]


def env() -> dict[str, str]:
    return {**os.environ, "COLUMNS": "200"}


def arena_run(
    cwd: Path, command: list[str], timeout: float = 180.0
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, env=env(), timeout=timeout
    )


def shown(done: subprocess.CompletedProcess[str]) -> str:
    return f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"


class Coordinator:
    """``arena run`` in a child process, its output in files, watched through its database."""

    def __init__(self, root: Path, command: list[str], name: str) -> None:
        self.out = root / f"{name}.out"
        self.err = root / f"{name}.err"
        with self.out.open("wb") as out, self.err.open("wb") as err:
            self.proc = subprocess.Popen(command, cwd=root, stdout=out, stderr=err, env=env())

    def output(self) -> str:
        return f"stdout:\n{self.out.read_text()}\nstderr:\n{self.err.read_text()}"

    def wait_until(self, done: Any, what: str, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while not done():
            if self.proc.poll() is not None:
                pytest.fail(f"arena exited ({self.proc.returncode}) before {what}\n{self.output()}")
            if time.monotonic() > deadline:
                pytest.fail(f"no {what} after {timeout} s\n{self.output()}")
            time.sleep(0.02)

    def finish(self, timeout: float = 180.0) -> int:
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            pytest.fail(f"arena still running after {timeout} s\n{self.output()}")

    def ensure_dead(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def assert_complete(db: Path, games: int, sampled: tuple[int, int] | None = None) -> None:
    """Every scheduled game stored exactly once, the run finished, the file sound."""
    keys = stored_keys(db)
    assert set(keys) == expected_keys(games, sampled)
    assert all(n == 1 for n in keys.values()), {k: n for k, n in keys.items() if n != 1}
    assert stored_game_count(db) == len(expected_keys(games, sampled))
    assert run_statuses(db)[-1] == "finished"
    assert integrity_check(db) == ["ok"]


def stored_games(db: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """Each stored game's result and record (less timings), by (match key, game index)."""
    found = {}
    with ResultsStore.open(db) as store:
        for run in runs(store):
            found |= stored_results(
                store,
                run.id,
                lambda game: {
                    "points_won": game.points_won,
                    "faults": [(f.seat, f.kind) for f in game.faults],
                },
            )
    return found
