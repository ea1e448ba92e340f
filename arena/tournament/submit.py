"""``arena submit``: build a contestant's bot, check it in a short validation match, register it.

The checks: it builds (if its manifest says how), starts, joins within the deadline,
answers every decision legally and in time, stays connected, and exits when the match
ends. A bot that fails any check is refused with the reason and its seat log's tail. A
bot that never joined has not been seen answering: the checks after the join are marked
not run, never passed. A validation match the arena could not give its bots (the
referee's ``arena_trouble``) is played again, and if it never can, nothing is judged.
"""

from __future__ import annotations

import dataclasses
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from arena.bots import BotBuildError, BotSpec, load_bot, read_log_tail
from arena.bots.build import BotCache, BotOptions, PrepareError
from arena.bots.samples import sample_bot
from arena.referee.match import Match, MatchPlan, Referee
from arena.referee.policy import (
    JOINS,
    POLICY,
    SUBMISSION_CHECKS,
    Fault,
    FaultKind,
)
from arena.referee.table import TableSettings
from arena.tournament.registry import RegisteredBot, Registry
from arena.tournament.retry import MatchUnplayableError, RetryPolicy
from arena.tournament.schedule import RunKey
from arena.wire.loop import run as run_loop

OPPONENTS = ("random", "greedy")
CANDIDATE_SEATS = (0, 3)  # the candidate plays team 0 (R1.2)


EXITS: Final = "exits when the match ends"


@dataclass(frozen=True)
class Check:
    name: str
    passed: bool | None  # None: not run (what it checks was never seen)
    detail: str = ""


@dataclass(frozen=True)
class SubmitResult:
    spec: BotSpec
    checks: list[Check]
    log_tail: str
    entry: RegisteredBot | None

    @property
    def accepted(self) -> bool:
        return all(c.passed is True for c in self.checks)


def _describe(faults: list[Fault]) -> str:
    first = faults[0]
    more = f" (and {len(faults) - 1} more)" if len(faults) > 1 else ""
    return f"seat {first.seat}, game {first.game_index}: {first.kind.value}: {first.reason}{more}"


async def _validate_match(
    spec: BotSpec,
    games: int,
    settings: TableSettings,
    log_dir: Path,
    options: BotOptions,
    private: tuple[Path, ...],
) -> tuple[list[Fault], list[int]]:
    cache = BotCache()
    opponents = [cache.prepare(load_bot(sample_bot(name)), options) for name in OPPONENTS]
    plan = MatchPlan.of(
        "validation",
        (spec, opponents[0], opponents[1]),
        [RunKey.generate().game(k) for k in range(games)],
        log_dir,
        options,
        settings=settings,
        private=private,
    )

    async def attempt() -> tuple[list[Fault], list[int]]:
        async with Referee() as referee:
            match = Match(referee, plan)
            table = await match.play()
        faults = [f for f in table.faults if f.seat in CANDIDATE_SEATS]
        return faults, [s for s in match.lingering if s in CANDIDATE_SEATS]

    # The arena's trouble (no seat joined, a process not started) is tried again with the
    # same deals, as any match of a run is.
    return await RetryPolicy().play(attempt)


def validate(
    path: Path,
    *,
    name: str | None = None,
    games: int = 2,
    settings: TableSettings | None = None,
    work_dir: Path | None = None,
    options: BotOptions | None = None,
    private: tuple[Path, ...] = (),
) -> tuple[BotSpec, list[Check], str]:
    """Build and check the bot at ``path``; return its spec, the checks and its log's tail.

    The build runs as every build does (``arena.bots.build``): in the sandbox, in the
    bot's copy for its version; the source directory is never written."""
    spec = load_bot(path)
    if name:
        spec = dataclasses.replace(spec, name=name)
    settings = settings or TableSettings()
    options = options or BotOptions()
    with tempfile.TemporaryDirectory(prefix="arena-submit-") as tmp:
        root = work_dir or Path(tmp)
        checks: list[Check] = []
        try:
            runnable = BotCache().prepare(spec, options)
        except BotBuildError as error:
            checks.append(Check("builds", False, str(error).splitlines()[0]))
            return spec, checks, error.log_tail
        except PrepareError as error:
            checks.append(Check("builds", False, str(error)))
            return spec, checks, ""
        if spec.build and options.build:
            checks.append(Check("builds", True, spec.build_line))
        log_dir = root / "logs"
        try:
            faults, lingering = run_loop(
                _validate_match(runnable, games, settings, log_dir, options, (root, *private))
            )
        except MatchUnplayableError as unplayable:
            detail = f"not run: {unplayable.trouble} ({unplayable.attempts} times)"
            checks += [Check(name, None, detail) for name in (*SUBMISSION_CHECKS, EXITS)]
            return spec, checks, ""
        checks += _judge(faults, lingering)
        tail = read_log_tail(log_dir / f"seat{CANDIDATE_SEATS[0]}.log")
    return spec, checks, tail


def _judge(faults: list[Fault], lingering: list[int]) -> list[Check]:
    """The checks of the validation match, from the candidate's faults: those after the
    join are not run where none of its seats joined."""
    never_joined = {f.seat for f in faults if f.kind is FaultKind.NO_JOIN}
    if never_joined >= set(CANDIDATE_SEATS):
        joins = [f for f in faults if f.kind is FaultKind.NO_JOIN]
        unseen = "not run: the bot never joined"
        return [
            Check(JOINS, False, _describe(joins)),
            *(Check(name, None, unseen) for name in SUBMISSION_CHECKS if name != JOINS),
            Check(EXITS, None, unseen),
        ]
    checks = []
    for check in SUBMISSION_CHECKS:
        failed = [f for f in faults if POLICY[f.kind].check == check]
        checks.append(Check(check, not failed, _describe(failed) if failed else ""))
    stopped = f"seats {lingering} had to be stopped by signal" if lingering else ""
    checks.append(Check(EXITS, not lingering, stopped))
    return checks


def submit(
    path: Path,
    registry: Registry,
    *,
    name: str | None = None,
    games: int = 2,
    settings: TableSettings | None = None,
    options: BotOptions | None = None,
) -> SubmitResult:
    spec, checks, tail = validate(
        path,
        name=name,
        games=games,
        settings=settings,
        options=options,
        private=(registry.root,),
    )
    result = SubmitResult(spec, checks, tail, None)
    if not result.accepted:
        return result
    entry = registry.register(spec, path.resolve(), [c.name for c in checks])
    return dataclasses.replace(result, entry=entry)
