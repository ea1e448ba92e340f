"""The ladder's watchdog: when no game has arrived for too long while the ladder should be
playing, it says so once, in the log and on the live page, and why."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path

from arena.serve.contest import Round
from arena.serve.ladder import Ladder, LiveMatch
from arena.tournament.executor import InProcessExecutor


def test_a_quiet_ladder_says_why(tmp_path: Path) -> None:
    said: list[str] = []
    ladder = Ladder(
        tmp_path / "contest.db",
        lambda: InProcessExecutor(1),  # never entered here
        on_notice=said.append,
        watchdog_s=0.3,
    )
    try:
        ladder.state.rounds[7] = Round(7, ("a@1", "b@1", "c@1"), 1, 12, False)
        ladder.state.live["r7-s0-0-1-2"] = LiveMatch(
            "r7-s0-0-1-2", ("a@1", "b@1", "c@1"), 1, 0, time.time() - 400
        )
        ladder.state.last_game = time.time() - 400

        async def watch_a_while() -> None:
            task = asyncio.ensure_future(ladder._watch())
            await asyncio.sleep(0.5)  # the watchdog looks every watchdog_s / 3
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

        asyncio.run(watch_a_while())
        assert len(said) == 1, said  # said once, while the stall lasts
        line = said[0]
        assert line.startswith("no game stored for 40") and "round 7 (a@1, b@1, c@1)" in line
        assert "match r7-s0-0-1-2 has played 0 of 1 games in 40" in line
        assert ladder.state.stalled == line and ladder.state.notices == [line]
        ladder.state.last_game = time.time()  # a game arrives: the line goes
        ladder.look()
        assert ladder.state.stalled is None and len(said) == 1
    finally:
        ladder.close()
