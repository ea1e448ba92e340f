"""Tournaments, one concern per module, in dependency order.

- ``schedule``: which entrants meet, in which seatings, on which games (and the run's key).
- ``stats``: win-rate intervals, standings and head-to-head over plain rows (pure).
- ``results``: the SQLite results store of runs, matches, games, seat statistics and faults.
- ``runner``: plays a run's schedule on one referee and stores each game as it ends.
- ``report``: a stored run's standings, head-to-head and totals, as data.
"""
