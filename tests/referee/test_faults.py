"""Every fault kind, with real processes over gRPC: recorded, told, replaced, survived.

The faulty seats run the recorder bot (``bots/botlib.py``) with ``TEST_BOT_FAULT_<seat>``
set; the other seats run it playing legally. For each fault the test checks the
recorded ``Fault``, the ``Notice`` the bot received, that the referee played the
documented fallback (``policy.fallback_action``) in the bot's place, and that the game
still finished with a record that replays.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

import grpc
import pytest
from bots.helpers import alive_processes_in_group

from arena.engine import Card, Game, Suit
from arena.engine.cards import TRUMP_MASKS, mask_of_texts
from arena.engine.record import recorded_actions
from arena.referee.match import Match, Referee
from arena.referee.policy import FaultKind
from arena.referee.server import new_token
from arena.sdk.bot import Bot, RefereeRefused, play_stream
from arena.seats.link import SeatLink
from arena.v1 import arena_pb2 as pb

from .harness import (
    FAST,
    Faulted,
    MatchRun,
    check_games,
    check_seat_decisions,
    join_message,
    open_stream,
    recorder,
    refusal,
    run_match,
    sleeper,
)

FAULTY = (0, 3)  # team 0 misbehaves, teams 1 and 2 play legally


def faulty_match(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    seats: Iterable[int] = FAULTY,
    seeds: tuple[int, ...] = (1,),
) -> MatchRun:
    for seat in seats:
        monkeypatch.setenv(f"TEST_BOT_FAULT_{seat}", mode)
    run = run_match([recorder()] * 3, tmp_path / "logs", seeds=seeds, seed=seeds[0])
    check_games(run, games=len(seeds))
    return run


def expected_fallback(request: pb.DecisionRequest) -> str:
    """The fallback as docs/policy describe it, worked out from the request alone."""
    legal, hand = request.legal, request.view.hand
    if request.kind == pb.DECISION_KIND_BID:
        return "pass"
    if request.kind == pb.DECISION_KIND_PLAY:
        return "play " + min(legal.cards, key=lambda t: Card.parse(t).index)  # lowest card
    if request.kind == pb.DECISION_KIND_DISCARD:
        rule = legal.discard
        spare = sorted(set(rule.may) - set(rule.must), key=lambda t: Card.parse(t).index)
        cards = [*rule.must, *spare[: rule.min_count - len(rule.must)]]
        return " ".join(["discard", *sorted(cards, key=lambda t: Card.parse(t).index)])
    mask = mask_of_texts(hand)
    suit = max(Suit, key=lambda s: ((mask & TRUMP_MASKS[s]).bit_count(), -s))
    return f"trump {suit}"


def check_faulted(
    run: MatchRun, seats: Iterable[int], kind: FaultKind, reason_start: str = ""
) -> list[Faulted]:
    """The faults of ``seats`` are all ``kind``; each was told, and replaced by the fallback."""
    seats = tuple(seats)
    assert all(f.seat in seats for f in run.faults), run.faults
    everything: list[Faulted] = []
    for seat in seats:
        faults = run.faults_of(seat)
        assert faults, f"seat {seat} made no {kind.value} fault"
        assert {f.kind for f in faults} == {kind}
        notices = run.notices(seat)
        assert [n.kind for n in notices] == [kind.value] * len(faults)
        assert [(n.reason, n.fallback) for n in notices] == [(f.reason, f.fallback) for f in faults]
        for fault in faults:
            assert fault.reason.startswith(reason_start), fault
        faulted = check_seat_decisions(run, seat)
        assert [f.notice for f in faulted] == notices
        for item in faulted:
            assert item.notice.request_id == item.request.id
            assert str(item.played) == expected_fallback(item.request)
        stats = [report.seats[seat] for report in run.reports]
        assert sum(s.faults for s in stats) == len(faults)
        everything.extend(faulted)
    return everything


# --- illegal answers ---------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("mode", "rule", "decision"),
    [
        ("card_not_held", "R7.2: seat", pb.DECISION_KIND_PLAY),
        ("revoke", "R7.2: must follow", pb.DECISION_KIND_PLAY),
        ("trump_discard", "R5.2: may not discard a trump", pb.DECISION_KIND_DISCARD),
        ("low_bid", "R4.2: a bid must be higher", pb.DECISION_KIND_BID),
    ],
)
def test_illegal_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, rule: str, decision: int
) -> None:
    run = faulty_match(tmp_path, monkeypatch, mode)
    faulted = check_faulted(run, FAULTY, FaultKind.ILLEGAL, rule)
    assert {f.request.kind for f in faulted} == {decision}
    for fault in run.faults:
        assert fault.sent  # what the bot sent, for the report
        assert fault.fallback and fault.fallback != fault.sent
    if mode == "card_not_held":
        for item in faulted:
            assert item.notice.reason.endswith("does not hold " + item.notice.reason.split()[-1])
            assert item.notice.reason.split()[-1] not in item.request.view.hand
    if mode == "trump_discard":
        assert {f.fallback for f in run.faults} == {"discard"}  # a non-dealer keeps all


# --- answers that do not fit the request -------------------------------------------------


@pytest.mark.timeout(60)
def test_answer_to_the_wrong_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = faulty_match(tmp_path, monkeypatch, "wrong_request")
    faulted = check_faulted(run, FAULTY, FaultKind.WRONG_REQUEST)
    for item in faulted:
        rid = item.request.id
        assert item.notice.reason == f"answer to request {rid + 1000}; the open request is {rid}"


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_answer_of_the_wrong_kind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = faulty_match(tmp_path, monkeypatch, "wrong_kind")
    faulted = check_faulted(run, FAULTY, FaultKind.WRONG_KIND)
    assert {f.request.kind for f in faulted} == {pb.DECISION_KIND_PLAY}
    for item in faulted:
        assert item.notice.reason == "a play decision was asked, but the answer sets 'bid'"


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_malformed_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = faulty_match(tmp_path, monkeypatch, "malformed")
    check_faulted(run, FAULTY, FaultKind.MALFORMED, "not a BotMessage")
    garbage = b"\xff\xfe this is not a protobuf message \x00\x01"
    assert {f.sent for f in run.faults} == {garbage.hex()}
    # The stream survived the garbage: the seats were asked every decision of the game.
    for seat in FAULTY:
        assert len(run.requests(seat)) == run.reports[0].seats[seat].decisions > 1


# --- time ------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_timeout_drains_the_bank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first answer comes after decision time plus bank: ``timeout``, and the bank is
    empty for the rest of the game; the next game starts with a full bank again."""
    run = faulty_match(tmp_path, monkeypatch, "timeout", seats=[0], seeds=(1, 2))
    (faulted,) = check_faulted(run, [0], FaultKind.TIMEOUT, "no answer within 200 ms")
    requests = run.requests(0)
    first, second = requests[:2]
    assert faulted.request.id == first.id == 1
    assert (first.time_ms, first.bank_ms) == (FAST.decision_ms, FAST.overage_ms)
    assert second.bank_ms == 0  # the bank is drained
    assert second.time_ms == FAST.decision_ms
    # The late answer to request 1 was dropped, and the seat played on without faults.
    assert run.answers(0)[1] != "raw"
    game_one = [r for r in requests if r.view.game_index == 0]
    game_two = [r for r in requests if r.view.game_index == 1]
    assert len(game_one) > 1 and game_two
    assert all(r.bank_ms == 0 for r in game_one[1:])
    assert game_two[0].bank_ms == FAST.overage_ms  # proto: "The overage bank each game starts with"
    slowest = run.reports[0].seats[0].decision_seconds_max
    assert slowest >= (FAST.decision_ms + FAST.overage_ms) / 1000
    assert run.reports[1].faults == ()


