"""Fuzzing the referee's message handling: whatever a bot sends, a fault or a move, never a crash.

One long-lived match runs in a background thread: seats 1-5 are good SDK bots in that
thread, seat 0 is a raw stream whose answers the test writes. Each hypothesis example
waits for seat 0's next decision request and sends, as the answer to it, either
arbitrary bytes (after the valid join) or a well-formed but wrong ``BotMessage`` built
from the request (random request ids, any of the answer's choices or none, card texts,
bid numbers, suits, discards, extra joins). A model of the contract says what each one
must be: a legal move (no fault), an answer to an old request (dropped, so a legal
answer follows it), or a fault of a given kind, recorded for seat 0 and told in a
``Notice`` that names the fallback. At the end the match is played out, every game
replays, and the same referee plays a good match.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf.message import DecodeError
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from referee.harness import MatchRun, check_games, join_message, open_stream

from arena.engine import Card, MalformedActionError
from arena.referee.match import Match, MatchPlan, Referee
from arena.referee.policy import Fault, FaultKind
from arena.referee.result import GameResult
from arena.referee.table import Table, TableSettings
from arena.sdk.bot import play_stream
from arena.v1 import arena_pb2 as pb
from arena.wire.protocol import CARD_TEXTS

from .helpers import TALLY, Steady, play_in_process, sample

# Slow: every test fuzzes one match of real bot processes, played for the module.
pytestmark = pytest.mark.slow

# Long decision times: the fuzzing seat answers at once, but hypothesis may pause between
# examples, and a timeout would be a fault the model did not predict.
SETTINGS = TableSettings(decision_ms=10_000, overage_ms=1_000, join_timeout_s=5)
GAMES = 12  # more decisions for seat 0 than the examples need; the rest is played out
WAIT_S = 15.0
DROP = "dropped"  # an answer to an earlier request: the referee ignores it

FIELD = {
    pb.DECISION_KIND_BID: "bid",
    pb.DECISION_KIND_TRUMP: "trump",
    pb.DECISION_KIND_DISCARD: "discard",
    pb.DECISION_KIND_PLAY: "card",
}


# --- the seat the test plays -------------------------------------------------------------


class FuzzSeat:
    """Seat 0 as a raw stream: requests and notices go to the test thread, which answers."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.inbox: queue.Queue[pb.RefereeMessage] = queue.Queue()
        self.autopilot = False
        self.call: Any = None

    async def serve(self, address: str, token: str) -> str:
        async with grpc.aio.insecure_channel(address) as channel:
            self.call = await open_stream(channel, join_message(token))
            while True:
                raw = await self.call.read()
                if raw is grpc.aio.EOF:
                    return "eof"
                message = pb.RefereeMessage.FromString(raw)
                body = message.WhichOneof("body")
                if body == "request" and self.autopilot:
                    await self.call.write(legal_answer(message.request))
                elif body in ("request", "notice", "match_over"):
                    self.inbox.put(message)
                if body == "match_over":
                    await self.call.done_writing()

    async def _write(self, raws: list[bytes]) -> None:
        for raw in raws:
            await self.call.write(raw)

    def send(self, raws: list[bytes]) -> None:
        """From the test thread: write ``raws`` on the stream, in order."""
        asyncio.run_coroutine_threadsafe(self._write(raws), self.loop).result(WAIT_S)

    def next(self) -> pb.RefereeMessage:
        """From the test thread: the next request, notice or end of the match."""
        return self.inbox.get(timeout=WAIT_S)

    async def _take_over(self) -> None:
        self.autopilot = True
        while not self.inbox.empty():
            message = self.inbox.get_nowait()
            if message.WhichOneof("body") == "request":
                await self.call.write(legal_answer(message.request))

    def take_over(self) -> None:
        """Play legally from now on, including the request the test has not taken."""
        asyncio.run_coroutine_threadsafe(self._take_over(), self.loop).result(WAIT_S)


