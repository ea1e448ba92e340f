"""The Python sample bots are written against the public API only: what ``arena.engine``
and ``arena.sdk`` export, never the engine's internals (``cards.POWER``, ``TRUMP_MASKS``,
``tricks.best_position`` …), so they show bot authors what they may rely on."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import arena.engine
import arena.sdk
from arena.bots.samples import sample_bots_dir

PUBLIC = {"arena.engine": set(arena.engine.__all__), "arena.sdk": set(arena.sdk.__all__)}
PYTHON_SAMPLES = sorted(p.parent.name for p in sample_bots_dir().glob("*/bot.py"))


def test_the_python_samples_are_found() -> None:
    assert {"greedy", "lowest", "pimc", "random"} <= set(PYTHON_SAMPLES)


@pytest.mark.parametrize("name", PYTHON_SAMPLES)
def test_sample_imports_only_public_names(name: str) -> None:
    path: Path = sample_bots_dir() / name / "bot.py"
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                assert top in sys.stdlib_module_names, f"{name}: import {alias.name}"
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if module.split(".")[0] in sys.stdlib_module_names or module == "__future__":
                continue
            assert module in PUBLIC, f"{name}: from {module} import … (not a public module)"
            for alias in node.names:
                assert alias.name in PUBLIC[module], f"{name}: {alias.name} from {module}"
