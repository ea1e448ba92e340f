"""What the ``arena`` commands share: consoles, errors, option types and helpers.

Option types are defined here, before any command uses them.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final, NoReturn, TypeVar, cast

import typer
from rich.console import Console
from rich.text import Text

from arena.present.safe_text import literal

if TYPE_CHECKING:
    from arena.bots import BotSpec
    from arena.bots.build import BotOptions
    from arena.tournament.store import ResultsStore

# soft_wrap: messages and paths stay on one line whatever the terminal's width.
console = Console(soft_wrap=True)
err_console = Console(stderr=True, soft_wrap=True)

MIB = 1024 * 1024
DEFAULT_DB = Path("arena-results") / "arena.db"
DEFAULT_REGISTRY = Path("arena-results") / "registry"

DbOption = Annotated[Path, typer.Option(help="The results database.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the report as JSON.")]
WideOption = Annotated[
    bool,
    typer.Option(
        "--wide",
        help="Add the report's secondary columns (wins, draws, bids, faults, decision times, "
        "head-to-head counts); the default view fits 80 columns.",
    ),
]
RegistryOption = Annotated[Path, typer.Option(help="The local bot registry.")]
SandboxOption = Annotated[
    bool,
    typer.Option(
        "--sandbox/--no-sandbox",
        help="Run each bot in bubblewrap (where it works): its own capped working dir, its "
        "code and the system read-only, no network. --no-sandbox: the bots are trusted code.",
    ),
]
WorkdirOption = Annotated[
    int,
    typer.Option(help="Size cap of a sandboxed bot's working dir (also of its /tmp) (MiB)."),
]
RoundsOption = Annotated[int, typer.Option(help="Rounds; medians are reported.")]
DecisionOption = Annotated[int, typer.Option(help="Time per decision (ms).")]
OverageOption = Annotated[int, typer.Option(help="Overage bank per game (ms).")]
MemoryOption = Annotated[
    int,
    typer.Option(
        help="Memory limit per bot (all its processes), MiB: a memory cgroup where the "
        "machine has one, else the address space of each process."
    ),
]
CpuOption = Annotated[int, typer.Option(help="CPU-time limit per bot process (seconds).")]
CpuCoresOption = Annotated[
    float,
    typer.Option(
        help="CPU per bot, all its processes together, in cores (a cgroup quota where the "
        "machine has the cpu controller); every bot has the same share."
    ),
]
ProcessesOption = Annotated[int, typer.Option(help="Processes and threads per bot (cgroup).")]
LogOption = Annotated[int, typer.Option(help="Log kept per seat and per build (KiB).")]
BuildOption = Annotated[
    bool,
    typer.Option(
        help="Run each bot's build command (from its bot.toml) first, in the sandbox, in "
        "a copy of the bot kept per version."
    ),
]
BuildDiskOption = Annotated[
    int,
    typer.Option(
        help="Size cap of a bot's files (MiB): the filesystem its build writes its copy on, "
        "and each seat's copy of what it built; a sparse file counts its full size.",
    ),
]
BuildNetworkOption = Annotated[
    bool,
    typer.Option(
        "--build-network",
        help="Give builds the host's network (e.g. npm ci), and so whatever it reaches "
        "(loopback services, a cluster's scheduler). Seats never get it.",
    ),
]
PassEnvOption = Annotated[
    list[str] | None,
    typer.Option(
        "--pass-env",
        metavar="NAME",
        help="Give every bot (builds and seats) this variable of the arena's environment "
        "(repeatable). Bots get no other variable of the arena's.",
    ),
]


def fail(message: str, code: int = 2) -> NoReturn:
    """A clear one-line error and a non-zero exit, never a traceback.

    The message often quotes a bot (its name, an answer, its manifest): it is printed
    literally, control characters made visible, never read as markup.
    """
    err_console.print(Text.assemble(("error:", "bold red"), " ", literal(message)))
    raise typer.Exit(code)


def explain(error: BaseException) -> str:
    """An error in one line that always says something: its message, or (for an exception
    raised without one, such as a bare TimeoutError) its kind and where it was raised."""
    text = str(error).strip()
    if text:
        return text.splitlines()[0]
    import traceback

    frames = traceback.extract_tb(error.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    return f"{type(error).__name__} (with no message){where}"


STORED_IS_KEPT = "every game stored so far is kept, run the same command to resume"


@dataclass(frozen=True)
class BotFlags:
    """The bot options as given on the command line: one value for every command that starts
    bots (``with_bot_flags`` adds them to a command and hands it this)."""

    sandbox: bool = True
    workdir_mb: int = 64
    memory_mb: int = 2048
    cpu_seconds: int = 600
    cpu_cores: float = 1.0
    processes: int = 256
    log_kb: int = 1024
    build: bool = True
    build_disk_mb: int = 256  # Limits.disk_bytes
    build_network: bool = False
    pass_env: list[str] | None = None

    def options(self, warn: bool = True) -> BotOptions:
        """The bot options, checked; with ``warn``, one line on stderr when the bots run
        unsandboxed (``check_sandbox``)."""
        from arena.bots import Limits
        from arena.bots.build import BotOptions
        from arena.bots.manifest import check_pass_env
        from arena.bots.tree import MAX_TREE

        if self.cpu_cores <= 0:
            fail("--cpu-cores must be more than 0")
        if not 1 <= self.build_disk_mb <= MAX_TREE.bytes // MIB:
            fail(f"--build-disk-mb must be from 1 to {MAX_TREE.bytes // MIB}")
        try:
            passed = check_pass_env(self.pass_env or [])
        except ValueError as error:
            fail(str(error))
        return BotOptions(
            limits=Limits(
                memory_bytes=self.memory_mb * MIB,
                cpu_seconds=self.cpu_seconds,
                cpu_cores=self.cpu_cores,
                processes=self.processes,
                log_bytes=self.log_kb * 1024,
                disk_bytes=self.build_disk_mb * MIB,
            ),
            sandbox=check_sandbox(self.sandbox, self.workdir_mb) if warn else self.sandbox,
            workdir_bytes=self.workdir_mb * MIB,
            pass_env=passed,
            build=self.build,
            build_network=self.build_network,
        )


DEFAULT_BOT_FLAGS: Final = BotFlags()

# The command-line flags of BotFlags, in the order --help lists them.
_BOT_FLAGS: Final = (
    ("sandbox", SandboxOption),
    ("workdir_mb", WorkdirOption),
    ("memory_mb", MemoryOption),
    ("cpu_seconds", CpuOption),
    ("cpu_cores", CpuCoresOption),
    ("processes", ProcessesOption),
    ("log_kb", LogOption),
    ("build", BuildOption),
    ("build_disk_mb", BuildDiskOption),
    ("build_network", BuildNetworkOption),
    ("pass_env", PassEnvOption),
)

Command = TypeVar("Command", bound=Callable[..., Any])


def with_flag_group(
    parameter: str, group: Callable[..., Any], flags: list[tuple[str, Any, Any]]
) -> Callable[[Command], Command]:
    """Give a command the flags ``(name, Annotated option, default)`` and call it with them
    gathered into one value, ``parameter=group(**flags given)``.

    Typer reads a command's parameters from its signature, so the flags are added to the
    signature the command shows, and gathered before it runs.
    """
    added = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=hint)
        for name, hint, default in flags
    ]
    names = [flag.name for flag in added]

    def decorate(command: Command) -> Command:
        signature = inspect.signature(command, eval_str=True)
        kept = [p for p in signature.parameters.values() if p.name != parameter]
        if len(kept) == len(signature.parameters):
            raise TypeError(f"{command.__name__} takes no {parameter} parameter")

        @functools.wraps(command)
        def with_flags(*args: Any, **kwargs: Any) -> Any:
            given = {name: kwargs.pop(name) for name in names if name in kwargs}
            return command(*args, **{parameter: group(**given)}, **kwargs)

        with_flags.__signature__ = signature.replace(parameters=[*kept, *added])  # type: ignore[attr-defined]
        return cast(Command, with_flags)

    return decorate


def with_bot_flags(*, build: bool = True) -> Callable[[Command], Command]:
    """The bot options (``--sandbox``, ``--memory-mb`` …, ``--build`` when ``build``), given
    to the command as one ``bot_flags: BotFlags``."""
    return with_flag_group(
        "bot_flags",
        BotFlags,
        [
            (name, hint, getattr(DEFAULT_BOT_FLAGS, name))
            for name, hint in _BOT_FLAGS
            if build or name != "build"
        ],
    )


def check_sandbox(sandbox: bool, workdir_mb: int = 64) -> bool:
    """Whether the bots run sandboxed; when not, one line on stderr says what that means."""
    from arena.bots.sandbox import TRUSTED_LINE, sandbox_problem

    if workdir_mb < 1:
        fail("--workdir-mb must be at least 1")
    problem = "--no-sandbox" if not sandbox else sandbox_problem()
    if problem is None:
        return True
    err_console.print(f"warning: {problem}: {TRUSTED_LINE}", highlight=False, markup=False)
    return False


def reap_leftovers() -> None:
    """Before launching bots: kill what an arena that died left running, and say so."""
    from arena.bots.reaper import reap

    line = reap()
    if line is not None:  # on stderr, so that --json output stays clean
        err_console.print(line, highlight=False, markup=False)


def load_entrants(names: list[str], registry_root: Path = DEFAULT_REGISTRY) -> list[BotSpec]:
    """Entrants from paths (an executable or a directory with bot.toml) or registered names."""
    from arena.bots import BotSpecError, load_bot
    from arena.tournament.registry import Registry, RegistryError

    registry = Registry(registry_root)
    specs = []
    for name in names:
        try:
            if Path(name).exists() or "/" in name:
                specs.append(load_bot(name))
            else:
                specs.append(registry.load(registry.find(name)))
        except (BotSpecError, RegistryError) as error:
            fail(str(error))
    return specs


def prepare_entrants(specs: list[BotSpec], options: BotOptions) -> list[BotSpec]:
    """Each bot ready to run: copied per version and built there once (the sandbox's
    build, ``arena.bots.build``), its source directory never written."""
    from arena.bots import BotBuildError
    from arena.bots.build import NETWORK_HINT, BotCache, PrepareError, needs_network

    cache = BotCache()
    prepared = []
    for spec in specs:
        if options.build and spec.build and not cache.is_ready(spec):
            # On stderr, so that --json output stays clean.
            err_console.print(literal(f"building {spec.name}@{spec.version}: {spec.build_line}"))
        try:
            prepared.append(cache.prepare(spec, options))
        except BotBuildError as error:
            err_console.print(literal(error.log_tail.rstrip(), keep_newlines=True))
            hint = f"; {NETWORK_HINT}" if needs_network(error.log_tail, options) else ""
            fail(f"{spec.name} did not build: {str(error).splitlines()[0]}{hint}")
        except PrepareError as error:
            fail(str(error))
    return prepared


def open_store(db: Path, create: bool = True) -> ResultsStore:
    from arena.tournament.store import ResultsStore, ResultsStoreError

    try:
        return ResultsStore.open(db, create=create)
    except ResultsStoreError as error:
        fail(str(error))


def show_report(db: Path, run_id: str | None, as_json: bool, wide: bool = False) -> None:
    """A stored run's report: rich tables (the secondary columns only when ``wide``), or JSON
    for machines (everything)."""
    import json

    from arena.present.display import render_report
    from arena.tournament.report import UnknownRunError, build_report

    with open_store(db, create=False) as store:
        try:
            report = build_report(store, run_id)
        except UnknownRunError as error:
            fail(str(error))
    if as_json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        render_report(console, report, wide)
