"""Attacker `self_hog`: sleeps through its first decisions while its own children spin,
hoping the fair clock mistakes their queueing for starvation (issue: fair play, round
three, finding 7). At seat 0 only, its first ``SLEEPS`` decisions each sleep ``SLEEP_S``
seconds, more than the test's decision time and bank together, while ``CHILDREN`` busy
children of its own spin; then it kills them and plays on at once. Every other seat of
it plays at once. The children count against its own processes, share and quota.

The children are forked before the bot connects (a process that forks while gRPC runs
may lose its stream) and wait on a pipe until the first decision starts them."""

import os
import signal
import time

from arena.engine import Action
from arena.sdk import Bot, Decision, run

CHILDREN = 100
SLEEPS = 4
SLEEP_S = 1.5


def spin_when_told(start: int) -> None:
    os.read(start, 1)
    while True:
        pass


class SelfHog(Bot):
    name = "self_hog"

    def __init__(self, children: list[int], start: int) -> None:
        self.children = children
        self.start = start
        self.slept = 0

    def decide(self, decision: Decision) -> Action:
        if decision.seat == 0 and self.slept < SLEEPS:
            if self.slept == 0:
                os.write(self.start, b"x" * len(self.children))
            time.sleep(SLEEP_S)
            self.slept += 1
            if self.slept == SLEEPS:
                for child in self.children:
                    os.kill(child, signal.SIGKILL)
                for child in self.children:
                    os.waitpid(child, 0)
        return super().decide(decision)


waiting, start = os.pipe()
children = []
for _ in range(CHILDREN):
    try:
        child = os.fork()
    except OSError:
        break  # its process limit: the children it has are enough
    if child == 0:
        spin_when_told(waiting)
    children.append(child)
run(SelfHog(children, start))
