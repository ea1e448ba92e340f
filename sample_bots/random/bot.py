"""Sample bot `random`: uniform over the legal choices, but it bids only now and then.

A bot that bid at random would set itself back so often that games last 100+ deals.
Its randomness is seeded from ARENA_SEED and the game number, so a match replays.
"""

import os
import random

from arena.engine import random_legal_action
from arena.sdk import Bot, Decision, run


class RandomBot(Bot):
    name = "random"
    version = "1"

    def __init__(self) -> None:
        self.seed = os.environ.get("ARENA_SEED", "0")
        self.rng = random.Random(self.seed)
        self.game_index = -1

    def decide(self, decision: Decision):
        if decision.game_index != self.game_index:  # a new game: its own randomness
            self.game_index = decision.game_index
            self.rng = random.Random(f"{self.seed}:{self.game_index}")
        # The engine's own random player: a bid only now and then, else any legal choice.
        return random_legal_action(decision.legal, self.rng)


if __name__ == "__main__":
    run(RandomBot())
