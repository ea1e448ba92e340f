"""``--cluster ADDRESS`` of ``arena run`` and ``arena compare``: its options and wiring."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from arena.present.safe_text import literal

from .common import STORED_IS_KEPT, BotFlags, err_console, explain, fail

if TYPE_CHECKING:
    from arena.bots.build import BotOptions
    from arena.tournament.executor import MatchExecutor

ClusterOption = Annotated[
    str | None,
    typer.Option(
        metavar="ADDRESS",
        help="Play the matches on the Dask cluster whose scheduler is at ADDRESS "
        "(tcp://HOST:8786, or tls://HOST:8786); workers declare tables with "
        "`dask worker ADDRESS --resources TABLES=N`. This process still alone writes --db.",
    ),
]
TlsCaOption = Annotated[
    Path | None,
    typer.Option(help="--cluster over TLS: the CA certificate (PEM) the cluster's are signed by."),
]
TlsCertOption = Annotated[
    Path | None, typer.Option(help="--cluster over TLS: this coordinator's certificate (PEM).")
]
TlsKeyOption = Annotated[
    Path | None, typer.Option(help="--cluster over TLS: this coordinator's private key (PEM).")
]


def cluster_executor(
    address: str | None,
    tls_ca: Path | None,
    tls_cert: Path | None,
    tls_key: Path | None,
    options: BotOptions,
) -> MatchExecutor | None:
    """The executor for ``--cluster``; None without it (the run plays on this machine)."""
    if address is None:
        if any(f is not None for f in (tls_ca, tls_cert, tls_key)):
            fail("--cluster-tls-ca/--cluster-tls-cert/--cluster-tls-key need --cluster")
        return None
    try:
        from arena.tournament.cluster import ClusterError, DaskExecutor, cluster_connection
    except ImportError as error:
        fail(
            f"--cluster needs Dask ({error}): pip install 'schmier-arena[cluster]' "
            "(or .venv/bin/pip install -e '.[cluster]' in a checkout)"
        )
    try:
        address, security = cluster_connection(address, tls_ca, tls_cert, tls_key)
    except ClusterError as error:
        fail(str(error))
    return DaskExecutor(address, security=security, builds=options)


def cluster_sandbox(flags: BotFlags) -> bool:
    """The sandbox asked for: each worker applies it, and refuses a match where it cannot
    (this machine's bubblewrap says nothing of theirs)."""
    from arena.bots.sandbox import TRUSTED_LINE

    if flags.workdir_mb < 1:
        fail("--workdir-mb must be at least 1")
    if not flags.sandbox:
        err_console.print(f"warning: --no-sandbox: {TRUSTED_LINE}", highlight=False, markup=False)
    return flags.sandbox


@contextlib.contextmanager
def cluster_errors(executor: MatchExecutor | None) -> Iterator[None]:
    """What can go wrong on a cluster, said in one line (a build's log tail before it)."""
    if executor is None:
        yield
        return
    from arena.bots import BotBuildError
    from arena.bots.sandbox import SandboxUnavailableError
    from arena.tournament.cluster import ClusterError

    try:
        yield
    except BotBuildError as error:
        err_console.print(literal(error.log_tail.rstrip(), keep_newlines=True))
        fail(f"a bot did not build on a cluster worker: {str(error).splitlines()[0]}")
    except (ClusterError, SandboxUnavailableError) as error:
        fail(f"{explain(error)}; {STORED_IS_KEPT}")
