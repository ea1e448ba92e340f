"""A real contest server with sore losers plays on: bots that crash at start, never answer
or exit before joining, a contestant's bot that passes its validation and turns sore
later, an upload whose build takes minutes, and a visitor refreshing the reports. Games
keep arriving, each sore loser is suspended with the status its owner and everyone see
(crash, time, no join), its owner reads why and its logs with their token, its
validation looked like a ladder match, and SIGTERM stops it all within seconds: the
waiting upload answered 503, no process left behind."""

from __future__ import annotations

import json
import re
import shutil
import signal
import sqlite3
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.serve.client import pack_for_upload

from .conftest import ARENA, ContestServer, descendants, still_alive, stored_games

BOTS = Path(__file__).with_name("sore_losers")
HOUSE = {"crasher": "crash", "silent": "time", "nojoin": "no join"}


def next_seed(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT COALESCE(MAX(first_game + games), 0) FROM contest_rounds")
        return int(row.fetchone()[0])


def spied(log: str) -> list[dict[str, Any]]:
    """What the sly bot wrote of its matches (spy.py's lines) in a log."""
    return [json.loads(line) for line in log.splitlines() if line.startswith('{"spy"')]


class Visitor(threading.Thread):
    """Someone refreshing every report page, a few times a second, until told to stop."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.stopping = threading.Event()
        self.answers: list[int] = []

    def run(self) -> None:
        pages = ["/", "/api/leaderboard", "/live", "/api/live", "/contestants/sly"]
        with httpx.Client(base_url=self.url, timeout=30) as client:
            while not self.stopping.is_set():
                for page in pages:
                    self.answers.append(client.get(page).status_code)
                self.stopping.wait(1.0)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_sore_losers_are_suspended_and_the_ladder_plays_on(tmp_path: Path) -> None:
    db = tmp_path / "contest.db"
    for name in HOUSE:  # the organiser's own, entered without validation
        subprocess.run(
            [str(ARENA), "contest", "enter", name, str(BOTS / name), "--db", str(db)], check=True
        )
    # Short decisions, so that a bot that never answers costs seconds a game, not minutes.
    timing = ("--decision-ms", "100", "--overage-ms", "200", "--watchdog", "120")
    server = ContestServer(db, ("random", "greedy", "lowest"), *timing).start()
    visitor = Visitor(server.url)
    waiting: list[httpx.Response | BaseException] = []
    try:
        assert server.admin("/api/admin/pause", {"paused": True}).status_code == 200
        # Who the ladder's entrants are: a validation's opponents are some of them.
        entrants = server.get("/api/leaderboard").json()["entrants"]
        names = {e["contestant"] for e in entrants}
        assert names == {"random", "greedy", "lowest", *HOUSE}
        token = server.add_contestant("sly")
        sly = tmp_path / "sly"
        shutil.copytree(BOTS / "sly", sly)
        # It plays well on the ladder's next game (its validation's) and is sore after.
        (sly / "turn.txt").write_text(str(next_seed(db) + 1))
        data, _ = pack_for_upload(sly)
        bearer = {"Authorization": f"Bearer {token}"}
        accepted = server.post("/api/upload", content=data, headers=bearer)
        assert accepted.status_code == 200, accepted.text

        # An upload that builds for minutes: it holds the build process, never the ladder.
        slow = server.add_contestant("slowpoke")
        slow_data, _ = pack_for_upload(BOTS / "slow_build")

        def upload_slowly() -> None:
            try:
                waiting.append(
                    server.post(
                        "/api/upload",
                        content=slow_data,
                        headers={"Authorization": f"Bearer {slow}"},
                    )
                )
            except BaseException as error:
                waiting.append(error)

        threading.Thread(target=upload_slowly, daemon=True).start()
        assert server.admin("/api/admin/pause", {"paused": False}).status_code == 200
        visitor.start()

        def statuses() -> dict[str, str | None]:
            found = {}
            for name in (*HOUSE, "sly"):
                versions = server.get(f"/api/contestants/{name}").json()["versions"]
                found[name] = versions[-1]["suspended"]
            return found

        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and None in statuses().values():
            time.sleep(2.0)
        assert statuses() == {**HOUSE, "sly": "crash"}, server.errors
        suspended_at = len(stored_games(db))
        while time.monotonic() < deadline and len(stored_games(db)) < suspended_at + 3:
            time.sleep(1.0)
        assert len(stored_games(db)) >= suspended_at + 3, "the ladder stopped playing"
        assert server.get("/api/live").json()["building"] == ["slowpoke"]

        # The same bytes again do not bring a suspended version back (nothing is built).
        again = server.post("/api/upload", content=data, headers=bearer)
        assert again.status_code == 422 and "was suspended (crash)" in again.json()["reason"]

        # Retiring an entrant ends its round under way at once; the ladder goes on.
        random_label = next(
            e["entrant"]
            for e in server.get("/api/leaderboard").json()["entrants"]
            if e["contestant"] == "random"
        )
        retired = server.admin("/api/admin/retire", {"name": "random", "version": None})
        assert retired.status_code == 200

        def playing_random() -> bool:
            live = server.get("/api/live").json()
            return live["round"] is not None and random_label in live["round"]["entrants"]

        while time.monotonic() < deadline and playing_random():
            time.sleep(0.2)
        assert not playing_random()
        with sqlite3.connect(db) as conn:
            rounds = conn.execute(
                "SELECT finished_at, ended FROM contest_rounds WHERE entrants LIKE ?",
                (f"%{random_label}%",),
            ).fetchall()
        assert rounds and all(finished for finished, _ in rounds)  # none left under way

        # Everyone sees the status; only its owner reads why, and its logs.
        public = server.get("/api/contestants/sly").json()
        version = public["versions"][-1]
        assert version["state"] == "suspended" and version["why"] is None
        assert all(u["log_tail"] is None and u["reason"] is None for u in public["uploads"])
        own = server.get("/api/contestants/sly", headers=bearer).json()
        why = own["versions"][-1]["why"]
        assert why.startswith("3 of its last") and "closed" in why, why
        validation = spied(own["uploads"][0]["log_tail"])
        late_game = max(version["game_ids"])
        logs = server.get(f"/api/contestants/sly/games/{late_game}/logs", headers=bearer)
        assert logs.status_code == 200 and len(logs.json()) >= 2  # its two seats (or more)
        ladder = spied(logs.json()[0]["log"])
        other = server.add_contestant("nosy")
        nosy = {"Authorization": f"Bearer {other}"}
        refused = server.get(f"/api/contestants/sly/games/{late_game}/logs", headers=nosy)
        assert refused.status_code == 403
        assert server.get(f"/api/contestants/sly/games/{late_game}/logs").status_code == 401

        # Its validation looked like a ladder match: the same kind of match id, the
        # ladder's entrants by name, the ladder's game numbers and games a match.
        welcomes = [s for s in validation if s["spy"] == "welcome"]
        ladder_welcomes = [s for s in ladder if s["spy"] == "welcome"]
        assert welcomes and ladder_welcomes
        for told in (welcomes[0], ladder_welcomes[0]):
            assert re.fullmatch("[0-9a-f]{12}", told["match_id"]), told
            assert set(told["team_names"]) - {"sly"} <= names, told
            assert told["decision_ms"] == 100
        first = next(s["index"] for s in validation if s["spy"] == "game")
        assert welcomes[0]["games"] - first == ladder_welcomes[0]["games"] - min(
            s["index"] for s in ladder if s["spy"] == "game"
        )

        # The pages held up under the refreshes.
        visitor.stopping.set()
        visitor.join(30)
        assert visitor.answers and set(visitor.answers) <= {200, 429}, set(visitor.answers)

        # SIGTERM: everything ends within seconds, the waiting upload answered.
        assert server.process is not None
        children = descendants(server.process.pid)
        assert children, "the server started no process"
        started = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(60) == 0
        took = time.monotonic() - started
        assert still_alive(children) == set(), "a process outlived the server"
        deadline = time.monotonic() + 30
        while not waiting and time.monotonic() < deadline:
            time.sleep(0.2)
        answer = waiting[0]
        assert isinstance(answer, httpx.Response), answer
        assert answer.status_code == 503
        assert answer.json()["error"] == "the server is stopping: send it again once it is back"
        print(f"stopped in {took:.1f} s; {len(stored_games(db))} games; {statuses_line(db)}")
    finally:
        visitor.stopping.set()
        server.stop()
    games = stored_games(db)
    assert len(games) == len(set(games))


def statuses_line(db: Path) -> str:
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT c.name, v.suspended FROM contest_versions v "
            "JOIN contest_contestants c ON c.id = v.contestant_id WHERE v.suspended IS NOT NULL"
        ).fetchall()
    return ", ".join(f"{name}: {status}" for name, status in rows)
