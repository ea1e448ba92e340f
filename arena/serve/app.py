"""The contest server: a Starlette application, its ladder beside it on the same loop.

Reads are open; every write needs a token: a contestant's (``Authorization: Bearer``,
or the upload form's ``token`` field) to upload, the organiser's for ``/api/admin/...``.
No cookies: a form carries its token each time, so no other site can post in a
contestant's name (no CSRF to defend against).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from arena.bots.build import BotOptions
from arena.present.html.replay import render_replay
from arena.referee.table import TableSettings
from arena.stats.comparison import UnitTally, compare_outcome
from arena.stats.sequential import Sprt
from arena.tournament.bundle import game_bundle
from arena.tournament.executor import MatchExecutor
from arena.tournament.store import ResultsStore, logs_beside

from . import pages
from .builds import BuildQueue, QueueFull
from .contest import Contestant, ContestError, ContestStore, registry_path
from .ladder import Ladder
from .limits import BodyLimit, RateLimit
from .unpack import MAX_UPLOAD_BYTES, UnpackError, unpack

ROUTES: Final = (
    ("GET", "/", "the leaderboard (JSON: /api/leaderboard)"),
    ("GET", "/contestants/{name}", "a contestant's versions, games, builds (/api/contestants/…)"),
    ("GET", "/games/{id}", "a game's replay (JSON: /api/games/{id})"),
    ("GET", "/live", "the games being played now (JSON: /api/live)"),
    ("GET", "/upload", "the upload form (POST: multipart token + bot)"),
    ("POST", "/api/upload", "a bot as the body; Authorization: Bearer TOKEN"),
    ("POST", "/api/admin/retire", '{"name": …, "version": … or null}; the admin token'),
    ("POST", "/api/admin/ban", '{"name": …, "banned": true|false}; the admin token'),
    ("POST", "/api/admin/pause", '{"paused": true|false}; the admin token'),
)


@dataclass(frozen=True)
class ServeConfig:
    db_path: Path
    executor: Callable[[], MatchExecutor]
    games: int = 1  # per seating in a ladder round
    validation_games: int = 2
    settings: TableSettings = field(default_factory=TableSettings)
    options: BotOptions = field(default_factory=BotOptions)
    prepare_locally: bool = True
    match_sandbox: bool | None = None  # on a cluster: what each worker must apply
    rate_per_minute: float = 120.0
    rate_burst: int = 30
    on_notice: Callable[[str], None] | None = None


class Server:
    """What the routes share: the stores (one connection each, on the loop), the ladder."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.contest = ContestStore.open(config.db_path)
        self.results = ResultsStore.open(config.db_path)
        self.builds = BuildQueue()
        self.ladder = Ladder(
            config.db_path,
            config.executor(),
            games=config.games,
            settings=config.settings,
            options=config.options,
            prepare_locally=config.prepare_locally,
            match_sandbox=config.match_sandbox,
            on_notice=config.on_notice,
        )
        self.uploads = Path(tempfile.mkdtemp(prefix="arena-uploads-"))

    def close(self) -> None:
        self.builds.close()
        self.ladder.close()
        self.contest.close()
        self.results.close()
        shutil.rmtree(self.uploads, ignore_errors=True)

    # -- who is asking ---------------------------------------------------------------------

    def contestant(self, token: str | None) -> Contestant:
        if not token:
            raise _Refused(401, "a token is needed (Authorization: Bearer TOKEN)")
        who = self.contest.contestant_of(token)
        if who is None:
            raise _Refused(403, "unknown token")
        if who.banned:
            raise _Refused(403, f"{who.name} is banned from this contest")
        return who

    def admin(self, request: Request) -> None:
        token = _bearer(request)
        if not token:
            raise _Refused(401, "the admin token is needed (Authorization: Bearer TOKEN)")
        if not self.contest.is_admin(token):
            raise _Refused(403, "not the admin token")

    # -- data behind the pages -------------------------------------------------------------

    def leaderboard(self) -> dict[str, Any]:
        report = self.ladder.state.report
        laddered = {v.label: v for v in self.contest.laddered()}
        faults = self.results.fault_counts_by_entrant(self.ladder.run_id)
        ratings = {r.entrant: r for r in report.ratings} if report else {}
        standings = {s.entrant: s for s in report.standings} if report else {}
        entries = []
        for label, version in laddered.items():
            rating = ratings.get(label)
            standing = standings.get(label)
            entries.append(
                {
                    "contestant": version.contestant,
                    "version": version.version,
                    "entrant": label,
                    "rating": None if rating is None else rating.rating,
                    "low": None if rating is None else rating.low,
                    "high": None if rating is None else rating.high,
                    "low_open": bool(rating and rating.low_open),
                    "high_open": bool(rating and rating.high_open),
                    "too_few_seeds": bool(rating is None or rating.too_few_seeds),
                    # Games played (a rating's count); without ratings, the standings'
                    # teams held (two in a game of two entrants where it held two).
                    "games": rating.games if rating else (standing.games if standing else 0),
                    "win_rate": standing.win_rate if standing else 0.0,
                    "faults": sum(faults.get(label, {}).values()),
                }
            )

        def order(entry: dict[str, Any]) -> tuple[bool, float, float, str]:
            rating = entry["rating"]
            return (rating is None, -(rating or 0.0), -entry["win_rate"], entry["entrant"])

        entries.sort(key=order)
        for rank, entry in enumerate(entries, 1):
            entry["rank"] = rank
        return {
            "run_id": self.ladder.run_id,
            "paused": self.contest.paused,
            "games": report.games if report else 0,
            "seeds": report.seeds if report else 0,
            "entrants": entries,
        }

    def contestant_data(self, name: str) -> dict[str, Any]:
        who = self.contest.contestant(name)
        if who is None:
            raise _Refused(404, f"no contestant {name!r}")
        run_id = self.ladder.run_id
        games = [g for g in self.results.games(run_id) if _of(name, g.entrants_by_team)]
        laddered = {v.label for v in self.contest.laddered()}
        faults = self.results.fault_counts_by_entrant(run_id)
        versions = []
        for version in self.contest.versions(name):
            played = [g for g in games if version.label in g.entrants_by_team]
            versions.append(
                {
                    "version": version.version,
                    "entrant": version.label,
                    "uploaded_at": version.uploaded_at,
                    "retired": version.retired,
                    "laddered": version.label in laddered,
                    "checks": [{"name": n, "passed": p, "detail": d} for n, p, d in version.checks],
                    "games": len(played),
                    "game_ids": [g.id for g in played],
                    "faults": sum(faults.get(version.label, {}).values()),
                }
            )
        return {
            "name": who.name,
            "house": who.house,
            "banned": who.banned,
            "versions": versions,
            "uploads": [asdict(u) for u in self.contest.uploads(name)],
            "comparison": self._comparison(versions),
            "games": [
                {
                    "id": g.id,
                    "seed": g.game_index,
                    "entrants": list(g.entrants_by_team),
                    "scores": list(g.scores),
                    "winner": g.winner,
                    "faults": g.faults,
                }
                for g in games
            ],
        }

    def _comparison(self, versions: list[dict[str, Any]]) -> dict[str, Any] | None:
        """``arena compare``'s test on the games the latest two versions played together."""
        if len(versions) < 2:
            return None
        new, base = versions[-1]["entrant"], versions[-2]["entrant"]
        tally = UnitTally(new, base, "groups")  # the ladder plays the two in seed groups
        for game in self.results.game_outcomes(self.ladder.run_id):
            if set(game.entrants_by_team) == {new, base}:
                tally.add(game)
        outcome = compare_outcome(self.ladder.run_id, tally, Sprt(), max_games=10**9)
        return outcome.to_json()

    def live(self) -> dict[str, Any]:
        state = self.ladder.state
        round_ = state.round
        recent = self.results.games(self.ladder.run_id)[-10:]
        return {
            "run_id": state.run_id,
            "paused": self.contest.paused,
            "round": None
            if round_ is None
            else {"id": round_.id, "entrants": list(round_.entrants), "games": round_.games},
            "matches": [
                {"match": m.key, "entrants": list(m.entrants), "games": m.games, "done": m.done}
                for m in state.live.values()
            ],
            "games_this_session": state.games_stored,
            "building": self.builds.waiting,
            "recent": [
                {"id": g.id, "entrants": list(g.entrants_by_team), "scores": list(g.scores)}
                for g in reversed(recent)
            ],
            "notices": state.notices,
        }

    async def upload(self, who: Contestant, data: bytes, filename: str) -> dict[str, Any]:
        """Unpack (off the loop), build and check (in the build process), register."""
        work = Path(tempfile.mkdtemp(dir=self.uploads))
        try:
            try:
                unpacked = await asyncio.to_thread(unpack, data, work / "bot", filename)
            except UnpackError as error:
                reason = f"refused: {error}"
                self.contest.record_upload(who.name, False, None, reason, "")
                return {"accepted": False, "reason": reason, "version": None, "checks": []}
            try:
                outcome = await self.builds.build(
                    who.name,
                    unpacked.path,
                    registry_path(self.config.db_path),
                    self.config.validation_games,
                    self.config.settings,
                    self.config.options,
                )
            except QueueFull as full:
                raise _Refused(503, str(full)) from None
        finally:
            shutil.rmtree(work, ignore_errors=True)
        checks = [{"name": n, "passed": p, "detail": d} for n, p, d in outcome.checks]
        reason = outcome.reason if outcome.accepted else f"refused: {outcome.reason}"
        self.contest.record_upload(
            who.name, outcome.accepted, outcome.version, reason, outcome.log_tail
        )
        if outcome.accepted:
            assert outcome.version is not None and outcome.path is not None
            self.contest.add_version(who.name, outcome.version, outcome.path, outcome.checks)
            self.ladder.wake()
        return {
            "accepted": outcome.accepted,
            "reason": reason,
            "version": outcome.version,
            "entrant": f"{who.name}@{outcome.version}" if outcome.version else None,
            "checks": checks,
            "log_tail": outcome.log_tail,
        }


