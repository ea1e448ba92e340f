"""Starting a bot in any language: the contract as a file, and starter bots to copy.

``arena proto`` prints or writes the contract (``contract_file``: the one the arena
speaks, which every bot also finds in ``$ARENA_PROTO_DIR``). ``arena new NAME --lang
LANG`` writes a starter (``new_bot``): each language's directory here is a template,
shipped as package data, whose files are copied with ``__BOT_NAME__`` replaced by the
bot's name; the languages that generate code from the contract get it copied in as
``proto/arena/v1/arena.proto``, so a bot keeps the contract it was written against.
Python starters use the SDK (``arena.sdk``), which speaks the contract for them, over
standard input and output (JSON lines, the fast channel) or over gRPC, as their manifest's
``protocol`` says; the other starters speak gRPC.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Final

from arena.bots.manifest import BotSpecError, check_name
from arena.bots.sandbox import contract_dir

__all__ = [
    "CONTRACT",
    "LANGUAGES",
    "PROTOCOLS",
    "StarterError",
    "contract_file",
    "new_bot",
    "write_contract",
]

CONTRACT: Final = Path("arena", "v1", "arena.proto")  # under a proto directory
LANGUAGES: Final = ("python", "node", "cpp", "ruby")
PLACEHOLDER: Final = "__BOT_NAME__"
PROTOCOL_PLACEHOLDER: Final = "__PROTOCOL__"
# What each starter can speak, its default first: the SDK speaks either.
PROTOCOLS: Final = {
    "python": ("stdio", "grpc"),
    "node": ("grpc",),
    "cpp": ("grpc",),
    "ruby": ("grpc",),
}
# Loaded from the contract at start (node) or generated from it (cpp, ruby); Python uses
# the SDK.
WITH_CONTRACT: Final = frozenset({"node", "cpp", "ruby"})
TEMPLATES: Final = Path(__file__).resolve().parent
SKIPPED: Final = frozenset({"__pycache__"})


class StarterError(ValueError):
    """A starter cannot be written: an unknown language, a name, a directory in the way."""


def contract_file() -> Path:
    """The contract the arena speaks, ``arena/v1/arena.proto`` (a checkout's ``proto/``,
    or the copy installed with the package)."""
    directory = contract_dir()
    if directory is None:
        raise StarterError("the contract arena/v1/arena.proto is not installed with the arena")
    return directory / CONTRACT


def write_contract(proto_dir: Path) -> Path:
    """Copy the contract to ``proto_dir/arena/v1/arena.proto`` (as protoc's ``-I proto_dir``
    expects it) and return that path."""
    target = proto_dir / CONTRACT
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(contract_file(), target)
    return target


def new_bot(name: str, language: str, parent: Path, protocol: str = "") -> Path:
    """Write the starter bot ``name`` in ``language`` as ``parent/name``, speaking
    ``protocol`` (default: the language's first in ``PROTOCOLS``); return it.

    Refuses an unknown language, a protocol its starter does not speak, a name the arena
    would not accept (the manifest's ``name`` rule) and a directory that exists already
    (nothing is overwritten).
    """
    if language not in LANGUAGES:
        raise StarterError(f"no starter for {language!r}: choose one of {', '.join(LANGUAGES)}")
    spoken = PROTOCOLS[language]
    protocol = protocol or spoken[0]
    if protocol not in spoken:
        raise StarterError(f"the {language} starter speaks {' or '.join(spoken)}, not {protocol!r}")
    try:
        check_name(name, "arena new", "NAME")
    except BotSpecError as error:
        raise StarterError(str(error)) from None
    target = parent / name
    if target.exists() or target.is_symlink():
        raise StarterError(f"{target} exists already: choose another name or --dir")
    template = TEMPLATES / language
    contract = contract_file() if language in WITH_CONTRACT else None
    target.mkdir(parents=True)
    for root, dirs, files in os.walk(template):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
        here = target / Path(root).relative_to(template)
        here.mkdir(exist_ok=True)
        for file_name in sorted(files):
            text = (Path(root) / file_name).read_text(encoding="utf-8")
            text = text.replace(PLACEHOLDER, name).replace(PROTOCOL_PLACEHOLDER, protocol)
            (here / file_name).write_text(text, encoding="utf-8")
    if contract is not None:
        write_contract(target / "proto")
    return target
