"""Standard input/output seats (``protocol = "stdio"``) with real processes: every hostile
case of docs/PROTOCOL.md (§5, §8) is the documented fault of that seat alone.

The ten misbehaving bots of the guide (invalid JSON, a 10 MB line, no newline, a wrong
request id, an illegal card, extra fields, binary bytes, 50 MB of stderr, closed stdout,
a sleep past the deadline) and two more ends (an exit, a crash before the join) are the
stdio test bot (``bots/stdio``, json and sys only) misbehaving as ``TEST_BOT_FAULT_<seat>``
says, one mode a seat, in two matches of six stdio seats, played once without the
sandbox and once inside it (where bubblewrap's own processes must not keep a pipe open):
a test each, checked in both. Other cases play the stdio bot at seat 0 against two
recorders over gRPC.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Protocol

import pytest

from arena.bots import BotSpecError, load_bot
from arena.bots.sandbox import sandbox_problem
from arena.referee.match import Match, MatchPlan, Referee
from arena.referee.policy import Fault, FaultKind
from arena.referee.result import GameResult
from arena.referee.trial import try_bot
from arena.seats.stdio import OVERSIZED, STDOUT_CLOSED

from .harness import (
    FAST,
    FAULT_MODES,
    TEST_BOTS,
    MatchRun,
    check_games,
    recorder,
    run_match,
)

SEAT = 0  # the misbehaving seat
# A join deadline a loaded machine keeps: these tests are about what comes after the join.
SETTINGS = replace(FAST, join_timeout_s=10)

# The two matches: one mode a seat ("" plays legally).
FIRST = ("malformed", "oversized", "no_newline", "wrong_request", "illegal", "extra_fields")
SECOND = ("binary", "stderr_flood", "close_stdout", "sleep", "exit", "crash")


def play_stdio_match(log_dir: Path, modes: tuple[str, ...], sandbox: bool) -> MatchRun:
    """One match of six stdio bots, seat s misbehaving as ``modes[s]``."""
    stdio = load_bot(TEST_BOTS / "stdio")
    assert stdio.stdio
    plan = MatchPlan(
        "stdio",
        (stdio, stdio, stdio),
        [1],
        log_dir,
        SETTINGS,
        sandbox=sandbox,
        pass_env=FAULT_MODES,
    )
    reports: list[GameResult] = []

    async def main() -> MatchRun:
        async with Referee() as referee:
            match = Match(referee, plan)
            table = await match.play(on_game=reports.append)
            return MatchRun(match, table, reports, log_dir)

    with pytest.MonkeyPatch.context() as patch:
        for seat, mode in enumerate(modes):
            patch.setenv(f"TEST_BOT_FAULT_{seat}", mode)
        run = asyncio.run(main())
    check_games(run)
    return run


class Misbehaving:
    """Both matches, played once (per sandbox mode) for every test of the module."""

    def __init__(self, root: Path, sandbox: bool) -> None:
        self.sandbox = sandbox
        self.runs = [
            play_stdio_match(root / name, modes, sandbox)
            for name, modes in (("first", FIRST), ("second", SECOND))
        ]

    def seat(self, mode: str) -> tuple[MatchRun, int]:
        for run, modes in zip(self.runs, (FIRST, SECOND), strict=True):
            if mode in modes:
                return run, modes.index(mode)
        raise KeyError(mode)

    def faults(self, mode: str) -> list[Fault]:
        run, seat = self.seat(mode)
        return run.faults_of(seat)


@pytest.fixture(scope="module", params=[False, True], ids=["unsandboxed", "sandboxed"])
def misbehaving(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Misbehaving]:
    sandbox = request.param
    if sandbox and (problem := sandbox_problem()) is not None:
        pytest.skip(f"no sandbox here: {problem}")
    yield Misbehaving(tmp_path_factory.mktemp("sandboxed" if sandbox else "unsandboxed"), sandbox)


def kinds_at(faults: list[Fault]) -> list[tuple[FaultKind, int]]:
    return [(f.kind, f.request_id) for f in faults]


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_invalid_json_is_malformed_and_its_words_are_whole(misbehaving: Misbehaving) -> None:
    (fault,) = misbehaving.faults("malformed")  # its own answer after it is the late one
    assert (fault.kind, fault.request_id, fault.sent) == (
        FaultKind.MALFORMED,
        3,
        "this is not json",
    )
    assert fault.reason == ("not a BotMessage in JSON (Expecting value: line 1 column 1 (char 0))")
    assert fault.fallback


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_10_mb_line_closes_the_seat_at_once(misbehaving: Misbehaving) -> None:
    (fault,) = misbehaving.faults("oversized")  # auto-played from then on: one fault
    assert (fault.kind, fault.request_id, fault.reason) == (FaultKind.CLOSED, 3, OVERSIZED)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_line_without_newline_is_a_timeout_then_judged_at_the_end_of_stdout(
    misbehaving: Misbehaving,
) -> None:
    """Request 3's answer never ends its line: a timeout, and never run together with the
    next answer. Request 6's also does not, and then stdout closes: it is read as the
    last line, so request 6 is answered, and the seat is closed before it is asked again."""
    faults = misbehaving.faults("no_newline")
    assert kinds_at(faults) == [(FaultKind.TIMEOUT, 3), (FaultKind.CLOSED, 0)]
    assert faults[1].reason == STDOUT_CLOSED


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_an_answer_to_the_wrong_request_is_a_wrong_request_fault(
    misbehaving: Misbehaving,
) -> None:
    faults = misbehaving.faults("wrong_request")
    assert faults and {f.kind for f in faults} == {FaultKind.WRONG_REQUEST}
    assert faults[0].reason == "answer to request 1001; the open request is 1"


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_an_illegal_card_is_illegal_citing_the_rule(misbehaving: Misbehaving) -> None:
    (fault,) = misbehaving.faults("illegal")
    assert fault.kind is FaultKind.ILLEGAL
    assert fault.reason.startswith("R7.") and fault.sent.startswith("play ")


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_field_the_contract_lacks_is_malformed(misbehaving: Misbehaving) -> None:
    (fault,) = misbehaving.faults("extra_fields")
    assert (fault.kind, fault.request_id) == (FaultKind.MALFORMED, 3)
    assert fault.reason == (
        'not a BotMessage in JSON (Message type "arena.v1.Answer" has no field named '
        '"colour" at "BotMessage.answer".)'
    )
    assert json.loads(fault.sent)["answer"]["colour"] == "red"


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_binary_bytes_are_malformed_and_kept_as_hex(misbehaving: Misbehaving) -> None:
    (fault,) = misbehaving.faults("binary")
    assert (fault.kind, fault.request_id) == (FaultKind.MALFORMED, 3)
    assert fault.reason == "a line that is not UTF-8 (kept as hex)"
    assert fault.sent == b"\xff\xfe\x00 not UTF-8 \x80".hex()


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_50_mb_of_stderr_go_to_a_capped_log_and_cost_no_fault(misbehaving: Misbehaving) -> None:
    run, seat = misbehaving.seat("stderr_flood")
    assert run.faults_of(seat) == []
    log = run.log_dir / f"seat{seat}.log"
    assert log.stat().st_size < 2 * 1024 * 1024
    assert log.read_text().endswith("[arena] log truncated at 1048576 bytes\n")


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_closing_stdout_is_closed_at_once(misbehaving: Misbehaving) -> None:
    """At the very next decision, in the sandbox too: no timeout first (docs/PROTOCOL.md §5)."""
    (fault,) = misbehaving.faults("close_stdout")
    assert (fault.kind, fault.request_id, fault.reason) == (FaultKind.CLOSED, 5, STDOUT_CLOSED)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_sleep_past_the_deadline_is_a_timeout(misbehaving: Misbehaving) -> None:
    """Request 3, and each request it is sent while it sleeps (its bank is empty by then):
    its late answers are the ones expected, no flood."""
    faults = misbehaving.faults("sleep")
    requests = [request for _, request in kinds_at(faults)]
    assert {f.kind for f in faults} == {FaultKind.TIMEOUT}
    assert requests == list(range(3, 3 + len(requests))) and len(requests) <= 6
    assert faults[0].reason == "no answer within 200 ms plus the bank"


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_stdio_bot_gets_no_address_and_no_token(misbehaving: Misbehaving) -> None:
    run, seat = misbehaving.seat("sleep")
    check_environment(run.log_dir / f"seat{seat}.log")


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_an_exit_is_closed_at_once(misbehaving: Misbehaving) -> None:
    (fault,) = misbehaving.faults("exit")
    assert (fault.kind, fault.request_id) == (FaultKind.CLOSED, 5)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_crash_before_the_join_is_named_by_its_status_its_words_and_its_log(
    misbehaving: Misbehaving,
) -> None:
    """As a gRPC bot's is: the exit status, the end of its stderr, the log's path."""
    run, seat = misbehaving.seat("crash")
    (fault,) = run.faults_of(seat)
    assert fault.kind is FaultKind.NO_JOIN
    assert fault.reason.startswith("its process exited with status 1 before it joined; ")
    assert "RuntimeError: the stdio test bot crashes before it joins" in fault.reason
    assert fault.reason.endswith(f"log: {run.log_dir / f'seat{seat}.log'}")


class StdioMatch(Protocol):
    def __call__(self, mode: str = "", seeds: tuple[int, ...] = (1,)) -> MatchRun: ...


@pytest.fixture
def stdio_match(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> StdioMatch:
    """Plays the stdio bot (seat 0 misbehaving as ``mode`` says) against two recorders,
    one game a seed, and checks the games were played."""

    def play(mode: str = "", seeds: tuple[int, ...] = (1,)) -> MatchRun:
        if mode:
            monkeypatch.setenv(f"TEST_BOT_FAULT_{SEAT}", mode)
        stdio = load_bot(TEST_BOTS / "stdio")
        assert stdio.stdio
        entrants = [stdio, recorder(), recorder()]
        run = run_match(entrants, tmp_path / "logs", seeds=seeds, settings=SETTINGS, seed=seeds[0])
        check_games(run, games=len(seeds))
        return run

    return play


def only_seat_faulted(run: MatchRun, *kinds: FaultKind) -> None:
    """Every fault is the misbehaving seat's, and of ``kinds``; it made at least one."""
    assert all(f.seat == SEAT for f in run.faults), run.faults
    assert run.faults, "the misbehaving seat made no fault"
    assert {f.kind for f in run.faults} <= set(kinds), run.faults


