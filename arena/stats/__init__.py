"""The statistics of the arena: pure functions over counts and scores.

Nothing here reads a store, runs an event loop or prints: every function takes plain values
(games' outcomes, seeds' counts, units' scores) so that it can be fed from the results
store, from a live run, from hand-written tables in tests, or by hand. Each module runs by
hand on a JSON file (``python -m arena.stats.MODULE --help``).

- :mod:`.resample` — the seed bootstrap (``SeedRatio``), Wilson's interval, design effects;
- :mod:`.rates` — win rates and their intervals, standings, head-to-head tables;
- :mod:`.ratings` — Bradley–Terry ratings over team pairs, with seed-bootstrap intervals;
- :mod:`.sequential` — the sequential test of ``arena compare`` (GSPRT and betting);
- :mod:`.comparison` — a comparison's units (swap pairs, seed groups) and where it stands.
"""
