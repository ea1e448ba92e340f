"""A match executor for the runner's own tests: seats played by Python bot objects in this
process, through the in-process channel of ``arena.bench.inprocess``.

The table, the engine, the SDK's bots, the deals' leases, the runner, its schedule and the
results store are the real ones; only the bots' processes and transport are left out, so
that a test of what the runner asks and when runs in a moment. Each game waits for the
event loop once before it starts (a process's table would, on its sockets), so that the
runner sees every game as it is stored.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Self

from arena.bench.inprocess import TEAM_NAMES, InProcessChannel, load_python_bot
from arena.referee.match import MatchPlan
from arena.referee.result import GameResult
from arena.referee.table import Table, game_key
from arena.tournament.executor import MatchOutcome, OnMatchGame
from arena.tournament.leases import DealLeases


class BotObjectsExecutor:
    """``tables`` matches at once, each seat a bot object loaded from its entrant's
    ``bot.py``; ``games`` lists every game as (match, index) in the order they started,
    ``most_at_once`` how many games were ever played at once. A game started while
    another of its deal is played fails the match (an ``AssertionError``)."""

    def __init__(self, tables: int = 2) -> None:
        self._tables = asyncio.Semaphore(tables)
        self._count = tables
        self.leases = DealLeases()
        self.games: list[tuple[str, int]] = []
        self.most_at_once = 0
        self._live: list[bytes] = []  # the deals of the games being played

    @property
    def tables(self) -> int:
        return self._count

    @property
    def referee_cpu_seconds(self) -> tuple[float, ...]:
        return ()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        pass

    async def play(
        self, plan: MatchPlan, skip: frozenset[int], on_game: OnMatchGame
    ) -> MatchOutcome:
        async with self._tables:
            bots = [load_python_bot(plan.entrants[seat % 3].path) for seat in range(6)]
            channels = [InProcessChannel(seat, bot) for seat, bot in enumerate(bots)]
            table = Table(plan.match_id, channels, plan.seeds, plan.settings, TEAM_NAMES)
            gate = self.leases.gate(plan, holder=table)

            @contextlib.asynccontextmanager
            async def game(index: int) -> AsyncIterator[None]:
                await asyncio.sleep(0)
                async with gate(index):
                    deal = game_key(plan.seeds[index]).secret
                    assert deal not in self._live, f"game {index} of {plan.match_id}: deal live"
                    self._live.append(deal)
                    self.games.append((plan.match_id, index))
                    self.most_at_once = max(self.most_at_once, len(self._live))
                    try:
                        await asyncio.sleep(0)  # another table may try to start meanwhile
                        yield
                    finally:
                        self._live.remove(deal)

            played: list[GameResult] = []

            def count(result: GameResult) -> None:
                played.append(result)
                on_game(result)

            await table.play(count, set(skip), plan.order, game)
        return MatchOutcome(plan.match_id, len(played), 0.0, 0.0, None)