def check_environment(log: Path) -> None:
    """The stdio bot's log (its stderr) says it got ARENA_PROTOCOL=stdio and no address
    nor token (the bot writes the names of its ARENA_ variables first)."""
    (line,) = [line for line in log.read_text().splitlines() if line.startswith("env: ")]
    names = set(line.removeprefix("env: ").split())
    assert "ARENA_PROTOCOL=stdio" in names and {"ARENA_SEAT", "ARENA_SEED"} <= names
    assert not names & {"ARENA_ADDRESS", "ARENA_TOKEN"}


def received(run: MatchRun, seat: int) -> list[dict[str, object]]:
    lines = (run.seat_dir(seat) / "received.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_stdio_bot_plays_a_match_against_grpc_seats_with_no_fault(
    stdio_match: StdioMatch,
) -> None:
    run = stdio_match(seeds=(1, 2))
    assert run.faults == []
    assert run.match.lingering == []  # it exited by itself when its stdin closed
    check_environment(run.log_dir / f"seat{SEAT}.log")
    for seat in (0, 3):
        assert all(report.seats[seat].decisions > 0 for report in run.reports)
        messages = received(run, seat)
        assert set(messages[0]) == {"welcome", "events"}
        assert messages[0]["welcome"]["seat"] == seat  # type: ignore[index]
        assert messages[-1] == {"matchOver": {"reason": "finished"}, "events": []}
        requests = [m["request"] for m in messages if "request" in m]
        # Every field present, zeros and empty lists too; a uint64 is a JSON string.
        assert [r["id"] for r in requests] == [str(i) for i in range(1, len(requests) + 1)]  # type: ignore[index]
        assert {"id", "kind", "view", "legal", "timeMs", "bankMs"} == set(requests[0])  # type: ignore[arg-type]
        assert set(requests[0]["legal"]) == {"bids", "suits", "cards"}  # type: ignore[index]


