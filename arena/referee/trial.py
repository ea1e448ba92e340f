"""``arena try``: one bot, started as a real seat, answers recorded requests of real games.

The requests are decision points of seeded random games (``arena.engine``'s random
player, game seeds 0, 1, 2 …), so they are the same on every machine: for each case of
``CASES`` (each decision kind, and the edge cases a bot gets wrong: the dealer's pick-up,
a left bauer or the joker led, the joker in hand …) the first decision of seat 0 that
matches it, one game after another. The bot is launched as ``arena run`` launches a
seat (``Match``: the sandbox, the limits, the allowlisted environment, its log) on a
``Referee`` of its own, and is told each request as the table would tell it, through the
seat's own channel (``arena.seats``, gRPC or stdio): the events of the request's game
that seat 0 may know (R10), then the request. Each request is a game of its own in the
match the bot is welcomed to (``game_started`` with its index), since the requests come
from different games. Its answer is judged as the table judges one (the channel's
``answer``, then the rules by ``Game.apply`` on a copy); a fault is told to the bot in a
``Notice`` as the table tells it, and nothing is played on.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from arena.bots import BotSpec, Limits
from arena.bots.sandbox import DEFAULT_WORKDIR_BYTES
from arena.engine import (
    JOKER,
    Action,
    DecisionKind,
    Game,
    IllegalActionError,
    effective_suit,
    left_bauer,
    random_legal_action,
    view,
)
from arena.engine.events import is_told_to
from arena.seats.channel import (
    ChannelClosedError,
    GameStarted,
    Notice,
    Request,
    SeatChannel,
    Welcome,
)
from arena.wire.answers import FaultKind, Refusal, Stale

from .match import MANUAL_JOIN_TIMEOUT_S, Match, MatchPlan, Referee
from .policy import POLICY, fallback_action
from .starved import StarvationCredit
from .table import SEND_TIMEOUT, TableSettings

SEAT: Final = 0  # the tried bot's seat: every request is one of seat 0's decisions
MAX_GAMES: Final = 400  # seeded games searched for a case's examples, at most


# --- the cases --------------------------------------------------------------------------


def _trick(game: Game) -> tuple[int, ...]:
    """The indices of the cards played to the trick in progress (from the leader)."""
    return tuple(card.index for card in game.current_trick[1])


def _led(game: Game) -> int | None:
    cards = _trick(game)
    return cards[0] if cards else None


def _trump_led_holding_left(game: Game) -> bool:
    led, trump = _led(game), game.deal.trump
    if led is None or trump is None:
        return False
    lead_card = game.current_trick[1][0]
    left = left_bauer(trump)
    return (
        effective_suit(lead_card, trump) is trump and led != left.index and left in game.hand(SEAT)
    )


def _left_led(game: Game) -> bool:
    trump = game.deal.trump
    return trump is not None and _led(game) == left_bauer(trump).index and _follows(game)


def _joker_led(game: Game) -> bool:
    return _led(game) == JOKER.index and _follows(game)


def _follows(game: Game) -> bool:
    return _led(game) is not None and len(game.legal()) < len(game.hand(SEAT))


def _cannot_follow(game: Game) -> bool:
    hand = len(game.hand(SEAT))
    return _led(game) is not None and hand > 1 and len(game.legal()) == hand


@dataclass(frozen=True)
class Case:
    """A kind of decision point: what it is, the rules it tries, and how to know one."""

    name: str
    kind: DecisionKind
    rules: str
    matches: Callable[[Game], bool]


# The order in which requests are sent: the decision kinds in a deal's order, each with
# its edge cases. A decision point serves one case only.
CASES: Final = (
    Case("bid, first to speak", DecisionKind.BID, "R4.1, R4.2", lambda g: not g.deal.bids),
    Case(
        "bid after a higher bid",
        DecisionKind.BID,
        "R4.2",
        lambda g: any(amount > 0 for _, amount in g.deal.bids),
    ),
    Case("bid as the dealer, last", DecisionKind.BID, "R4.4", lambda g: g.deal.dealer == SEAT),
    Case("name trump", DecisionKind.TRUMP, "R5.1", lambda g: True),
    Case(
        "discard, not the dealer",
        DecisionKind.DISCARD,
        "R5.2",
        lambda g: g.deal.dealer != SEAT,
    ),
    Case(
        "the dealer's pick-up and discard",
        DecisionKind.DISCARD,
        "R5.3, R5.4",
        lambda g: g.deal.dealer == SEAT and not g.discard_rule().must,
    ),
    Case(
        "the dealer holding more than six trumps",
        DecisionKind.DISCARD,
        "R5.4",
        lambda g: g.deal.dealer == SEAT and bool(g.discard_rule().must),
    ),
    Case("lead a trick", DecisionKind.PLAY, "R7.1, R7.3", lambda g: _led(g) is None),
    Case("follow suit", DecisionKind.PLAY, "R7.2", _follows),
    Case("cannot follow suit", DecisionKind.PLAY, "R7.2", _cannot_follow),
    Case("a left bauer led, holding trump", DecisionKind.PLAY, "R2.4, R7.2", _left_led),
    Case("the joker led, holding trump", DecisionKind.PLAY, "R2.4, R7.2", _joker_led),
    Case(
        "trump led, holding the left bauer",
        DecisionKind.PLAY,
        "R2.4, R7.2",
        _trump_led_holding_left,
    ),
    Case("the joker in hand", DecisionKind.PLAY, "R2.3, R7.2", lambda g: JOKER in g.hand(SEAT)),
)
DEFAULT_REQUESTS: Final = 2 * len(CASES)


@dataclass(frozen=True)
class Scenario:
    """One recorded request: seat 0's decision in seeded game ``game_seed``, as a copy of
    the game at that point."""

    case: Case
    game_seed: int
    game: Game

    @property
    def kind(self) -> DecisionKind:
        kind = self.game.decision_kind
        assert kind is not None
        return kind


def scenarios(count: int = DEFAULT_REQUESTS, max_games: int = MAX_GAMES) -> list[Scenario]:
    """``count`` requests, the cases in turn (``CASES``' order), the n-th example of each
    case from the n-th game in which it comes up first; deterministic. A case that no
    game of ``max_games`` shows is left out."""
    if count < 1:
        return []
    per_case = -(-count // len(CASES))
    found: list[list[Scenario]] = [[] for _ in CASES]
    for seed in range(max_games):
        for index, scenario in _first_of_each_case(seed, found, per_case):
            found[index].append(scenario)
        if all(len(examples) >= per_case for examples in found):
            break
    ordered = [examples[n] for n in range(per_case) for examples in found if n < len(examples)]
    return ordered[:count]


def _first_of_each_case(
    seed: int, found: list[list[Scenario]], per_case: int
) -> Iterator[tuple[int, Scenario]]:
    """Plays seeded game ``seed`` with the engine's random player; yields, for each case
    that still needs examples, its first decision point of seat 0 in this game."""
    game = Game(seed=seed)
    rng = random.Random(seed)
    wanted = {i for i, examples in enumerate(found) if len(examples) < per_case}
    while not game.is_over and wanted:
        if game.to_act == SEAT:
            kind = game.decision_kind
            for index in sorted(wanted):
                case = CASES[index]
                if case.kind is kind and case.matches(game):
                    wanted.discard(index)
                    yield index, Scenario(case, seed, game.copy())
                    break
        game.apply(random_legal_action(game.legal(), rng))


# --- the trial --------------------------------------------------------------------------


class Verdict:
    """What came of a request whose answer was not a fault (a word, as printed)."""

    OK: Final = "ok"
    LATE: Final = "late"  # legal, after time_ms: in a match it draws on the overage bank


@dataclass(frozen=True)
class Exchange:
    """One request and the bot's answer: ``verdict`` is ``ok``, ``late`` or a fault kind."""

    index: int  # 1-based, the request id
    scenario: Scenario
    answer: str  # the action answered, or what the bot sent when it was refused
    verdict: str
    reason: str = ""  # for a fault: why, citing the rule (R7.2 …) where one applies
    seconds: float | None = None  # from sending the request to the answer

    @property
    def passed(self) -> bool:
        return self.verdict == Verdict.OK


@dataclass
class TrialResult:
    """The whole trial: each exchange, and how the bot joined and ended."""

    bot_name: str = ""  # as the bot's join said (bot text)
    joined: bool = False
    exchanges: list[Exchange] = field(default_factory=list)
    problem: str = ""  # why the trial stopped early (no join, stream closed)
    exit_status: int | None = None  # the process's, once the trial ended it or it exited
    exited_by_itself: bool = False  # within EXIT_GRACE_S of MatchOver (docs/PROTOCOL.md)
    log_path: Path | None = None
    requests: int = 0  # how many were meant to be sent

    @property
    def faults(self) -> list[Exchange]:
        return [e for e in self.exchanges if not e.passed]

    @property
    def exited_cleanly(self) -> bool:
        """Whether the bot ended its stream and exited 0 after MatchOver, as it must."""
        return self.exited_by_itself and self.exit_status == 0

    @property
    def passed(self) -> bool:
        """Every request answered legally and in time, and a clean exit."""
        return (
            self.joined
            and not self.problem
            and len(self.exchanges) == self.requests
            and not self.faults
            and self.exited_cleanly
        )


@dataclass(frozen=True)
class _Answered:
    """The bot's answer (or the refusal in its place), its time from the request, and the
    time charged to it: less what other bots' load kept it off the CPU, as at a table."""

    answer: Action | Refusal
    seconds: float | None = None
    charged: float = 0.0


async def _read(
    channel: SeatChannel, kind: DecisionKind, request_id: int, timeout: float
) -> Action | Refusal:
    """The next message that answers ``request_id`` or refuses to (TimeoutError after
    ``timeout``; ChannelClosedError when the seat's channel ends)."""
    async with asyncio.timeout(timeout):
        while True:
            decoded = await channel.answer(kind, request_id)
            if not isinstance(decoded, Stale):
                return decoded
            # A late answer to an earlier request: dropped, as the table drops it.


async def _answer(
    channel: SeatChannel, scenario: Scenario, request_id: int, settings: TableSettings
) -> _Answered:
    """Wait for the answer to ``request_id`` (just sent) as the table waits: the decision's
    time plus the bank, moved on by the time the bot was starved of CPU; then judge it."""
    sent = time.monotonic()
    credit = StarvationCredit.since_now(channel.cpu_meter)
    limit_ms = settings.decision_ms + settings.overage_ms
    decoded: Action | Refusal | None = None
    try:
        try:
            decoded = await _read(channel, scenario.kind, request_id, limit_ms / 1000)
        except TimeoutError:
            while credit is not None and decoded is None and (extra := credit.more()) > 0:
                with contextlib.suppress(TimeoutError):
                    decoded = await _read(channel, scenario.kind, request_id, extra)
    except ChannelClosedError:
        return _Answered(Refusal(FaultKind.CLOSED, channel.close_reason))
    if decoded is None:
        return _Answered(Refusal(FaultKind.TIMEOUT, f"no answer within {limit_ms} ms"))
    seconds = time.monotonic() - sent
    starved = 0.0
    if credit is not None and seconds * 1000 > settings.decision_ms:
        credit.more()
        starved = credit.granted
    charged = max(0.0, seconds - starved)
    if isinstance(decoded, Refusal):
        return _Answered(decoded, seconds, charged)
    try:
        scenario.game.copy().apply(decoded)  # the one door judges it, as in a match
    except IllegalActionError as error:
        return _Answered(Refusal(FaultKind.ILLEGAL, str(error), str(decoded)), seconds, charged)
    return _Answered(decoded, seconds, charged)


def _request(
    scenario: Scenario, game_index: int, request_id: int, settings: TableSettings
) -> Request:
    """What the table would ask seat 0 at this decision, as the first message of a game:
    the game's start, every event seat 0 may know of it so far (R10), the request."""
    game = scenario.game
    told = [e for e in game.events if is_told_to(e, SEAT)]
    return Request(
        id=request_id,
        kind=scenario.kind,
        view=view(game, SEAT),
        legal=game.legal(),
        game_index=game_index,
        time_ms=settings.decision_ms,
        bank_ms=settings.overage_ms,
        events=[GameStarted(game_index, game.first_dealer), *told],
    )


async def _converse(
    channel: SeatChannel, chosen: list[Scenario], settings: TableSettings, result: TrialResult
) -> None:
    """Welcome the seat, then each request in turn; a fault is noticed as the table does."""
    welcome = Welcome(
        seat=SEAT,
        team=SEAT % 3,
        partner=(SEAT + 3) % 6,
        games=len(chosen),
        decision_ms=settings.decision_ms,
        overage_ms=settings.overage_ms,
        draw_limit=settings.draw_limit,
        team_names=(result.bot_name, "try", "try"),
        match_id="try",
    )
    if not await channel.welcome(welcome, SEND_TIMEOUT):
        result.problem = "the bot stopped reading before its welcome"
        return
    for index, scenario in enumerate(chosen):
        request_id = index + 1
        try:
            async with asyncio.timeout(SEND_TIMEOUT):
                await channel.request(_request(scenario, index, request_id, settings))
        except (TimeoutError, ChannelClosedError):
            channel.drop()
            reason = channel.close_reason
            result.problem = f"request {request_id} could not be delivered: {reason}"
            return
        answered = await _answer(channel, scenario, request_id, settings)
        answer = answered.answer
        exchange = _judge(request_id, scenario, answered, settings)
        result.exchanges.append(exchange)
        if exchange.verdict == FaultKind.CLOSED.value:
            result.problem = f"the bot's stream closed: {channel.close_reason}"
            return
        if isinstance(answer, Refusal) and POLICY[answer.kind].notice:
            fallback = fallback_action(scenario.game)
            notice = Notice(answer.kind.value, answer.reason, request_id, str(fallback))
            await channel.notice(notice, SEND_TIMEOUT)


def _judge(
    request_id: int, scenario: Scenario, answered: _Answered, settings: TableSettings
) -> Exchange:
    answer, seconds = answered.answer, answered.seconds
    if isinstance(answer, Refusal):
        return Exchange(
            request_id, scenario, answer.sent, answer.kind.value, answer.reason, seconds
        )
    if answered.charged * 1000 > settings.decision_ms:
        reason = (
            f"answered after {answered.charged * 1000:.0f} ms of its own, over the "
            f"{settings.decision_ms} ms of a decision: in a match the overage bank pays "
            "for it, and an empty bank is a timeout"
        )
        return Exchange(request_id, scenario, str(answer), Verdict.LATE, reason, seconds)
    return Exchange(request_id, scenario, str(answer), Verdict.OK, "", seconds)


def try_bot(
    spec: BotSpec,
    log_dir: Path,
    requests: int = DEFAULT_REQUESTS,
    settings: TableSettings | None = None,
    sandbox: bool = True,
    limits: Limits | None = None,
    workdir_bytes: int = DEFAULT_WORKDIR_BYTES,
    pass_env: tuple[str, ...] = (),
) -> TrialResult:
    """Start ``spec`` (built) as seat 0 and put ``requests`` recorded requests to it."""
    from arena.wire.loop import run as run_loop

    settings = settings or TableSettings()
    chosen = scenarios(requests)
    plan = MatchPlan(
        match_id="try",
        entrants=(spec, spec, spec),
        seeds=[0],
        log_dir=log_dir,
        settings=settings,
        limits=limits or Limits(),
        # The other five seats are registered and left open, never launched: the trial
        # speaks to seat 0 alone, through the machinery of a match.
        manual_seats=frozenset(range(1, 6)),
        sandbox=sandbox,
        workdir_bytes=workdir_bytes,
        private=(log_dir,),
        pass_env=pass_env,
    )
    result = TrialResult(log_path=log_dir / f"seat{SEAT}.log", requests=len(chosen))

    async def main() -> None:
        async with Referee(join_timeout=settings.join_timeout_s) as referee:
            match = Match(referee, plan)
            match.launch()
            try:
                # The seat's own join deadline decides (moved on, as at a table, by the
                # time the bot was starved of CPU); this bound is only a backstop.
                await match.joined(MANUAL_JOIN_TIMEOUT_S)
                channel = match.channels[SEAT]
                result.bot_name = match.links[SEAT].bot_name
                result.joined = channel.joined and channel.connected
                if not result.joined:
                    result.problem = (
                        "the bot's process ended before it joined"
                        if match.processes[SEAT] is None or channel.gone
                        else f"the bot did not join within {settings.join_timeout_s:g} s"
                    )
                    return
                await _converse(channel, chosen, settings, result)
                await channel.close("finished", SEND_TIMEOUT)
            finally:
                # Waits EXIT_GRACE_S for the bot to exit by itself, then ends it.
                await match.shutdown()
                process = match.processes[SEAT]
                if process is not None:
                    result.exited_by_itself = SEAT not in match.lingering
                    result.exit_status = process.returncode

    run_loop(main())
    return result
