"""Running real matches for the referee tests, and reading what the test bots recorded.

Every match here is the real thing: a ``Referee`` gRPC server on a unix socket, six bot
processes started by ``Match``, a ``Table`` enforcing the time and fault policy.
"""

from __future__ import annotations

import asyncio
import json
import struct
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from arena.bots import BotSpec, load_bot
from arena.bots.samples import sample_bots_dir
from arena.engine import Action, Game, replay
from arena.engine.record import judge_clock, recorded_actions
from arena.referee.match import Match, MatchPlan, Referee
from arena.referee.policy import Fault, FaultKind, fallback_action
from arena.referee.result import GameResult
from arena.referee.table import Table, TableSettings
from arena.v1 import arena_pb2 as pb
from arena.wire.protocol import PROTOCOL_VERSION

REPO = Path(__file__).resolve().parents[2]
TEST_BOTS = Path(__file__).resolve().parent / "bots"
SAMPLE_BOTS = sample_bots_dir()

# Small limits keep the suite fast: 200 ms per decision plus a 300 ms bank per game. The
# forfeit rule F1 is off: these tests follow a misbehaviour through whole games
# (test_forfeit.py plays F1 itself).
FAST = TableSettings(decision_ms=200, overage_ms=300, join_timeout_s=3, forfeit_deals=0)


def recorder() -> BotSpec:
    return load_bot(TEST_BOTS / "recorder")


def sleeper() -> BotSpec:
    return load_bot(TEST_BOTS / "sleeper")


def sample(name: str) -> BotSpec:
    return load_bot(SAMPLE_BOTS / name)


@dataclass
class MatchRun:
    """A finished match: its table, reports, processes and the seats' recordings."""

    match: Match
    table: Table
    reports: list[GameResult]
    log_dir: Path
    address: str = ""
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def faults(self) -> list[Fault]:
        return self.table.faults

    def faults_of(self, seat: int, kind: FaultKind | None = None) -> list[Fault]:
        return [f for f in self.faults if f.seat == seat and (kind is None or f.kind is kind)]

    def seat_dir(self, seat: int) -> Path:
        return self.log_dir / f"seat{seat}"

    def messages(self, seat: int) -> list[pb.RefereeMessage]:
        """Every message the seat's recorder bot received, in order."""
        return [pb.RefereeMessage.FromString(raw) for raw in read_frames(self.seat_dir(seat))]

    def notices(self, seat: int) -> list[pb.Notice]:
        return [m.notice for m in self.messages(seat) if m.WhichOneof("body") == "notice"]

    def requests(self, seat: int) -> list[pb.DecisionRequest]:
        return [m.request for m in self.messages(seat) if m.WhichOneof("body") == "request"]

    def answers(self, seat: int) -> dict[int, str]:
        """Request id to what the recorder sent: ``str(action)``, or ``"raw"`` for a fault."""
        path = self.seat_dir(seat) / "answers.jsonl"
        lines = path.read_text().splitlines() if path.exists() else []
        return {int(e["request_id"]): str(e["sent"]) for e in map(json.loads, lines)}


def read_frames(directory: Path) -> list[bytes]:
    path = directory / "messages.bin"
    data = path.read_bytes() if path.exists() else b""
    frames: list[bytes] = []
    offset = 0
    while offset < len(data):
        (size,) = struct.unpack_from(">I", data, offset)
        frames.append(data[offset + 4 : offset + 4 + size])
        offset += 4 + size
    return frames


# The recorder bot's fault mode per seat (bots/botlib.py): the operator's variables.
FAULT_MODES = tuple(f"TEST_BOT_FAULT_{seat}" for seat in range(6))


def run_match(
    entrants: Sequence[BotSpec],
    log_dir: Path,
    seeds: Sequence[int] = (1,),
    settings: TableSettings = FAST,
    seed: int = 0,
    manual_seats: frozenset[int] = frozenset(),
    alongside: Callable[[Match], Awaitable[object]] | None = None,
) -> MatchRun:
    """Play one match with real processes; ``alongside`` runs concurrently (manual seats)."""
    plan = MatchPlan(
        match_id=f"test-{seed}",
        entrants=(entrants[0], entrants[1], entrants[2]),
        seeds=list(seeds),
        log_dir=log_dir,
        settings=settings,
        manual_seats=manual_seats,
        seed=seed,
        sandbox=False,
        pass_env=FAULT_MODES,
    )
    reports: list[GameResult] = []
    result: dict[str, object] = {}

    async def main() -> MatchRun:
        async with Referee() as referee:
            match = Match(referee, plan)
            match.launch()
            side = asyncio.ensure_future(alongside(match)) if alongside else None
            table = await match.play(on_game=reports.append)
            if side is not None:
                result["alongside"] = await asyncio.wait_for(side, 30)
            return MatchRun(match, table, reports, log_dir, referee.address, result)

    return asyncio.run(main())


def check_games(run: MatchRun, games: int = 1) -> None:
    """Every game finished, its record replays, the record agrees with the report, and it
    judges every timeout and every late answer it accepted from its own times."""
    assert len(run.reports) == games
    for report in run.reports:
        game = replay(report.record)
        assert game.is_over
        result = report.record["result"]
        assert result is not None
        assert result["winner"] == report.winner
        assert tuple(result["scores"]) == report.scores
        assert result["deals"] == report.deals
        assert faults_disagreeing(report) == []
        assert clock_disagreeing(report) == []