def legal_answer(request: pb.DecisionRequest) -> bytes:
    legal = request.legal
    answer = pb.Answer(request_id=request.id)
    if request.kind == pb.DECISION_KIND_BID:
        answer.bid = legal.bids[0]
    elif request.kind == pb.DECISION_KIND_TRUMP:
        answer.trump = legal.suits[0]
    elif request.kind == pb.DECISION_KIND_PLAY:
        answer.card = legal.cards[0]
    else:
        rule = legal.discard
        spare = [c for c in rule.may if c not in rule.must]
        answer.discard.cards.extend([*rule.must, *spare[: rule.min_count - len(rule.must)]])
    return pb.BotMessage(answer=answer).SerializeToString()


@dataclass
class FuzzMatch:
    """The long-lived match, and what the examples expected of it."""

    loop: asyncio.AbstractEventLoop
    referee: Referee
    match: Match
    seat: FuzzSeat
    playing: Any  # concurrent future of the match and its players
    reports: list[GameResult]
    log_dir: Path
    pending: pb.DecisionRequest | None = None
    expected: dict[str, int] = field(default_factory=dict)  # fault kind -> examples
    examples: int = 0

    def run(self, coroutine: Any, timeout: float = 130.0) -> Any:
        """Run ``coroutine`` on the match's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    async def _played_out(self) -> list[Any]:
        return await asyncio.wait_for(asyncio.shield(self.playing), 120)  # type: ignore[no-any-return]

    def play_out(self) -> list[Any]:
        """Seat 0 plays legally until the match is over: the table and the players' ends."""
        if self.pending is not None:  # taken from the inbox, not yet answered
            self.seat.send([legal_answer(self.pending)])
            self.pending = None
        self.seat.take_over()
        return self.run(self._played_out())  # type: ignore[no-any-return]

    @property
    def table(self) -> Table:
        assert self.match.table is not None
        return self.match.table

    def request(self) -> pb.DecisionRequest:
        """Seat 0's open decision request."""
        if self.pending is None:
            message = self.seat.next()
            while message.WhichOneof("body") == "notice":
                message = self.seat.next()
            assert message.WhichOneof("body") == "request", f"the match ran out: {message}"
            self.pending = message.request
        return self.pending

    def faults(self) -> list[Fault]:
        return list(self.table.faults)

    def exchange(self, raws: list[bytes], expected: str | FaultKind | None) -> None:
        """Send ``raws`` for the open request; check the referee did what the model says."""
        request = self.request()
        before = len(self.table.faults)
        self.seat.send(raws)
        self.pending = None
        self.examples += 1
        label = expected.value if isinstance(expected, FaultKind) else "move"
        self.expected[label] = self.expected.get(label, 0) + 1
        reply = self.seat.next()
        body = reply.WhichOneof("body")
        if body == "request":
            self.pending = reply.request
        if expected in (None, DROP):
            assert body in ("request", "match_over"), (raws, reply)
            assert len(self.table.faults) == before, (raws, self.table.faults[before:])
            return
        assert isinstance(expected, FaultKind)
        assert body == "notice", (raws, expected, reply)
        (fault,) = self.table.faults[before:]
        notice = reply.notice
        assert (fault.seat, fault.kind) == (0, expected), (raws, fault)
        assert fault.reason and fault.fallback, fault
        assert (notice.kind, notice.reason, notice.fallback) == (
            fault.kind.value,
            fault.reason,
            fault.fallback,
        )
        assert notice.request_id == request.id


