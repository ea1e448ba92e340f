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
import time
from collections.abc import Sequence
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


@dataclass(frozen=True)
class ValidationShape:
    """How one validation match looks to the bot. The default is ``arena submit``'s own
    (the samples ``random`` and ``greedy`` at teams 1 and 2, its first game numbered 0); a
    contest shapes it as one of its ladder's matches (``arena.serve.builds``), so that a
    bot cannot tell its validation from the games that count."""

    match_id: str = "validation"
    first_game: int = 0  # the number of its first game (those before are not played)
    team: int = 0  # the candidate's team: its seats are team and team + 3 (R1.2)
    opponents: tuple[BotSpec, BotSpec] | None = None  # default: the samples OPPONENTS

    def seats(self) -> tuple[int, int]:
        return (self.team, self.team + 3)


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
    shape: ValidationShape,
) -> tuple[list[Fault], list[int]]:
    cache = BotCache()
    others = shape.opponents or tuple(load_bot(sample_bot(name)) for name in OPPONENTS)
    opponents = iter([cache.prepare(other, options) for other in others])
    entrants = tuple(spec if team == shape.team else next(opponents) for team in range(3))
    key = RunKey.generate()
    plan = MatchPlan.of(
        shape.match_id,
        (entrants[0], entrants[1], entrants[2]),
        [key.game(k) for k in range(shape.first_game + games)],
        log_dir,
        options,
        settings=settings,
        private=private,
    )

    async def attempt() -> tuple[list[Fault], list[int]]:
        async with Referee(join_timeout=settings.join_timeout_s) as referee:
            match = Match(referee, plan)
            table = await match.play(skip=set(range(shape.first_game)))
        seats = shape.seats()
        faults = [f for f in table.faults if f.seat in seats]
        return faults, [s for s in match.lingering if s in seats]

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
    log_root: Path | None = None,
    shapes: Sequence[ValidationShape] = (ValidationShape(),),
) -> tuple[BotSpec, list[Check], str]:
    """Build and check the bot at ``path``; return its spec, the checks and its log's tail.

    The build runs as every build does (``arena.bots.build``): in the sandbox, in the
    bot's copy for its version; the source directory is never written. The bot then
    plays one validation match of ``games`` games per shape, in turn; a check fails if it
    fails in any of them. The matches' seat logs go to a directory of their own under
    ``log_root``, which outlives the check (the faults' reasons name them); without it, to
    the temporary directory."""
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
        stamp = time.strftime("%Y%m%d-%H%M%S")
        logs = root / "logs" if log_root is None else log_root / f"submit-{stamp}-{spec.name}"
        faults: list[Fault] = []
        lingering: list[int] = []
        tails: list[tuple[bool, str]] = []  # (it faulted, its seat's log) per match
        for number, shape in enumerate(shapes):
            log_dir = logs if len(shapes) == 1 else logs / f"match-{number}"
            try:
                found, stopped = run_loop(
                    _validate_match(
                        runnable, games, settings, log_dir, options, (root, *private), shape
                    )
                )
            except MatchUnplayableError as unplayable:
                detail = f"not run: {unplayable.trouble} ({unplayable.attempts} times)"
                checks += [Check(name, None, detail) for name in (*SUBMISSION_CHECKS, EXITS)]
                return spec, checks, ""
            faults += found
            lingering += stopped
            tails.append((bool(found), read_log_tail(log_dir / f"seat{shape.team}.log")))
        checks += _judge(faults, lingering, {s for shape in shapes for s in shape.seats()})
    # The log of the first match it faulted in, else of the first.
    tail = next((log for faulted, log in tails if faulted), tails[0][1] if tails else "")
    return spec, checks, tail


def _judge(faults: list[Fault], lingering: list[int], seats: set[int]) -> list[Check]:
    """The checks of the validation matches, from the candidate's faults (its ``seats``):
    those after the join are not run where none of its seats joined."""
    never_joined = {f.seat for f in faults if f.kind is FaultKind.NO_JOIN}
    if never_joined >= seats:
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
    shapes: Sequence[ValidationShape] = (ValidationShape(),),
) -> SubmitResult:
    spec, checks, tail = validate(
        path,
        name=name,
        games=games,
        settings=settings,
        options=options,
        private=(registry.root,),
        log_root=registry.root / "logs",
        shapes=shapes,
    )
    result = SubmitResult(spec, checks, tail, None)
    if not result.accepted:
        return result
    entry = registry.register(spec, path.resolve(), [c.name for c in checks])
    return dataclasses.replace(result, entry=entry)
