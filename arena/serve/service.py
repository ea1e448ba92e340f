"""The contest as a service: who is asking, what they may read and do, and every answer
as a typed value; no web framework in it (``arena.serve.app`` speaks HTTP around it).

Who may read what: everyone reads the leaderboard, each contestant's versions with their
status (playing, replaced, retired, suspended and why in one word: time, memory, crash,
no join), their uploads' statuses and their games, every game's replay, the live page.
Only a contestant with their token reads what their bots wrote and where: their
uploads' build and validation logs and reasons, the details of their checks and
suspensions, and their seats' logs in the ladder's games. Nobody reads another's logs,
a server path or an environment through the service.

Input is typed: the organiser's requests are parsed by pydantic in strict mode (a
``"false"`` is not a boolean, a list is not a version), and whatever does not parse is a
``BadRequest`` with one line, never a change.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import datetime
import os
import secrets
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar, Final, Literal, TypeVar

import pydantic

from arena.bots import BotSpecError, load_bot
from arena.bots.build import BotOptions
from arena.bots.manifest import read_log_tail
from arena.referee.policy import Fault, FaultKind
from arena.referee.table import TableSettings
from arena.tournament.bundle import GameBundle, game_bundle
from arena.tournament.executor import MatchExecutor
from arena.tournament.store import ResultsStore, StoredGame, logs_beside
from arena.tournament.submit import ValidationShape

from .builds import (
    DAY_S,
    BuildLimits,
    BuildOutcome,
    BuildQueue,
    BuildRequest,
    QueueFull,
    ServerStopping,
    Ticket,
)
from .contest import (
    Contestant,
    ContestError,
    ContestStore,
    Suspension,
    Version,
    registry_path,
)
from .figures import Comparison
from .ladder import Ladder
from .unpack import UnpackError, unpack

T = TypeVar("T")

SEAT_LOG_BYTES: Final = 64 * 1024  # of each seat's log, its end, for its owner


# -- errors: each one line and the HTTP status it maps to ------------------------------------


class ServiceError(Exception):
    status: ClassVar[int] = 400

    def __init__(self, line: str, retry_after: float | None = None) -> None:
        super().__init__(line)
        self.line = line
        self.retry_after = retry_after


class BadRequest(ServiceError):
    status = 400


class Unauthorized(ServiceError):
    status = 401


class Forbidden(ServiceError):
    status = 403


class NotFound(ServiceError):
    status = 404


class TooMany(ServiceError):
    status = 429


class Unavailable(ServiceError):
    status = 503


# -- the organiser's requests ----------------------------------------------------------------

_STRICT: Final = pydantic.ConfigDict(strict=True, extra="forbid")


@dataclass(frozen=True)
class RetireRequest:
    __pydantic_config__: ClassVar[pydantic.ConfigDict] = _STRICT
    name: str
    version: str | None = None  # None: every version


@dataclass(frozen=True)
class BanRequest:
    __pydantic_config__: ClassVar[pydantic.ConfigDict] = _STRICT
    name: str
    banned: bool = True


@dataclass(frozen=True)
class PauseRequest:
    __pydantic_config__: ClassVar[pydantic.ConfigDict] = _STRICT
    paused: bool = True


@dataclass(frozen=True)
class ReinstateRequest:
    __pydantic_config__: ClassVar[pydantic.ConfigDict] = _STRICT
    name: str
    version: str


def parse(kind: type[T], body: bytes) -> T:
    """``body`` (JSON) as a ``kind``; ``BadRequest`` naming the first field that is wrong."""
    try:
        return pydantic.TypeAdapter(kind).validate_json(body)
    except pydantic.ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the body"
        raise BadRequest(f"{where}: {first['msg']}") from None


# -- what the pages show ---------------------------------------------------------------------

VersionState = Literal["playing", "replaced", "retired", "suspended", "held"]


@dataclass(frozen=True)
class EntrantRow:
    rank: int
    contestant: str
    version: str
    entrant: str
    rating: float | None
    low: float | None
    high: float | None
    low_open: bool
    high_open: bool
    too_few_seeds: bool
    games: int
    win_rate: float
    faults: int
    # rated; above (below): never behind (ahead of) the rated field, so no rating, one
    # bound; apart: no pair with it yet (arena.stats.ratings.Place)
    place: str = "rated"


@dataclass(frozen=True)
class Leaderboard:
    run_id: str
    paused: bool
    games: int
    seeds: int
    entrants: list[EntrantRow]
    stalled: str | None  # the watchdog's line while no game arrives


@dataclass(frozen=True)
class CheckRow:
    name: str
    passed: bool | None
    detail: str | None  # the owner's only


@dataclass(frozen=True)
class VersionRow:
    version: str
    entrant: str
    uploaded_at: str
    state: VersionState
    suspended: Suspension | None  # time, memory, crash or no join
    suspended_at: str | None
    why: str | None  # the owner's only: the line behind a suspension or a hold
    games: int
    game_ids: list[int]
    faults: int
    checks: list[CheckRow]


@dataclass(frozen=True)
class UploadRow:
    at: str
    accepted: bool
    version: str | None
    status: str  # "accepted", or which check failed
    reason: str | None  # the owner's only, with its log
    log_tail: str | None
    build_seconds: float | None


@dataclass(frozen=True)
class GameRow:
    id: int
    seed: int
    entrants: list[str]
    scores: list[int]
    winner: int | None
    faults: int


@dataclass(frozen=True)
class Allowance:
    """What a contestant may still ask for today (their own page only)."""

    uploads_left: int
    uploads_per_day: int
    build_minutes_left: float
    build_minutes_per_day: float


@dataclass(frozen=True)
class ContestantView:
    name: str
    house: bool
    banned: bool
    owner: bool  # the page is its owner's (their token): logs and reasons included
    versions: list[VersionRow]
    uploads: list[UploadRow]
    comparison: Comparison | None
    games: list[GameRow]
    allowance: Allowance | None


@dataclass(frozen=True)
class LiveMatchRow:
    match: str
    entrants: list[str]
    games: int
    done: int


@dataclass(frozen=True)
class RoundRow:
    id: int
    entrants: list[str]
    games: int


@dataclass(frozen=True)
class RecentGame:
    id: int
    entrants: list[str]
    scores: list[int]


@dataclass(frozen=True)
class LiveView:
    run_id: str
    paused: bool
    round: RoundRow | None  # the oldest round in play
    rounds: list[RoundRow]  # every round in play (up to one a table), oldest first
    matches: list[LiveMatchRow]
    games_this_session: int
    building: list[str]
    recent: list[RecentGame]
    notices: list[str]
    stalled: str | None


@dataclass(frozen=True)
class GameView:
    id: int
    run_id: str
    match: str
    seed: int
    entrants: list[str]
    record: dict[str, Any]


@dataclass(frozen=True)
class SeatLog:
    seat: int
    entrant: str
    log: str  # its end, SEAT_LOG_BYTES at most


@dataclass(frozen=True)
class UploadAnswer:
    accepted: bool
    reason: str
    version: str | None
    entrant: str | None
    checks: list[CheckRow]
    log_tail: str


# -- the service -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ServeConfig:
    db_path: Path
    executor: Callable[[], MatchExecutor]
    games: int = 1  # per seating in a ladder round, and in each validation match
    validation_matches: int = 2
    settings: TableSettings = field(default_factory=TableSettings)
    options: BotOptions = field(default_factory=BotOptions)
    prepare_locally: bool = True
    match_sandbox: bool | None = None  # on a cluster: what each worker must apply
    rate_per_minute: float = 120.0
    rate_burst: int = 30
    builds: BuildLimits = field(default_factory=BuildLimits)
    compare_max_games: int = 3000
    watchdog_s: float = 300.0
    trusted_proxies: tuple[str, ...] = ()
    on_notice: Callable[[str], None] | None = None


class ContestService:
    """What the routes share: the stores (one connection each, on the loop), the ladder,
    the build queue."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.contest = ContestStore.open(config.db_path)
        self.results = ResultsStore.open(config.db_path)
        self.builds = BuildQueue(config.builds)
        self.ladder = Ladder(
            config.db_path,
            config.executor,
            games=config.games,
            settings=config.settings,
            options=config.options,
            prepare_locally=config.prepare_locally,
            match_sandbox=config.match_sandbox,
            on_notice=config.on_notice,
            compare_max_games=config.compare_max_games,
            watchdog_s=config.watchdog_s,
        )
        self.log_root = logs_beside(config.db_path)
        self.uploads = Path(tempfile.mkdtemp(prefix="arena-uploads-"))
        # Unpacking and hashing an upload can take long (a deep tree): threads of their own,
        # one per place in the queue, so that it never starves the ladder's.
        self.unpacking = concurrent.futures.ThreadPoolExecutor(config.builds.queue, "arena-unpack")

    def stop(self) -> None:
        """The server is stopping: answer the waiting uploads, end the build under way."""
        self.builds.stop()

    def close(self) -> None:
        self.builds.stop()
        self.unpacking.shutdown(wait=False, cancel_futures=True)
        self.ladder.close()
        self.contest.close()
        self.results.close()
        remove_tree(self.uploads)

    # -- who is asking ---------------------------------------------------------------------

    def contestant(self, token: str | None) -> Contestant:
        if not token:
            raise Unauthorized("a token is needed (Authorization: Bearer TOKEN)")
        who = self.contest.contestant_of(token)
        if who is None:
            raise Forbidden("unknown token")
        if who.banned:
            raise Forbidden(f"{who.name} is banned from this contest")
        return who

    def admin(self, token: str | None) -> None:
        if not token:
            raise Unauthorized("the admin token is needed (Authorization: Bearer TOKEN)")
        if not self.contest.is_admin(token):
            raise Forbidden("not the admin token")

    def _owner(self, name: str, token: str | None) -> bool:
        """Whether ``token`` is ``name``'s own (a page shows its owner more)."""
        if not token:
            return False
        who = self.contest.contestant_of(token)
        return who is not None and who.name == name

    # -- reading ---------------------------------------------------------------------------

    def leaderboard(self) -> Leaderboard:
        report = self.ladder.figures.report
        laddered = self.contest.laddered()
        faults = self.results.fault_counts_by_entrant(self.ladder.run_id)
        ratings = {r.entrant: r for r in report.ratings} if report else {}
        standings = {s.entrant: s for s in report.standings} if report else {}
        rows = []
        for version in laddered:
            label = version.label
            rating, standing = ratings.get(label), standings.get(label)
            rows.append(
                EntrantRow(
                    rank=0,
                    contestant=version.contestant,
                    version=version.version,
                    entrant=label,
                    rating=None if rating is None else rating.rating,
                    low=None if rating is None else rating.low,
                    high=None if rating is None else rating.high,
                    low_open=bool(rating and rating.low_open),
                    high_open=bool(rating and rating.high_open),
                    too_few_seeds=bool(rating is None or rating.too_few_seeds),
                    # Games played (a rating's count); without ratings, the standings'
                    # teams held (two in a game of two entrants where it held two).
                    games=rating.games if rating else (standing.games if standing else 0),
                    win_rate=standing.win_rate if standing else 0.0,
                    faults=sum(faults.get(label, {}).values()),
                    place=rating.place if rating else "apart",
                )
            )
        # The report's order: above the field, the rated field by rating, below, apart.
        ranked = {label: i for i, label in enumerate(ratings)}

        def order(row: EntrantRow) -> tuple[int, float, str]:
            return (ranked.get(row.entrant, len(ranked)), -row.win_rate, row.entrant)

        rows.sort(key=order)
        return Leaderboard(
            run_id=self.ladder.run_id,
            paused=self.contest.paused,
            games=report.games if report else 0,
            seeds=report.seeds if report else 0,
            entrants=[replace(row, rank=rank) for rank, row in enumerate(rows, 1)],
            stalled=self.ladder.state.stalled,
        )

    def contestant_view(self, name: str, token: str | None = None) -> ContestantView:
        who = self.contest.contestant(name)
        if who is None:
            raise NotFound(f"no contestant {name!r}")
        owner = self._owner(name, token)
        run_id = self.ladder.run_id
        games = [g for g in self.results.games(run_id) if _of(name, g.entrants_by_team)]
        laddered = {v.label for v in self.contest.laddered()}
        held = self.ladder.state.held
        faults = self.results.fault_counts_by_entrant(run_id)
        versions = self.contest.versions(name)
        rows = []
        for version in versions:
            played = [g for g in games if version.label in g.entrants_by_team]
            state = _state(version, laddered, held)
            why = version.suspended_reason if version.suspended else held.get(version.label)
            rows.append(
                VersionRow(
                    version=version.version,
                    entrant=version.label,
                    uploaded_at=version.uploaded_at,
                    state=state,
                    suspended=version.suspended,
                    suspended_at=version.suspended_at,
                    why=why if owner else None,
                    games=len(played),
                    game_ids=[g.id for g in played],
                    faults=sum(faults.get(version.label, {}).values()),
                    checks=[CheckRow(n, p, d if owner else None) for n, p, d in version.checks],
                )
            )
        comparison = None
        if len(versions) >= 2:
            comparison = self.ladder.figures.comparison(versions[-1].label, versions[-2].label)
        uploads = [
            UploadRow(
                at=u.at,
                accepted=u.accepted,
                version=u.version,
                status=u.status,
                reason=u.reason if owner else None,
                log_tail=u.log_tail if owner else None,
                build_seconds=u.build_seconds if owner else None,
            )
            for u in self.contest.uploads(name)
        ]
        return ContestantView(
            name=who.name,
            house=who.house,
            banned=who.banned,
            owner=owner,
            versions=rows,
            uploads=uploads,
            comparison=comparison,
            games=[_game_row(g) for g in games],
            allowance=self.allowance(who.name) if owner else None,
        )

    def allowance(self, name: str) -> Allowance:
        limits = self.config.builds
        count, seconds, _ = self.contest.uploads_since(name, DAY_S)
        return Allowance(
            uploads_left=max(limits.uploads_per_day - count, 0),
            uploads_per_day=limits.uploads_per_day,
            build_minutes_left=max(limits.build_minutes_per_day - seconds / 60.0, 0.0),
            build_minutes_per_day=limits.build_minutes_per_day,
        )

    def live(self) -> LiveView:
        state = self.ladder.state
        rounds = [RoundRow(r.id, list(r.entrants), r.games) for r in state.rounds.values()]
        recent = self.results.games(self.ladder.run_id)[-10:]
        return LiveView(
            run_id=state.run_id,
            paused=self.contest.paused,
            round=rounds[0] if rounds else None,
            rounds=rounds,
            matches=[
                LiveMatchRow(m.key, list(m.entrants), m.games, m.done) for m in state.live.values()
            ],
            games_this_session=state.games_stored,
            building=self.builds.waiting,
            recent=[
                RecentGame(g.id, list(g.entrants_by_team), list(g.scores)) for g in reversed(recent)
            ],
            notices=list(state.notices),
            stalled=state.stalled,
        )

    def game(self, game_id: int) -> GameView:
        """A stored game for everyone: its record with the reasons of the faults that can
        carry a bot's log (a missed join, a crash) in general words."""
        try:
            place = self.results.game(game_id)
            record = self.results.game_record(game_id)
        except KeyError:
            raise NotFound(f"no game {game_id}") from None
        return GameView(
            id=game_id,
            run_id=place.run_id,
            match=place.match_key,
            seed=place.game_index,
            entrants=list(place.entrants_by_team),
            record=public_record(record),
        )

    def game_bundle(self, game_id: int) -> GameBundle:
        """The replay page's bundle for everyone: no seat's log, general fault reasons."""
        try:
            bundle = game_bundle(self.results, game_id, self.log_root)
        except KeyError:
            raise NotFound(f"no game {game_id}") from None
        return replace(
            bundle,
            record=public_record(bundle.record),
            log_tails=((),) * len(bundle.log_tails),
            faults=tuple(public_fault(f) for f in bundle.faults),
        )

    def seat_logs(self, name: str, game_id: int, token: str | None) -> list[SeatLog]:
        """The logs of ``name``'s seats in game ``game_id`` (the whole match's), for them."""
        if not self._owner(name, token):
            who = self.contestant(token)  # 401/403 for a missing or unknown token
            raise Forbidden(f"{who.name} may read their own logs only")
        try:
            place = self.results.game(game_id)
        except KeyError:
            raise NotFound(f"no game {game_id}") from None
        if place.run_id != self.ladder.run_id or not _of(name, place.entrants_by_team):
            raise NotFound(f"{name} did not play game {game_id}")
        directory = self.log_root / place.run_id / place.match_key
        logs = []
        for seat in range(6):
            entrant = place.entrants_by_team[seat % 3]
            if entrant.partition("@")[0] == name:
                text = read_log_tail(directory / f"seat{seat}.log", SEAT_LOG_BYTES)
                logs.append(SeatLog(seat, entrant, text))
        return logs

    # -- the organiser ---------------------------------------------------------------------

    def retire(self, request: RetireRequest) -> int:
        try:
            count = self.contest.retire(request.name, request.version)
        except ContestError as error:
            raise NotFound(str(error)) from None
        self.ladder.review()
        return count

    def ban(self, request: BanRequest) -> None:
        try:
            self.contest.ban(request.name, request.banned)
        except ContestError as error:
            raise NotFound(str(error)) from None
        self.ladder.review()

    def pause(self, request: PauseRequest) -> None:
        self.contest.set_paused(request.paused)
        self.ladder.review()

    def reinstate(self, request: ReinstateRequest) -> None:
        try:
            self.contest.reinstate(request.name, request.version)
        except ContestError as error:
            raise NotFound(str(error)) from None
        self.ladder.strikes.forget(f"{request.name}@{request.version}")
        self.ladder.review()

    # -- uploads ---------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def upload_slot(self, token: str | None) -> AsyncIterator[UploadSlot]:
        """Everything checked before a byte of the upload is unpacked: the token, the
        contestant's uploads and build time of the last day, a place in the build queue."""
        who = self.contestant(token)
        limits = self.config.builds
        count, seconds, oldest = self.contest.uploads_since(who.name, DAY_S)
        if count >= limits.uploads_per_day:
            raise TooMany(
                f"{who.name} has made {count} uploads in the last 24 hours, the most a day "
                f"allows: the next is possible at {_plus_day(oldest)}",
                retry_after=_seconds_until(_plus_day(oldest)),
            )
        budget = limits.build_minutes_per_day * 60.0
        if seconds >= budget:
            raise TooMany(
                f"{who.name} has used {seconds / 60:.0f} of their {limits.build_minutes_per_day:g} "
                "minutes of building and checking in the last 24 hours",
                retry_after=3600.0,
            )
        try:
            async with self.builds.reserve(who.name, seconds) as ticket:
                yield UploadSlot(self, who, ticket, budget - seconds)
        except QueueFull as full:
            raise Unavailable(str(full), retry_after=60.0) from None
        except ServerStopping as stopping:
            raise Unavailable(str(stopping), retry_after=30.0) from None

    def _shapes(
        self, who: Contestant
    ) -> tuple[tuple[ValidationShape, ...], tuple[tuple[str, str] | None, ...]]:
        """Validation matches shaped as the ladder's, with its entrants as opponents."""
        held = self.ladder.state.held
        others = [
            v.label
            for v in self.contest.laddered()
            if v.contestant != who.name and v.label not in held
        ]
        draw = secrets.SystemRandom()
        shapes: list[ValidationShape] = []
        opponents: list[tuple[str, str] | None] = []
        for _ in range(self.config.validation_matches):
            shapes.append(
                ValidationShape(
                    match_id=secrets.token_hex(6),  # as opaque_match_id's
                    first_game=self.contest.next_seed(),
                    team=draw.randrange(3),
                )
            )
            if len(others) >= 2:
                a, b = draw.sample(others, 2)
                opponents.append((a, b))
            elif others:
                opponents.append((others[0], others[0]))
            else:
                opponents.append(None)
        return tuple(shapes), tuple(opponents)


