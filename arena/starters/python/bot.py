"""Bot __BOT_NAME__: a Schmier bot on the arena's Python SDK, answering the first legal choice.

The SDK (``arena.sdk``) joins the referee, reads the events and asks this class one
decision at a time. Each method gets a ``Decision``: ``decision.view`` is everything the
seat may know now (docs/PROTOCOL.md §3), ``decision.hand`` its cards and
``decision.legal`` the legal choices, listed in the order docs/PROTOCOL.md guarantees
(pass first, then the bids from low to high; clubs, diamonds, hearts, spades; cards by
suit in that order, 2 up to ace, the joker last). Replace each method's body with your
strategy; ``arena try .`` shows what it answers to recorded requests, and ``arena run .
sample_bots/random`` plays it.
"""

from arena.engine import Action, Discard
from arena.sdk import Bot, Decision, run


class StarterBot(Bot):
    name = "__BOT_NAME__"
    version = "1"

    def bid(self, decision: Decision) -> Action:
        # R4: pass (legal[0]) or bid more than the highest bid so far (legal[1:], 3-6).
        # Strategy goes here: judge the hand (decision.hand) for each trump suit, and
        # bid what your team can make (R6.1: High, Low, the bauers, the joker, Game).
        return decision.legal[0]

    def trump(self, decision: Decision) -> Action:
        # R5.1: you won the bidding (decision.view.contract); any of the four suits.
        # Strategy goes here: the suit you hold most trumps of (arena.engine.is_trump).
        return decision.legal[0]

    def discard(self, decision: Decision) -> Action:
        # R5.2-R5.4: a discard D is legal when must <= D <= may and
        # min_count <= |D| <= max_count. As the dealer (rule.dealer) you have picked up
        # the stock (decision.view.own_received) and discard back to six cards.
        rule = decision.discard_rule
        # Strategy goes here: which of rule.may to let go; example() is the smallest
        # legal discard (all of must, then the lowest cards of may up to min_count).
        return Discard(rule.example())

    def play(self, decision: Decision) -> Action:
        # R7: the cards you may play (you must follow the suit led when you can; a led
        # left bauer or joker calls for trump, R2.4). decision.view.current_trick holds
        # the leader and the cards played so far (none: you lead).
        # Strategy goes here: arena.engine's winning_card and trick_power help.
        return decision.legal[0]


if __name__ == "__main__":
    run(StarterBot())
