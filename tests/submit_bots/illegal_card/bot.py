"""Plays a card it does not hold whenever it must play."""

from arena.engine import PLAYS
from arena.sdk import Bot, run


class IllegalCard(Bot):
    name = "illegal_card"

    def play(self, decision):
        held = {card.index for card in decision.hand}
        return PLAYS[min(i for i in range(53) if i not in held)]


run(IllegalCard())
