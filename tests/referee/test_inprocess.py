"""The in-process channel: Python bot objects as seats of the one table, no process started.

The table is the one ``arena run`` plays on (``arena.bench.inprocess``), so the same bots
play the same game in-process and over gRPC, and a bot object's faults are the table's:
the same kinds, notices, fallbacks and clock.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from arena.bench.inprocess import (
    TEAM_NAMES,
    load_python_bot,
    play_game_in_process,
    play_in_process,
)
from arena.engine import CARDS, PLAYS, Action, Bid, DecisionKind
from arena.engine.record import recorded_actions
from arena.referee.policy import FaultKind
from arena.referee.result import GameResult
from arena.referee.table import Table, TableSettings
from arena.sdk import Bot, Decision
from arena.seats.channel import Answer
from arena.seats.inprocess import InProcessChannel
from arena.v1 import arena_pb2 as pb
from arena.wire.loop import run as run_loop

from .harness import SAMPLE_BOTS, clock_disagreeing, faults_disagreeing, run_match, sample

GREEDY = type(load_python_bot(SAMPLE_BOTS / "greedy"))


class Recording(Bot):
    """Plays as the ``greedy`` sample bot and keeps what it is told."""

    def __init__(self) -> None:
        self.greedy = GREEDY()
        self.welcomes: list[pb.Welcome] = []
        self.events: list[pb.Event] = []
        self.notices: list[pb.Notice] = []

    def on_welcome(self, welcome: pb.Welcome) -> None:
        self.welcomes.append(welcome)

    def on_events(self, events: list[pb.Event]) -> None:
        self.events.extend(events)

    def on_notice(self, notice: pb.Notice) -> None:
        self.notices.append(notice)

    def bid(self, decision: Decision) -> Action:
        return self.greedy.decide(decision)

    def trump(self, decision: Decision) -> Action:
        return self.greedy.decide(decision)

    def discard(self, decision: Decision) -> Action:
        return self.greedy.decide(decision)

    def play(self, decision: Decision) -> Action:
        return self.greedy.decide(decision)


class PlaysUnheld(Recording):
    """Plays a card it does not hold: illegal (R7.2)."""

    def play(self, decision: Decision) -> Action:
        return next(PLAYS[card.index] for card in CARDS if card not in decision.hand)


class Raises(Recording):
    def play(self, decision: Decision) -> Action:
        raise RuntimeError("a bug in the bot")


class SlowOnce(Recording):
    """Its first play takes longer than the decision's time and the bank."""

    slept = False

    def play(self, decision: Decision) -> Action:
        if not self.slept:
            self.slept = True
            time.sleep(0.4)
        return super().play(decision)


@pytest.mark.slow
def test_the_same_bots_play_the_same_game_in_process_and_over_grpc(tmp_path: Path) -> None:
    match = run_loop(play_in_process([GREEDY() for _ in range(6)], [3]))
    assert match.table.faults == []
    # The default time and a join deadline a loaded machine keeps: no fault is expected.
    settings = TableSettings(join_timeout_s=10)
    run = run_match([sample("greedy")] * 3, tmp_path / "logs", seeds=(3,), settings=settings)
    assert run.faults == []
    in_process = match.results[0].record
    over_grpc = run.reports[0].record
    assert list(recorded_actions(in_process)) == list(recorded_actions(over_grpc))
    assert in_process["result"] == over_grpc["result"]


def test_every_seat_is_welcomed_and_told_every_event_to_the_end_of_the_game() -> None:
    bots = [Recording() for _ in range(6)]
    match = run_loop(play_in_process(bots, [4, 5]))
    assert match.table.faults == []
    for seat, bot in enumerate(bots):
        (welcome,) = bot.welcomes
        assert (welcome.seat, welcome.partner, welcome.games) == (seat, (seat + 3) % 6, 2)
        kinds = [e.WhichOneof("body") for e in bot.events]
        assert kinds.count("game_started") == 2 and kinds.count("game_ended") == 2
        assert kinds[-1] == "game_ended"  # the end-of-game flush reaches every seat