@dataclass
class UploadSlot:
    """A contestant's place in the build queue: ``submit`` the upload's bytes."""

    service: ContestService
    who: Contestant
    ticket: Ticket
    seconds_left: float  # of their build time today

    async def submit(self, data: bytes, filename: str) -> UploadAnswer:
        """Unpack (off the loop), refuse what can be refused cheaply, then build and
        check in the build process; the answer, also recorded as the contestant's."""
        service = self.service
        name = self.who.name
        work = Path(tempfile.mkdtemp(dir=service.uploads))
        loop = asyncio.get_running_loop()
        try:
            try:
                unpacked = await loop.run_in_executor(
                    service.unpacking, unpack, data, work / "bot", filename
                )
                spec = await loop.run_in_executor(service.unpacking, load_bot, unpacked.path)
            except (UnpackError, BotSpecError) as error:
                return self._refused(f"refused: {error}", "refused: not a bot archive")
            except RecursionError:
                return self._refused(
                    "refused: its directory tree is too deep to read", "refused: not a bot archive"
                )
            except OSError as error:
                return self._refused(
                    f"refused: it cannot be unpacked: {error.strerror or error}",
                    "refused: not a bot archive",
                )
            known = service.contest.version(name, spec.version)
            if known is not None:
                return self._known(known)
            shapes, opponents = service._shapes(self.who)
            request = BuildRequest(
                bot=unpacked.path,
                registry=registry_path(service.config.db_path),
                contestant=name,
                games=service.config.games,
                settings=service.config.settings,
                options=service.config.options,
                shapes=shapes,
                opponents=opponents,
            )
            timeout = min(service.config.builds.build_timeout_s, max(self.seconds_left, 1.0))
            try:
                outcome = await service.builds.build(self.ticket, request, timeout)
            except ServerStopping as stopping:
                raise Unavailable(str(stopping), retry_after=30.0) from None
        finally:
            await loop.run_in_executor(service.unpacking, remove_tree, work)
        return self._outcome(outcome)

    def _refused(self, reason: str, status: str) -> UploadAnswer:
        self.service.contest.record_upload(self.who.name, False, None, reason, status, "")
        return UploadAnswer(False, reason, None, None, [], "")

    def _known(self, version: Version) -> UploadAnswer:
        """The same bytes as a version entered before: nothing is built again, and a
        version the organiser retired or the ladder suspended stays out."""
        contest = self.service.contest
        checks = [CheckRow(n, p, d) for n, p, d in version.checks]
        if version.out:
            why = (
                "retired by the organiser"
                if version.retired
                else (f"suspended ({version.suspended})")
            )
            reason = (
                f"refused: version {version.version} was {why}; the same bytes do not enter "
                "again (change the bot: a new version enters afresh)"
            )
            contest.record_upload(
                self.who.name, False, version.version, reason, f"refused: version {why}", ""
            )
            return UploadAnswer(False, reason, version.version, version.label, checks, "")
        reason = f"accepted: version {version.version} is entered already"
        contest.record_upload(self.who.name, True, version.version, reason, "accepted", "")
        return UploadAnswer(True, reason, version.version, version.label, checks, "")

    def _outcome(self, outcome: BuildOutcome) -> UploadAnswer:
        service = self.service
        name = self.who.name
        service.contest.record_upload(
            name,
            outcome.accepted,
            outcome.version,
            outcome.reason,
            outcome.status,
            outcome.log_tail,
            outcome.seconds,
        )
        if outcome.accepted:
            assert outcome.version is not None and outcome.path is not None
            service.contest.add_version(name, outcome.version, outcome.path, outcome.checks)
            service.ladder.wake()
        return UploadAnswer(
            accepted=outcome.accepted,
            reason=outcome.reason,
            version=outcome.version,
            entrant=f"{name}@{outcome.version}" if outcome.version else None,
            checks=[CheckRow(n, p, d) for n, p, d in outcome.checks],
            log_tail=outcome.log_tail,
        )


