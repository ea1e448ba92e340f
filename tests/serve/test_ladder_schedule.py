"""The ladder as a schedule of the runner: a round in play per table, at most two matches
of each handed out at a time, each seating of a round starting at another of its deals,
the id its bots are told opaque; a round cut by the contest is withdrawn, and the next
round resumes the one it cut. No game is played here: the schedule is asked as the runner
asks it (the ladder plays real games in the slow tests of this folder)."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

from arena.bots.build import BotOptions
from arena.serve.ladder import Ladder, LadderSchedule
from arena.serve.server import add_samples
from arena.tournament.executor import InProcessExecutor
from arena.tournament.schedule import ScheduledMatch, Wait

TABLES = 2


def _ladder(tmp_path: Path, games: int) -> Ladder:
    db = tmp_path / "contest.db"
    add_samples(db, ("random", "greedy", "lowest", "pimc"))
    return Ladder(
        db,
        lambda: InProcessExecutor(TABLES),  # never entered here
        games=games,
        options=BotOptions(sandbox=False),
    )


async def _ask(schedule: LadderSchedule, times: int) -> list[ScheduledMatch]:
    """Ask ``times`` times as the runner does, letting a round's bots be prepared."""
    handed: list[ScheduledMatch] = []
    for _ in range(times):
        answer = schedule.next_match()
        if isinstance(answer, ScheduledMatch):
            handed.append(answer)
        else:
            assert isinstance(answer, Wait), answer  # a ladder is never done
            preparing = schedule._preparing
            if preparing is not None and not preparing.done():
                await preparing
    return handed


def test_a_round_a_table_two_matches_of_each_at_a_time(tmp_path: Path) -> None:
    ladder = _ladder(tmp_path, games=2)

    async def main() -> None:
        schedule = LadderSchedule(ladder, TABLES)
        handed = await _ask(schedule, 20)
        rounds = Counter(m.key.split("-")[0] for m in handed)
        assert len(schedule.rounds) == TABLES == len(rounds), rounds
        assert set(rounds.values()) == {LadderSchedule.OUT_PER_ROUND}
        for match in handed:
            round_ = schedule.rounds[int(match.key.split("-")[0][1:])].round
            assert list(match.indices) == [round_.first_game, round_.first_game + 1]
            assert match.match_id is not None and len(match.match_id) == 12
            assert match.key not in match.match_id  # opaque: neither round nor seating
        # Two seatings of one round start at different deals: both may play at once.
        by_round: dict[str, list[int]] = {}
        for match in handed:
            by_round.setdefault(match.key.split("-")[0], []).append(match.order[0])
        assert all(len(set(starts)) == len(starts) for starts in by_round.values())
        # A match over makes room for the next of its round, not for a third round.
        schedule.match_ended(handed[0])
        (more,) = await _ask(schedule, 1)
        assert more.key.split("-")[0] == handed[0].key.split("-")[0]
        assert len(schedule.rounds) == TABLES

    try:
        asyncio.run(main())
    finally:
        ladder.close()


def test_a_pause_withdraws_the_rounds_in_play_and_resuming_plays_them_first(
    tmp_path: Path,
) -> None:
    ladder = _ladder(tmp_path, games=1)

    async def main() -> None:
        schedule = LadderSchedule(ladder, TABLES)
        handed = await _ask(schedule, 20)
        in_play = {r.round.id: r.round for r in schedule.rounds.values()}
        assert len(in_play) == TABLES

        ladder.contest.set_paused(True)
        schedule.review()
        assert schedule.rounds == {}
        assert set(schedule.withdrawn()) == {m.key for m in handed}
        assert schedule.withdrawn() == set()  # said once
        assert isinstance(schedule.next_match(), Wait)  # paused: nothing new

        ladder.contest.set_paused(False)
        again = await _ask(schedule, 20)
        resumed = {r.round.id for r in schedule.rounds.values()}
        assert resumed == set(in_play), "the cut rounds are played first, with their games"
        assert {m.key for m in again} >= {m.key for m in handed}

    try:
        asyncio.run(main())
    finally:
        ladder.close()
