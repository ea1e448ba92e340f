"""Joins, then never answers: every decision of its seats runs out of time."""

import time

from arena.sdk import Bot, run


class Silent(Bot):
    name = "silent"

    def decide(self, decision):
        time.sleep(3600)


run(Silent())