def clock_disagreeing(report: GameResult) -> list[str]:
    """Where the record's verdicts disagree with its own times (empty: nowhere).

    Each decision a bot was timed at is judged from the record alone (``judge_clock``, as
    docs/GAME_RECORD.md tells an outside reader): its charged time (seconds less credit)
    against the decision time plus the seat's bank, which the record's earlier decisions
    give. A timeout must have been charged at least that, any other decision at most
    that; every ``timeout`` fault is one such decision.
    """
    judged = judge_clock(report.record)
    problems = [
        f"deal {d.deal_number} decision {d.decision_index} (seat {d.seat}): charged "
        f"{d.charged:.6f} s of {d.seconds:.6f} s against a limit of {d.limit:.6f} s, "
        f"{'timed out' if d.timed_out else 'accepted'}"
        for d in judged
        if not d.agrees
    ]
    timeouts = sum(f.kind is FaultKind.TIMEOUT for f in report.faults)
    if timeouts != sum(d.timed_out for d in judged):
        problems.append(f"{timeouts} timeout faults, {sum(d.timed_out for d in judged)} judged")
    return problems


AUTO_PLAYED = "the seat is auto-played for the rest of the match"


def faults_disagreeing(report: GameResult) -> list[str]:
    """Where the game's fault rows and its record disagree (empty: nowhere).

    A fault that replaced a decision names it by deal and index; that decision of the
    record must be the fault's seat's, marked with the fault's kind, reason and sent, and
    its action (the game's history, replayed) the fallback the row says. Every other
    marked decision is a seat auto-played after it went away.
    """
    game = replay(report.record)
    problems = []
    pointed = set()
    for fault in report.faults:
        if fault.decision_index is None:
            continue
        deal = report.record["deals"][fault.deal_number - 1]
        decision = deal["decisions"][fault.decision_index]
        index = game.deals[fault.deal_number - 1].first_decision + fault.decision_index
        pointed.add(index)
        seat, action = game.history[index]
        mark = {"fault": fault.kind.value, "reason": fault.reason, "sent": fault.sent}
        if (decision["seat"], seat) != (fault.seat, fault.seat):
            problems.append(f"{fault}: decision {index} is seat {seat}'s")
        if decision["fallback"] != mark:
            problems.append(f"{fault}: decision {index} is marked {decision['fallback']}")
        if str(action) != fault.fallback:
            problems.append(f"{fault}: decision {index} played {action}")
    marked = [
        (index, entry)
        for index, entry in enumerate(e for d in report.record["deals"] for e in d["decisions"])
        if entry["fallback"] is not None and index not in pointed
    ]
    for index, entry in marked:
        if entry["fallback"]["reason"] != AUTO_PLAYED or entry["seconds"] is not None:
            problems.append(f"decision {index} is marked {entry['fallback']} without a fault")
    return problems


@dataclass(frozen=True)
class Faulted:
    """A decision replaced by the referee: the notice, the request and what was played."""

    notice: pb.Notice
    request: pb.DecisionRequest
    played: Action


def check_seat_decisions(run: MatchRun, seat: int) -> list[Faulted]:
    """Replay the match and hold every decision of ``seat`` to what it should have been.

    The k-th decision of a seat in the match is its request k (ids count per stream).
    It must be what the bot answered; for a request the bot got a notice about, the
    policy's fallback (and the notice names it); for a decision the seat was never asked
    (auto-played) or never answered, the fallback as well.
    """
    notices = {n.request_id: n for n in run.notices(seat) if n.request_id}
    requests = {r.id: r for r in run.requests(seat)}
    answers = run.answers(seat)
    faulted: list[Faulted] = []
    k = 0
    for report in run.reports:
        record = report.record
        game = Game(report.key, draw_limit=int(record["draw_limit"]))
        for action in recorded_actions(record):
            if game.to_act == seat:
                k += 1
                fallback = fallback_action(game)
                if k in notices:
                    assert notices[k].fallback == str(fallback), (k, notices[k])
                    assert action == fallback, (k, action, fallback)
                    faulted.append(Faulted(notices[k], requests[k], action))
                elif k in answers and answers[k] != "raw":
                    assert str(action) == answers[k], (k, action, answers[k])
                else:
                    assert action == fallback, (k, action, fallback)
            game.apply(action)
    return faulted


# --- raw gRPC clients, for joins the SDK would not send ------------------------------------


def join_message(token: str, version: int = PROTOCOL_VERSION) -> bytes:
    join = pb.Join(token=token, bot_name="raw", bot_version="0", protocol_version=version)
    return pb.BotMessage(join=join).SerializeToString()


def _identity(raw: bytes) -> bytes:
    return raw


async def open_stream(channel: grpc.aio.Channel, first: bytes | None) -> grpc.aio.StreamStreamCall:
    call = channel.stream_stream(
        "/arena.v1.Referee/Play", request_serializer=_identity, response_deserializer=_identity
    )()
    if first is not None:
        await call.write(first)
    return call


async def refusal(address: str, first: bytes, wait: float = 5.0) -> tuple[grpc.StatusCode, str]:
    """Open a stream, send ``first``, and return the status the referee ends it with
    (or the transport's, when the connection itself is refused)."""
    async with grpc.aio.insecure_channel(address) as channel:
        try:
            call = await open_stream(channel, first)
            message = await asyncio.wait_for(call.read(), wait)
        except grpc.aio.AioRpcError as error:
            return error.code(), error.details() or ""
        raise AssertionError(f"the referee answered instead of refusing: {message!r}")
