"""Uploads built and checked beside the ladder: a bounded queue, one build process.

A build (and its validation match) runs in a process of its own, started fresh from
Python (``spawn``), so whatever a build does to that process — a crash, a hang the
build's own timeout ends — leaves the server and the ladder standing; a lost process
is replaced for the next build. At most ``QUEUE`` uploads wait, one per contestant, and
the one build process is all the CPU builds take besides the bot's own limits: the
ladder's tables keep theirs. The check is ``arena submit``'s own
(:func:`arena.tournament.submit.submit`), registering into the contest's registry.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import signal
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from arena.bots import BotSpecError
from arena.bots.build import BotOptions
from arena.referee.table import TableSettings
from arena.tournament.registry import Registry, RegistryError
from arena.tournament.submit import submit

QUEUE: Final = 4  # uploads waiting or building at once


class QueueFull(RuntimeError):
    """No room for another build now (or this contestant's previous one is not done)."""


@dataclass(frozen=True)
class BuildOutcome:
    accepted: bool
    reason: str  # one line: "accepted", or the first failed check and why
    version: str | None
    path: str | None  # the registered copy, relative to the registry
    checks: list[tuple[str, bool | None, str]]
    log_tail: str


def build_and_check(
    bot: Path,
    registry: Path,
    name: str,
    games: int,
    settings: TableSettings,
    options: BotOptions,
) -> BuildOutcome:
    """``arena submit``'s build, validation match and registration, in the build process."""
    try:
        result = submit(
            bot, Registry(registry), name=name, games=games, settings=settings, options=options
        )
    except (BotSpecError, RegistryError) as error:
        return BuildOutcome(False, _line(str(error)), None, None, [], "")
    checks = [(c.name, c.passed, c.detail) for c in result.checks]
    if result.entry is not None:
        entry = result.entry
        return BuildOutcome(True, "accepted", entry.version, entry.path, checks, result.log_tail)
    failed = next((c for c in result.checks if c.passed is False), None)
    if failed is None:
        reason = f"could not be checked: {result.checks[-1].detail if result.checks else '?'}"
    else:
        reason = f"{failed.name} failed: {failed.detail}"
    return BuildOutcome(False, _line(reason), result.spec.version, None, checks, result.log_tail)


def _quiet() -> None:
    """In the build process: Ctrl-C is for the server, which ends this process itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else "refused"


class BuildQueue:
    """Builds one upload at a time in a separate process; ``QueueFull`` past ``QUEUE``."""

    def __init__(self, size: int = QUEUE) -> None:
        self.size = size
        self._pool: ProcessPoolExecutor | None = None
        self._waiting: set[str] = set()
        self.building: str | None = None

    @property
    def waiting(self) -> list[str]:
        return sorted(self._waiting)

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=context, initializer=_quiet)
        return self._pool

    async def build(
        self,
        contestant: str,
        bot: Path,
        registry: Path,
        games: int,
        settings: TableSettings,
        options: BotOptions,
    ) -> BuildOutcome:
        if contestant in self._waiting:
            raise QueueFull(f"{contestant}'s previous upload is still being built")
        if len(self._waiting) >= self.size:
            raise QueueFull(f"the build queue is full ({self.size} uploads): try again later")
        self._waiting.add(contestant)
        try:
            loop = asyncio.get_running_loop()
            try:
                return await loop.run_in_executor(
                    self._executor(),
                    build_and_check,
                    bot,
                    registry,
                    contestant,
                    games,
                    settings,
                    options,
                )
            except BrokenProcessPool:
                self._pool = None  # the next build gets a fresh process
                return BuildOutcome(False, "the build process died", None, None, [], "")
        finally:
            self._waiting.discard(contestant)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