def test_an_illegal_answer_is_a_fault_told_and_replaced_by_the_fallback() -> None:
    bots: list[Recording] = [PlaysUnheld(), *(Recording() for _ in range(5))]
    match = run_loop(play_in_process(bots, [6]))
    faults = match.table.faults
    assert faults and {(f.seat, f.kind) for f in faults} == {(0, FaultKind.ILLEGAL)}
    assert all(f.reason.startswith("R7.2") and f.fallback.startswith("play ") for f in faults)
    assert [n.kind for n in bots[0].notices] == ["illegal"] * len(faults)
    assert [n.fallback for n in bots[0].notices] == [f.fallback for f in faults]


def test_a_bot_that_raises_closes_its_seat_which_is_auto_played() -> None:
    bots: list[Recording] = [Recording(), Raises(), *(Recording() for _ in range(4))]
    match = run_loop(play_in_process(bots, [7], raise_errors=False))
    (fault,) = match.table.faults
    assert (fault.seat, fault.kind) == (1, FaultKind.CLOSED)
    assert fault.reason == "the bot raised RuntimeError: a bug in the bot"
    assert match.results[0].record["result"] is not None  # the game was played out
    with pytest.raises(RuntimeError, match="a bug in the bot"):  # the benchmarks' default
        play_game_in_process([Raises() for _ in range(6)], seed=7)


def test_the_clock_is_the_tables_an_answer_past_time_and_bank_is_a_timeout() -> None:
    settings = TableSettings(decision_ms=100, overage_ms=100)
    bots: list[Recording] = [SlowOnce(), *(Recording() for _ in range(5))]
    match = run_loop(play_in_process(bots, [8], settings))
    (fault,) = match.table.faults
    assert (fault.seat, fault.kind) == (0, FaultKind.TIMEOUT)
    assert fault.reason == "no answer within 100 ms plus the bank"
    assert [n.kind for n in bots[0].notices] == ["timeout"]


class AnswersWithABid(Recording):
    """Answers every play with a bid: the wrong kind of answer."""

    def play(self, decision: Decision) -> Action:
        return Bid(3)


class GoneAfterItsAnswer(InProcessChannel):
    """A seat whose process ends right after its fifth answer: the table finds it gone at
    its next decision, between two requests."""

    def __init__(self, seat: int, bot: Bot) -> None:
        super().__init__(seat, bot, raise_errors=False)
        self.answers = 0

    async def answer(self, kind: DecisionKind, request_id: int) -> Answer:
        answer = await super().answer(kind, request_id)
        self.answers += 1
        if self.answers == 5:
            self._closed = True
            self._close_reason = "the bot's process ended"
        return answer


def _table_match(channels: list[InProcessChannel], settings: TableSettings) -> list[GameResult]:
    async def play() -> list[GameResult]:
        table = Table("spine", channels, [11, 12], settings, TEAM_NAMES)
        await table.open()
        try:
            return [await table.play_game(k, seed) for k, seed in enumerate((11, 12))]
        finally:
            await table.close("finished")

    return run_loop(play())


def test_every_fault_kind_points_at_the_decision_its_fallback_replaced() -> None:
    """One spine: each fault row and the record's decision it names agree on seat, kind,
    reason and the fallback played, whatever the fault: illegal, wrong kind, timeout, a
    bot that raises mid-request, a process that ended between two requests."""
    bots: list[Bot] = [PlaysUnheld(), AnswersWithABid(), SlowOnce(), Raises()]
    channels = [InProcessChannel(seat, bot, raise_errors=False) for seat, bot in enumerate(bots)]
    channels += [GoneAfterItsAnswer(4, Recording()), InProcessChannel(5, Recording())]
    settings = TableSettings(decision_ms=100, overage_ms=100)
    results = _table_match(channels, settings)
    kinds = {(f.seat, f.kind) for result in results for f in result.faults}
    assert kinds >= {
        (0, FaultKind.ILLEGAL),
        (1, FaultKind.WRONG_KIND),
        (2, FaultKind.TIMEOUT),
        (3, FaultKind.CLOSED),
        (4, FaultKind.CLOSED),
    }
    # Only its closed fault: a busy machine may add a timeout of its own before it.
    (gone,) = [
        f for result in results for f in result.faults if f.seat == 4 and f.kind is FaultKind.CLOSED
    ]
    assert gone.reason == "the bot's process ended" and gone.request_id == 0
    assert gone.fallback and gone.decision_index is not None  # the decision it replaced
    for result in results:
        assert faults_disagreeing(result) == []
        assert clock_disagreeing(result) == []
        assert result.record["time_control"] == {"decision_ms": 100, "overage_ms": 100}
