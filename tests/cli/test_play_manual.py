"""``arena play --manual SEAT`` prints every variable docs/PROTOCOL.md §1 lists, ready for a
shell; a bot started by hand with exactly that line plays the seat."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GREEDY = REPO / "sample_bots" / "greedy"
ARENA = Path(sys.executable).parent / "arena"
VARIABLES = (
    "ARENA_ADDRESS",
    "ARENA_TOKEN",
    "ARENA_SEAT",
    "ARENA_SEED",
    "ARENA_BOT_DIR",
    "ARENA_PROTO_DIR",
)


def test_the_guide_lists_the_variables_printed() -> None:
    guide = (REPO / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^  \| `(ARENA_[A-Z_]+)` \|", guide, re.MULTILINE))
    # ARENA_PROTOCOL is set for stdio bots only; a manual seat is always a gRPC one.
    assert listed == {*VARIABLES, "ARENA_PROTOCOL"}


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_bot_started_with_the_printed_line_plays_the_open_seat(tmp_path: Path) -> None:
    env_dump = tmp_path / "env.txt"
    command = [str(ARENA), "play", str(GREEDY), str(GREEDY), str(GREEDY), "--seed", "3"]
    command += ["--manual", "4", "--out", str(tmp_path / "out"), "--no-sandbox"]
    play = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path
    )
    assert play.stdout is not None
    assert (
        play.stdout.readline().strip() == "seat 4 is open: start your bot, from its directory, with"
    )
    line = play.stdout.readline().strip()
    assert line.endswith('ARENA_BOT_DIR="$PWD" <your command>'), line
    # The line as a shell runs it, with the sample bot as the command, from its directory.
    script = line.replace(
        "<your command>", f"sh -c 'env > {env_dump}; exec {sys.executable} bot.py'"
    )
    bot = subprocess.run(["sh", "-c", script], cwd=GREEDY, timeout=240, capture_output=True)
    assert bot.returncode == 0, bot.stderr
    out, err = play.communicate(timeout=60)
    assert play.returncode == 0, out + err
    seen = dict(row.split("=", 1) for row in env_dump.read_text().splitlines() if "=" in row)
    assert all(seen.get(name) for name in VARIABLES), seen
    assert seen["ARENA_SEAT"] == "4" and seen["ARENA_SEED"].isdigit()
    assert os.path.samefile(seen["ARENA_BOT_DIR"], GREEDY)
    assert (Path(seen["ARENA_PROTO_DIR"]) / "arena" / "v1" / "arena.proto").is_file()
    assert shlex.split(line)[0].startswith("ARENA_ADDRESS=")
