"""``--cluster ADDRESS`` of ``arena run`` and ``arena compare``: its options and wiring."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Final

import typer

from arena.present.safe_text import literal

from .common import (
    STORED_IS_KEPT,
    BotFlags,
    Command,
    err_console,
    explain,
    fail,
    prepare_entrants,
    with_flag_group,
)

if TYPE_CHECKING:
    from arena.bots import BotSpec
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


@dataclass(frozen=True)
class ClusterFlags:
    """``--cluster`` and its TLS files, as given (``with_cluster_flags``)."""

    cluster: str | None = None
    cluster_tls_ca: Path | None = None
    cluster_tls_cert: Path | None = None
    cluster_tls_key: Path | None = None

    def executor(self, options: BotOptions) -> MatchExecutor | None:
        """The executor for ``--cluster``; None without it (the run plays on this machine)."""
        files = (self.cluster_tls_ca, self.cluster_tls_cert, self.cluster_tls_key)
        if self.cluster is None:
            if any(f is not None for f in files):
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
            address, security = cluster_connection(self.cluster, *files)
        except ClusterError as error:
            fail(str(error))
        return DaskExecutor(address, security=security, builds=options)

    def bots(self, flags: BotFlags) -> tuple[BotOptions, MatchExecutor | None, bool]:
        """The bot options, the executor (None: this machine) and whether the bots are
        sandboxed: here as this machine can (with its warning), on a cluster as asked, each
        worker applying it (this machine's bubblewrap says nothing of theirs)."""
        options = flags.options(warn=self.cluster is None)
        executor = self.executor(options)
        return options, executor, options.sandbox if executor is None else cluster_sandbox(flags)


NO_CLUSTER: Final = ClusterFlags()


def entrants_to_play(
    specs: list[BotSpec], options: BotOptions, executor: MatchExecutor | None
) -> list[BotSpec]:
    """The entrants as the matches are given them: each built here (``prepare_entrants``)
    for matches on this machine; as they are for a cluster, whose workers each build what
    they are shipped."""
    return specs if executor is not None else prepare_entrants(specs, options)


def with_cluster_flags() -> Callable[[Command], Command]:
    """``--cluster`` and ``--cluster-tls-ca/-cert/-key``, given to the command as one
    ``cluster_flags: ClusterFlags``."""
    return with_flag_group(
        "cluster_flags",
        ClusterFlags,
        [
            ("cluster", ClusterOption, None),
            ("cluster_tls_ca", TlsCaOption, None),
            ("cluster_tls_cert", TlsCertOption, None),
            ("cluster_tls_key", TlsKeyOption, None),
        ],
    )


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
