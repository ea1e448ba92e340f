"""One seat's misbehaviour stays on its own connection (issue #9, items 3 and 7).

Every game here is real: ``play_one_game`` with its default options (each seat on its own
socket, each bot in its sandbox where bubblewrap works), six bot processes, real gRPC. The
hostile bot ``bots/h2_abuse`` speaks HTTP/2 by hand on its seat's socket: at seat 0 it
joins, plays, and abuses its connection from the moment it has joined (so during the
other seats' joins and the whole game); at seat 3 it only plays. What it did is in its
log, and each test checks first that the abuse really happened.

The bounds on the other seats' decisions were measured on a busy two-core machine
(medians of runs, every seat a Python bot): with no abuse at all, a seat's mean decision
took 0.3-0.5 ms and the slowest of a game 14-43 ms. Before this work a rapid-reset flood
cost the other seats their joins (``no_join``) and slowed the rest to 150 ms decisions;
with a socket per seat but no stream limit, their mean went to 2.9-5.2 ms and the slowest
to 200-670 ms. The bounds sit between the two; on a machine slower than that one (or
busier), they grow with what an unabused game measures on it just then
(``unabused``): five times its mean decision, six times its slowest.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.bots import BotSpec, load_bot
from arena.bots.samples import sample_bots_dir
from arena.referee.match import Match, MatchPlan, Referee
from arena.referee.policy import FaultKind
from arena.referee.server import new_token
from arena.referee.table import TableSettings
from arena.seats.link import SeatLink
from arena.tournament.play import PlayResult, play_one_game
from arena.v1 import arena_pb2 as pb
from arena.wire.protocol import PROTOCOL_VERSION

REPO = Path(__file__).resolve().parents[2]
H2_BOT = Path(__file__).resolve().parent / "bots" / "h2_abuse"
ZOO = REPO / "tests" / "hostile" / "bots"
NOTE = "h2-abuse: "

ABUSER = 0
MEAN_DECISION_S = 0.002  # the other seats' mean decision (unabused: 0.3-0.5 ms)
SLOWEST_DECISION_S = 0.25  # the other seats' slowest decision (unabused: up to 43 ms)
MEAN_TIMES_UNABUSED = 5  # 2 ms over 0.3-0.5 ms, where an unguarded flood cost 2.9-5.2 ms
SLOWEST_TIMES_UNABUSED = 6  # 250 ms over 14-43 ms, where it cost 200-670 ms
# Honest bots started six at a time joined within 0.3-1.7 s here; under abuse they must
# still join within half the default deadline.
SETTINGS = TableSettings(join_timeout_s=5.0)


def h2_bot(abuse: str) -> BotSpec:
    spec = load_bot(H2_BOT)
    return replace(spec, name=f"h2_{abuse}", command=(*spec.command, abuse))


def random_bot() -> BotSpec:
    return load_bot(sample_bots_dir() / "random")


def play(tmp_path: Path, hostile: BotSpec, **options: Any) -> PlayResult:
    return play_one_game([hostile, random_bot(), random_bot()], 5, tmp_path, SETTINGS, **options)


def abuse_record(result: PlayResult, seat: int = ABUSER) -> dict[str, Any]:
    """The last line the hostile bot wrote about what it did."""
    lines = (result.log_dir / f"seat{seat}.log").read_text().splitlines()
    notes = [json.loads(line.removeprefix(NOTE)) for line in lines if line.startswith(NOTE)]
    assert notes, f"seat {seat} wrote nothing about its abuse"
    record: dict[str, Any] = notes[-1]
    return record


@dataclass(frozen=True)
class Pace:
    """How long the seats' decisions took: their mean and their slowest, in seconds."""

    mean: float
    slowest: float


def pace_of(result: PlayResult, seats: list[int]) -> Pace:
    stats = [result.report.seats[seat] for seat in seats]
    assert all(s.decisions > 0 for s in stats), [s.decisions for s in stats]
    return Pace(
        mean=sum(s.decision_seconds_total for s in stats) / sum(s.decisions for s in stats),
        slowest=max(s.decision_seconds_max for s in stats),
    )


@pytest.fixture(scope="module")
def unabused(tmp_path_factory: pytest.TempPathFactory) -> Pace:
    """This machine's pace just now: the same game with no abuser in it."""
    result = play(tmp_path_factory.mktemp("unabused"), random_bot())
    assert not result.report.faults, result.report.faults
    return pace_of(result, list(range(6)))


