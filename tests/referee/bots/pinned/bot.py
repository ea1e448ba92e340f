"""The sample ``random`` bot, moved first onto the one CPU that ``TEST_PIN_CPU`` names.

A test holds that CPU with a real-time CPU hog: everything the bot does after its first
line (its imports, dialling the referee, its join) then waits for the CPU, as on a machine
too busy to start it. Without ``TEST_PIN_CPU`` it is the sample bot.
"""

import os

if "TEST_PIN_CPU" in os.environ:
    os.sched_setaffinity(0, {int(os.environ["TEST_PIN_CPU"])})

import runpy  # after the move: the start-up is what the hog holds back

from arena.bots.samples import sample_bot

runpy.run_path(str(sample_bot("random") / "bot.py"), run_name="__main__")