# --- seats that go away or never come ---------------------------------------------------------


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_process_exit_mid_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The process exits at its fifth decision: one ``closed`` fault, then auto-play to the
    end of the match (two games), with no further faults for the seat."""
    run = faulty_match(tmp_path, monkeypatch, "exit", seats=[0], seeds=(1, 2))
    (fault,) = run.faults
    assert (fault.seat, fault.kind, fault.game_index) == (0, FaultKind.CLOSED, 0)
    assert run.notices(0) == []  # nobody left to tell
    process = run.match.processes[0]
    assert process is not None and process.returncode == 3
    # Asked five times; the fifth went unanswered; every later decision was auto-played.
    assert [r.id for r in run.requests(0)] == [1, 2, 3, 4, 5]
    assert sorted(run.answers(0)) == [1, 2, 3, 4]
    assert check_seat_decisions(run, 0) == []  # the fallback for 5 and everything after
    first, second = run.reports
    assert first.seats[0].faults == 1 and first.seats[0].decisions == 5
    assert second.seats[0].faults == 0 and second.seats[0].decisions == 0
    assert second.faults == ()
    assert _turns(run, 0) > 5  # the seat had decisions after it was gone


def _turns(run: MatchRun, seat: int) -> int:
    """How many decisions were the seat's in the records of the match."""
    turns = 0
    for report in run.reports:
        game = Game(report.key, draw_limit=report.record["draw_limit"])
        for action in recorded_actions(report.record):
            turns += game.to_act == seat
            game.apply(action)
    return turns


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_bot_that_never_joins(tmp_path: Path) -> None:
    settings = replace(FAST, join_timeout_s=2.0)
    started = time.monotonic()
    run = run_match([sleeper(), recorder(), recorder()], tmp_path / "logs", settings=settings)
    check_games(run)
    assert sorted((f.seat, f.kind) for f in run.faults) == [
        (0, FaultKind.NO_JOIN),
        (3, FaultKind.NO_JOIN),
    ]
    assert time.monotonic() - started >= settings.join_timeout_s
    assert run.table.join_wait_seconds >= settings.join_timeout_s - 0.5  # it waited for them
    for seat in (0, 3):
        assert not run.match.links[seat].joined.is_set()
        assert check_seat_decisions(run, seat) == []  # every decision is the fallback
        assert run.reports[0].seats[seat].decisions == 0
        process = run.match.processes[seat]
        assert process is not None and alive_processes_in_group(process.pid) == []
    for seat in (1, 2, 4, 5):
        assert run.reports[0].seats[seat].decisions > 0