def check_contained(
    result: PlayResult, unabused: Pace, abusers: tuple[int, ...] = (ABUSER,)
) -> None:
    """The other seats joined, played, recorded no fault, and were not slowed down."""
    report = result.report
    victims = [seat for seat in range(6) if seat not in abusers]
    assert [f for f in report.faults if f.seat not in abusers] == [], report.faults
    pace = pace_of(result, victims)
    mean_bound = max(MEAN_DECISION_S, MEAN_TIMES_UNABUSED * unabused.mean)
    slowest_bound = max(SLOWEST_DECISION_S, SLOWEST_TIMES_UNABUSED * unabused.slowest)
    assert pace.mean < mean_bound, (
        f"the other seats' mean decision took {pace.mean * 1000:.2f} ms "
        f"(unabused {unabused.mean * 1000:.2f} ms)"
    )
    assert pace.slowest < slowest_bound, (
        f"their slowest decision took {pace.slowest:.3f} s (unabused {unabused.slowest:.3f} s)"
    )


# --- abuse of the seat's own connection -------------------------------------------------------

# The least each abuse must have done for the test to mean anything (typical counts in
# a game: 60 000-230 000 resets, 100 000-150 000 streams, 250-1000 connections).
AT_LEAST = {
    "rapid_reset": ("sent", 10_000),  # HEADERS + RST_STREAM pairs beside its own call
    "rapid_reset_beside": ("sent", 10_000),  # the same on a second connection
    "stream_flood": ("sent", 10_000),  # streams opened and never closed
    "many_connections": ("connections", 100),  # connections opened and held
}


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize("abuse", sorted(AT_LEAST))
def test_flood_of_one_seat_leaves_the_others_alone(
    abuse: str, tmp_path: Path, unabused: Pace
) -> None:
    result = play(tmp_path, h2_bot(abuse))
    record = abuse_record(result)
    key, least = AT_LEAST[abuse]
    assert record["abuse"] == abuse
    assert record[key] >= least, record
    check_contained(result, unabused)
    if abuse == "stream_flood":
        # grpc core refused the streams beyond the one a seat's connection gets.
        assert record["refused_streams"] >= least, record


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_oversized_frames_headers_and_messages_end_only_the_abusers_seat(
    tmp_path: Path, unabused: Pace
) -> None:
    """A 256 KiB header block, a 1 MiB message (MAX_MESSAGE_BYTES is 64 KiB) and a frame
    beyond SETTINGS_MAX_FRAME_SIZE end the abuser's own call: it is auto-played."""
    result = play(tmp_path, h2_bot("oversized"))
    record = abuse_record(result)
    assert record["own_connection"] == "sent", record
    check_contained(result, unabused)
    kinds = {f.kind for f in result.report.faults if f.seat == ABUSER}
    assert FaultKind.CLOSED in kinds, result.report.faults


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_connection_that_never_reads_is_the_abusers_problem(
    tmp_path: Path, unabused: Pace
) -> None:
    """Once welcomed, it never reads again and floods PINGs and SETTINGS, each asking for
    an acknowledgement it will not read: grpc ends that connection (ping strikes, or
    writes that cannot be delivered), and only its seat is charged."""
    result = play(tmp_path, h2_bot("never_reads"))
    record = abuse_record(result)
    assert record["welcomed"] and record["sent"] > 0, record
    check_contained(result, unabused)
    kinds = {f.kind for f in result.report.faults if f.seat == ABUSER}
    assert kinds & {FaultKind.CLOSED, FaultKind.STALLED, FaultKind.TIMEOUT}, kinds


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize("zoo_bot", ["message_flood", "stale_flood"])
def test_grpc_message_flood_on_one_team_leaves_the_others_alone(
    zoo_bot: str, tmp_path: Path, unabused: Pace
) -> None:
    """The hostile zoo's floods (both seats of team 0): well-formed gRPC messages nobody
    asked for. Unsandboxed, since the zoo's bots load their library from beside their
    directory, which a sandbox hides; a flood needs nothing a sandbox would take away."""
    result = play(tmp_path, load_bot(ZOO / zoo_bot), sandbox=False)
    check_contained(result, unabused, abusers=(0, 3))
    # Charged to the flooders (a flooder may also be late with its own answers).
    assert FaultKind.FLOOD in {f.kind for f in result.report.faults}, result.report.faults


# --- whom a join is charged to ------------------------------------------------------------


