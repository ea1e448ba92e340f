"""The Python bot SDK: subclass ``Bot``, answer decisions, call ``run``.

>>> import random
>>> from arena.sdk import Bot, Decision, run
>>> class Lowest(Bot):
...     def play(self, decision: Decision):
...         return decision.legal[0]  # the legal cards are listed lowest first
>>> # run(Lowest())  # reads ARENA_ADDRESS and ARENA_TOKEN, connects, plays, returns

Every decision has a default answer (pass; the longest suit; the smallest legal
discard; the first legal card), so a bot overrides only what it cares about.
"""

from arena.sdk.bot import Bot, Decision, RefereeRefused, run

__all__ = ["Bot", "Decision", "RefereeRefused", "run"]
