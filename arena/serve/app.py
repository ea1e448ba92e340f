"""The contest server's HTTP side: Starlette routes around the contest service.

Each route reads the request (its token, its body, its path), asks the service
(``arena.serve.service``) and answers with the service's typed value as JSON or as a
page (``arena.serve.pages``). The service's refusals (``ServiceError``) become their
status with ``{"error": "one line"}`` (a page on the HTML side); anything else that goes
wrong is a 500 whose line says only that, the details going to the server's log.

Reads are open; every write needs a token: a contestant's (``Authorization: Bearer``,
or the forms' ``token`` field) to upload or read their own logs, the organiser's for
``/api/admin/...``. No cookies: a form carries its token each time, so no other site can
post in a contestant's name (no CSRF to defend against).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Final

from starlette.applications import Starlette
from starlette.datastructures import FormData, UploadFile
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from arena.present.html.replay import render_replay

from . import pages
from .limits import BodyLimit, BodyRefused, RateLimit
from .service import (
    BadRequest,
    BanRequest,
    ContestService,
    NotFound,
    PauseRequest,
    ReinstateRequest,
    RetireRequest,
    ServeConfig,
    ServiceError,
    parse,
)
from .unpack import MAX_UPLOAD_BYTES

__all__ = ["ROUTES", "create_app"]

ROUTES: Final = (
    ("GET", "/", "the leaderboard (JSON: /api/leaderboard)"),
    ("GET", "/contestants/{name}", "a contestant's versions, uploads, games (/api/contestants/…)"),
    ("POST", "/contestants/{name}", "the same with your logs and reasons (form: token)"),
    ("GET", "/api/contestants/{name}/games/{id}/logs", "your seats' logs; Bearer TOKEN"),
    ("GET", "/games/{id}", "a game's replay (JSON: /api/games/{id})"),
    ("GET", "/live", "the games being played now (JSON: /api/live)"),
    ("GET", "/upload", "the upload form (POST: multipart token + bot)"),
    ("POST", "/api/upload", "a bot as the body; Authorization: Bearer TOKEN"),
    ("POST", "/api/admin/retire", '{"name": …, "version": … or null}; the admin token'),
    ("POST", "/api/admin/ban", '{"name": …, "banned": true|false}; the admin token'),
    ("POST", "/api/admin/pause", '{"paused": true|false}; the admin token'),
    ("POST", "/api/admin/reinstate", '{"name": …, "version": …}; the admin token'),
)

log = logging.getLogger("arena.serve")


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def _json(value: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    body = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return Response(body, status, headers=headers, media_type="application/json")


def _html(body: str, status: int = 200, headers: dict[str, str] | None = None) -> HTMLResponse:
    return HTMLResponse(
        body, status, headers={"Content-Security-Policy": pages.PAGE_POLICY, **(headers or {})}
    )


def _game_id(raw: str) -> int:
    try:
        game = int(raw)
    except ValueError:
        raise NotFound("no such game") from None
    if not 0 < game < 2**62:
        raise NotFound("no such game")
    return game


async def _form(request: Request) -> FormData:
    """The form of a POST (multipart or urlencoded): a malformed one is a 400."""
    try:
        return await request.form(max_files=1, max_fields=4, max_part_size=4096)
    except (ServiceError, BodyRefused):
        raise
    except Exception as error:  # python-multipart's refusals, a body cut short
        raise BadRequest(f"the form could not be read: {error}") from None


def _text(form: FormData, field: str) -> str | None:
    value = form.get(field)
    return value if isinstance(value, str) and value else None


def create_app(config: ServeConfig) -> Starlette:
    """The application; ``app.state.service`` is the contest's service while it runs."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        service = ContestService(config)
        app.state.service = service
        ladder = service.ladder

        async def keep_playing() -> None:
            try:
                await ladder.run()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the ladder stops; the server and its pages stay
                ladder.state.note("the ladder stopped: the arena's own error")
                log.exception("the ladder stopped")
                if config.on_notice is not None:
                    config.on_notice(f"the ladder stopped: {error}")

        task = asyncio.ensure_future(keep_playing())

        def stop() -> None:
            service.stop()
            task.cancel()

        app.state.stop = stop
        try:
            yield
        finally:
            service.stop()
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            service.close()

    def service(request: Request) -> ContestService:
        found: ContestService = request.app.state.service
        return found

    def route(
        handler: Callable[[Request, ContestService], Awaitable[Response]],
    ) -> Callable[[Request], Awaitable[Response]]:
        """The handler with the service's refusals turned into their answers."""

        async def answer(request: Request) -> Response:
            api = request.url.path.startswith("/api")
            try:
                return await handler(request, service(request))
            except ServiceError as refused:
                headers = {}
                if refused.retry_after is not None:
                    headers["Retry-After"] = str(max(1, round(refused.retry_after)))
                if api:
                    return _json({"error": refused.line}, refused.status, headers)
                return _html(pages.refused_page(refused.line), refused.status, headers)

        return answer

    async def leaderboard_json(request: Request, service: ContestService) -> Response:
        return _json(service.leaderboard())

    async def leaderboard_html(request: Request, service: ContestService) -> Response:
        return _html(pages.leaderboard_page(service.leaderboard()))

    async def contestant_json(request: Request, service: ContestService) -> Response:
        name = request.path_params["name"]
        return _json(service.contestant_view(name, _bearer(request)))

    async def contestant_html(request: Request, service: ContestService) -> Response:
        name = request.path_params["name"]
        token = None
        if request.method == "POST":
            token = _text(await _form(request), "token")
            service.contestant(token)  # a wrong token is refused, not shown the public page
        return _html(pages.contestant_page(service.contestant_view(name, token)))

    async def logs_json(request: Request, service: ContestService) -> Response:
        name, game = request.path_params["name"], _game_id(request.path_params["game"])
        logs = service.seat_logs(name, game, _bearer(request))
        return _json([dataclasses.asdict(log) for log in logs])

    async def logs_html(request: Request, service: ContestService) -> Response:
        name = request.path_params["name"]
        form = await _form(request)
        game = _game_id(_text(form, "game") or "")
        logs = service.seat_logs(name, game, _text(form, "token"))
        return _html(pages.logs_page(name, game, logs))

    async def game_json(request: Request, service: ContestService) -> Response:
        return _json(service.game(_game_id(request.path_params["game"])))

    async def game_html(request: Request, service: ContestService) -> Response:
        bundle = service.game_bundle(_game_id(request.path_params["game"]))
        return HTMLResponse(render_replay(bundle))  # its own policy, in the page

    async def live_json(request: Request, service: ContestService) -> Response:
        return _json(service.live())

    async def live_html(request: Request, service: ContestService) -> Response:
        return _html(pages.live_page(service.live()))

    async def api_index(request: Request, service: ContestService) -> Response:
        if "application/json" in request.headers.get("accept", ""):
            return _json([{"method": m, "path": p, "what": w} for m, p, w in ROUTES])
        return _html(pages.api_page(ROUTES))

    async def upload_form(request: Request, service: ContestService) -> Response:
        return _html(pages.upload_page())

    async def upload_form_post(request: Request, service: ContestService) -> Response:
        form = await _form(request)
        bot = form.get("bot")
        try:
            async with service.upload_slot(_text(form, "token")) as slot:
                if not isinstance(bot, UploadFile):
                    raise BadRequest("no bot file in the form")
                data = await bot.read(MAX_UPLOAD_BYTES + 1)
                answer = await slot.submit(data, bot.filename or "bot")
        except ServiceError as refused:
            headers = {}
            if refused.retry_after is not None:
                headers["Retry-After"] = str(max(1, round(refused.retry_after)))
            return _html(pages.upload_page(error=refused.line), refused.status, headers)
        finally:
            await form.close()
        return _html(pages.upload_page(answer), 200 if answer.accepted else 422)

    async def upload_api(request: Request, service: ContestService) -> Response:
        # The token, the quota and a place in the queue first; then the body is read.
        async with service.upload_slot(_bearer(request)) as slot:
            data = await request.body()
            filename = request.headers.get("x-filename", "bot")
            answer = await slot.submit(data, filename)
        return _json(answer, 200 if answer.accepted else 422)

    async def admin_retire(request: Request, service: ContestService) -> Response:
        service.admin(_bearer(request))
        retire = parse(RetireRequest, await request.body())
        return _json({"retired": service.retire(retire)})

    async def admin_ban(request: Request, service: ContestService) -> Response:
        service.admin(_bearer(request))
        ban = parse(BanRequest, await request.body())
        service.ban(ban)
        return _json({"name": ban.name, "banned": ban.banned})

    async def admin_pause(request: Request, service: ContestService) -> Response:
        service.admin(_bearer(request))
        pause = parse(PauseRequest, await request.body())
        service.pause(pause)
        return _json({"paused": pause.paused})

    async def admin_reinstate(request: Request, service: ContestService) -> Response:
        service.admin(_bearer(request))
        reinstate = parse(ReinstateRequest, await request.body())
        service.reinstate(reinstate)
        return _json({"name": reinstate.name, "version": reinstate.version, "reinstated": True})

    async def failed(request: Request, exc: Exception) -> Response:
        log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        line = "the server's own error (it is in the server's log)"
        if request.url.path.startswith("/api"):
            return _json({"error": line}, 500)
        return _html(pages.refused_page(line), 500)

    get, post = ["GET"], ["POST"]
    routes = [
        Route("/", route(leaderboard_html), methods=get),
        Route("/api/leaderboard", route(leaderboard_json), methods=get),
        Route("/contestants/{name}", route(contestant_html), methods=["GET", "POST"]),
        Route("/contestants/{name}/logs", route(logs_html), methods=post),
        Route("/api/contestants/{name}", route(contestant_json), methods=get),
        Route("/api/contestants/{name}/games/{game}/logs", route(logs_json), methods=get),
        Route("/games/{game}", route(game_html), methods=get),
        Route("/api/games/{game}", route(game_json), methods=get),
        Route("/live", route(live_html), methods=get),
        Route("/api/live", route(live_json), methods=get),
        Route("/api", route(api_index), methods=get),
        Route("/upload", route(upload_form), methods=get),
        Route("/upload", route(upload_form_post), methods=post),
        Route("/api/upload", route(upload_api), methods=post),
        Route("/api/admin/retire", route(admin_retire), methods=post),
        Route("/api/admin/ban", route(admin_ban), methods=post),
        Route("/api/admin/pause", route(admin_pause), methods=post),
        Route("/api/admin/reinstate", route(admin_reinstate), methods=post),
    ]
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={Exception: failed})
    app.add_middleware(BodyLimit)
    app.add_middleware(RateLimit, per_minute=config.rate_per_minute, burst=config.rate_burst)
    return app
