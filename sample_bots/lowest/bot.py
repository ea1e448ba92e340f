"""Sample bot `lowest`: the Python SDK's defaults and nothing else, in a few lines.

It passes every bid, names its longest suit when it must, discards as little as the
rules allow, and plays its lowest legal card. A baseline, and the smallest bot there is.
"""

from arena.sdk import Bot, run


class LowestBot(Bot):
    name = "lowest"
    version = "1"


if __name__ == "__main__":
    run(LowestBot())
