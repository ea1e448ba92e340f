"""A match runs the build its records name: each seat's copy is checked against the build
digest before the match, and a copy that is not that build is the arena's trouble, in one
line, never a game (issue 33, finding 2; issue 34, item 4)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arena.bots import load_bot
from arena.bots.build import BotCache, BotOptions
from arena.bots.samples import sample_bot
from arena.bots.sandbox import sandbox_problem
from arena.referee.match import Match, MatchPlan, Referee
from arena.referee.policy import ArenaTrouble
from arena.referee.result import GameResult
from arena.referee.table import TableSettings

pytestmark = pytest.mark.slow  # two matches of real sandboxed bots
SETTINGS = TableSettings(join_timeout_s=60.0)


async def play(plan: MatchPlan) -> list[GameResult]:
    results: list[GameResult] = []
    async with Referee() as referee:
        await Match(referee, plan).play(results.append)
    return results


def test_the_records_name_the_builds_and_a_changed_copy_is_not_played(tmp_path: Path) -> None:
    assert sandbox_problem() is None, "seats' private copies are made in the sandbox"
    cache = BotCache(tmp_path / "cache")
    built = [
        cache.prepare(load_bot(sample_bot(name)), BotOptions()) for name in ("random", "greedy")
    ]
    entrants = (built[0], built[1], built[1])
    plan = MatchPlan("copy", entrants, seeds=[3], log_dir=tmp_path / "logs", settings=SETTINGS)
    (result,) = asyncio.run(play(plan))
    named = [(e["version"], e["build"]) for e in result.record["meta"]["entrants"]]
    assert named == [(s.version, s.build_digest) for s in entrants]

    # The cached copy changes under the arena's feet (no bot can: it is never writable
    # to one): the seats' copies are no longer the build, so nothing is played.
    (built[0].directory / "bot.py").write_text("print('not what was built')\n")
    again = MatchPlan("copy-2", entrants, seeds=[3], log_dir=tmp_path / "logs2", settings=SETTINGS)
    with pytest.raises(ArenaTrouble) as trouble:
        asyncio.run(play(again))
    line = str(trouble.value)
    assert "\n" not in line
    assert f"not to its build {built[0].build_digest}" in line, line