def start_joiner(address: str, token: str, seat: int) -> subprocess.Popen[bytes]:
    """The hostile bot at a partner's seat, which only joins and plays: a real process."""
    env = {
        **os.environ,
        "ARENA_ADDRESS": address,
        "ARENA_TOKEN": token,
        "ARENA_SEAT": str(seat),
    }
    command = [sys.executable, str(H2_BOT / "h2_abuse.py"), "rapid_reset"]
    return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, cwd=H2_BOT)


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_a_join_that_waited_for_a_busy_referee_is_not_late() -> None:
    """The join arrives in time but the event loop is blocked past the deadline (as by a
    flood): the seat has joined, and its token was not refused. A seat that never joins
    still runs out of time: the deadline moves by the loop's lateness, no more."""

    async def scenario() -> tuple[bool, bool, float]:
        async with Referee() as referee:
            deadline = time.monotonic() + 1.0
            late = SeatLink(3, new_token(), deadline)
            absent = SeatLink(4, new_token(), deadline)
            referee.register(late)
            referee.register(absent)
            waiting = [
                asyncio.ensure_future(late.joined_or_gone()),
                asyncio.ensure_future(absent.joined_or_gone()),
            ]
            await asyncio.sleep(0)
            process = start_joiner(late.address, late.token, 3)
            try:
                # The bot connects and sends its join within the deadline, meanwhile the
                # loop is blocked until well past it.
                time.sleep(2.5)
                started = time.monotonic()
                await asyncio.wait_for(asyncio.gather(*waiting), 10)
                absent_waited = time.monotonic() - started
            finally:
                process.kill()
                process.wait()
            return late.joined.is_set(), absent.joined.is_set(), absent_waited

    late_joined, absent_joined, absent_waited = asyncio.run(scenario())
    assert late_joined
    assert not absent_joined
    # The absent seat had about 1 s of its deadline left when the loop came back.
    assert absent_waited < 2.0, absent_waited


# --- a seat's socket is its own ---------------------------------------------------------------


async def join_status(address: str, token: str) -> grpc.StatusCode | str:
    """Join on ``address`` with ``token``: the refusal, or "joined" if the referee welcomes
    the join (it says nothing until all six seats joined: silence for 1 s is a join)."""
    join = pb.Join(token=token, bot_name="probe", protocol_version=PROTOCOL_VERSION)
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.stream_stream(
            "/arena.v1.Referee/Play",
            request_serializer=pb.BotMessage.SerializeToString,
            response_deserializer=pb.RefereeMessage.FromString,
        )()
        await call.write(pb.BotMessage(join=join))
        try:
            await asyncio.wait_for(call.read(), 1.0)
        except grpc.aio.AioRpcError as error:
            return error.code()
        except TimeoutError:
            call.cancel()
            return "joined"
        return "answered"


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_a_seats_socket_takes_only_that_seats_token(tmp_path: Path) -> None:
    """Two tables on one referee, every seat open (no processes): each seat has its own
    socket in its own private directory; another seat's token, or another table's, is
    refused on it without being used up; a used token is refused on its own socket.
    (That a sandboxed bot sees no socket but its own: test_sandbox_attacks.py.)"""

    async def scenario() -> dict[str, Any]:
        async with Referee() as referee:
            matches = []
            for name in ("a", "b"):
                plan = MatchPlan(
                    match_id=name,
                    entrants=(random_bot(), random_bot(), random_bot()),
                    seeds=[1],
                    log_dir=tmp_path / name,
                    manual_seats=frozenset(range(6)),
                    sandbox=False,
                )
                match = Match(referee, plan)
                match.launch()
                matches.append(match)
            a, b = matches[0].manual, matches[1].manual
            seen: dict[str, Any] = {
                "paths": [Path(s.address.removeprefix("unix:")) for s in a + b],
                "modes": {Path(s.address[5:]).parent.stat().st_mode & 0o777 for s in a + b},
                "partner's token": await join_status(a[0].address, a[3].token),
                "other table's token": await join_status(a[0].address, b[0].token),
                "own token": await join_status(a[0].address, a[0].token),
                "partner's own": await join_status(a[3].address, a[3].token),
                "used": await join_status(a[0].address, a[0].token),
            }
            for match in matches:
                await match.shutdown()
            closing = time.monotonic() + 5.0  # seats close in the background
            while any(p.exists() for p in seen["paths"]) and time.monotonic() < closing:
                await asyncio.sleep(0.05)
            seen["left"] = [p for p in seen["paths"] if p.exists()]
            return seen

    seen = asyncio.run(scenario())
    paths = seen["paths"]
    assert len({p.parent for p in paths}) == 12  # a directory per seat
    assert seen["modes"] == {0o700}
    assert seen["partner's token"] is grpc.StatusCode.UNAUTHENTICATED
    assert seen["other table's token"] is grpc.StatusCode.UNAUTHENTICATED
    assert seen["own token"] == "joined"
    assert seen["partner's own"] == "joined"  # refused elsewhere, not used up
    assert seen["used"] is grpc.StatusCode.ALREADY_EXISTS
    assert seen["left"] == []  # a seat's socket ends with its match
