"""Describe bots on disk: load a ``bot.toml`` directory or an executable file into a BotSpec.

A bot is either

* a directory containing ``bot.toml``::

      name = "greedy"                    # required: a letter, digit or _, then [A-Za-z0-9_.-], ≤ 64
      command = ["python3", "bot.py"]    # required: list of strings, or one string (shlex-split)
      build = "make gen && make"         # optional: a string runs in a shell (sh -c), a list
                                         # as it is; in (a copy of) the bot directory
      protocol = "stdio"                 # optional: "grpc" (the default) or "stdio"

* or a single executable file (name = file stem, command = its absolute path).

Commands are launched from a fresh per-seat working directory, not from the bot
directory, so :func:`resolve_command` rewrites arguments that refer to files in
the bot directory into absolute paths. A leading ``python3``/``python`` is
replaced by :data:`sys.executable`, so Python bots run with the same interpreter
and installed packages (grpcio, the SDK, ...) as the arena itself rather than
whatever ``python3`` happens to be first on ``PATH``. A build runs in the bot's
directory (its per-version copy, ``arena.bots.build``), so its arguments stay as written.

A bot's version is a hash of every file that runs: all of its directory but ``.git``,
``__pycache__`` and ``*.pyc`` (which are never copied where the bot runs, so no code can
hide there), read as ``arena.bots.tree`` reads a tree: never through a link (a link is
hashed as its text), so that every process computes the same version from the same
files. Its manifest must be a regular file of its own. The variables a bot may see from
the arena's environment are the operator's to grant (``--pass-env``), never the
manifest's.
"""

from __future__ import annotations

import os
import re
import shlex
import stat
import sys
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bots.tree import TreeError, file_version, scan

__all__ = [
    "MANIFEST_NAME",
    "PROTOCOLS",
    "BotBuildError",
    "BotSpec",
    "BotSpecError",
    "check_name",
    "check_pass_env",
    "compute_version",
    "load_bot",
    "read_log_tail",
    "resolve_command",
    "versioned_files",
]

MANIFEST_NAME = "bot.toml"

# A name becomes a directory in the registry, part of a log file's name and a cell of
# every table: no separators, no leading dot or dash (hidden files, options), no
# markup or control characters, short enough for a table.
NAME_LIMIT = 64
_NAME_RE = re.compile(rf"[A-Za-z0-9_][A-Za-z0-9_.-]{{0,{NAME_LIMIT - 1}}}")
_NAME_RULE = f"a letter, digit or _, then letters, digits, _ . -; at most {NAME_LIMIT}"
_KNOWN_KEYS = frozenset({"name", "command", "build", "protocol"})
# How a bot talks to the referee (docs/PROTOCOL.md): a gRPC stream to ARENA_ADDRESS, or one
# JSON message per line on its standard input and output.
PROTOCOLS = ("grpc", "stdio")
_ENV_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Set by the arena for each seat (arena.bots.process.bot_environment): the operator cannot
# pass the arena's own values of these instead.
_ARENA_ENV = frozenset({"PATH", "HOME", "LANG", "PYTHONUNBUFFERED"})
_PYTHON_NAMES = frozenset({"python", "python3"})
_MANIFEST_MAX = 64 * 1024  # bytes of a bot.toml: a few lines


class BotSpecError(ValueError):
    """A bot path or its manifest is unusable; the message is one line and names the file."""


class BotBuildError(RuntimeError):
    """A bot's build command failed or timed out."""

    def __init__(self, message: str, *, returncode: int | None, log_tail: str) -> None:
        super().__init__(message)
        self.returncode = returncode
        self.log_tail = log_tail

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled whole (a build on a cluster worker fails on the coordinator): the default
        # would call the class with the message alone.
        return (_build_error, (str(self), self.returncode, self.log_tail))


def _build_error(message: str, returncode: int | None, log_tail: str) -> BotBuildError:
    return BotBuildError(message, returncode=returncode, log_tail=log_tail)


@dataclass(frozen=True)
class BotSpec:
    """Everything needed to build and launch one bot.

    ``version`` is a content hash of what runs (see :func:`compute_version`);
    ``command`` is already passed through :func:`resolve_command`. ``build_digest`` is
    the same hash of the files its seats run, once ``arena.bots.build.BotCache`` has
    prepared it (copied and built); a bot with no build runs its version's files, so its
    build digest is its version. None: not prepared.
    """

    name: str
    version: str
    command: tuple[str, ...]
    directory: Path
    build: tuple[str, ...] | None  # argv, run in the bot's directory ("sh -c" for a string)
    executable: bool = False  # a one-file bot: ``command[0]`` is the file, the whole bot
    protocol: str = "grpc"  # one of PROTOCOLS: how it talks to the referee
    build_digest: str | None = None  # what its seats run, once prepared (BotCache)

    @property
    def stdio(self) -> bool:
        """It speaks JSON lines on its standard input and output, not gRPC."""
        return self.protocol == "stdio"

    @property
    def build_line(self) -> str:
        """The build command as its manifest gave it."""
        if self.build is None:
            return ""
        if len(self.build) == 3 and self.build[:2] == ("sh", "-c"):
            return self.build[2]
        return shlex.join(self.build)

    @property
    def path(self) -> Path:
        """The bot's files: its directory, or its one executable file."""
        return Path(self.command[0]) if self.executable else self.directory


