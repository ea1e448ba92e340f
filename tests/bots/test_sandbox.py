"""--sandbox: a bot in bubblewrap plays normally but reaches no network and no other files."""

from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path

import pytest

import arena.referee  # noqa: F401 - grpc's environment first
from arena.bots import load_bot
from arena.engine import replay
from arena.play import play_one_game
from arena.referee.table import TableSettings

HERE = Path(__file__).resolve().parent
SAMPLE_BOTS = HERE.parents[1] / "sample_bots"


@pytest.mark.timeout(120)
def test_sandboxed_bot_plays_but_sees_no_network_and_no_other_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if shutil.which("bwrap") is None:
        pytest.fail("bubblewrap (bwrap) is not installed; .ci/run installs it")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    other = SAMPLE_BOTS / "random"
    monkeypatch.setenv("PROBE_PORT", str(listener.getsockname()[1]))
    monkeypatch.setenv("PROBE_OTHER_BOT", str(other))
    specs = [load_bot(HERE / "sandbox_probe"), load_bot(other), load_bot(SAMPLE_BOTS / "greedy")]
    result = play_one_game(specs, 3, tmp_path, TableSettings(join_timeout_s=20), sandbox=True)
    listener.close()
    assert result.report.faults == [], result.report.faults
    replay(result.report.record)
    for seat in (0, 3):
        found = json.loads((result.log_dir / f"seat{seat}" / "probe.json").read_text())
        assert found["tcp"].startswith("refused"), found  # no network
        assert found["siblings"] == [f"seat{seat}"], found  # the partner's files are hidden
        assert found["other_bot"] == [], found  # other entrants' code is hidden
        assert found["write_outside"].startswith("refused"), found
    assert not (HERE.parents[1] / "arena" / "planted").exists()