# --- joining: tokens and versions -------------------------------------------------------


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_join_refusals(tmp_path: Path) -> None:
    """Bad joins are refused with the documented status; none of them burns the token."""

    async def client(match: Match) -> dict[str, tuple[grpc.StatusCode, str]]:
        seat = match.manual[0]
        address, token = seat.address, seat.token
        seen = {
            "wrong token": await refusal(address, join_message("not-a-seat-token")),
            "version 2": await refusal(address, join_message(token, version=2)),
            "version 0": await refusal(address, join_message(token, version=0)),
            "garbage": await refusal(address, b"\xff\xfe garbage"),
            "answer first": await refusal(
                address, pb.BotMessage(answer=pb.Answer(request_id=1, bid=0)).SerializeToString()
            ),
        }
        playing = asyncio.ensure_future(play_stream(Bot(), address, token))
        while not match.links[0].joined.is_set():
            assert not playing.done(), playing
            await asyncio.sleep(0.01)
        seen["second stream"] = await refusal(address, join_message(token))
        assert await playing == "finished"
        # A used token on its socket after the seat's stream ended: tests/fairplay (here
        # the match is over, and a seat's socket closes with its match).
        return seen

    run = run_match(
        [recorder()] * 3, tmp_path / "logs", manual_seats=frozenset({0}), alongside=client
    )
    check_games(run)
    assert run.faults == []
    assert run.reports[0].seats[0].decisions > 0  # the manual seat played itself
    seen = run.extra["alongside"]
    assert isinstance(seen, dict)
    codes = {name: code for name, (code, _) in seen.items()}
    assert codes == {
        "wrong token": grpc.StatusCode.UNAUTHENTICATED,
        "version 2": grpc.StatusCode.FAILED_PRECONDITION,
        "version 0": grpc.StatusCode.FAILED_PRECONDITION,
        "garbage": grpc.StatusCode.INVALID_ARGUMENT,
        "answer first": grpc.StatusCode.INVALID_ARGUMENT,
        "second stream": grpc.StatusCode.ALREADY_EXISTS,
    }
    assert seen["wrong token"][1] == "unknown seat token"
    assert seen["version 2"][1] == "protocol version 2 is not supported; use 1"
    assert seen["second stream"][1] == "this seat token was already used"
    assert seen["garbage"][1] == "the first message is not a BotMessage"
    assert seen["answer first"][1] == "the first message must be a Join"


