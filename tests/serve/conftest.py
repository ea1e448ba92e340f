"""A real contest server for the tests: ``arena serve`` as a process of its own, uvicorn on
a free loopback port, a temporary results database.

``contest`` starts one without entrants (its ladder idles: nothing costs CPU); a test that
wants games starts its own with ``ContestServer(db, samples=(...)).start()``.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

ARENA = Path(sys.executable).with_name("arena")


class ContestServer:
    def __init__(self, db: Path, samples: tuple[str, ...] = (), *extra: str) -> None:
        self.db = db
        self.samples = samples
        self.extra = extra
        self.url = ""
        self.admin_token: str | None = None
        self.lines: list[str] = []
        self.errors: list[str] = []
        self.process: subprocess.Popen[str] | None = None

    def start(self, timeout: float = 60.0) -> ContestServer:
        args = [str(ARENA), "serve", "--db", str(self.db), "--port", "0", "--jobs", "2"]
        # A generous join: the machine running the tests may be busy with others' work.
        args += ["--validation-matches", "1", "--join-timeout", "30"]
        # Tests upload more often than a contestant may in a day (test_limits lowers it).
        args += ["--uploads-per-day", "1000", *self.extra]
        for name in self.samples:
            args += ["--sample", name]
        self.lines, self.errors, self.url, self.admin_token = [], [], "", None
        self.process = subprocess.Popen(
            args,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "COLUMNS": "200"},
        )
        process = self.process

        def read(stream: Any, into: list[str]) -> None:
            for line in stream:
                into.append(line.rstrip("\n"))

        threading.Thread(target=read, args=(process.stdout, self.lines), daemon=True).start()
        threading.Thread(target=read, args=(process.stderr, self.errors), daemon=True).start()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.lines:
                if line.startswith("admin token"):
                    self.admin_token = line.rsplit(" ", 1)[1]
                if line.startswith("serving the contest on "):
                    self.url = line.rsplit(" ", 1)[1]
            if self.url:
                try:
                    if httpx.get(self.url + "/api/leaderboard", timeout=5).status_code == 200:
                        return self
                except httpx.HTTPError:
                    pass
            if process.poll() is not None:
                break
            time.sleep(0.2)
        raise AssertionError(f"the server did not start: {self.lines} {self.errors}")

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return httpx.get(self.url + path, timeout=30, **kwargs)

    def post(self, path: str, **kwargs: Any) -> httpx.Response:
        return httpx.post(self.url + path, timeout=600, **kwargs)

    def admin(self, path: str, body: dict[str, Any]) -> httpx.Response:
        assert self.admin_token is not None
        headers = {"Authorization": f"Bearer {self.admin_token}"}
        return self.post(path, json=body, headers=headers)

    def add_contestant(self, name: str) -> str:
        done = subprocess.run(
            [str(ARENA), "contest", "add", name, "--db", str(self.db)],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip().rsplit(" ", 1)[1]

    def stop(self) -> int:
        """Ctrl-C, as an organiser would; the exit status."""
        process = self.process
        if process is None or process.poll() is not None:
            return -1 if process is None else process.returncode
        process.send_signal(signal.SIGINT)
        try:
            return process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
            return process.wait(10)

    def kill9(self) -> None:
        assert self.process is not None
        self.process.kill()  # SIGKILL: no clean-up of any kind
        self.process.wait(10)


def _stat(pid: int) -> tuple[int, int] | None:
    """(parent pid, start time) of a live process, from /proc; None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[1].split()
    if fields[0] == "Z":  # a zombie has ended; only its parent has yet to reap it
        return None
    return int(fields[1]), int(fields[19])


def descendants(pid: int) -> set[tuple[int, int]]:
    """(pid, start time) of every process below ``pid`` now: its children, theirs, ..."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (stat := _stat(int(entry.name))) is not None:
            parents.setdefault(stat[0], []).append(int(entry.name))
    found: set[tuple[int, int]] = set()
    todo = list(parents.get(pid, []))
    while todo:
        child = todo.pop()
        stat = _stat(child)
        if stat is not None:
            found.add((child, stat[1]))
            todo += parents.get(child, [])
    return found


def still_alive(processes: set[tuple[int, int]], within: float = 20.0) -> set[tuple[int, int]]:
    """Those of ``processes`` (pid, start time) still running after ``within`` seconds
    (the same pid with another start time is another process)."""
    deadline = time.monotonic() + within
    while True:
        alive = {(pid, start) for pid, start in processes if (s := _stat(pid)) and s[1] == start}
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.2)


def stored_games(db: Path) -> list[tuple[str, int]]:
    """(match key, game index) of every game stored, read from the file directly."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT m.match_key, g.game_index FROM games g JOIN matches m ON m.id = g.match_id"
        ).fetchall()
    return [(str(key), int(index)) for key, index in rows]


@pytest.fixture
def contest(tmp_path: Path) -> Iterator[ContestServer]:
    server = ContestServer(tmp_path / "contest.db").start()
    yield server
    server.stop()


def _browser_fixtures() -> Any:
    """The Chromium fixtures of tests/html (a directory that is no package), reused."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "html" / "conftest.py"
    spec = importlib.util.spec_from_file_location("arena_tests_html_browser", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


_browser = _browser_fixtures()
playwright_driver = _browser.playwright_driver
browser = _browser.browser
viewport = _browser.viewport
page_log = _browser.page_log
page = _browser.page
artefacts = _browser.artefacts
PageLog = _browser.PageLog
