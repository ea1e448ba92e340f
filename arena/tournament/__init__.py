"""Tournaments and the games around them, one concern per module; the statistics they
report are ``arena.stats``'s (pure).

- ``schedule``: which entrants meet, in which seatings, on which games (the run's key; the
  ``Schedule`` protocol the runner asks, the full round robin or a balanced sample of it).
- ``leases``: no deal live at two tables (a lease per deal, held by the coordinator).
- ``retry``: the one retry policy: the arena's trouble played again, never counted.
- ``store``: the SQLite results store of runs, matches, games, seat statistics and faults.
- ``bundle``: everything the pages show of one stored game (its record, the entrant at
  each seat, its seed's other seatings, the seats' log tails).
- ``registry``: submitted bots, kept by name and version, runnable by name.
- ``executor``: where matches are played: one referee in this process; ``local``: referee
  processes on this machine's cores (``messages``: what they say over their pipes;
  ``split``: how many); ``cluster``: on Dask.
- ``runner``: the one runner: plays what a schedule hands out on an executor and stores
  each game as it ends.
- ``report``: a stored run's ratings, standings, head-to-head and totals, as data.
- ``compare``: NEW against BASE in swap pairs (or seed groups) until the test decides
  (``CompareSchedule``).
- ``play``: one game between three entrants (``arena play``).
- ``submit``: build, check in a short match, and register a contestant's bot.
"""