class _Refused(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def _of(name: str, labels: tuple[str, ...]) -> bool:
    return any(label.partition("@")[0] == name for label in labels)


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def _html(body: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(body, status, headers={"Content-Security-Policy": pages.PAGE_POLICY})


def create_app(config: ServeConfig) -> Starlette:
    holder: dict[str, Server] = {}

    def server() -> Server:
        return holder["server"]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        holder["server"] = Server(config)
        ladder = server().ladder

        async def keep_playing() -> None:
            try:
                await ladder.run()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the ladder stops; the server and its pages stay
                ladder.state.note(f"the ladder stopped: {error}")
                if config.on_notice is not None:
                    config.on_notice(f"the ladder stopped: {error}")

        task = asyncio.ensure_future(keep_playing())
        try:
            yield
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            server().close()

    async def leaderboard_json(request: Request) -> Response:
        return JSONResponse(server().leaderboard())

    async def leaderboard_html(request: Request) -> Response:
        return _html(pages.leaderboard_page(server().leaderboard()))

    async def contestant_json(request: Request) -> Response:
        return JSONResponse(server().contestant_data(request.path_params["name"]))

    async def contestant_html(request: Request) -> Response:
        data = server().contestant_data(request.path_params["name"])
        return _html(pages.contestant_page(data))

    def _game_id(request: Request) -> int:
        try:
            return int(request.path_params["game"])
        except ValueError:
            raise _Refused(404, "no such game") from None

    async def game_json(request: Request) -> Response:
        store = server().results
        game_id = _game_id(request)
        try:
            place = store.game(game_id)
            record = store.game_record(game_id)
        except KeyError:
            raise _Refused(404, f"no game {game_id}") from None
        return JSONResponse(
            {
                "id": game_id,
                "run_id": place.run_id,
                "match": place.match_key,
                "seed": place.game_index,
                "entrants": list(place.entrants_by_team),
                "record": record,
            }
        )

    async def game_html(request: Request) -> Response:
        store = server().results
        game_id = _game_id(request)
        try:
            bundle = game_bundle(store, game_id, logs_beside(config.db_path))
        except KeyError:
            raise _Refused(404, f"no game {game_id}") from None
        # Public: without the seats' logs, which are each bot's own output for its author
        # (the organiser reads them with arena logs).
        public = dataclasses.replace(bundle, log_tails=((),) * len(bundle.log_tails))
        return HTMLResponse(render_replay(public))  # its own policy, in the page

    async def live_json(request: Request) -> Response:
        return JSONResponse(server().live())

    async def live_html(request: Request) -> Response:
        return _html(pages.live_page(server().live()))

    async def api_index(request: Request) -> Response:
        if "application/json" in request.headers.get("accept", ""):
            return JSONResponse([{"method": m, "path": p, "what": w} for m, p, w in ROUTES])
        return _html(pages.api_page(ROUTES))

    async def upload_form(request: Request) -> Response:
        return _html(pages.upload_page())

    async def upload_form_post(request: Request) -> Response:
        async with request.form(max_files=1, max_fields=4, max_part_size=1024) as form:
            token = form.get("token")
            bot = form.get("bot")
            try:
                who = server().contestant(token if isinstance(token, str) else None)
            except _Refused as refused:
                return _html(pages.upload_page({"error": refused.reason}), refused.status)
            if not isinstance(bot, UploadFile):
                return _html(pages.upload_page({"error": "no bot file in the form"}), 400)
            data = await bot.read(MAX_UPLOAD_BYTES + 1)
            filename = bot.filename or "bot"
        try:
            result = await server().upload(who, data, filename)
        except _Refused as refused:
            return _html(pages.upload_page({"error": refused.reason}), refused.status)
        return _html(pages.upload_page(result), 200 if result["accepted"] else 422)

    async def upload_api(request: Request) -> Response:
        who = server().contestant(_bearer(request))
        data = await request.body()
        filename = request.headers.get("x-filename", "bot")
        result = await server().upload(who, data, filename)
        return JSONResponse(result, 200 if result["accepted"] else 422)

    async def _json_body(request: Request) -> dict[str, Any]:
        try:
            body = await request.json()
        except ValueError:
            raise _Refused(400, "the body must be a JSON object") from None
        if not isinstance(body, dict):
            raise _Refused(400, "the body must be a JSON object")
        return body

    async def admin_retire(request: Request) -> Response:
        server().admin(request)
        body = await _json_body(request)
        try:
            count = server().contest.retire(str(body.get("name")), body.get("version"))
        except ContestError as error:
            raise _Refused(404, str(error)) from None
        server().ladder.wake()
        return JSONResponse({"retired": count})

    async def admin_ban(request: Request) -> Response:
        server().admin(request)
        body = await _json_body(request)
        banned = bool(body.get("banned", True))
        try:
            server().contest.ban(str(body.get("name")), banned)
        except ContestError as error:
            raise _Refused(404, str(error)) from None
        server().ladder.wake()
        return JSONResponse({"name": body.get("name"), "banned": banned})

    async def admin_pause(request: Request) -> Response:
        server().admin(request)
        body = await _json_body(request)
        paused = bool(body.get("paused", True))
        server().contest.set_paused(paused)
        server().ladder.wake()
        return JSONResponse({"paused": paused})

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, _Refused)
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": exc.reason}, exc.status)
        return _html(pages.document("Refused", f"<p>{pages.e(exc.reason)}</p>"), exc.status)

    routes = [
        Route("/", leaderboard_html),
        Route("/api/leaderboard", leaderboard_json),
        Route("/contestants/{name}", contestant_html),
        Route("/api/contestants/{name}", contestant_json),
        Route("/games/{game}", game_html),
        Route("/api/games/{game}", game_json),
        Route("/live", live_html),
        Route("/api/live", live_json),
        Route("/api", api_index),
        Route("/upload", upload_form, methods=["GET"]),
        Route("/upload", upload_form_post, methods=["POST"]),
        Route("/api/upload", upload_api, methods=["POST"]),
        Route("/api/admin/retire", admin_retire, methods=["POST"]),
        Route("/api/admin/ban", admin_ban, methods=["POST"]),
        Route("/api/admin/pause", admin_pause, methods=["POST"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={_Refused: refused})
    app.add_middleware(BodyLimit)
    app.add_middleware(RateLimit, per_minute=config.rate_per_minute, burst=config.rate_burst)
    return app
