"""A tournament of Python, Node.js and C++ bots together: real processes, every game clean."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bots import load_bot
from arena.bots.build import BotCache, BotOptions
from arena.bots.samples import sample_bots_dir

from .common import check_clean_tournament


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_python_node_and_cpp_bots_play_a_clean_tournament(tmp_path: Path) -> None:
    # Built as the arena builds them (node's npm ci with the network the operator grants).
    options = BotOptions(build_network=True, build_timeout_s=840)
    specs = [
        BotCache().prepare(load_bot(sample_bots_dir() / n), options)
        for n in ("greedy", "node", "cpp")
    ]
    check_clean_tournament(specs, tmp_path)
