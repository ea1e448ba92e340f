"""The Python bot SDK: subclass ``Bot``, answer decisions, call ``run``.

>>> import random
>>> from arena.sdk import Bot, Decision, run
>>> class Lowest(Bot):
...     def play(self, decision: Decision):
...         return decision.legal[0]  # the legal cards are listed lowest first
>>> # run(Lowest())  # plays the match the arena started the bot for, then returns

Every decision has a default answer (pass; the longest suit; the smallest legal
discard; the first legal card), so a bot overrides only what it cares about. A bot whose
``bot.toml`` says ``protocol = "stdio"`` plays over its standard input and output, the
fast way (``arena.sdk.stdio``); otherwise over gRPC.
"""

from arena.sdk.bot import Bot, Decision, RefereeRefused, run

__all__ = ["Bot", "Decision", "RefereeRefused", "run"]
