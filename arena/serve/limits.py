"""What keeps a public server standing: a cap on every request body and on the time it
takes to arrive, a rate per token and per address.

Both are ASGI middleware in front of every route. A body larger than the cap is refused
(413) from its Content-Length before it is read, and cut off as it streams when there is
none; a body that has not arrived whole within ``BODY_TIMEOUT_S`` (a client that sends a
byte now and then) is refused with 408. Requests are counted per token (the
``Authorization: Bearer`` header) and per client address (four times a token's
allowance, so that made-up tokens gain nothing), each in a token bucket: ``burst`` at
once, then ``per_minute``; past it, 429 with Retry-After. The client address is the
connection's, or what a trusted proxy says it is (``arena serve --trusted-proxy``,
applied by uvicorn before these): ``X-Forwarded-For`` from anyone else is ignored.
The connections themselves (how many, how long their headers may take) are bounded
before any of this, in ``arena.serve.connections``.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY_BYTES: Final = 9 * 1024 * 1024  # an upload's cap, and the multipart around it
# The whole body's time: 9 MiB at 160 KiB/s, a slow line's pace; a trickle is refused.
BODY_TIMEOUT_S: Final = 60.0
ADDRESS_SHARE: Final = 4  # an address's allowance, in tokens' allowances


async def _refuse(send: Send, status: int, reason: str, headers: list[tuple[bytes, bytes]]) -> None:
    body = json.dumps({"error": reason}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class BodyRefused(Exception):
    """The body is refused as it arrives (the middleware answers, not the route)."""


class BodyTooLarge(BodyRefused):
    pass


class BodyTooSlow(BodyRefused):
    pass


class BodyLimit:
    def __init__(
        self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES, timeout: float = BODY_TIMEOUT_S
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.timeout = timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope["headers"]:
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    await _refuse(send, 400, "bad Content-Length", [])
                    return
                if declared > self.max_bytes:
                    await _refuse(send, 413, f"request body over {self.max_bytes:,} bytes", [])
                    return
        seen = 0
        started = False
        deadline: float | None = None  # from the first read of the body

        async def counted() -> Message:
            nonlocal seen, deadline
            now = time.monotonic()
            deadline = deadline or now + self.timeout
            try:
                async with asyncio.timeout(max(deadline - now, 0.0)):
                    message = await receive()
            except TimeoutError:
                raise BodyTooSlow from None
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise BodyTooLarge
            return message

        async def watch(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted, watch)
        except BodyTooLarge:
            if not started:
                await _refuse(send, 413, f"request body over {self.max_bytes:,} bytes", [])
        except BodyTooSlow:
            if not started:
                line = f"the request body did not arrive within {self.timeout:g} s"
                await _refuse(send, 408, line, [(b"connection", b"close")])


@dataclass
class _Bucket:
    tokens: float
    at: float = field(default_factory=time.monotonic)


class RateLimit:
    def __init__(self, app: ASGIApp, per_minute: float = 120.0, burst: int = 30) -> None:
        self.app = app
        self.per_minute = per_minute
        self.burst = burst
        self._buckets: dict[str, _Bucket] = {}

    def _who(self, scope: Scope) -> list[tuple[str, int]]:
        """The buckets a request draws from, with their multiples of the allowance: its
        token's, and always its address's (``ADDRESS_SHARE`` times as large), so that
        made-up tokens buy no more than one address's share."""
        client = scope.get("client")
        buckets = [(f"addr:{client[0] if client else '?'}", ADDRESS_SHARE)]
        for name, value in scope["headers"]:
            if name == b"authorization":
                buckets.append(("token:" + str(value.decode("latin-1"))[:200], 1))
        return buckets

    def allow(self, buckets: list[tuple[str, int]]) -> float:
        """0 if allowed now (one drawn from each bucket), else seconds until it would be."""
        now = time.monotonic()
        waits = []
        drawn = []
        for who, share in buckets:
            bucket = self._buckets.get(who)
            if bucket is None:
                if len(self._buckets) > 10_000:  # forget the idle, not the busy
                    self._buckets = {k: b for k, b in self._buckets.items() if now - b.at < 60}
                bucket = self._buckets[who] = _Bucket(float(self.burst * share), now)
            rate = share * self.per_minute / 60.0
            bucket.tokens = min(float(self.burst * share), bucket.tokens + (now - bucket.at) * rate)
            bucket.at = now
            waits.append(0.0 if bucket.tokens >= 1.0 else (1.0 - bucket.tokens) / rate)
            drawn.append(bucket)
        if max(waits) > 0:
            return max(waits)
        for bucket in drawn:
            bucket.tokens -= 1.0
        return 0.0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        wait = self.allow(self._who(scope))
        if wait > 0:
            retry = str(max(1, round(wait))).encode()
            await _refuse(send, 429, "too many requests", [(b"retry-after", retry)])
            return
        await self.app(scope, receive, send)
