"""A deliberately wrong bot, for ``arena try``'s tests: it revokes and it dawdles.

- play: when it must follow suit (R7.2) it plays a card of its hand that does not follow,
  an illegal answer; otherwise its first legal card;
- trump: it answers legally, but only after sleeping ``SLEEP_S`` (late when the decision
  time is shorter);
- everything else: the first legal choice.
"""

import time

from arena.engine import Action, Discard, Play
from arena.sdk import Bot, Decision, run

SLEEP_S = 0.6


class WrongBot(Bot):
    name = "wrong_bot"
    version = "1"

    def bid(self, decision: Decision) -> Action:
        return decision.legal[0]

    def trump(self, decision: Decision) -> Action:
        time.sleep(SLEEP_S)
        return decision.legal[0]

    def discard(self, decision: Decision) -> Action:
        return Discard(decision.discard_rule.example())

    def play(self, decision: Decision) -> Action:
        legal = list(decision.legal)
        revokes = [card for card in decision.hand if Play(card) not in legal]
        return Play(revokes[0]) if revokes else legal[0]


if __name__ == "__main__":
    run(WrongBot())
