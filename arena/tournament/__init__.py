"""Tournaments and the games around them, one concern per module; each builds only on those
listed before it.

- ``schedule``: which entrants meet, in which seatings, on which games (the run's key; the
  full round robin or a balanced sample of it).
- ``resample``: intervals from a bootstrap over game seeds, the unit of independence (pure).
- ``sequential``: the generalised SPRT (and its bets) over duplicate units (pure).
- ``stats``: standings and head-to-head over plain rows, with seed intervals (pure).
- ``ratings``: Bradley–Terry ratings over finishing order (pure).
- ``results``: the SQLite results store of runs, matches, games, seat statistics and faults.
- ``bundle``: everything the pages show of one stored game (its record, the entrant at
  each seat, its seed's other seatings, the seats' log tails).
- ``registry``: submitted bots, kept by name and version, runnable by name.
- ``executor``: where matches are played: one referee in this process, or referee
  processes on this machine's cores (a cluster's executor builds on it).
- ``runner``: plays a run's schedule on an executor and stores each game as it ends.
- ``report``: a stored run's ratings, standings, head-to-head and totals, as data.
- ``compare``: NEW against BASE in swap pairs (or seed groups) until the test decides.
- ``play``: one game between three entrants (``arena play``).
- ``submit``: build, check in a short match, and register a contestant's bot.
"""
