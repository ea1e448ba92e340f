"""The zoo: every misbehaving bot in a real match, beside a good match on the same referee.

For each bot of ``bots/`` (see ``bots/zoolib.py``) a match of it (team 0, seats 0 and 3)
against the sample bots ``random`` and ``greedy`` is played while a second, all-good match
runs on the same ``Referee``; then the referee plays a third, good match. Every time:
the fault the bot earned is recorded with its reason (and told, where the bot can still
hear), the good seats and the good table are charged with nothing, every game finishes
and replays, the logs stay within their cap, and no process of the bot is left alive.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import signal
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from referee.test_faults import check_faulted

from arena.referee.match import Match
from arena.referee.policy import FaultKind
from arena.referee.table import TableSettings

from .helpers import (
    FAST,
    LOG_CAP,
    ZOO,
    ZOO_SEATS,
    Alongside,
    Scenario,
    check_common,
    notes,
    run_scenario,
)

# The zoo bot's stolen tokens: another seat of its own match, a seat of the match beside it.
STOLEN = ("this match, seat 1", "the other match, seat 0", "junk")


async def hand_over_tokens(hostile: Match, good: Match) -> None:
    """Once every seat of both matches has joined, give the thief their tokens."""
    links = hostile.links + good.links
    while not all(link.joined.is_set() for link in links):
        await asyncio.sleep(0.02)
    tokens = dict(zip(STOLEN, (hostile.links[1].token, good.links[0].token, "junk"), strict=True))
    (hostile.plan.log_dir / "stolen_tokens.json").write_text(json.dumps(tokens))


# --- what each zoo bot must earn ----------------------------------------------------------


def told(kind: FaultKind, reason: str = "") -> Callable[[Scenario], None]:
    """Faults of ``kind`` at every decision concerned, each told and replaced by the fallback."""

    def check(s: Scenario) -> None:
        check_faulted(s.zoo, ZOO_SEATS, kind, reason)

    return check


def exit_at_start(s: Scenario) -> None:
    assert sorted((f.seat, f.kind) for f in s.zoo.faults) == [
        (0, FaultKind.NO_JOIN),
        (3, FaultKind.NO_JOIN),
    ]
    for seat in ZOO_SEATS:
        process = s.zoo.match.processes[seat]
        assert process is not None and process.returncode == 3
        assert s.zoo.reports[0].seats[seat].decisions == 0
        assert "leaving at once" in (s.zoo.log_dir / f"seat{seat}.log").read_text()
    # A process that dies is not waited for until the join deadline.
    assert s.zoo.table.join_wait_seconds < FAST.join_timeout_s


def closed_once(
    requests: int | None = None, returncode: int | None = None
) -> Callable[[Scenario], None]:
    """One ``closed`` fault per seat (nobody left to tell), then auto-play to the end."""

    def check(s: Scenario) -> None:
        for seat in ZOO_SEATS:
            (fault,) = s.zoo.faults_of(seat)
            assert fault.kind is FaultKind.CLOSED
            assert fault.reason == "the stream closed or the process died"
            assert s.zoo.notices(seat) == []
            if requests is not None:
                assert [r.id for r in s.zoo.requests(seat)] == list(range(1, requests + 1))
            process = s.zoo.match.processes[seat]
            assert process is not None
            if returncode is not None:
                assert process.returncode == returncode
            else:
                assert process.returncode not in (0, None)

    return check


def timeouts(s: Scenario) -> None:
    """Every decision is a timeout: the first after decision time plus bank, then the bank
    is empty; the late answers that come after are dropped, not charged again."""
    faulted = check_faulted(s.zoo, ZOO_SEATS, FaultKind.TIMEOUT, "no answer within 200 ms")
    for seat in ZOO_SEATS:
        requests = s.zoo.requests(seat)
        assert len(s.zoo.faults_of(seat)) == len(requests) == s.zoo.reports[0].seats[seat].decisions
        assert requests[0].bank_ms == FAST.overage_ms
        assert all(r.bank_ms == 0 for r in requests[1:])
    assert len(faulted) == len(s.zoo.faults)


DELIVERY_GRACE_MS = 30


def bank_drainer(s: Scenario) -> None:
    """Overdrawing the decision time only drains the bank; within the bank it is no fault."""
    assert s.zoo_faults() == []
    for seat in ZOO_SEATS:
        drawn = [n for n in notes(s.zoo, seat) if "bank_ms" in n]
        banks = [n["bank_ms"] for n in drawn]
        assert banks[0] == FAST.overage_ms
        assert banks == sorted(banks, reverse=True)  # never refilled within the game
        overdrawn = [n for n in drawn if n["over"] > 0]
        # The bot overdraws while its bank holds 120 ms or more. On a busy machine the
        # referee may see the first answer late enough to charge the bank below that at
        # once (the clock is the referee's); otherwise the bank is drawn on more than once.
        assert overdrawn and (len(overdrawn) >= 2 or drawn[1]["bank_ms"] < 120), drawn
        for before, after in itertools.pairwise(drawn):
            # The referee charges what the bot overdrew. Its clock starts when delivery of
            # the request completes, which on a busy machine can be a few milliseconds
            # after the bot already has it; that gap is the bot's to keep.
            charged = before["bank_ms"] - after["bank_ms"]
            assert charged >= before["over"] - DELIVERY_GRACE_MS, drawn
        assert banks[-1] < 120  # drawn down until the bot stopped overdrawing
        slowest = (FAST.decision_ms + 80 - DELIVERY_GRACE_MS) / 1000  # the same gap, as above
        assert s.zoo.reports[0].seats[seat].decision_seconds_max >= slowest


def wrong_phase(s: Scenario) -> None:
    told(FaultKind.WRONG_KIND, "a ")(s)
    reasons = {f.reason for f in s.zoo.faults}
    assert "a bid decision was asked, but the answer sets 'card'" in reasons
    assert "a play decision was asked, but the answer sets 'discard'" in reasons


def malformed(s: Scenario) -> None:
    told(FaultKind.MALFORMED)(s)
    reasons = {f.reason.split(" (")[0] for f in s.zoo.faults}
    assert reasons == {
        "not a BotMessage",
        "expected an Answer, got None",
        "the answer sets no choice",
    }


def oversized(s: Scenario) -> None:
    """The transport refuses a message over 64 KiB: the stream is gone, the seat auto-played."""
    closed_once(requests=3)(s)
    for seat in ZOO_SEATS:
        seen = notes(s.zoo, seat)
        (size,) = [n["oversized"] for n in seen if "oversized" in n]
        assert size > 100_000
        (error,) = [n for n in seen if "error" in n]
        assert error["error"] == "RESOURCE_EXHAUSTED"
        assert f"Received message larger than max ({size} vs. 65536)" in error["details"]


def no_faults(s: Scenario) -> None:
    assert s.zoo.faults == []
    for seat in ZOO_SEATS:
        assert s.zoo.reports[0].seats[seat].decisions == len(s.zoo.answers(seat)) > 0


def stolen_token(s: Scenario) -> None:
    no_faults(s)
    for seat in ZOO_SEATS:
        tried = {n["join"]: n["status"] for n in notes(s.zoo, seat) if "join" in n}
        # The bot's socket is its seat's: any other token is unknown there.
        assert tried == {
            "this match, seat 1": "UNAUTHENTICATED",
            "the other match, seat 0": "UNAUTHENTICATED",
            "junk": "UNAUTHENTICATED",
        }


def token_reuse(s: Scenario) -> None:
    no_faults(s)
    for seat in ZOO_SEATS:
        tried = {n["reuse"]: n["status"] for n in notes(s.zoo, seat) if "reuse" in n}
        assert tried["during"] == "ALREADY_EXISTS"
        # After the match its seat's socket closes: refused, or no longer there.
        assert tried["after"] in ("ALREADY_EXISTS", "UNAVAILABLE"), tried
        assert set(tried) == {"during", "after"}


def double_join(s: Scenario) -> None:
    faulted = check_faulted(s.zoo, ZOO_SEATS, FaultKind.MALFORMED, "expected an Answer, got join")
    assert [f.request.id for f in faulted] == [1, 1]
    for seat in ZOO_SEATS:  # the answer sent after the join was dropped as late
        assert s.zoo.reports[0].seats[seat].faults == 1


def many_streams(s: Scenario) -> None:
    no_faults(s)
    for seat in ZOO_SEATS:
        seen = notes(s.zoo, seat)
        (junk,) = [n["junk"] for n in seen if "junk" in n]
        assert junk == ["UNAUTHENTICATED"] * 50
        silent = [n["silent"] for n in seen if "silent" in n]
        # Refused at the join timeout, or ended with the match if that came first (a
        # seat's socket closes with its match).
        assert len(silent) == 10 and set(silent) <= {"DEADLINE_EXCEEDED", "UNAVAILABLE"}


def output_flood(s: Scenario) -> None:
    no_faults(s)
    for seat in ZOO_SEATS:
        assert {"flooded": 40 * 1024 * 1024} in notes(s.zoo, seat)
        log = (s.zoo.log_dir / f"seat{seat}.log").read_bytes()
        assert log.endswith(f"[arena] log truncated at {LOG_CAP} bytes\n".encode())


def memory_hog(s: Scenario) -> None:
    for seat in ZOO_SEATS:
        assert {"hog": "allocating"} in notes(s.zoo, seat)
        process = s.zoo.match.processes[seat]
        assert process is not None
        if process.cgroup is not None and process.cgroup.limits_memory:
            # The bot's memory cgroup: the kernel kills the bot (OOM) at the limit. Filling
            # 512 MiB, as the kernel first reclaims the bot's page cache, may outlast a few
            # 200 ms decisions: timeouts may come first.
            *before, last = [f.kind for f in s.zoo.faults_of(seat)]
            assert last is FaultKind.CLOSED and set(before) <= {FaultKind.TIMEOUT}, before
            assert process.returncode == -signal.SIGKILL
            assert process.oom_kills >= 1
        else:  # RLIMIT_AS: the allocation fails
            closed_once(requests=3, returncode=1)(s)
            assert "MemoryError" in (s.zoo.log_dir / f"seat{seat}.log").read_text()


def lingering_children(s: Scenario) -> None:
    closed_once(requests=3, returncode=4)(s)
    for seat in ZOO_SEATS:
        (children,) = [n["children"] for n in notes(s.zoo, seat) if "children" in n]
        assert len(children) == 3  # and none of them (nor their own children) is left


def sigterm_ignorer(s: Scenario) -> None:
    no_faults(s)
    assert s.zoo.match.lingering == list(ZOO_SEATS)  # still there after the match
    for seat in ZOO_SEATS:
        seen = notes(s.zoo, seat)
        assert {"ignoring": "SIGTERM"} in seen
        process = s.zoo.match.processes[seat]
        assert process is not None and process.returncode == -signal.SIGKILL


def escaping_child(s: Scenario) -> None:
    """The child left the bot's process group; it must still not outlive the match
    (``Match``: "makes sure no process outlives it"). ``check_common`` looks for it."""
    no_faults(s)
    for seat in ZOO_SEATS:
        assert [n for n in notes(s.zoo, seat) if "escaped" in n]


def message_flood(s: Scenario) -> None:
    """300 copies of an answer, sent at once after it: a ``flood`` fault, told — for what
    overflows the inbox, and for the copies read while a later decision is open."""
    reasons = ("unrequested messages were dropped", "answers to requests already answered")
    for seat in ZOO_SEATS:
        floods = s.zoo.faults_of(seat, FaultKind.FLOOD)
        assert floods, f"seat {seat}: 300 unasked-for messages and no flood fault"
        assert all(f.reason.endswith(reasons) for f in floods), floods
        told_ = [n for n in s.zoo.notices(seat) if n.kind == "flood"]
        assert [n.reason for n in told_] == [f.reason for f in floods]
    # Its own answers may come late behind the flood; nothing else is its fault.
    assert {f.kind for f in s.zoo.faults} <= {FaultKind.FLOOD, FaultKind.TIMEOUT}


def stale_flood(s: Scenario) -> None:
    """docs/PROTOCOL.md (2. The stream): "Send nothing else: messages that nobody asked for
    count as a flood." 50 copies of an answer already taken, at every decision, are such
    messages: the seat must be charged with ``flood`` (and told), not let off because they
    arrive while its next decision is open."""
    for seat in ZOO_SEATS:
        decisions = s.zoo.reports[0].seats[seat].decisions
        assert decisions > 1
        unasked = 50 * (decisions - 1)
        floods = s.zoo.faults_of(seat, FaultKind.FLOOD)
        assert floods, f"seat {seat} sent {unasked} messages nobody asked for: no flood fault"
        told_ = [n for n in s.zoo.notices(seat) if n.kind == "flood"]
        assert [n.reason for n in told_] == [f.reason for f in floods]
    assert {f.kind for f in s.zoo.faults} == {FaultKind.FLOOD}


@dataclass(frozen=True)
class Expect:
    check: Callable[[Scenario], None]
    settings: TableSettings = FAST
    alongside: Alongside | None = None


# Games of bots that never answer in time are cut to a few deals (R9.4's draw limit).
SHORT = replace(FAST, draw_limit=3)

EXPECT: dict[str, Expect] = {
    "exit_at_start": Expect(exit_at_start),
    "crash_mid_deal": Expect(closed_once(requests=5, returncode=3)),
    "never_answers": Expect(timeouts, SHORT),
    "late_answers": Expect(timeouts, SHORT),
    "bank_drainer": Expect(bank_drainer),
    "card_not_held": Expect(told(FaultKind.ILLEGAL, "R7.2: seat")),
    "trump_discard": Expect(told(FaultKind.ILLEGAL, "R5.2: may not discard a trump")),
    "low_bid": Expect(told(FaultKind.ILLEGAL, "R4.2: a bid must be higher")),
    "wrong_request": Expect(told(FaultKind.WRONG_REQUEST, "answer to request ")),
    "wrong_phase": Expect(wrong_phase),
    "malformed": Expect(malformed),
    "oversized": Expect(oversized),
    "stolen_token": Expect(stolen_token, alongside=hand_over_tokens),
    "token_reuse": Expect(token_reuse),
    "double_join": Expect(double_join),
    "many_streams": Expect(many_streams),
    "output_flood": Expect(output_flood),
    "memory_hog": Expect(memory_hog),
    "lingering_children": Expect(lingering_children),
    "sigterm_ignorer": Expect(sigterm_ignorer),
    "message_flood": Expect(message_flood),
    "escaping_child": Expect(escaping_child),
    "stale_flood": Expect(stale_flood),
}


def test_every_zoo_bot_has_a_test() -> None:
    assert sorted(p.name for p in ZOO.iterdir() if (p / "bot.toml").exists()) == sorted(EXPECT)


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", list(EXPECT))
def test_hostile_bot(name: str, tmp_path: Path) -> None:
    expect = EXPECT[name]
    scenario = run_scenario(name, tmp_path, expect.settings, expect.alongside)
    check_common(scenario)
    expect.check(scenario)
    for item in scenario.zoo_faults():
        assert item.reason, item  # every fault says why
