"""The ``arena`` command line: the typer ``app`` and its commands, one module each.

Each command parses options, calls one library function and renders; what the commands
share is in :mod:`arena.cli.common`.
"""

from __future__ import annotations

import typer

from .bench import bench_app
from .bots import bots
from .compare import compare
from .contest import contest_app
from .logs import logs
from .new import new
from .play import play
from .proto import proto
from .replay import replay
from .report import report
from .run import run
from .serve import serve
from .submit import submit
from .try_ import try_bot
from .upload import upload

__all__ = ["app"]

app = typer.Typer(
    help="Schmier Arena: run card-playing bots against each other.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
for command in (play, run, compare, report, replay, logs, submit, bots, new, proto, serve, upload):
    app.command()(command)
app.command(name="try")(try_bot)
app.add_typer(bench_app, name="bench")
app.add_typer(contest_app, name="contest")
