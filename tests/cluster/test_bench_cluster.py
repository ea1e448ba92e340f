"""``arena bench cluster`` in its smallest size: every figure line is printed, with figures."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from arena.cli import app

pytestmark = pytest.mark.timeout(300)


@pytest.mark.slow
def test_bench_cluster_prints_every_figure() -> None:
    args = ["bench", "cluster", "--matches", "2", "--games", "1", "--no-sandbox"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    out = result.stdout
    for pattern in (
        r"local runner \(2 tables, arena run's default\): \d+\.\d\d games/s",
        r"cluster, 1 worker of 2 tables: \d+\.\d\d games/s, \d+\.\d\d of local",
        r"cluster, 2 workers of 1 table\(s\): \d+\.\d\d games/s, \d+\.\d\d of local",
        r"CPU kept busy in the last round \(cores\): local: "
        r"coordinator and referee processes \d+\.\d\d",
        r"CPU kept busy in the last round \(cores\): 2 workers: coordinator \d+\.\d+, "
        r"worker processes \d+\.\d\d, \d+\.\d\d",
        r"overhead per match the cluster adds: [+-]\d+\.\d+ s of table time",
        r"shipping: \d+\.\d KiB of archives for 3 bots",
        r"scheduling: an empty task needing one table comes back in \d+\.\d ms",
    ):
        assert re.search(pattern, out), f"no line matching {pattern!r} in:\n{out}"
