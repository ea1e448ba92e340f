"""``arena bench pimc``: how fast the `pimc` sample bot decides, and how long it takes.

Games are played in one process (``arena.bench.inprocess``: the referee's messages, no
transport): `pimc` holds seats 0 and 3, `greedy` the others. Every `pimc` decision is
timed from the request to the answer, so the figures include determinization, the
rollouts and reading the request. The bot's per-decision budget bounds the median; the
maximum shows what the referee's limit must allow (docs/PROTOCOL.md: decision_ms).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Any

from arena.bench.inprocess import load_python_bot, play_game_in_process
from arena.bots.samples import sample_bot
from arena.engine import Action
from arena.sdk.bot import Decision

PIMC_SEATS = (0, 3)


@dataclass(frozen=True)
class PimcFigures:
    games: int
    budget_ms: int
    seconds: list[float]  # each pimc decision, request to answer
    samples: list[int]  # deals sampled for each decision that searched
    wins: int

    def lines(self) -> list[str]:
        """The figures as ``arena bench pimc`` prints them."""
        total = sum(self.seconds)
        searched = [n for n in self.samples if n]
        return [
            f"pimc (seats 0, 3) vs greedy: {self.games} games, {self.wins} won by pimc's "
            f"team, {len(self.seconds)} pimc decisions, budget {self.budget_ms} ms",
            f"pimc decisions/s: {len(self.seconds) / total:.1f}",
            f"time per decision: median {statistics.median(self.seconds) * 1000:.1f} ms, "
            f"max {max(self.seconds) * 1000:.1f} ms",
            f"deals sampled per searched decision: median "
            f"{statistics.median(searched) if searched else 0:.0f}, "
            f"min {min(searched, default=0)}",
        ]


class _Timed:
    """Wraps the bot's ``decide``: each call timed, and the deals it sampled kept."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.inner = bot.decide
        self.seconds: list[float] = []
        self.samples: list[int] = []

    def decide(self, decision: Decision) -> Action:
        started = time.perf_counter()
        self.bot.last_samples = 0
        action: Action = self.inner(decision)
        self.seconds.append(time.perf_counter() - started)
        self.samples.append(self.bot.last_samples)
        return action


def bench_pimc(games: int, seed: int, budget_ms: int) -> PimcFigures:
    pimc = load_python_bot(sample_bot("pimc"))
    pimc.budget = budget_ms / 1000  # type: ignore[attr-defined]
    greedy = load_python_bot(sample_bot("greedy"))
    timed = _Timed(pimc)
    pimc.decide = timed.decide  # type: ignore[method-assign]
    bots = [pimc if seat in PIMC_SEATS else greedy for seat in range(6)]
    wins = 0
    for game_index in range(games):
        game = play_game_in_process(bots, seed + game_index, game_index)
        assert game.outcome is not None
        wins += game.outcome.winner == 0
    return PimcFigures(games, budget_ms, timed.seconds, timed.samples, wins)
