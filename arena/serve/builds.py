"""Uploads built and checked beside the ladder: a small, fair queue and one build at a time.

A build (and its validation matches) runs in a fresh helper process (``Worker``) that
dies with the server, so whatever a build does — a crash, a hang — leaves the server and
the ladder standing, and a build that overruns its time is killed with its bots.

Fair queueing: at most ``queue`` uploads wait or build at once, one per contestant, and
the next to build is the waiting contestant who used the least build time in the last
day (then the earliest): four contestants whose slow-but-legal bots build for minutes
cannot keep a fifth waiting behind them. Each contestant has a daily budget of build
time; a build may take what is left of it (at most ``build_timeout_s``).

Validation looks like a ladder match: the server shapes each validation match as a
ladder match (``arena.tournament.submit.ValidationShape``): an opaque match id of the
ladder's form, the ladder's next game number, a team drawn at random and two of the
ladder's entrants as opponents, under their names. A bot that behaves only when it is
watched has nothing to tell the two apart by.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from arena.bots import BotSpecError
from arena.bots.build import BotOptions
from arena.referee.table import TableSettings
from arena.tournament.registry import Registry, RegistryError
from arena.tournament.submit import ValidationShape, submit

from .worker import Worker, WorkerError, WorkerTimeout

__all__ = [
    "BuildLimits",
    "BuildOutcome",
    "BuildQueue",
    "BuildRequest",
    "QueueFull",
    "ServerStopping",
    "Ticket",
    "build_and_check",
]

DAY_S: Final = 24 * 3600.0
STOPPING: Final = "the server is stopping: send it again once it is back"


@dataclass(frozen=True)
class BuildLimits:
    """What one contestant and everyone together may ask of the build process."""

    queue: int = 4  # uploads waiting or building at once, all contestants together
    uploads_per_day: int = 20  # a contestant's uploads in any 24 hours
    build_minutes_per_day: float = 30.0  # a contestant's build and validation time in 24 h
    build_timeout_s: float = 900.0  # one upload's build and validation, at most


class QueueFull(RuntimeError):
    """No room for another build now (or this contestant's previous one is not done)."""


class ServerStopping(RuntimeError):
    """The server is stopping: the upload was not built."""


@dataclass(frozen=True)
class BuildRequest:
    """Everything the build process needs for one upload (it pickles)."""

    bot: Path
    registry: Path
    contestant: str
    games: int  # per validation match: the ladder's games per seating
    settings: TableSettings
    options: BotOptions
    shapes: tuple[ValidationShape, ...]
    # Opponents by team slot for each shape, as registry labels (None: the samples).
    opponents: tuple[tuple[str, str] | None, ...]


@dataclass(frozen=True)
class BuildOutcome:
    accepted: bool
    reason: str  # one line: "accepted", or the first failed check and why
    status: str  # what the public may read: "accepted", or which check failed
    version: str | None
    path: str | None  # the registered copy, relative to the registry
    checks: list[tuple[str, bool | None, str]]
    log_tail: str
    seconds: float = 0.0  # wall time of the build process


def refused(reason: str, status: str, seconds: float = 0.0) -> BuildOutcome:
    return BuildOutcome(False, reason, status, None, None, [], "", seconds)


def build_and_check(request: BuildRequest) -> BuildOutcome:
    """In the build process: ``arena submit``'s build, validation matches and
    registration. Whatever goes wrong comes back as a refusal in one line."""
    registry = Registry(request.registry)
    try:
        shapes = tuple(
            _with_opponents(shape, labels, registry)
            for shape, labels in zip(request.shapes, request.opponents, strict=True)
        )
        result = submit(
            request.bot,
            registry,
            name=request.contestant,
            games=request.games,
            settings=request.settings,
            options=request.options,
            shapes=shapes,
        )
    except (BotSpecError, RegistryError) as error:
        return refused(f"refused: {_line(str(error))}", "refused: not a bot")
    except RecursionError:
        return refused("refused: its directory tree is too deep to read", "refused: not a bot")
    except OSError as error:
        return refused(f"refused: cannot be read: {_line(str(error))}", "refused: not a bot")
    checks = [(c.name, c.passed, c.detail) for c in result.checks]
    if result.entry is not None:
        entry = result.entry
        return BuildOutcome(
            True, "accepted", "accepted", entry.version, entry.path, checks, result.log_tail
        )
    failed = next((c for c in result.checks if c.passed is False), None)
    if failed is None:
        detail = result.checks[-1].detail if result.checks else "?"
        reason, status = f"could not be checked: {detail}", "could not be checked"
    else:
        reason, status = f"{failed.name} failed: {failed.detail}", f"{failed.name} failed"
    return BuildOutcome(
        False,
        f"refused: {_line(reason)}",
        f"refused: {status}",
        result.spec.version,
        None,
        checks,
        result.log_tail,
    )


def _with_opponents(
    shape: ValidationShape, labels: tuple[str, str] | None, registry: Registry
) -> ValidationShape:
    if labels is None:
        return shape
    try:
        a, b = (registry.load(registry.find(label)) for label in labels)
    except (RegistryError, BotSpecError):
        return shape  # a version gone from the registry: the samples, under their names
    return ValidationShape(shape.match_id, shape.first_game, shape.team, (a, b))


def _line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else "refused"


@dataclass(eq=False)
class Ticket:
    """A contestant's place in the queue, from the checks to the end of their build."""

    contestant: str
    used_seconds: float  # build time they used in the last day, when they asked
    order: int
    turn: asyncio.Future[None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )

    def rank(self) -> tuple[float, int]:
        return (self.used_seconds, self.order)


class BuildQueue:
    """At most ``limits.queue`` tickets, one per contestant; builds one at a time, the
    least-served contestant first; ``stop`` answers everyone waiting."""

    def __init__(self, limits: BuildLimits | None = None) -> None:
        self.limits = limits or BuildLimits()
        self._tickets: dict[str, Ticket] = {}
        self._waiting: list[Ticket] = []  # for the build process, not yet building
        self._building: Ticket | None = None
        self._worker: Worker | None = None
        self._orders = itertools.count()
        self._stopping = False

    @property
    def waiting(self) -> list[str]:
        """Who holds a place: building or waiting to."""
        return sorted(self._tickets)

    @property
    def building(self) -> str | None:
        return None if self._building is None else self._building.contestant

    @property
    def build_pid(self) -> int | None:
        return None if self._worker is None else self._worker.pid

    @contextlib.asynccontextmanager
    async def reserve(self, contestant: str, used_seconds: float) -> AsyncIterator[Ticket]:
        """A place in the queue for ``contestant``, held until the block ends; raises
        ``QueueFull`` (their previous upload is not done, or every place is taken) or
        ``ServerStopping`` before anything is read or unpacked."""
        if self._stopping:
            raise ServerStopping(STOPPING)
        if contestant in self._tickets:
            raise QueueFull(f"{contestant}'s previous upload is still being built")
        if len(self._tickets) >= self.limits.queue:
            raise QueueFull(
                f"the build queue is full ({self.limits.queue} uploads): try again later"
            )
        ticket = Ticket(contestant, used_seconds, next(self._orders))
        self._tickets[contestant] = ticket
        try:
            yield ticket
        finally:
            del self._tickets[contestant]
            if ticket in self._waiting:
                self._waiting.remove(ticket)
            if self._building is ticket:
                self._building = None
            self._next()

    async def build(
        self,
        ticket: Ticket,
        request: BuildRequest,
        timeout: float,
        job: Callable[[BuildRequest], BuildOutcome] = build_and_check,
    ) -> BuildOutcome:
        """Wait for ``ticket``'s turn, then ``job`` (the build and checks) in a fresh build
        process, for at most ``timeout`` seconds (then it is killed, and the upload
        refused)."""
        self._waiting.append(ticket)
        self._next()
        try:
            await ticket.turn
        finally:
            if ticket in self._waiting:
                self._waiting.remove(ticket)
        worker = self._worker = Worker("build")
        started = time.monotonic()
        try:
            outcome = await worker.call(job, request, timeout=timeout)
        except WorkerTimeout:
            took = time.monotonic() - started
            return refused(
                f"refused: building and checking it took over {timeout:.0f} s "
                f"(what was left of the build time: {self._budget_line()})",
                "refused: took too long to build and check",
                took,
            )
        except WorkerError as error:
            if self._stopping:
                raise ServerStopping(STOPPING) from None
            return refused(
                f"refused: the build process failed: {error}",
                "refused: could not be checked",
                time.monotonic() - started,
            )
        finally:
            worker.kill()
            if self._worker is worker:
                self._worker = None
        return dataclasses.replace(outcome, seconds=time.monotonic() - started)

    def _budget_line(self) -> str:
        minutes = self.limits.build_minutes_per_day
        return f"{minutes:g} min a day, at most {self.limits.build_timeout_s:.0f} s a build"

    def _next(self) -> None:
        """Give the build process to the least-served waiting ticket, if it is free."""
        if self._building is not None or self._stopping:
            return
        pending = [t for t in self._waiting if not t.turn.done()]
        if not pending:
            return
        chosen = min(pending, key=Ticket.rank)
        self._building = chosen
        chosen.turn.set_result(None)

    def stop(self) -> None:
        """The server is stopping: every waiting upload is answered (``ServerStopping``)
        and the build under way is killed with its bots."""
        self._stopping = True
        for ticket in self._waiting:
            if not ticket.turn.done():
                ticket.turn.set_exception(ServerStopping(STOPPING))
        if self._worker is not None:
            self._worker.kill()
