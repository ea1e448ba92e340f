"""A bot that says, in its log, when each game was live for it.

It plays the engine's random legal choices (seeded by ARENA_SEED and the game, as the
``random`` sample does) and, at the end of each game, writes one line to stderr:
``deal-clock MATCH SEAT GAME FIRST_NS LAST_NS``, on the monotonic clock (one clock for
every process of the machine): when the game's first message reached it, and when it
gave its last answer of the game (or the first, if it never answered). Over a table's
six seats that is the game as its bots lived it, from the first hand dealt to the last
decision taken; a test reads every seat's lines back from the logs and checks that no
two games of one deal were played at once.
"""

import os
import random
import sys
import time

from arena.engine import random_legal_action
from arena.sdk import Bot, run

THINK_S = 0.003  # each decision's pause


class DealClock(Bot):
    name = "deal_clock"
    version = "1"

    def __init__(self) -> None:
        self.seed = os.environ.get("ARENA_SEED", "0")
        self.rng = random.Random(self.seed)
        self.match = "?"
        self.seat = -1
        self.game = -1
        self.first = 0
        self.last = 0

    def on_welcome(self, welcome):
        self.match = welcome.match_id
        self.seat = welcome.seat

    def on_events(self, events):
        now = time.monotonic_ns()
        for event in events:
            body = event.WhichOneof("body")
            if body == "game_started":
                self.game = event.game_started.game_index
                self.first = self.last = now
                self.rng = random.Random(f"{self.seed}:{self.game}")
            elif body == "game_ended":
                line = f"deal-clock {self.match} {self.seat} {self.game} {self.first} {self.last}"
                print(line, file=sys.stderr, flush=True)

    def decide(self, decision):
        # A game lasts longer than a table's six bots take to start on a busy machine, so
        # that the other table is ready while this one plays (a sleep: no CPU taken).
        time.sleep(THINK_S)
        action = random_legal_action(decision.legal, self.rng)
        self.last = time.monotonic_ns()  # the answer leaves after this
        return action


if __name__ == "__main__":
    run(DealClock())