def resolve_command(command: Sequence[str], directory: Path) -> tuple[str, ...]:
    """Make ``command`` independent of the current working directory.

    * a first element ``python``/``python3`` becomes :data:`sys.executable`;
    * a relative first element containing ``/`` (``./bot``, ``build/bot``) is
      taken relative to ``directory`` even if it does not exist yet, because a
      build step may create it later;
    * any other relative argument naming an existing file in ``directory``
      becomes that file's absolute path.

    Idempotent, so it is applied again at launch time to pick up files that the
    build created. Arguments embedded in options (``--cfg=x.toml``) are left
    alone; bots can find their directory in ``$ARENA_BOT_DIR``.
    """
    resolved: list[str] = []
    for index, arg in enumerate(command):
        if index == 0 and arg in _PYTHON_NAMES:
            resolved.append(sys.executable)
        elif not arg or os.path.isabs(arg):
            resolved.append(arg)
        elif (index == 0 and "/" in arg) or (directory / arg).is_file():
            resolved.append(str(directory / arg))
        else:
            resolved.append(arg)
    return tuple(resolved)


def compute_version(path: Path) -> str:
    """Return the first 12 hex chars of a sha256 over the bot's content.

    For a directory every file and link (relative path, and a file's bytes or a link's
    text, never what it points to) is hashed in sorted path order, skipping only
    ``__pycache__`` and ``.git`` directories and ``*.pyc`` files, which are never copied
    where the bot runs (``arena.bots.tree``: at most ``MAX_TREE``). For a single file only
    its bytes are hashed, so renaming it keeps the version. ``OSError`` for what cannot
    be read, ``TreeError`` for a tree over its caps.
    """
    if not path.is_dir():
        return file_version(path)
    return scan(path).version


def versioned_files(path: Path) -> list[tuple[str, Path]]:
    """The files and links of bot directory ``path`` that its version hashes, as (relative
    POSIX path, full path) in sorted order: everything that can run (all but ``.git``,
    ``__pycache__`` and ``*.pyc``), and exactly what a seat's copy holds."""
    return [(item.rel, path / item.rel) for item in scan(path).items]


def check_pass_env(names: Sequence[str]) -> tuple[str, ...]:
    """The operator's ``--pass-env`` names, checked: variable names the arena does not set
    itself (a ValueError with one line otherwise)."""
    for name in names:
        if not _ENV_NAME_RE.fullmatch(name):
            raise ValueError(
                f"--pass-env takes variable names: {name!r} is not one ([A-Za-z_][A-Za-z0-9_]*)"
            )
        if name in _ARENA_ENV or name.startswith("ARENA_"):
            raise ValueError(f"--pass-env cannot pass {name}: the arena sets it for each bot")
    return tuple(dict.fromkeys(names))


def _argv(value: object, key: str, manifest: Path) -> tuple[str, ...]:
    if isinstance(value, str) and key == "build":
        if not value.strip():
            raise BotSpecError(f"{manifest}: 'build' must not be empty")
        return ("sh", "-c", value)  # as a user types it: &&, pipes and globs work
    if isinstance(value, str):
        try:
            argv = shlex.split(value)
        except ValueError as exc:
            raise BotSpecError(f"{manifest}: cannot split '{key}' string: {exc}") from None
    elif isinstance(value, list) and all(isinstance(item, str) for item in value):
        argv = list(value)
    else:
        raise BotSpecError(f"{manifest}: '{key}' must be a string or a list of strings")
    if not argv or not argv[0]:
        raise BotSpecError(f"{manifest}: '{key}' must not be empty")
    return tuple(argv)


def check_name(name: str, where: str | Path, field: str = "'name'") -> str:
    """``name`` if it is a safe bot name; else a BotSpecError naming ``where`` and ``field``."""
    if not _NAME_RE.fullmatch(name):
        raise BotSpecError(f"{where}: invalid bot name {name!r} in {field} ({_NAME_RULE})")
    return name