@pytest.mark.timeout(120)
def test_an_answer_before_its_request_is_taken_as_its_answer(stdio_match: StdioMatch) -> None:
    run = stdio_match("early")
    assert run.faults == []


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_a_bot_that_never_reads_does_not_block_the_referee(stdio_match: StdioMatch) -> None:
    run = stdio_match("deaf")
    only_seat_faulted(run, FaultKind.TIMEOUT, FaultKind.STALLED)
    # Each request times out until the pipe is full; then the seat is stalled, and
    # auto-played for the rest of the match.
    kinds = [f.kind for f in run.faults]
    assert kinds[-1] is FaultKind.STALLED and kinds.count(FaultKind.STALLED) == 1
    assert run.faults[-1].reason.startswith(("the bot does not read", "could not deliver"))


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_stderr_goes_to_the_log_and_is_never_read_as_a_message(stdio_match: StdioMatch) -> None:
    run = stdio_match("stderr")
    assert run.faults == []
    log = (run.log_dir / f"seat{SEAT}.log").read_text(errors="replace")
    assert 'junk {"answer": {"requestId": "1", "bid": 6}}' in log


@pytest.mark.timeout(120)
def test_the_protos_field_names_and_numeric_ids_are_read_too(stdio_match: StdioMatch) -> None:
    run = stdio_match("snake")
    assert run.faults == []


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_first_line_that_is_not_a_join_is_a_no_join_fault(stdio_match: StdioMatch) -> None:
    run = stdio_match("bad_join")
    only_seat_faulted(run, FaultKind.NO_JOIN)
    (fault,) = run.faults
    assert fault.reason.startswith("its first line is not a join: ")


def test_the_manifest_names_a_protocol_it_does_not_know(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text('name = "x"\ncommand = ["./x"]\nprotocol = "udp"\n')
    with pytest.raises(BotSpecError, match="'protocol' must be \"grpc\" or \"stdio\", not 'udp'"):
        load_bot(tmp_path)
    (tmp_path / "bot.toml").write_text('name = "x"\ncommand = ["./x"]\n')
    assert load_bot(tmp_path).protocol == "grpc"


@pytest.mark.timeout(120)
def test_arena_try_puts_its_requests_to_a_stdio_bot(tmp_path: Path) -> None:
    result = try_bot(load_bot(TEST_BOTS / "stdio"), tmp_path / "try", requests=8, sandbox=False)
    assert result.joined and result.bot_name == "stdio"
    assert len(result.exchanges) == 8 and result.faults == []
    assert result.exited_cleanly
