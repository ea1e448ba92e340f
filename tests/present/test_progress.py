"""The run's progress line at 80 columns: the figures whole, only the leader's label cut."""

from __future__ import annotations

import io

from rich.console import Console

from arena.present.display import RunProgressBar
from arena.tournament.runner import RunProgress


def _line(width: int, leader: str) -> str:
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=True, color_system=None)
    state = RunProgress(total=1800, done=123)
    state.wins[leader] += 50
    state.games_by_entrant[leader] += 90
    bar = RunProgressBar(console)
    with bar:
        bar.update(state)
        bar.progress.refresh()
    return [line for line in out.getvalue().replace("\r", "\n").split("\n") if "games" in line][-1]


def test_at_80_columns_the_figures_are_whole_and_the_label_is_cut() -> None:
    label = "a_bot_with_a_long_name_" + "x" * 40 + "@0123456789ab"
    line = _line(80, label)
    for figure in ("123/1800", "games/s", "0:00:00", "ETA"):
        assert figure in line, line
    assert "leader: a_b" in line and "…" in line and label not in line, line


def test_on_a_wide_terminal_the_label_is_whole() -> None:
    label = "greedy@0123456789ab"
    assert f"leader: {label} (56%)" in _line(160, label)