def _read_manifest(directory: Path) -> bytes:
    """``bot.toml``'s bytes: a regular file in ``directory`` itself, never read through a
    link (its target would be code the version does not hash)."""
    manifest = directory / MANIFEST_NAME
    try:
        fd = os.open(manifest, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise BotSpecError(f"bot directory {directory} has no {MANIFEST_NAME} manifest") from None
    except OSError as error:
        if os.path.islink(manifest):
            raise BotSpecError(
                f"{manifest} is a link: a manifest must be a file of the bot's own"
            ) from None
        raise BotSpecError(f"{manifest}: cannot read it: {error.strerror}") from None
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise BotSpecError(f"bot directory {directory} has no {MANIFEST_NAME} manifest")
        data = file.read(_MANIFEST_MAX + 1)
    if len(data) > _MANIFEST_MAX:
        raise BotSpecError(f"{manifest}: more than {_MANIFEST_MAX:,} bytes")
    return data


def _load_directory(directory: Path) -> BotSpec:
    manifest = directory / MANIFEST_NAME
    raw = _read_manifest(directory)
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise BotSpecError(f"{manifest}: not valid UTF-8: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        # The 3.11 message already ends in "(at line N, column M)".
        raise BotSpecError(f"{manifest}: invalid TOML: {exc}") from None

    if "env" in data:
        raise BotSpecError(
            f"{manifest}: 'env' is not read from a manifest: only the operator grants the "
            "arena's variables to bots (arena run --pass-env NAME)"
        )
    # Unknown keys are rejected so that a typo like "buld" fails loudly
    # instead of silently skipping the build.
    unknown = sorted(set(data) - _KNOWN_KEYS)
    if unknown:
        known = ", ".join(sorted(_KNOWN_KEYS))
        raise BotSpecError(f"{manifest}: unknown key(s) {', '.join(unknown)} (allowed: {known})")
    for key in ("name", "command"):
        if key not in data:
            raise BotSpecError(f"{manifest}: missing required key '{key}'")

    name = data["name"]
    if not isinstance(name, str):
        raise BotSpecError(f"{manifest}: 'name' must be a string")
    check_name(name, manifest)
    command = _argv(data["command"], "command", manifest)
    build = _argv(data["build"], "build", manifest) if "build" in data else None
    protocol = data.get("protocol", "grpc")
    if protocol not in PROTOCOLS:
        raise BotSpecError(f'{manifest}: \'protocol\' must be "grpc" or "stdio", not {protocol!r}')
    try:
        version = compute_version(directory)
    except OSError as exc:
        raise BotSpecError(f"{directory}: cannot read bot files to version them: {exc}") from None
    except TreeError as exc:
        raise BotSpecError(f"{directory}: {exc}") from None

    return BotSpec(
        name=name,
        version=version,
        command=resolve_command(command, directory),
        directory=directory,
        build=build,
        protocol=protocol,
    )


def _load_executable(path: Path) -> BotSpec:
    if not path.is_file():
        raise BotSpecError(f"bot path {path} is neither a directory nor a regular file")
    if not os.access(path, os.X_OK):
        raise BotSpecError(f"bot file {path} is not executable (chmod +x it)")
    # abspath rather than resolve(): a symlinked executable keeps its own name
    # as argv[0], which multi-call binaries rely on.
    absolute = Path(os.path.abspath(path))
    check_name(absolute.stem, absolute, "the file name")
    try:
        version = compute_version(absolute)
    except (OSError, TreeError) as exc:
        raise BotSpecError(f"{absolute}: cannot version it: {exc}") from None
    return BotSpec(
        name=absolute.stem,
        version=version,
        command=(str(absolute),),
        directory=absolute.parent,
        build=None,
        executable=True,
    )


def load_bot(path: str | Path) -> BotSpec:
    """Load a bot from a directory with ``bot.toml`` or from an executable file.

    Raises :class:`BotSpecError` (one-line message) if the path is missing, a
    directory lacks ``bot.toml``, the manifest is invalid, or a file is not
    executable.
    """
    candidate = Path(path).expanduser()
    if not candidate.exists():
        raise BotSpecError(f"bot path {candidate} does not exist")
    if candidate.is_dir():
        return _load_directory(candidate.resolve())
    return _load_executable(candidate)


def read_log_tail(log_path: Path, n_bytes: int = 2000) -> str:
    """Return the last ``n_bytes`` of a log file as text ('' if it does not exist)."""
    try:
        with log_path.open("rb") as f:
            size = f.seek(0, os.SEEK_END)
            f.seek(max(0, size - n_bytes))
            return f.read().decode("utf-8", "replace")
    except FileNotFoundError:
        return ""
