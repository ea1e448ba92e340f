"""Every Python sample bot plays clean over both channels: the SDK speaks gRPC and stdio
with the same code, and the samples' manifests choose stdio (`protocol = "stdio"`).

Three matches seat each of the four (random, greedy, lowest, pimc) over each channel once,
real processes in the sandbox as the arena runs them by default: every game complete and
replayable, no fault, every seat deciding, every bot exiting 0 by itself.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest
from languages.common import play_match

from arena.bots import BotSpec, load_bot
from arena.bots.samples import sample_bots_dir
from arena.engine import replay

pytestmark = pytest.mark.slow

MIXED = (
    (("random", "stdio"), ("greedy", "grpc"), ("lowest", "stdio")),
    (("random", "grpc"), ("greedy", "stdio"), ("pimc", "stdio")),
    (("lowest", "grpc"), ("pimc", "grpc"), ("random", "stdio")),
)


def python_sample(name: str, protocol: str, directory: Path) -> BotSpec:
    """A Python sample over ``protocol`` (pimc with a short budget: these are not its games)."""
    source = sample_bots_dir() / name
    if name == "pimc":
        source = shutil.copytree(source, directory / f"pimc-{protocol}")
        manifest = source / "bot.toml"
        manifest.write_text(
            manifest.read_text().replace('"--budget-ms", "200"', '"--budget-ms", "20"')
        )
    return dataclasses.replace(load_bot(source), protocol=protocol)


def test_the_samples_manifests_choose_stdio() -> None:
    for name in ("random", "greedy", "lowest", "pimc"):
        assert load_bot(sample_bots_dir() / name).protocol == "stdio", name


@pytest.mark.timeout(600)
@pytest.mark.parametrize("seating", MIXED, ids=lambda s: "-".join(f"{n}@{p}" for n, p in s))
def test_every_python_sample_plays_clean_over_both_channels(
    seating: tuple[tuple[str, str], ...], tmp_path: Path
) -> None:
    samples = [python_sample(name, protocol, tmp_path) for name, protocol in seating]
    entrants = (samples[0], samples[1], samples[2])
    match, table, reports = play_match(entrants, tmp_path / "logs", [3], sandbox=True)
    (report,) = reports
    assert replay(report.record).is_over
    assert report.faults == () and table.faults == []
    for seat in range(6):
        assert match.links[seat].bot_name == entrants[seat % 3].name
        assert report.seats[seat].decisions > 0
        process = match.processes[seat]
        assert process is not None and process.returncode == 0, process.log_path.read_text()
