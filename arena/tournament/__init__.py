"""Tournaments and the games around them, one concern per module; each builds only on those
listed before it.

- ``schedule``: which entrants meet, in which seatings, on which games (and the run's key).
- ``stats``: win-rate intervals, standings and head-to-head over plain rows (pure).
- ``results``: the SQLite results store of runs, matches, games, seat statistics and faults.
- ``registry``: submitted bots, kept by name and version, runnable by name.
- ``runner``: plays a run's schedule on one referee and stores each game as it ends.
- ``report``: a stored run's standings, head-to-head and totals, as data.
- ``play``: one game between three entrants (``arena play``).
- ``submit``: build, check in a short match, and register a contestant's bot.
"""
