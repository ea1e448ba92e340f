"""Joins, then dies at its first decision: a crash at start."""

import os

from arena.sdk import Bot, run


class Crasher(Bot):
    name = "crasher"

    def decide(self, decision):
        os._exit(7)


run(Crasher())