@pytest.mark.timeout(30)
def test_join_after_the_seat_deadline_is_refused() -> None:
    async def scenario() -> tuple[grpc.StatusCode, str]:
        async with Referee() as referee:
            link = SeatLink(0, new_token(), join_deadline=time.monotonic() - 0.1)
            referee.registry.register(link)
            return await refusal(referee.address, join_message(link.token))

    code, details = asyncio.run(scenario())
    assert code is grpc.StatusCode.DEADLINE_EXCEEDED
    assert details == "the join deadline for this seat has passed"


@pytest.mark.timeout(30)
def test_sdk_reports_a_refusal() -> None:
    async def scenario() -> str:
        async with Referee() as referee:
            try:
                await play_stream(Bot(), referee.address, "not-a-seat-token")
            except RefereeRefused as refused:
                return str(refused)
            raise AssertionError("the referee accepted an unknown token")

    assert asyncio.run(scenario()) == "UNAUTHENTICATED: unknown seat token"


@pytest.mark.timeout(30)
def test_stream_without_join_is_refused_at_the_join_timeout() -> None:
    """proto: DEADLINE_EXCEEDED if the first message is not a Join within the join deadline.

    ``Referee(join_timeout=...)`` is the setting for it; a client that opens the stream and
    sends nothing must be refused once it has passed, not held open.
    """

    async def scenario() -> grpc.StatusCode | str:
        async with (
            Referee(join_timeout=0.5) as referee,
            grpc.aio.insecure_channel(referee.address) as channel,
        ):
            call = await open_stream(channel, None)
            try:
                await asyncio.wait_for(call.read(), 3.0)
            except grpc.aio.AioRpcError as error:
                return error.code()
            except TimeoutError:
                call.cancel()
                return "still open after 3 s"
            return "answered"

    assert asyncio.run(scenario()) is grpc.StatusCode.DEADLINE_EXCEEDED


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_manual_seat_may_join_after_the_automatic_seats_deadline(tmp_path: Path) -> None:
    """A manual seat's token is valid for MANUAL_JOIN_TIMEOUT_S; the table must wait for it.

    Here the bots' join timeout is 1 s and the manual bot joins after 1.5 s.
    """

    async def late_client(match: Match) -> str:
        await asyncio.sleep(1.5)
        seat = match.manual[0]
        try:
            return await play_stream(Bot(), seat.address, seat.token)
        except RefereeRefused as refused:
            return f"refused: {refused}"

    settings = replace(FAST, join_timeout_s=1.0)
    run = run_match(
        [recorder()] * 3,
        tmp_path / "logs",
        settings=settings,
        manual_seats=frozenset({0}),
        alongside=late_client,
    )
    check_games(run)
    assert run.faults == []
    assert run.extra["alongside"] == "finished"
    assert run.reports[0].seats[0].decisions > 0


