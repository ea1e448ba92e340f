"""The arena's trouble never becomes a result: the one retry policy of every match played.

A match the arena could not give its bots (``arena.referee.policy.arena_trouble``: no seat
joined although their processes ran, a process the machine could not start; or a referee
process that died, ``RefereeProcessError``) is not the bots' result. It is played again
with the same deals (its games already stored are not), after a pause that grows with
each attempt, so that a machine busy for a moment gets time to settle; after
``attempts`` tries it is given up with one line that says why (``MatchUnplayableError``),
and a machine that cannot start bots at all is told so soon. Nothing of a failed attempt
counts. ``arena run`` and ``arena compare`` (the runner), ``arena submit``'s validation
match and the contest's ladder all play through it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final, TypeVar

from arena.referee.policy import ArenaTrouble

from .local import RefereeProcessError

__all__ = [
    "MATCH_ATTEMPTS",
    "REPLAY_PAUSE_S",
    "TROUBLE",
    "MatchUnplayableError",
    "RetryPolicy",
]

MATCH_ATTEMPTS: Final = 3
REPLAY_PAUSE_S: Final = 2.0  # before attempt n + 1: n times this
# What the arena's trouble is, wherever a match is played.
TROUBLE: Final = (ArenaTrouble, RefereeProcessError)

_T = TypeVar("_T")


class MatchUnplayableError(RuntimeError):
    """A match failed for the arena's own reasons on every attempt: given up."""

    def __init__(self, trouble: Exception, attempts: int, consequence: str = "") -> None:
        said = f"{trouble}; tried {attempts} times"
        super().__init__(f"{said}, {consequence}" if consequence else said)
        self.trouble = trouble
        self.attempts = attempts


@dataclass(frozen=True)
class RetryPolicy:
    """How often a match the arena could not play is tried, and the pause between."""

    attempts: int = MATCH_ATTEMPTS
    pause_s: float = REPLAY_PAUSE_S

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError(f"a match is tried at least once, not {self.attempts} times")

    async def play(
        self,
        attempt: Callable[[], Awaitable[_T]],
        on_retry: Callable[[str], None] | None = None,
    ) -> _T:
        """``attempt()`` until it does not fail with the arena's trouble (``TROUBLE``);
        ``on_retry`` is told one line before each new attempt. Raises
        ``MatchUnplayableError`` after the last; any other error at once."""
        for tried in range(1, self.attempts + 1):
            try:
                return await attempt()
            except TROUBLE as trouble:
                if tried == self.attempts:
                    raise MatchUnplayableError(trouble, self.attempts) from None
                if on_retry is not None:
                    on_retry(
                        f"{trouble}: not counted; playing it again with the same deals "
                        f"(attempt {tried + 1} of {self.attempts})"
                    )
                await asyncio.sleep(self.pause_s * tried)
        raise AssertionError("unreachable: the last attempt returns or raises")
