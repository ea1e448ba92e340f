"""Attacker `cpu_hog`: starves everyone else of the CPU. Before it joins, it starts
``HOG_CHILDREN`` busy children, each in a session of its own (so that no signal to its
process group reaches them), which spin until they are killed; then it plays legally.
Its children count against its own processes, CPU share and quota (its cgroup): the
other seats must not fault, whatever the hog does to its own games."""

import os

from arena.sdk import Bot, run

HOG_CHILDREN = 100


def spin() -> None:
    os.setsid()
    while True:
        pass


for _ in range(HOG_CHILDREN):
    try:
        if os.fork() == 0:
            spin()
    except OSError:
        break  # its process limit: the children it has are enough

run(Bot())
