"""The limits of a real server, with real sockets: a contestant's uploads a day, the cap
on queued builds (checked before anything is unpacked), a slowloris held to the header
deadline and to its address's share of connections, and input that once gave a 500
refused in one line."""

from __future__ import annotations

import contextlib
import io
import select
import socket
import threading
import time
import zipfile
from pathlib import Path

import httpx
import pytest

from arena.serve.client import pack_for_upload
from arena.serve.connections import HEADER_TIMEOUT_S, MAX_CONNECTIONS, PER_ADDRESS

from .conftest import ContestServer, descendants, still_alive

BOTS = Path(__file__).with_name("sore_losers")


def deep_tree(levels: int) -> bytes:
    """A bot (a zip) whose directory holds a chain of ``levels`` nested directories."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.toml", 'name = "deep"\ncommand = ["./bot.sh"]\n')
        for depth in range(1, levels + 1):
            archive.writestr("/".join(["d"] * depth) + "/", "")
    return buffer.getvalue()


def is_closed(sock: socket.socket) -> bool:
    poll = select.poll()  # not select(): these descriptors may be past 1024
    poll.register(sock, select.POLLIN | select.POLLHUP | select.POLLERR)
    if not poll.poll(0):
        return False
    try:
        return sock.recv(1024) == b""
    except OSError:
        return True


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_uploads_a_day_the_queue_and_slow_clients_are_bounded(tmp_path: Path) -> None:
    server = ContestServer(
        tmp_path / "contest.db", (), "--uploads-per-day", "3", "--queue", "1"
    ).start()
    slow_answer: list[httpx.Response | BaseException] = []
    try:
        # Three uploads a day: the fourth is refused with when the next is possible.
        quota = {"Authorization": f"Bearer {server.add_contestant('eager')}"}
        for _ in range(3):
            refused = server.post("/api/upload", content=b"not a bot", headers=quota)
            assert refused.status_code == 422, refused.text
        fourth = server.post("/api/upload", content=b"not a bot", headers=quota)
        assert fourth.status_code == 429 and int(fourth.headers["retry-after"]) > 3600
        assert "3 uploads in the last 24 hours" in fourth.json()["error"]

        # A thousand nested directories: refused in one line (it was a 500).
        deep = {"Authorization": f"Bearer {server.add_contestant('deep')}"}
        answer = server.post("/api/upload", content=deep_tree(1000), headers=deep)
        assert answer.status_code in (413, 422), answer.text
        line = answer.json().get("reason") or answer.json()["error"]
        assert line.startswith("refused") and "\n" not in line, line

        # Bad input to the organiser's requests: 400, nothing changes.
        for path, body in (
            ("/api/admin/ban", {"name": "deep", "banned": "false"}),
            ("/api/admin/retire", {"name": "deep", "version": ["x"]}),
        ):
            bad = server.admin(path, body)
            assert bad.status_code == 400 and "Input should be" in bad.json()["error"]
        assert server.get("/api/contestants/deep").json()["banned"] is False

        # One place in the queue: a slow build holds it; another upload is turned away
        # before it is unpacked (garbage would be a 422 once unpacked).
        slow_token = server.add_contestant("slowpoke")
        data, _ = pack_for_upload(BOTS / "slow_build")

        def upload_slowly() -> None:
            try:
                headers = {"Authorization": f"Bearer {slow_token}"}
                slow_answer.append(server.post("/api/upload", content=data, headers=headers))
            except BaseException as error:
                slow_answer.append(error)

        threading.Thread(target=upload_slowly, daemon=True).start()
        deadline = time.monotonic() + 60
        while server.get("/api/live").json()["building"] != ["slowpoke"]:
            assert time.monotonic() < deadline, "the slow upload never took its place"
            time.sleep(0.2)
        late = {"Authorization": f"Bearer {server.add_contestant('late')}"}
        full = server.post("/api/upload", content=b"not a bot", headers=late)
        assert full.status_code == 503 and "build queue is full" in full.json()["error"]
        assert int(full.headers["retry-after"]) >= 1
        again = server.post(
            "/api/upload", content=data, headers={"Authorization": f"Bearer {slow_token}"}
        )
        assert again.status_code == 503 and "still being built" in again.json()["error"]

        # Slowloris: from one address, its connections beyond its share are closed at
        # once; from many, the server holds no more than its cap, closing the slowest to
        # make room, and answers a prompt client meanwhile; every slow one is closed when
        # its headers are late.
        host, port = server.url.removeprefix("http://").split(":")

        def slow_client(address: str) -> socket.socket:
            sock = socket.socket()
            sock.bind((address, 0))
            sock.connect((host, int(port)))
            sock.sendall(b"GET / HTTP/1.1\r\nHost: contest\r\n")
            return sock

        one = [slow_client("127.0.0.2") for _ in range(PER_ADDRESS + 8)]
        time.sleep(1.0)
        assert sum(is_closed(s) for s in one) >= 8
        many = [slow_client(f"127.0.2.{i % 20 + 1}") for i in range(MAX_CONNECTIONS + 100)]
        time.sleep(1.0)
        held = [s for s in one + many if not is_closed(s)]
        assert len(held) <= MAX_CONNECTIONS
        started = time.monotonic()
        assert server.get("/api/leaderboard").status_code == 200
        while time.monotonic() - started < HEADER_TIMEOUT_S + 10:
            for sock in held:
                with contextlib.suppress(OSError):
                    sock.sendall(b"X-Trickle: 1\r\n")  # a header line now and then
            if all(is_closed(s) for s in held):
                break
            time.sleep(1.0)
        assert all(is_closed(s) for s in held), "a slow client held its connection"
        for sock in one + many:
            sock.close()

        # Killed during a build: no process of the build is left.
        assert server.process is not None
        children = descendants(server.process.pid)
        server.kill9()
        assert still_alive(children) == set(), "a process of the build outlived the server"
    finally:
        server.stop()
