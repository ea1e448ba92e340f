"""The real server (uvicorn on a loopback port): tokens, admin, hostile uploads refused."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from .conftest import ContestServer
from .hostile import FORMATS, KINDS, expected


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_every_write_needs_the_right_token(contest: ContestServer) -> None:
    token = contest.add_contestant("alice")
    assert token and contest.admin_token
    body = b"#!/bin/sh\n"
    missing = contest.post("/api/upload", content=body)
    assert missing.status_code == 401 and "token" in missing.json()["error"]
    wrong = contest.post("/api/upload", content=body, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 403 and wrong.json() == {"error": "unknown token"}
    # A contestant's token is not the organiser's, nor the other way round.
    as_alice = {"Authorization": f"Bearer {token}"}
    refused = contest.post("/api/admin/pause", json={"paused": True}, headers=as_alice)
    assert refused.status_code == 403
    assert contest.post("/api/admin/pause", json={"paused": True}).status_code == 401
    admin_upload = contest.post(
        "/api/upload", content=body, headers={"Authorization": f"Bearer {contest.admin_token}"}
    )
    assert admin_upload.status_code == 403
    assert contest.admin("/api/admin/pause", {"paused": True}).json() == {"paused": True}
    assert contest.get("/api/leaderboard").json()["paused"] is True
    # A banned contestant can write nothing.
    assert contest.admin("/api/admin/ban", {"name": "alice"}).status_code == 200
    banned = contest.post("/api/upload", content=body, headers=as_alice)
    assert banned.status_code == 403 and "banned" in banned.json()["error"]
    assert contest.admin("/api/admin/ban", {"name": "nobody"}).status_code == 404
    # The token is stored hashed: the contest's file does not hold it.
    files = [p for p in contest.db.parent.iterdir() if p.name.startswith(contest.db.name)]
    assert files and all(token.encode() not in p.read_bytes() for p in files)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_each_hostile_upload_is_refused_in_one_line_and_changes_nothing(
    contest: ContestServer,
) -> None:
    token = contest.add_contestant("mallory")
    headers = {"Authorization": f"Bearer {token}"}
    refusals = []
    for kind in sorted(KINDS):
        for fmt in FORMATS:
            data = KINDS[kind][0](fmt)
            answer = contest.post("/api/upload", content=data, headers=headers)
            assert answer.status_code in (413, 422), (kind, fmt, answer.text)
            body = answer.json()
            line = body.get("reason") or body.get("error")
            assert body.get("accepted") is not True and "\n" not in line
            if answer.status_code == 422:
                assert expected(kind, fmt) in line, (kind, fmt, line)
            refusals.append(f"{kind} ({fmt}): {line}")
    page = contest.get("/api/contestants/mallory").json()
    assert page["versions"] == []  # nothing entered
    assert contest.get("/api/leaderboard").json()["entrants"] == []
    print("\n".join(refusals))


def fourteen_requests(client: httpx.Client, token: str, network: str) -> list[int]:
    """Fourteen requests, each with a token and an X-Forwarded-For of its own."""
    return [
        client.get(
            "/api/live",
            headers={"Authorization": f"Bearer {token}{i}", "X-Forwarded-For": f"{network}.{i}"},
        ).status_code
        for i in range(14)
    ]


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_body_caps_and_rate_limits_per_token(tmp_path: Path) -> None:
    proxy = "127.0.0.3"  # a reverse proxy on this host, the only one trusted
    server = ContestServer(
        tmp_path / "contest.db", (), "--rate", "6", "--burst", "3", "--trusted-proxy", proxy
    ).start()
    try:
        token = server.add_contestant("eve")
        big = server.post(
            "/api/upload", content=b"x" * (10 * 1024 * 1024), headers={"X-Filename": "x"}
        )
        assert big.status_code == 413 and "request body over" in big.json()["error"]
        headers = {"Authorization": f"Bearer {token}"}
        answers = [server.get("/api/live", headers=headers).status_code for _ in range(5)]
        assert answers[:3] == [200, 200, 200] and answers[-1] == 429, answers
        limited = server.get("/api/live", headers=headers)
        assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1
        # Another token has its own allowance, within its address's (four times as large).
        other = {"Authorization": "Bearer made-up"}
        assert server.get("/api/leaderboard", headers=other).status_code == 200
        # Made-up tokens, and made-up X-Forwarded-For from an untrusted address, buy no
        # more than the address's share; from the trusted proxy, each forwarded address
        # has its own.
        direct = httpx.Client(base_url=server.url, timeout=30)
        transport = httpx.HTTPTransport(local_address=proxy)
        via_proxy = httpx.Client(base_url=server.url, transport=transport, timeout=30)
        with direct, via_proxy:
            codes = fourteen_requests(direct, "t", "198.51.100")
            forwarded = fourteen_requests(via_proxy, "p", "203.0.113")
        assert codes[-1] == 429, codes
        assert forwarded == [200] * 14, forwarded
    finally:
        assert server.stop() == 0


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_failing_build_is_refused_and_the_server_stays_up(
    contest: ContestServer, tmp_path: Path
) -> None:
    from arena.serve.client import pack_for_upload

    bot = tmp_path / "broken"
    bot.mkdir()
    (bot / "bot.toml").write_text(
        'name = "broken"\ncommand = ["python3", "bot.py"]\n'
        'build = "echo cannot compile >&2; exit 1"\n'
    )
    (bot / "bot.py").write_text("print()\n")
    token = contest.add_contestant("carol")
    data, _ = pack_for_upload(bot)
    answer = contest.post("/api/upload", content=data, headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 422
    body = answer.json()
    assert body["reason"].startswith("refused: builds failed"), body
    assert "cannot compile" in body["log_tail"]
    assert contest.get("/api/contestants/carol").json()["versions"] == []
    assert contest.get("/api/leaderboard").status_code == 200


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_the_organisers_commands(contest: ContestServer) -> None:
    from typer.testing import CliRunner

    from arena.cli import app

    runner = CliRunner()
    contest.add_contestant("dave")
    assert contest.admin_token is not None
    common = ["--server", contest.url, "--token", contest.admin_token]
    paused = runner.invoke(app, ["contest", "pause", *common])
    assert paused.exit_code == 0 and '"paused": true' in paused.output
    assert contest.get("/api/live").json()["paused"] is True
    resumed = runner.invoke(app, ["contest", "pause", "--resume", *common])
    assert resumed.exit_code == 0 and contest.get("/api/live").json()["paused"] is False
    banned = runner.invoke(app, ["contest", "ban", "dave", *common])
    assert banned.exit_code == 0 and contest.get("/api/contestants/dave").json()["banned"]
    unknown = runner.invoke(app, ["contest", "retire", "nobody", *common])
    assert unknown.exit_code != 0 and "no contestant 'nobody'" in unknown.output
    wrong = runner.invoke(app, ["contest", "pause", "--server", contest.url, "--token", "x"])
    assert wrong.exit_code != 0 and "not the admin token" in wrong.output
