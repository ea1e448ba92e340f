"""The sample ``random`` bot, whose first start at each seat number moves itself onto the
one CPU that ``TEST_PIN_CPU`` names.

A test holds that CPU with a real-time CPU hog: everything such a bot does after its first
lines (its imports, dialling the referee, its join) then waits for the CPU, as on a machine
too busy to start it. Which start is the first is told by a file per seat in the directory
``TEST_PIN_ONCE`` names; every later start, and any start without ``TEST_PIN_CPU``, is the
sample bot as it is.
"""

import os
from pathlib import Path

if __name__ == "__main__":
    if "TEST_PIN_CPU" in os.environ:
        marker = Path(os.environ["TEST_PIN_ONCE"]) / ("seat" + os.environ["ARENA_SEAT"])
        try:
            marker.open("x").close()
        except FileExistsError:
            pass
        else:
            os.sched_setaffinity(0, {int(os.environ["TEST_PIN_CPU"])})

    import runpy  # after the move: the start-up is what the hog holds back

    from arena.bots.samples import sample_bot

    runpy.run_path(str(sample_bot("random") / "bot.py"), run_name="__main__")
