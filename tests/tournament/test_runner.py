"""The one runner and its schedules: it asks "which match next?" whenever it has room and
after every game, plays what it is handed (skipping what is stored), tells the schedule
of each game and match, stops handing out at ``DONE``, asks again after a ``Wait``, stops a
withdrawn match, and retries the arena's trouble through the one retry policy.

Most tests play on ``BotObjectsExecutor`` (real tables, bots, leases, runner and store; the
bots as objects in this process); the retry policy's giving up plays real processes."""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from pathlib import Path

import pytest

from arena.bots import BotSpec, load_bot
from arena.referee.policy import ArenaTrouble
from arena.referee.result import GameResult
from arena.referee.table import TableSettings
from arena.tournament.executor import MatchExecutor
from arena.tournament.local import RefereeProcessError
from arena.tournament.retry import MatchUnplayableError, RetryPolicy
from arena.tournament.runner import RunConfig, RunSummary, TournamentRunner, executor_for
from arena.tournament.schedule import (
    DONE,
    FixedSchedule,
    Next,
    ScheduledMatch,
    Wait,
    round_robin,
)
from arena.tournament.store import ResultsStore
from arena.wire.loop import run as run_loop

from .bot_objects import BotObjectsExecutor
from .helpers import sample, stored_keys

ENTRANTS = (sample("greedy"), sample("lowest"))


class Told(FixedSchedule):
    """A fixed schedule that notes what it is asked and told."""

    def __init__(self, entrants: tuple[BotSpec, ...], matches: list[ScheduledMatch]) -> None:
        super().__init__(entrants, matches)
        self.handed: list[str] = []
        self.stored: list[tuple[str, int]] = []
        self.ended: list[str] = []
        self.gave_up: list[Exception] = []
        self.asked = 0

    def next_match(self) -> Next:
        self.asked += 1
        answer = super().next_match()
        if isinstance(answer, ScheduledMatch):
            self.handed.append(answer.key)
        return answer

    def game_stored(self, match: ScheduledMatch, result: GameResult) -> None:
        self.stored.append((match.key, result.game_index))

    def match_ended(self, match: ScheduledMatch) -> None:
        self.ended.append(match.key)


def _config(
    tmp_path: Path,
    games: int,
    entrants: tuple[BotSpec, ...] = ENTRANTS,
    settings: TableSettings | None = None,
) -> RunConfig:
    return RunConfig(
        entrants=entrants,
        games=games,
        seed=11,
        jobs=1,
        db_path=tmp_path / "arena.db",
        settings=settings or TableSettings(),
    )


def _run(
    config: RunConfig,
    schedule: FixedSchedule,
    executor: MatchExecutor,
    log_dir: Path,
    retry: RetryPolicy | None = None,
    notices: list[str] | None = None,
) -> RunSummary:
    with ResultsStore.open(config.db_path) as store:
        runner = TournamentRunner(
            config,
            store,
            log_dir,
            executor=executor,
            schedule=schedule,
            retry=retry,
            on_notice=None if notices is None else notices.append,
        )
        return run_loop(runner.run())


def test_a_fixed_schedule_is_played_whole_each_game_in_its_matchs_order(tmp_path: Path) -> None:
    config = _config(tmp_path, games=2)
    matches = round_robin(2, 2)
    schedule = Told(ENTRANTS, matches)
    executor = BotObjectsExecutor(tables=2)
    summary = _run(config, schedule, executor, tmp_path / "logs")

    assert summary.played == 12
    assert schedule.handed == schedule.ended == [m.key for m in matches]
    assert sorted(schedule.stored) == sorted((m.key, i) for m in matches for i in range(2))
    for match in matches:
        assert tuple(i for key, i in executor.games if key == match.key) == match.order
    # The seatings start at either game (``spread``), and two tables played at once
    # without ever sharing a deal (the executor checks each game).
    assert {m.order[0] for m in matches} == {0, 1}
    assert executor.most_at_once == 2

    again = Told(ENTRANTS, matches)
    resumed = _run(config, again, BotObjectsExecutor(), tmp_path / "logs")
    assert (resumed.played, resumed.skipped) == (0, 12)
    assert again.ended == [m.key for m in matches]  # stored whole: ended without playing


class Deciding(Told):
    """A comparison's shape: matches in turn until it has been told of ``enough`` games."""

    def __init__(self, matches: list[ScheduledMatch], enough: int) -> None:
        super().__init__(ENTRANTS, matches)
        self.enough = enough

    def next_match(self) -> Next:
        if len(self.stored) >= self.enough:
            self.asked += 1
            return DONE
        return super().next_match()


def test_a_schedule_told_game_by_game_can_stop_the_handing_out(tmp_path: Path) -> None:
    config = _config(tmp_path, games=2)
    schedule = Deciding(round_robin(2, 2), enough=3)
    _run(config, schedule, BotObjectsExecutor(tables=1), tmp_path / "logs")

    # Every match handed out is played whole; none after the schedule said DONE.
    assert schedule.ended == schedule.handed
    assert 2 <= len(schedule.handed) < 6
    handed = set(schedule.handed)
    stored = set(stored_keys(config.db_path))
    assert stored == {(key, i) for key in handed for i in range(2)} == set(schedule.stored)


class Waiting(Told):
    """Says ``Wait`` a few times (every ``seconds``), then, once ``ready``, its matches."""

    def __init__(self, matches: list[ScheduledMatch], waits: int, seconds: float | None) -> None:
        super().__init__(ENTRANTS, matches)
        self.waits = waits
        self.seconds = seconds
        self.ready = seconds is not None

    def next_match(self) -> Next:
        if self.waits or not self.ready:
            self.asked += 1
            self.waits = max(0, self.waits - 1)
            return Wait(self.seconds)
        return super().next_match()


