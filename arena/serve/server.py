"""Starting a contest: its entrants, its organiser's token, uvicorn with its bounds.

The socket is bound here before uvicorn starts, so that port 0 (a free port, in tests)
is known and announced at once (``on_listening``). uvicorn speaks HTTP through the
guarded protocol of ``arena.serve.connections`` (a deadline on each request's headers,
connections per address and in all), trusts ``X-Forwarded-For`` only from the
``--trusted-proxy`` networks, and ends on SIGINT or SIGTERM: at the signal, waiting
uploads are answered (503) and the build under way is killed, the ladder is cancelled
(its tables stop, its bots and referee processes with them); the next start resumes its
unfinished round.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import signal
import socket
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Final

import uvicorn

from arena.bots import load_bot
from arena.bots.samples import sample_bot
from arena.tournament.registry import Registry
from arena.tournament.runner import exclusive

from .app import create_app
from .connections import guarded_protocol, parse_networks
from .contest import ContestStore, registry_path
from .service import ServeConfig

SAMPLES = ("random", "greedy", "lowest", "pimc")  # the four Python samples
GRACE_S: Final = 3.0  # for requests under way, once a stop is asked for


def add_samples(db_path: Path, names: tuple[str, ...] = SAMPLES) -> list[str]:
    """The sample bots as house entrants (no token: the organiser's), those not in yet."""
    return [
        enter_house_bot(db_path, name, sample_bot(name)) for name in names if _new(db_path, name)
    ]


def _new(db_path: Path, name: str) -> bool:
    contest = ContestStore.open(db_path)
    try:
        return contest.contestant(name) is None
    finally:
        contest.close()


def enter_house_bot(db_path: Path, name: str, path: Path) -> str:
    """The organiser's own bot ``path`` as house entrant ``name`` (no token, no
    validation: the organiser vouches for it); its label."""
    contest = ContestStore.open(db_path)
    registry = Registry(registry_path(db_path))
    try:
        spec = load_bot(path)
        if contest.contestant(name) is None:
            contest.add_contestant(name, house=True)
        elif not contest.known(name).house:
            raise ValueError(f"{name!r} is a contestant's name, not a house entrant's")
        spec = dataclasses.replace(spec, name=name)
        entry = registry.register(spec, path, ["entered by the organiser"])
        contest.add_version(
            name, entry.version, entry.path, [("entered by the organiser", True, "")]
        )
        return entry.label()
    finally:
        contest.close()


def ensure_admin_token(db_path: Path) -> str | None:
    """A new admin token if the contest has none yet (shown once), else None."""
    contest = ContestStore.open(db_path)
    try:
        if contest.get("admin_token_hash") is None:
            return contest.new_admin_token()
        return None
    finally:
        contest.close()


class _Server(uvicorn.Server):
    """uvicorn's server, telling the contest the moment a stop is asked for, so that
    nothing waits out the grace: uploads are answered, the build and the ladder end."""

    def __init__(self, config: uvicorn.Config, on_stop: Callable[[], None]) -> None:
        super().__init__(config)
        self._on_stop = on_stop

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if not self.should_exit:
            with contextlib.suppress(RuntimeError):  # no loop yet: nothing to stop
                asyncio.get_running_loop().call_soon_threadsafe(self._on_stop)
        super().handle_exit(sig, frame)


def serve(
    config: ServeConfig,
    host: str = "127.0.0.1",
    port: int = 8000,
    on_listening: Callable[[str], None] | None = None,
) -> None:
    """Serve the contest until a signal; one server per database (its run lock)."""
    trusted = parse_networks(config.trusted_proxies)
    with exclusive(config.db_path):
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        bound = sock.getsockname()[1]
        shown = f"[{host}]" if family == socket.AF_INET6 else host
        app = create_app(config)

        def stop() -> None:
            stopper = getattr(app.state, "stop", None)
            if stopper is not None:
                stopper()

        server = _Server(
            uvicorn.Config(
                app,
                log_level="warning",
                lifespan="on",
                timeout_graceful_shutdown=int(GRACE_S),
                http=guarded_protocol(trusted),
                ws="none",
                proxy_headers=bool(trusted),
                forwarded_allow_ips=[str(n) for n in trusted] or None,
                timeout_keep_alive=5,
                server_header=False,
            ),
            stop,
        )
        if on_listening is not None:
            on_listening(f"http://{shown}:{bound}")
        # uvicorn shuts down on the signal, then raises it again under the handlers it
        # found: both end here, after a clean shutdown, as an ordinary return.
        previous = signal.signal(signal.SIGTERM, _stopped)
        try:
            with contextlib.suppress(KeyboardInterrupt, _Stopped):
                server.run(sockets=[sock])
        finally:
            signal.signal(signal.SIGTERM, previous)


class _Stopped(Exception):
    pass


def _stopped(signum: int, frame: object) -> None:
    raise _Stopped
