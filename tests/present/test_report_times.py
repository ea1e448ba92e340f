"""The HTML report's decision-time distributions come from the store's decision_times
table: no record is opened to draw them."""

from __future__ import annotations

import sqlite3
import zlib
from pathlib import Path

import numpy as np
import pytest
from tournament.test_decision_times import game_of, rows_of, timed_record
from tournament.test_results import KEY, RUN, make_game

from arena.present.html.report import QUANTILES, collect_page
from arena.tournament.store import ResultsStore

ENTRANTS = ("a", "b", "c")


def timed_run(path: Path, seeds: range) -> dict[str, list[float]]:
    """A run of one game per seed, each record timing its decisions; each entrant's times,
    read from the records."""
    expected: dict[str, list[float]] = {}
    with ResultsStore.open(path) as store:
        store.start_run(RUN, None, {}, KEY)
        ids = tuple(store.upsert_entrant(name, "", [name]) for name in ENTRANTS)
        assert len(ids) == 3
        store.ensure_match(RUN, "m0", ids)
        for index in seeds:
            record = timed_record(index)
            store.record_game(RUN, "m0", game_of(index, record))
            for _, _, seat, _, seconds in rows_of(record):
                if seconds is not None:
                    expected.setdefault(ENTRANTS[seat % 3], []).append(seconds)
    return expected


def spoil_records(path: Path) -> None:
    """Every game's record column replaced by bytes that are no zlib stream."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("UPDATE games SET record = x'00ff'")
        conn.commit()
    finally:
        conn.close()


def test_the_times_are_the_decisions_of_the_records_with_every_record_unreadable(
    tmp_path: Path,
) -> None:
    path = tmp_path / "results.db"
    expected = timed_run(path, range(4))
    spoil_records(path)
    with ResultsStore.open(path, create=False) as store:
        with pytest.raises(zlib.error):  # no record can be opened any more
            store.game_record(store.games(RUN)[0].id)
        page = collect_page(store, RUN)
    assert not page.per_seat_game
    assert [t.entrant for t in page.times] == list(ENTRANTS)
    for times in page.times:
        values = expected[times.entrant]
        assert times.samples == len(values) > 100
        assert times.quantiles == pytest.approx(tuple(np.quantile(values, QUANTILES)))
        assert times.largest == max(values)


def test_one_game_without_decision_times_makes_them_per_seat_and_game(tmp_path: Path) -> None:
    path = tmp_path / "results.db"
    timed_run(path, range(2))
    with ResultsStore.open(path) as store:
        store.record_game(RUN, "m0", make_game(7))  # its record lists no decisions
    spoil_records(path)
    with ResultsStore.open(path, create=False) as store:
        page = collect_page(store, RUN)
        seat_games = store.seat_times(RUN)
    assert page.per_seat_game
    assert sum(t.samples for t in page.times) == len(seat_games) == 3 * 6
