"""The body limits as ASGI middleware: a body over the cap is refused (413), and one that
trickles is refused once its time is up (408), before the route answers."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import PlainTextResponse

from arena.serve.limits import BodyLimit


async def echo_length(scope: Any, receive: Any, send: Any) -> None:
    body = await Request(scope, receive).body()
    await PlainTextResponse(str(len(body)))(scope, receive, send)


def call(limit: BodyLimit, chunks: list[bytes], pause: float) -> list[dict[str, Any]]:
    """The messages ``limit`` sends for a request whose body comes as ``chunks``, each
    after ``pause`` seconds (the last never ends the body when pause is long)."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if chunks:
            await asyncio.sleep(pause)
            chunk = chunks.pop(0)
            return {"type": "http.request", "body": chunk, "more_body": bool(chunks)}
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/", "headers": [], "query_string": b""}
    asyncio.run(asyncio.wait_for(limit(scope, receive, send), 10))
    return sent


def test_a_whole_body_in_time_reaches_the_route() -> None:
    sent = call(BodyLimit(echo_length, max_bytes=100, timeout=5), [b"ab", b"cd"], 0.01)
    assert sent[0]["status"] == 200 and sent[1]["body"] == b"4"


def test_a_body_over_the_cap_is_413() -> None:
    sent = call(BodyLimit(echo_length, max_bytes=3, timeout=5), [b"ab", b"cd"], 0.01)
    assert sent[0]["status"] == 413


def test_a_trickling_body_is_408_once_its_time_is_up() -> None:
    sent = call(BodyLimit(echo_length, max_bytes=100, timeout=0.3), [b"a", b"b", b"c"], 0.2)
    assert sent[0]["status"] == 408
    assert b"did not arrive within 0.3 s" in sent[1]["body"]
