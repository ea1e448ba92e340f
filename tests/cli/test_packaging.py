"""The arena as installed from a wheel: its packages, and the sample bots it ships."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from arena.bots.manifest import compute_version
from arena.bots.samples import sample_bot, sample_bots_dir
from arena.starters import LANGUAGES

REPO = Path(__file__).resolve().parents[2]
# What a wheel is not built from: caches, results, builds, other environments.
NOT_SOURCES = shutil.ignore_patterns(
    ".git",
    ".venv",
    "build",
    "dist",
    "arena-results",
    "node_modules",
    "__pycache__",
    "*.egg-info",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".hypothesis",
)


def test_sample_bots_dir_in_a_checkout() -> None:
    assert sample_bots_dir() == REPO / "sample_bots"
    assert (sample_bot("random") / "bot.toml").is_file()


def test_pyproject_lists_every_package() -> None:
    """pyproject.toml lists the packages (it maps arena.sample_bots and arena.proto): none
    is forgotten."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = {
        ".".join(init.parent.relative_to(REPO).parts) for init in REPO.glob("arena/**/__init__.py")
    }
    assert set(config["packages"]) == found | {"arena.sample_bots", "arena.proto"}
    assert config["package-dir"] == {"arena.sample_bots": "sample_bots", "arena.proto": "proto"}


def test_package_data_ships_every_starter_file() -> None:
    """Every file of the starters' templates (arena new) matches a package-data pattern."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = config["package-data"]["arena.starters"]
    templates = REPO / "arena" / "starters"
    files = [
        path.relative_to(templates)
        for path in templates.rglob("*")
        if path.is_file() and path.parent != templates and "__pycache__" not in path.parts
    ]
    assert len(files) >= 12
    for path in files:
        assert any(path.match(pattern) for pattern in patterns), path


def test_package_data_ships_every_sample_bot_source() -> None:
    """Every source file of the sample bots (what git tracks, but for dotfiles such as
    cpp/.gitignore) matches a package-data pattern, so that an installed arena can build
    them; what a build makes or installs does not."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = config["package-data"]["arena.sample_bots"]
    bots = REPO / "sample_bots"
    listed = subprocess.run(
        ["git", "ls-files", "--", "."], cwd=bots, capture_output=True, text=True
    )
    if listed.returncode != 0:
        pytest.skip("not a git checkout: its sources are not known")
    files = [
        Path(line) for line in listed.stdout.splitlines() if not Path(line).name.startswith(".")
    ]
    assert {"go/main.go", "go/go.mod", "shell/bot.sh", "shell/answer.jq"} <= {
        str(path) for path in files
    }
    for path in files:
        assert any(path.match(pattern) for pattern in patterns), path
    for output in ("go/bot", "cpp/build/bot", "node/node_modules/x.js"):
        assert not any(Path(output).match(pattern) for pattern in patterns), output


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_installed_wheel_runs_the_sample_bots(tmp_path: Path) -> None:
    """Built as a wheel and installed in a fresh venv, `arena run` finds its sample bots
    (the Python ones: the others need a build) and plays them, by default in the sandbox,
    from a directory that holds nothing of the checkout."""
    source, dist, venv, empty = (tmp_path / name for name in ("src", "dist", "venv", "empty"))
    shutil.copytree(REPO, source, ignore=NOT_SOURCES)
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), "."]
    subprocess.run(pip_wheel, cwd=source, check=True)
    (wheel,) = dist.glob("*.whl")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([venv / "bin" / "python", "-m", "pip", "install", "-q", wheel], check=True)
    empty.mkdir()

    run = [venv / "bin" / "arena", "run", "--games", "1", "--no-build"]
    done = subprocess.run(run, cwd=empty, capture_output=True, text=True, timeout=300)

    assert done.returncode == 0, done.stdout + done.stderr
    with sqlite3.connect(empty / "arena-results" / "arena.db") as db:
        games = db.execute("SELECT count(*) FROM games").fetchone()[0]
        faults = db.execute("SELECT count(*) FROM faults").fetchone()[0]
        entrants = db.execute("SELECT name, version, command FROM entrants").fetchall()
    assert games == 6 and faults == 0, done.stdout + done.stderr
    assert sorted(name for name, _, _ in entrants) == ["greedy", "lowest", "random"]
    # What ran is each version's copy of the installed package's sample bot.
    cache = Path(os.environ["ARENA_BOT_CACHE"])
    installed = next(venv.glob("lib/python*/site-packages/arena/sample_bots"))
    for name, version, command in entrants:
        assert str(cache / version / "bot") in command, command
        assert compute_version(installed / name) == version
    # The replay page's script and style ship as package data.
    page = [venv / "bin" / "arena", "replay", "1", "--html", "game.html"]
    shown = subprocess.run(page, cwd=empty, capture_output=True, text=True, timeout=300)
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "window.replay" in (empty / "game.html").read_text(encoding="utf-8")
    # The contract and the starters ship too: arena proto prints it, arena new copies it.
    arena = str(venv / "bin" / "arena")
    printed = subprocess.run([arena, "proto"], cwd=empty, capture_output=True, text=True)
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout == (REPO / "proto" / "arena" / "v1" / "arena.proto").read_text()
    for language in LANGUAGES:
        made = subprocess.run([arena, "new", f"my_{language}", "--lang", language], cwd=empty)
        assert made.returncode == 0
        template = [
            p.name
            for p in (REPO / "arena" / "starters" / language).iterdir()
            if p.name != "__pycache__"
        ]
        contract = ["proto"] if language != "python" else []
        assert sorted(p.name for p in (empty / f"my_{language}").iterdir()) == sorted(
            template + contract
        )
    assert (empty / "my_cpp" / "proto" / "arena" / "v1" / "arena.proto").read_text() == (
        printed.stdout
    )
