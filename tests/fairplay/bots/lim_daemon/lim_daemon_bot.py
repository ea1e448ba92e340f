"""Bot ``lim_daemon``: at its first decision it leaves a daemon behind, then plays on slowly.

The daemon is made the classic way: fork, setsid, fork again, the middle process exits,
so it is in no process group or session of the bot's and its parent is gone. It writes
the time to ``daemon.beat`` in the working directory every 50 ms, and its command line
ends with the bot's first argument plus ``.daemon`` (a marker by which the test finds it in
/proc). It ends by itself after two minutes, so a failed test leaves nothing for long.
"""

from __future__ import annotations

import os
import sys
import time

from arena.engine import Action
from arena.sdk import Bot, Decision, run

DAEMON = """
import sys, time
from pathlib import Path
beat, end = Path("daemon.beat"), time.monotonic() + 120
while time.monotonic() < end:
    try:
        beat.write_text(repr(time.time()))
    except OSError:
        pass  # a read-only working directory (the sandbox's): live on all the same
    time.sleep(0.05)
"""


def leave_daemon(marker: str) -> None:
    middle = os.fork()
    if middle == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                os.execv(sys.executable, [sys.executable, "-c", DAEMON, marker + ".daemon"])
        finally:
            os._exit(0)
    os.waitpid(middle, 0)


class Daemon(Bot):
    name = "lim_daemon"
    version = "1"
    started = False

    def decide(self, decision: Decision) -> Action:
        if not self.started:
            self.started = True
            leave_daemon(sys.argv[1] if len(sys.argv) > 1 else "lim-daemon")
        time.sleep(0.1)  # slowly, so that the test has time to kill the arena mid-game
        return super().decide(decision)


if __name__ == "__main__":
    run(Daemon())