@pytest.fixture(scope="module")
def fuzz(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FuzzMatch]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="fuzz-referee", daemon=True)
    thread.start()
    log_dir = tmp_path_factory.mktemp("fuzz")
    reports: list[GameResult] = []

    def run(coroutine: Any, timeout: float = 60.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, loop).result(timeout)

    async def start() -> FuzzMatch:
        referee = Referee(join_timeout=SETTINGS.join_timeout_s)
        await referee.start()
        spec = sample("random")
        plan = MatchPlan(
            match_id="fuzz",
            entrants=(spec, spec, spec),
            seeds=list(range(100, 100 + GAMES)),
            log_dir=log_dir / "match",
            settings=SETTINGS,
            manual_seats=frozenset(range(6)),
            sandbox=False,
        )
        match = Match(referee, plan)
        match.launch()
        seat = FuzzSeat(loop)
        players = [seat.serve(match.manual[0].address, match.manual[0].token)]
        players += [
            play_stream(Steady(f"fuzz:{m.seat}"), m.address, m.token) for m in match.manual[1:]
        ]
        playing = asyncio.ensure_future(
            asyncio.gather(match.play(on_game=reports.append), *players)
        )
        return FuzzMatch(loop, referee, match, seat, playing, reports, plan.log_dir)

    state: FuzzMatch = run(start())
    try:
        yield state
    finally:
        if not state.playing.done():
            state.play_out()
        run(state.referee.stop())
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


# --- the model: what the referee must make of a message ----------------------------------


def canonical_or_skip(text: str) -> bool:
    """Whether ``text`` is a card's exact text; texts the referee reads leniently ("jh",
    "10H") are left to ``test_card_texts_must_be_exact`` and skipped here."""
    if text in CARD_TEXTS:
        return True
    try:
        Card.parse(text)
    except MalformedActionError:
        return False
    assume(False)
    return False


def model(raw: bytes, request: pb.DecisionRequest) -> str | FaultKind | None:
    """None for a legal move, DROP for an old answer, else the fault's kind."""
    try:
        message = pb.BotMessage.FromString(raw)
    except DecodeError:
        return FaultKind.MALFORMED
    if message.WhichOneof("body") != "answer":
        return FaultKind.MALFORMED  # a join, or nothing
    answer = message.answer
    if answer.request_id != request.id:
        return DROP if 0 < answer.request_id < request.id else FaultKind.WRONG_REQUEST
    choice = answer.WhichOneof("choice")
    if choice is None:
        return FaultKind.MALFORMED
    if choice != FIELD[request.kind]:
        return FaultKind.WRONG_KIND
    legal = request.legal
    if choice == "bid":
        return None if answer.bid in legal.bids else FaultKind.ILLEGAL
    if choice == "trump":
        if answer.trump not in (pb.SUIT_CLUBS, pb.SUIT_DIAMONDS, pb.SUIT_HEARTS, pb.SUIT_SPADES):
            return FaultKind.MALFORMED
        return None if answer.trump in legal.suits else FaultKind.ILLEGAL
    if choice == "card":
        if not canonical_or_skip(answer.card):
            return FaultKind.MALFORMED
        return None if answer.card in legal.cards else FaultKind.ILLEGAL
    cards = list(answer.discard.cards)
    if not all(canonical_or_skip(c) for c in cards) or len(set(cards)) < len(cards):
        return FaultKind.MALFORMED  # not a card, or a card twice
    rule, chosen = legal.discard, set(cards)
    fits = set(rule.must) <= chosen <= set(rule.may)
    return None if fits and rule.min_count <= len(chosen) <= rule.max_count else FaultKind.ILLEGAL


def play_example(fuzz: FuzzMatch, raw: bytes) -> None:
    request = fuzz.request()
    expected = model(raw, request)
    raws = [raw, legal_answer(request)] if expected == DROP else [raw]
    fuzz.exchange(raws, expected)


# --- strategies --------------------------------------------------------------------------
#
# Hypothesis needs data generation that does not depend on anything outside it, so the
# strategies draw recipes (indices, choices of a kind) and ``build`` turns a recipe into a
# message for the request at hand. Weights come from repeated items in ``sampled_from``.

Recipe = tuple[Any, ...]
FIXED_TEXTS = ("", "JK", "XX", "1C", "KZ", "JKK", "\x00", "é")

