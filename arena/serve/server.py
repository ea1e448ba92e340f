"""Starting a contest: its entrants from the samples, its organiser's token, uvicorn.

The socket is bound here before uvicorn starts, so that port 0 (a free port, in tests)
is known and announced at once (``on_listening``). uvicorn ends on SIGINT or SIGTERM:
the ladder is cancelled, its bots and referee processes stopped, and the next start
resumes its unfinished round.
"""

from __future__ import annotations

import contextlib
import signal
import socket
from collections.abc import Callable
from pathlib import Path

import uvicorn

from arena.bots import load_bot
from arena.bots.samples import sample_bot
from arena.tournament.registry import Registry
from arena.tournament.runner import exclusive

from .app import ServeConfig, create_app
from .contest import ContestStore, registry_path

SAMPLES = ("random", "greedy", "lowest", "pimc")  # the four Python samples


def add_samples(db_path: Path, names: tuple[str, ...] = SAMPLES) -> list[str]:
    """The sample bots as house entrants (no token: the organiser's), those not in yet."""
    contest = ContestStore.open(db_path)
    registry = Registry(registry_path(db_path))
    added = []
    try:
        for name in names:
            if contest.contestant(name) is not None:
                continue
            path = sample_bot(name)
            spec = load_bot(path)
            entry = registry.register(spec, path, ["sample bot"])
            contest.add_contestant(name, house=True)
            contest.add_version(name, entry.version, entry.path, [("sample bot", True, "")])
            added.append(entry.label())
    finally:
        contest.close()
    return added


def ensure_admin_token(db_path: Path) -> str | None:
    """A new admin token if the contest has none yet (shown once), else None."""
    contest = ContestStore.open(db_path)
    try:
        if contest.get("admin_token_hash") is None:
            return contest.new_admin_token()
        return None
    finally:
        contest.close()


def serve(
    config: ServeConfig,
    host: str = "127.0.0.1",
    port: int = 8000,
    on_listening: Callable[[str], None] | None = None,
) -> None:
    """Serve the contest until a signal; one server per database (its run lock)."""
    with exclusive(config.db_path):
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        bound = sock.getsockname()[1]
        shown = f"[{host}]" if family == socket.AF_INET6 else host
        app = create_app(config)
        server = uvicorn.Server(
            uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=10)
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
