"""The dependency order of the packages (docs/ARCHITECTURE.md), kept by import-linter.

The contracts live in pyproject.toml ([tool.importlinter]): the CLI at the top, the engine
at the bottom, the referee above its seat channels, which play the SDK's bots in-process
and speak the wire, gRPC only where it is spoken, an engine without I/O or generated
messages, a table that speaks to its seats in engine types only (arena.seats.channel),
JSON lines read and written without generated messages (arena.wire.jsonlines), and
statistics that are pure functions.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_every_layer_imports_only_the_layers_below_it() -> None:
    lint_imports = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint_imports is not None, "import-linter is a test dependency (pyproject.toml)"
    done = subprocess.run(
        [lint_imports, "--no-cache"], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    contracts = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
    kept = len(contracts["contracts"])
    # layers, pure statistics, pure engine, the table's types, the JSON lines, gRPC
    assert kept == 6
    assert f"Contracts: {kept} kept, 0 broken." in done.stdout, done.stdout