card_recipes: st.SearchStrategy[Recipe] = st.one_of(
    st.tuples(st.just("pool"), st.integers(0, 3), st.integers(0, 63)),
    st.tuples(st.just("text"), st.text(max_size=4)),
    st.tuples(st.just("text"), st.sampled_from(FIXED_TEXTS)),
)
request_id_recipes: st.SearchStrategy[Recipe] = st.tuples(
    st.sampled_from(["open"] * 12 + ["-1", "+1", "+1000", "zero", "max", "any"]),
    st.integers(0, 2**64 - 1),
)
choice_recipes: st.SearchStrategy[Recipe] = st.tuples(
    st.sampled_from(["fit"] * 8 + ["none", "bid", "trump", "card", "discard", "near_discard"]),
    st.integers(0, 7),  # an index into the legal bids, or a small amount or suit
    st.one_of(st.integers(0, 2**32 - 1), st.integers(-(2**31), 2**31 - 1)),
    st.lists(st.integers(0, 30), max_size=12),  # a discard: indices into ``may``
    st.lists(card_recipes, max_size=12),  # a discard of any texts
    card_recipes,
)
message_recipes: st.SearchStrategy[Recipe] = st.tuples(
    st.sampled_from(["answer"] * 10 + ["join", "empty"]),
    request_id_recipes,
    choice_recipes,
    st.one_of(st.just(None), st.text(max_size=30)),  # a join's token; None: the seat's own
    st.text(max_size=70),  # a join's bot name
    st.integers(0, 3),  # a join's protocol version
)
byte_recipes: st.SearchStrategy[Recipe] = st.one_of(
    st.tuples(st.just("bytes"), st.binary(max_size=80)),
    st.tuples(st.just("mutant"), st.integers(0, 40), st.binary(max_size=6), st.integers(0, 4)),
)


def card_text(recipe: Recipe, request: pb.DecisionRequest) -> str:
    if recipe[0] == "text":
        return str(recipe[1])
    view, legal = request.view, request.legal
    pools = [CARD_TEXTS, view.hand, legal.cards, legal.discard.may]
    pool = list(pools[recipe[1]]) or list(CARD_TEXTS)
    return pool[recipe[2] % len(pool)]


def build(recipe: Recipe, request: pb.DecisionRequest, token: str) -> pb.BotMessage:
    body, (rid_kind, any_id), choice_recipe, join_token, name, version = recipe
    if body == "empty":
        return pb.BotMessage()
    if body == "join":
        join = pb.Join(
            token=token if join_token is None else join_token,
            bot_name=name,
            protocol_version=version,
        )
        return pb.BotMessage(join=join)
    rid = {
        "open": request.id,
        "-1": request.id - 1,  # an earlier request (0 for the first: a wrong one)
        "+1": request.id + 1,
        "+1000": request.id + 1000,
        "zero": 0,
        "max": 2**64 - 1,
        "any": any_id,
    }[rid_kind]
    answer = pb.Answer(request_id=rid)
    legal = request.legal
    choice, small, number, indices, texts, card = choice_recipe
    if choice == "fit":  # the field asked for, with a value that is legal or nearly so
        choice = {
            pb.DECISION_KIND_BID: "legal_bid" if small < 5 else "bid",
            pb.DECISION_KIND_TRUMP: "trump",
            pb.DECISION_KIND_DISCARD: "near_discard",
            pb.DECISION_KIND_PLAY: "card",
        }[request.kind]
        number = small if choice == "bid" else small % 6
    if choice == "legal_bid":
        bids = list(legal.bids) or [0]
        answer.bid = bids[small % len(bids)]
    elif choice == "bid":
        answer.bid = number % 2**32
    elif choice == "trump":
        answer.trump = number
    elif choice == "card":
        answer.card = card_text(card, request)
    elif choice == "discard":
        answer.discard.cards.extend(card_text(r, request) for r in texts)
    elif choice == "near_discard":
        # ``must`` and some of ``may``: legal exactly when the count fits.
        may, must = list(legal.discard.may) or ["2C"], list(legal.discard.must)
        extra = [may[i % len(may)] for i in indices]
        answer.discard.cards.extend(dict.fromkeys([*must, *extra]))
    return pb.BotMessage(answer=answer)


