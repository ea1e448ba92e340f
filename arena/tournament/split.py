"""How many referee processes a run's tables are spread over by default: as measured here.

Whether spreading tables over referee processes pays depends on the machine (its cores,
its scheduler, what else runs on it), so the default is measured rather than derived:
``arena bench tournament`` plays the same run on one referee and spread over one referee
process per core, and records which was faster as a ``MeasuredSplit`` in a small JSON file
(``split_path``: ``$ARENA_REFEREE_SPLIT``, else ``referee-split.json`` in the user's cache
directory), one entry per core count. ``referee_processes`` follows that entry for the
machine's core count; without one it uses ``UNMEASURED_TABLES_PER_REFEREE`` tables per
process on three or more cores, and every table on one referee in the coordinator on
fewer (where two tables' bots already fill the machine). An explicit ``--referees``
overrides both.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from arena.bots.build import user_cache_path

__all__ = [
    "SPREAD_MARGIN",
    "UNMEASURED_TABLES_PER_REFEREE",
    "MeasuredSplit",
    "best_processes",
    "default_referee_processes",
    "read_split",
    "record_split",
    "referee_processes",
    "split_path",
    "spread_candidate",
]

FORMAT = 1  # the file's layout; a file of another is ignored (and rewritten when measured)
# Without a measurement: two tables per referee process, on three or more cores. A table's
# referee keeps about half a core busy with fast bots, so one referee carries two tables
# before it is their ceiling; half as many processes as tables adds little start-up.
UNMEASURED_TABLES_PER_REFEREE = 2
UNMEASURED_MIN_CORES = 3
# Spreading must be this much faster than one referee to be chosen: a tie keeps the
# tables in the coordinator, which costs no processes of its own.
SPREAD_MARGIN = 1.05
HINT = (
    "note: how to spread tables over referee processes is not measured here; "
    "`arena bench tournament` measures it (until then: {per} tables per process; said once)"
)


@dataclass(frozen=True)
class MeasuredSplit:
    """What ``arena bench tournament`` found on a machine of ``cores`` cores: ``tables``
    tables played fastest on ``processes`` referee processes (1: on one referee in the
    coordinator), against the alternative of ``spread_processes``; ``spread_ratio`` is
    the spread run's games/s to the one-referee run's (the median of its rounds)."""

    cores: int
    tables: int
    processes: int
    spread_processes: int
    spread_ratio: float
    measured_at: str  # ISO 8601, UTC

    @property
    def tables_per_referee(self) -> int:
        """How many tables one referee carried best; what ``referee_processes`` scales by."""
        return math.ceil(self.tables / max(1, self.processes))

    def describe(self) -> str:
        where = (
            "on one referee in the arena process"
            if self.processes <= 1
            else f"over {self.processes} referee processes"
        )
        return (
            f"{self.tables} tables on {self.cores} CPUs played fastest {where} "
            f"(spread over {self.spread_processes} to one referee: {self.spread_ratio:.2f})"
        )


def spread_candidate(jobs: int, cores: int) -> int:
    """The spread ``arena bench tournament`` measures against one referee: one referee
    process per core, never more than tables, at least two (where there are two tables)."""
    return max(1, min(jobs, max(2, cores)))


def best_processes(tables: int, spread_processes: int, spread_ratio: float) -> int:
    """The measured choice: the spread where it beat one referee by ``SPREAD_MARGIN``."""
    return spread_processes if tables >= 2 and spread_ratio >= SPREAD_MARGIN else 1


def referee_processes(jobs: int, cores: int, measured: MeasuredSplit | None = None) -> int:
    """How many referee processes play ``jobs`` tables on a machine of ``cores`` cores.

    ``measured`` (this machine's, for ``cores``): as many processes as carry ``jobs``
    tables at its ``tables_per_referee`` each, never more than tables. Without one: as
    many at ``UNMEASURED_TABLES_PER_REFEREE`` each on ``UNMEASURED_MIN_CORES`` or more
    cores, else one (every table in the coordinator). 1 means the coordinator referees.
    """
    if jobs <= 1:
        return 1
    if measured is not None and measured.cores == cores:
        per = measured.tables_per_referee
    elif cores >= UNMEASURED_MIN_CORES:
        per = UNMEASURED_TABLES_PER_REFEREE
    else:
        return 1
    return max(1, min(jobs, math.ceil(jobs / per)))


def split_path() -> Path:
    """``$ARENA_REFEREE_SPLIT``, else ``schmier-arena/referee-split.json`` in the user's
    cache directory (``$XDG_CACHE_HOME``, ``~/.cache``)."""
    return user_cache_path("ARENA_REFEREE_SPLIT", "referee-split.json")


def _load(path: Path) -> dict[str, Any]:
    """The file's content, or an empty one where it is missing, unreadable or not ours."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {"format": FORMAT, "by_cores": {}}
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return {"format": FORMAT, "by_cores": {}}
    if not isinstance(data.get("by_cores"), dict):
        data["by_cores"] = {}
    return data


def _store(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` whole or not at all (a reader never sees half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as out:
            json.dump(data, out, indent=2, sort_keys=True)
            out.write("\n")
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def read_split(path: Path, cores: int) -> MeasuredSplit | None:
    """The split measured for ``cores`` cores, if ``path`` holds a valid one."""
    entry = _load(path)["by_cores"].get(str(cores))
    if not isinstance(entry, dict):
        return None
    try:
        split = MeasuredSplit(
            cores=int(entry["cores"]),
            tables=int(entry["tables"]),
            processes=int(entry["processes"]),
            spread_processes=int(entry["spread_processes"]),
            spread_ratio=float(entry["spread_ratio"]),
            measured_at=str(entry["measured_at"]),
        )
    except (KeyError, TypeError, ValueError):
        return None
    if split.cores != cores or split.tables < 1 or split.processes < 1:
        return None
    return split


def record_split(path: Path, split: MeasuredSplit) -> None:
    """Keep ``split`` as this machine's for its core count (others' entries stay)."""
    data = _load(path)
    data["by_cores"][str(split.cores)] = asdict(split)
    _store(path, data)


def default_referee_processes(
    jobs: int, cores: int, path: Path | None = None
) -> tuple[int, str | None]:
    """``referee_processes`` with the split measured at ``path`` (default: ``split_path``),
    and the one line that says how to measure it: where there is no measurement and more
    than one table, once per file (the file remembers it was said), else ``None``."""
    path = split_path() if path is None else path
    measured = read_split(path, cores)
    processes = referee_processes(jobs, cores, measured)
    if measured is not None or jobs <= 1:
        return processes, None
    data = _load(path)
    if data.get("hinted"):
        return processes, None
    data["hinted"] = True
    with contextlib.suppress(OSError):  # unwritable: said again next time, no harm
        _store(path, data)
    hint = HINT.format(per=UNMEASURED_TABLES_PER_REFEREE)
    return processes, hint
