"""The statistics of the arena: pure functions over counts and scores.

Nothing here reads a store, runs an event loop or prints: every function takes plain values
(games' outcomes, seeds' counts, units' scores) so that it can be fed from the results
store, from a live run, from hand-written tables in tests, or by hand. Each module runs by
hand on a JSON file (``python -m arena.stats.MODULE --help``).

- :mod:`.seeds` — intervals over game seeds (``SeedRatio``): binomial on an effective
  sample size, design effects;
- :mod:`.rates` — win rates and their intervals, standings, head-to-head tables;
- :mod:`.ratings` — Bradley–Terry ratings over team pairs by maximum likelihood on the
  rated field, profile-likelihood intervals, one bound beyond the field;
- :mod:`.sequential` — the sequential test of ``arena compare`` (GSPRT and betting) and
  its confidence sequence;
- :mod:`.comparison` — a comparison's units (swap pairs, seed groups) and where it stands.
"""