# -- helpers ---------------------------------------------------------------------------------

# What everyone reads of a fault that can carry a bot's own output or a server path (its
# log's end, where its log is): the kind in general words. Its owner reads the whole.
_PUBLIC_REASONS: Final = {
    FaultKind.NO_JOIN.value: "the bot did not join in time (its author can read why)",
    FaultKind.CLOSED.value: "the bot's connection closed or its process ended",
    FaultKind.STALLED.value: "the bot stopped reading its messages",
}


def public_fault(fault: Fault) -> Fault:
    reason = _PUBLIC_REASONS.get(fault.kind.value)
    return fault if reason is None else replace(fault, reason=reason)


def public_record(record: dict[str, Any]) -> dict[str, Any]:
    """A game record whose fallbacks' reasons, where they could carry a bot's output or
    a path, are replaced by general words (a copy; the stored record is unchanged)."""
    deals = record.get("deals")
    if not isinstance(deals, list):
        return record
    cleaned = []
    for deal in deals:
        decisions = deal.get("decisions") if isinstance(deal, dict) else None
        if not isinstance(decisions, list):
            cleaned.append(deal)
            continue
        out = []
        for decision in decisions:
            fallback = decision.get("fallback") if isinstance(decision, dict) else None
            if isinstance(fallback, dict) and fallback.get("fault") in _PUBLIC_REASONS:
                fault = fallback["fault"]
                decision = {**decision, "fallback": {**fallback, "reason": _PUBLIC_REASONS[fault]}}
            out.append(decision)
        cleaned.append({**deal, "decisions": out})
    return {**record, "deals": cleaned}