# --- many faults, and floods ----------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.timeout(90)
def test_no_fault_stops_the_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A seat that faults at every decision: both games of the match still finish."""
    run = faulty_match(tmp_path, monkeypatch, "chaos", seats=[0], seeds=(2, 5))
    kinds = {f.kind for f in run.faults}
    assert kinds == {FaultKind.MALFORMED, FaultKind.WRONG_KIND, FaultKind.WRONG_REQUEST}
    assert all(f.seat == 0 for f in run.faults)
    items = check_seat_decisions(run, 0)
    requests = run.requests(0)
    assert len(items) == len(requests) == len(run.faults) == len(run.notices(0))
    for item in items:
        assert str(item.played) == expected_fallback(item.request)
    for index, report in enumerate(run.reports):
        assert report.faults and all(f.game_index == index for f in report.faults)
        assert report.seats[0].faults == report.seats[0].decisions == len(report.faults)
    assert [m.match_over.reason for m in run.messages(0) if m.HasField("match_over")] == [
        "finished"
    ]


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_flood_is_recorded_and_told(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """300 unsolicited messages are far beyond the allowance: a ``flood`` fault, told.

    Policy: every fault is recorded *and told to the bot in a Notice*.
    """
    run = faulty_match(tmp_path, monkeypatch, "flood", seats=[0])
    assert all(f.seat == 0 for f in run.faults)
    floods = run.faults_of(0, FaultKind.FLOOD)
    assert floods, "no flood fault recorded"
    reasons = ("unrequested messages were dropped", "answers to requests already answered")
    assert all(f.reason.endswith(reasons) for f in floods), floods
    # The flood may make the bot's own answers late; nothing else is a fault of seat 0.
    assert {f.kind for f in run.faults} <= {FaultKind.FLOOD, FaultKind.TIMEOUT}
    told = [n for n in run.notices(0) if n.kind == "flood"]
    assert [n.reason for n in told] == [f.reason for f in floods], "flood faults not told"


@pytest.mark.timeout(30)
def test_a_join_is_read_as_long_as_its_seat_may_still_join() -> None:
    """Issue 35: the server's own wait for a call's first message lasts as long as the
    seat's deadline, which counts only the time its bot could run; it no longer refuses a
    starved bot at the join timeout of wall time while the referee would still take it."""

    async def scenario() -> tuple[bool, bool]:
        async with (
            Referee(join_timeout=0.3) as referee,
            grpc.aio.insecure_channel(referee.address) as channel,
        ):
            link = SeatLink(0, new_token(), join_deadline=time.monotonic() + 30.0)
            referee.registry.register(link)
            call = await open_stream(channel, None)
            await asyncio.sleep(1.0)  # past the join timeout: the seat may still join
            await call.write(join_message(link.token))
            await asyncio.wait_for(link.joined.wait(), 10.0)
            link.finished.set()
            call.cancel()
            return link.joined.is_set(), referee.registry.may_join()

    assert asyncio.run(scenario()) == (True, False)


@pytest.mark.timeout(60)
def test_the_sdk_keeps_trying_to_join_until_the_referee_answers(tmp_path: Path) -> None:
    """Issue 35: a bot on the SDK that cannot reach its seat's socket yet (the machine too
    busy to serve it) tries again with the same token, and joins once it can, instead of
    exiting and being blamed for it; only the referee's own refusal ends its attempts."""
    socket = tmp_path / "referee.sock"

    async def scenario() -> tuple[str, str]:
        token = new_token()
        link = SeatLink(0, token, join_deadline=time.monotonic() + 30.0)
        bot = asyncio.ensure_future(play_stream(Bot(), f"unix:{socket}", token))
        # A socket that is there but not served: every connection is refused.
        socket.touch()
        await asyncio.sleep(1.5)
        assert not bot.done(), "the SDK gave up before the referee did"
        socket.unlink()
        async with Referee(address=f"unix:{socket}") as referee:
            referee.registry.register(link)
            await asyncio.wait_for(link.joined.wait(), 20.0)
            link.finished.set()  # ends the call: the bot sees the stream close
            ended = await asyncio.wait_for(bot, 10.0)
        # A refusal of the referee's own ends the attempts at once.
        late = SeatLink(1, new_token(), join_deadline=time.monotonic() - 1.0)
        async with Referee(address=f"unix:{socket}") as referee:
            referee.registry.register(late)
            try:
                await asyncio.wait_for(play_stream(Bot(), referee.address, late.token), 10.0)
            except RefereeRefused as refused:
                return ended, str(refused)
        raise AssertionError("a join after the deadline was taken")

    ended, refused = asyncio.run(scenario())
    assert ended == "the referee closed the stream"
    assert refused == "DEADLINE_EXCEEDED: the join deadline for this seat has passed"
