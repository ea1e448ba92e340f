"""Connections the server accepts: how many, from whom, and how long a request's headers
may take to arrive.

uvicorn waits for a request's headers as long as the client likes: a connection that
sends a header line now and then (slowloris) is held open for ever, and enough of them
hold every file descriptor. Its h11 protocol is kept as it is and given three bounds:

* a request's headers must be complete within ``HEADER_TIMEOUT_S`` of the connection
  opening, or of the previous response on a kept-alive connection: else it is closed;
* at most ``PER_ADDRESS`` connections at once from one address (a trusted proxy's
  connections, which carry everyone's requests, are not counted);
* at most ``MAX_CONNECTIONS`` at once in all: past it, the connection that has waited
  longest for its headers is closed to make room (a slow client's, not the newcomer's:
  a client that sends its request at once is never the one waiting longest), or the
  newcomer itself when every connection is busy with a request.

The body's own time is bounded apart, per request (``arena.serve.limits``).
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections import Counter
from collections.abc import Sequence
from typing import Any, Final

from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

__all__ = [
    "HEADER_TIMEOUT_S",
    "MAX_CONNECTIONS",
    "PER_ADDRESS",
    "Networks",
    "guarded_protocol",
    "parse_networks",
]

HEADER_TIMEOUT_S: Final = 10.0
PER_ADDRESS: Final = 32
MAX_CONNECTIONS: Final = 512


Networks = tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]


def parse_networks(addresses: Sequence[str]) -> Networks:
    """``--trusted-proxy`` values (an address, or a network as ``10.0.0.0/8``);
    ``ValueError`` with the one that is neither."""
    networks = []
    for address in addresses:
        try:
            networks.append(ipaddress.ip_network(address.strip(), strict=False))
        except ValueError:
            raise ValueError(f"not an IP address or network: {address!r}") from None
    return tuple(networks)


def _within(address: str, networks: Networks) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)


def guarded_protocol(
    trusted: Networks = (),
    header_timeout: float = HEADER_TIMEOUT_S,
    per_address: int = PER_ADDRESS,
    max_connections: int = MAX_CONNECTIONS,
) -> type[H11Protocol]:
    """uvicorn's h11 protocol with the bounds above (each server its own counts)."""
    by_address: Counter[str] = Counter()
    # The connections waiting for a request's headers, the longest-waiting first.
    waiting: dict[H11Protocol, None] = {}

    class GuardedH11Protocol(H11Protocol):
        def __init__(
            self,
            config: Config,
            server_state: ServerState,
            app_state: dict[str, Any],
            _loop: asyncio.AbstractEventLoop | None = None,
        ) -> None:
            super().__init__(config, server_state, app_state, _loop)
            self._address: str | None = None  # counted against PER_ADDRESS
            self._headers_due: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            address = self.client[0] if self.client else "?"
            crowded = False
            if len(self.connections) > max_connections:
                oldest = next(iter(waiting), None)
                if oldest is None:
                    crowded = True  # every connection is busy with a request
                else:
                    waiting.pop(oldest)
                    oldest.transport.close()
            if not _within(address, trusted):
                if by_address[address] >= per_address:
                    crowded = True
                else:
                    by_address[address] += 1
                    self._address = address
            if crowded:
                transport.close()
                return
            self._await_headers()

        def _await_headers(self) -> None:
            self._stop_waiting()
            self._headers_due = self.loop.call_later(header_timeout, self._headers_late)
            waiting[self] = None

        def _stop_waiting(self) -> None:
            waiting.pop(self, None)
            if self._headers_due is not None:
                self._headers_due.cancel()
                self._headers_due = None

        def _headers_late(self) -> None:
            self._stop_waiting()
            idle = self.cycle is None or self.cycle.response_complete
            if idle and not self.transport.is_closing():
                self.transport.close()

        def handle_events(self) -> None:
            before = self.cycle
            super().handle_events()
            if self.cycle is not before:  # a request's headers are complete
                self._stop_waiting()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._await_headers()  # the next request on this connection

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_waiting()
            if self._address is not None:
                by_address[self._address] -= 1
                if by_address[self._address] <= 0:
                    del by_address[self._address]
                self._address = None
            super().connection_lost(exc)

    return GuardedH11Protocol