def remove_tree(root: Path) -> None:
    """``rm -rf root`` without recursion: an upload's tree may be a thousand directories
    deep, past what ``shutil.rmtree`` (recursive) can remove."""
    if not root.is_dir() or root.is_symlink():
        with contextlib.suppress(OSError):
            root.unlink()
        return
    folders: list[str] = []
    todo = [str(root)]
    while todo:
        folder = todo.pop()
        folders.append(folder)
        with contextlib.suppress(OSError), os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    todo.append(entry.path)
                else:
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)
    for folder in reversed(folders):
        with contextlib.suppress(OSError):
            os.rmdir(folder)


def _state(version: Version, laddered: set[str], held: dict[str, str]) -> VersionState:
    if version.retired:
        return "retired"
    if version.suspended is not None:
        return "suspended"
    if version.label in held:
        return "held"
    return "playing" if version.label in laddered else "replaced"


def _of(name: str, labels: tuple[str, ...]) -> bool:
    return any(label.partition("@")[0] == name for label in labels)


def _game_row(game: StoredGame) -> GameRow:
    return GameRow(
        id=game.id,
        seed=game.game_index,
        entrants=list(game.entrants_by_team),
        scores=list(game.scores),
        winner=game.winner,
        faults=game.faults,
    )


def _plus_day(at: str | None) -> str:
    moment = datetime.datetime.fromisoformat(at) if at else datetime.datetime.now(datetime.UTC)
    return (moment + datetime.timedelta(seconds=DAY_S)).isoformat(timespec="seconds")


def _seconds_until(at: str) -> float:
    return max(datetime.datetime.fromisoformat(at).timestamp() - time.time(), 1.0)
