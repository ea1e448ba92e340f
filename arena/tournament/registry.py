"""The local bot registry: submitted bots, kept by name and version, runnable by name.

A registered bot is a copy of what was submitted (a directory, or one executable), made
as ``arena.bots.tree`` copies (never through a link) and checked against its version as
it is written, so later edits to the original never change a registered version. The
index is a small JSON file beside the copies; the newest registration of a name is the
default.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bots import BotSpec, BotSpecError, load_bot
from arena.bots.build import copy_bot_files
from arena.bots.manifest import check_name
from arena.bots.tree import TreeError
from arena.tournament.store import entrant_label

INDEX = "registry.json"


class RegistryError(LookupError):
    """No such registered bot, or an unreadable registry."""


@dataclass(frozen=True)
class RegisteredBot:
    name: str
    version: str
    path: str  # relative to the registry root
    registered_at: str
    checks: list[str]

    def label(self) -> str:
        return entrant_label(self.name, self.version)


class Registry:
    def __init__(self, root: Path) -> None:
        self.root = root

    def entries(self) -> list[RegisteredBot]:
        index = self.root / INDEX
        if not index.exists():
            return []
        try:
            raw = json.loads(index.read_text())
            return [RegisteredBot(**entry) for entry in raw["bots"]]
        except (ValueError, KeyError, TypeError) as error:
            raise RegistryError(f"the registry index {index} is unreadable: {error}") from None

    def _save(self, entries: list[RegisteredBot]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        data = {"bots": [dataclasses.asdict(e) for e in entries]}
        # Write then rename, so an interrupted save never leaves a half-written index.
        fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".registry-")
        with os.fdopen(fd, "w") as out:
            json.dump(data, out, indent=2)
        os.replace(tmp, self.root / INDEX)

    def register(self, spec: BotSpec, source: Path, checks: list[str]) -> RegisteredBot:
        """Copy a validated bot in under its name and version (again: replaced)."""
        # The name becomes a directory here: never a path of its own (BotSpecError).
        check_name(spec.name, self.root)
        target = self.root / spec.name / spec.version
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        copied = target / ("bot" if source.is_dir() else source.name)
        try:
            copied_version = copy_bot_files(source, copied)  # what the version hashes, no more
        except (OSError, TreeError) as error:
            shutil.rmtree(target)
            raise RegistryError(f"{source}: cannot copy it into the registry: {error}") from None
        if copied_version != spec.version:
            shutil.rmtree(target)
            raise RegistryError(
                f"{source} changed while it was being submitted (it no longer hashes to "
                f"{spec.version}); submit it again"
            )
        entry = RegisteredBot(
            name=spec.name,
            version=spec.version,
            path=str(copied.relative_to(self.root)),
            registered_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            checks=checks,
        )
        kept = [e for e in self.entries() if (e.name, e.version) != (spec.name, spec.version)]
        self._save([*kept, entry])
        return entry

    def find(self, name: str) -> RegisteredBot:
        """``name`` (the newest registration) or ``name@version``."""
        wanted, _, version = name.partition("@")
        matches = [
            e for e in self.entries() if e.name == wanted and (not version or e.version == version)
        ]
        if not matches:
            raise RegistryError(f"no registered bot {name!r} (see `arena bots`)")
        return matches[-1]

    def load(self, entry: RegisteredBot) -> BotSpec:
        """The registered copy as a runnable spec, checked against its recorded version."""
        try:  # the index is a file anyone may edit: its names are checked like a manifest's
            check_name(entry.name, self.root / INDEX)
        except BotSpecError as error:
            raise RegistryError(str(error)) from None
        spec = load_bot(self.root / entry.path)
        if spec.version != entry.version:
            raise RegistryError(
                f"registered bot {entry.label()} was modified on disk (now {spec.version}); "
                "submit it again"
            )
        return dataclasses.replace(spec, name=entry.name)

    def latest(self) -> list[RegisteredBot]:
        """The newest registration of each name, in name order."""
        newest: dict[str, RegisteredBot] = {}
        for entry in self.entries():
            newest[entry.name] = entry
        return [newest[n] for n in sorted(newest)]


def as_json(entries: list[RegisteredBot]) -> list[dict[str, Any]]:
    return [dataclasses.asdict(e) for e in entries]
