"""Plays as the random sample until the contest reaches the game number in turn.txt, then
dies at its first decision of every game: it passes its validation (which it cannot tell
from a ladder match) and turns sore later. It tells its log what it was told."""

import os
import random
from pathlib import Path

import spy

from arena.engine import random_legal_action
from arena.sdk import Bot, run

TURN = int((Path(__file__).parent / "turn.txt").read_text())


class Sly(Bot):
    name = "sly"

    def __init__(self):
        self.rng = random.Random(os.environ.get("ARENA_SEED", "0"))
        self.game = 0

    def on_welcome(self, welcome):
        spy.welcome(welcome)

    def on_events(self, events):
        spy.game(events)
        for event in events:
            if event.WhichOneof("body") == "game_started":
                self.game = event.game_started.game_index

    def decide(self, decision):
        if self.game >= TURN:
            os._exit(9)
        return random_legal_action(decision.legal, self.rng)


run(Sly())
