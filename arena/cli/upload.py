"""``arena upload``: send a bot to a contest server and print its checks."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from .common import console, err_console, fail


def upload(
    bot: Annotated[
        Path,
        typer.Argument(help="A bot directory (with bot.toml), an archive or one executable."),
    ],
    server: Annotated[str, typer.Option(help="The contest server's URL.")],
    token: Annotated[
        str | None,
        typer.Option(help="Your token (default: $ARENA_TOKEN).", show_default=False),
    ] = None,
    timeout: Annotated[float, typer.Option(help="Seconds to wait for the checks.")] = 900.0,
) -> None:
    """Upload a bot: the server builds and checks it as arena submit does."""
    import httpx

    from arena.present.safe_text import literal
    from arena.serve.client import UploadError, pack_for_upload

    token = token or os.environ.get("ARENA_TOKEN")
    if not token:
        fail("a token is needed: --token TOKEN or $ARENA_TOKEN (from arena contest add)")
    try:
        data, filename = pack_for_upload(bot)
    except UploadError as error:
        fail(str(error))
    try:
        response = httpx.post(
            server.rstrip("/") + "/api/upload",
            content=data,
            headers={"Authorization": f"Bearer {token}", "X-Filename": filename},
            timeout=timeout,
        )
    except httpx.HTTPError as error:
        fail(f"cannot reach {server}: {error}")
    try:
        body = response.json()
    except ValueError:
        fail(f"the server answered {response.status_code}: {response.text[:200]}")
    if "error" in body:
        retry = response.headers.get("retry-after")
        later = f" (try again in {retry} s)" if retry else ""
        fail(f"the server refused it ({response.status_code}): {body['error']}{later}")
    for check in body.get("checks", []):
        mark = {True: "ok  ", False: "FAIL", None: "--  "}[check["passed"]]
        detail = f": {check['detail']}" if check["detail"] else ""
        console.print(literal(f"{mark} {check['name']}{detail}"))
    if not body.get("accepted"):
        tail = str(body.get("log_tail") or "").rstrip()
        if tail:
            err_console.print("the bot's log ends with:", highlight=False)
            err_console.print(literal(tail, keep_newlines=True))
        fail(str(body.get("reason", "refused")))
    if str(body.get("reason", "")).startswith("accepted: version"):
        console.print(literal(str(body["reason"])))  # the same bytes as a version entered
    else:
        console.print(literal(f"accepted: {body['entrant']} enters the ladder"))
