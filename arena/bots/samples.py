"""Where the sample bots are: in a checkout, and when the arena is installed from a wheel.

The repository keeps them at its top level (``sample_bots/``); the wheel ships the same
directory inside the package, as ``arena/sample_bots/`` (see ``pyproject.toml``).
"""

from __future__ import annotations

from pathlib import Path

import arena

__all__ = ["sample_bot", "sample_bots_dir"]


def sample_bots_dir() -> Path:
    """The directory holding the sample bots (``random``, ``greedy``, ``lowest``, …)."""
    package = Path(arena.__file__).resolve().parent
    installed = package / "sample_bots"
    if installed.is_dir():
        return installed
    return package.parent / "sample_bots"  # a checkout (also an editable install)


def sample_bot(name: str) -> Path:
    """The directory of the sample bot ``name``, e.g. ``sample_bot("random")``."""
    return sample_bots_dir() / name