def build_bytes(recipe: Recipe, request: pb.DecisionRequest) -> bytes:
    """Arbitrary bytes, or a legal answer's bytes with some changed, cut or added."""
    if recipe[0] == "bytes":
        return bytes(recipe[1])
    _, at, new, cut = recipe
    good = legal_answer(request)
    at %= len(good) + 1
    return good[:at] + new + good[at + cut :]


# --- the tests ---------------------------------------------------------------------------

FUZZ = settings(
    max_examples=75,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)


@pytest.mark.timeout(180)
@FUZZ
@given(data=st.data())
def test_arbitrary_bytes_as_answers(fuzz: FuzzMatch, data: st.DataObject) -> None:
    recipe = data.draw(byte_recipes, label="bytes")
    play_example(fuzz, build_bytes(recipe, fuzz.request()))


@pytest.mark.timeout(180)
@FUZZ
@given(data=st.data())
def test_wrong_messages_as_answers(fuzz: FuzzMatch, data: st.DataObject) -> None:
    recipe = data.draw(message_recipes, label="message")
    message = build(recipe, fuzz.request(), fuzz.match.manual[0].token)
    play_example(fuzz, message.SerializeToString())


@pytest.mark.timeout(60)
def test_card_texts_must_be_exact(fuzz: FuzzMatch) -> None:
    """A card is its exact two-character text: "2C", never "2c" or " 2C ".

    proto/arena/v1/arena.proto: "Cards are two-character strings: rank 2-9, T, J, Q, K, A,
    then suit C, D, H, S"; docs/PROTOCOL.md: a card string that is not a card is
    ``malformed``; ``arena.wire.protocol.parse_cards``: "exact canonical text only".
    """
    seen = {}
    for name, variant in (("lower case", str.lower), ("padded", lambda t: f" {t} ")):
        request = fuzz.request()
        while request.kind != pb.DECISION_KIND_PLAY:
            fuzz.exchange([legal_answer(request)], None)
            request = fuzz.request()
        text = variant(request.legal.cards[0])
        before = len(fuzz.table.faults)
        answer = pb.Answer(request_id=request.id, card=text)
        fuzz.seat.send([pb.BotMessage(answer=answer).SerializeToString()])
        fuzz.pending = None
        reply = fuzz.seat.next()
        if reply.WhichOneof("body") == "request":
            fuzz.pending = reply.request
        new = fuzz.table.faults[before:]
        outcome = new[0].kind.value if new else "move"  # for the match's final tally
        fuzz.expected[outcome] = fuzz.expected.get(outcome, 0) + 1
        seen[f"{name}: {text!r}"] = outcome
    assert set(seen.values()) == {"malformed"}, f"accepted as cards: {seen}"


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_the_fuzzed_match_finishes(fuzz: FuzzMatch) -> None:
    """Every game of the match ends and replays; only seat 0 faulted, once per bad example."""
    table, *reasons = fuzz.play_out()
    assert reasons == ["eof"] + ["finished"] * 5
    run = MatchRun(fuzz.match, table, fuzz.reports, fuzz.log_dir)
    check_games(run, games=GAMES)
    assert {f.seat for f in table.faults} <= {0}
    kinds: dict[str, int] = {}
    for fault in table.faults:
        kinds[fault.kind.value] = kinds.get(fault.kind.value, 0) + 1
    assert kinds == {k: n for k, n in fuzz.expected.items() if k != "move"}
    TALLY["scenarios"]["fuzz examples"] += fuzz.examples
    TALLY["scenarios"]["fuzz examples that were legal moves"] += fuzz.expected.get("move", 0)
    TALLY["games"]["fuzzed"] += len(fuzz.reports)
    TALLY["faults"].update(kinds)
    TALLY["games"]["after the fuzzing (good, in-process)"] += 1
    # The referee is none the worse: it plays a good match.
    after = fuzz.run(play_in_process(fuzz.referee, fuzz.log_dir / "after"))
    assert after.faults == []