def test_after_a_wait_the_runner_asks_again_when_the_time_is_up(tmp_path: Path) -> None:
    schedule = Waiting(round_robin(2, 1)[:2], waits=3, seconds=0.01)
    _run(_config(tmp_path, games=1), schedule, BotObjectsExecutor(), tmp_path / "logs")
    assert schedule.ended == schedule.handed == [m.key for m in schedule.matches]
    assert schedule.asked >= 3 + 3  # three waits, two matches, DONE


@pytest.mark.timeout(60)
def test_a_wait_without_a_time_lasts_until_the_runner_is_woken(tmp_path: Path) -> None:
    config = _config(tmp_path, games=1)
    schedule = Waiting(round_robin(2, 1)[:1], waits=0, seconds=None)

    async def main() -> RunSummary:
        with ResultsStore.open(config.db_path) as store:
            runner = TournamentRunner(
                config, store, tmp_path / "logs", executor=BotObjectsExecutor(), schedule=schedule
            )
            playing = asyncio.ensure_future(runner.run())
            await asyncio.sleep(0.3)
            assert not playing.done() and schedule.handed == []
            asked = schedule.asked
            await asyncio.sleep(0.3)
            assert schedule.asked == asked, "asked again with nothing new to say"
            schedule.ready = True  # an entrant uploaded, say
            runner.wake()
            return await playing

    summary = run_loop(main())
    assert summary.played == 1 and schedule.ended == schedule.handed


class Withdrawing(Told):
    """Withdraws its one long match once its first game is stored (an entrant retired)."""

    def withdrawn(self) -> Collection[str]:
        return self.handed[:1] if self.stored else ()


def test_a_withdrawn_match_stops_and_its_stored_games_are_kept(tmp_path: Path) -> None:
    config = _config(tmp_path, games=20)
    schedule = Withdrawing(ENTRANTS, round_robin(2, 20)[:1])
    summary = _run(config, schedule, BotObjectsExecutor(), tmp_path / "logs")

    assert schedule.ended == []  # never played to its end
    assert 1 <= summary.played < 20
    assert set(stored_keys(config.db_path)) == set(schedule.stored)
    assert len(schedule.stored) == summary.played


def test_the_retry_policy_plays_the_arenas_trouble_again_and_then_gives_up() -> None:
    attempts: list[int] = []
    said: list[str] = []

    async def flaky() -> str:
        attempts.append(1)
        if len(attempts) < 3:
            raise (
                ArenaTrouble("match t0: no seat joined")
                if attempts == [1]
                else (RefereeProcessError("referee process 7 ended during its match"))
            )
        return "played"

    policy = RetryPolicy(attempts=3, pause_s=0.0)
    assert run_loop(policy.play(flaky, said.append)) == "played"
    assert said == [
        "match t0: no seat joined: not counted; playing it again with the same deals "
        "(attempt 2 of 3)",
        "referee process 7 ended during its match: not counted; playing it again with the "
        "same deals (attempt 3 of 3)",
    ]

    async def hopeless() -> str:
        raise ArenaTrouble("match t1: no seat joined")

    with pytest.raises(MatchUnplayableError, match=r"no seat joined; tried 2 times$") as given:
        run_loop(RetryPolicy(attempts=2, pause_s=0.0).play(hopeless))
    assert isinstance(given.value.trouble, ArenaTrouble) and given.value.attempts == 2

    async def broken() -> str:
        raise OSError("disk full")  # not the arena's trouble: at once, never retried

    with pytest.raises(OSError, match="disk full"):
        run_loop(RetryPolicy(pause_s=0.0).play(broken))
    with pytest.raises(ValueError, match="at least once"):
        RetryPolicy(attempts=0)


class GoingOn(Told):
    """A ladder's shape: a match given up is noted, and the run goes on."""

    def given_up(self, match: ScheduledMatch, error: Exception) -> None:
        self.gave_up.append(error)


def _never_joins(root: Path, name: str) -> BotSpec:
    root.mkdir(parents=True)
    (root / "bot.py").write_text("import time\ntime.sleep(600)\n")
    (root / "bot.toml").write_text(f'name = "{name}"\ncommand = ["python3", "bot.py"]\n')
    return load_bot(root)


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_match_given_up_is_the_schedules_to_judge(tmp_path: Path) -> None:
    """Real processes that never join: the arena's trouble, tried again with a line each
    time, then given up; a schedule that goes on (a ladder) is told, and the run ends as
    any run does, nothing of the match stored."""
    silent = (_never_joins(tmp_path / "a", "silent_a"), _never_joins(tmp_path / "b", "silent_b"))
    config = _config(tmp_path, 1, silent, TableSettings(join_timeout_s=1.0))
    schedule = GoingOn(config.entrants, round_robin(2, 1)[:1])
    notices: list[str] = []
    summary = _run(
        config, schedule, executor_for(config), tmp_path / "logs", RetryPolicy(2, 0.1), notices
    )
    assert summary.played == 0 and not summary.interrupted
    (error,) = schedule.gave_up
    assert isinstance(error, MatchUnplayableError) and error.attempts == 2
    assert "no seat joined within its 1 s" in str(error)
    assert [n for n in notices if "(attempt 2 of 2)" in n], notices
    assert schedule.ended == []
