"""Bot ``lim_children``: its memory is in four worker processes, 150 MiB each, held at once.

A per-process limit (RLIMIT_AS) of 256 MiB lets every worker have its 150 MiB (600 MiB for
the bot); the bot's memory cgroup must stop them together at 256 MiB. At its first decision
the bot starts the workers, and each grows its hold 10 MiB at a time, writing how much it
holds to ``worker<i>.held`` in the working directory after every step (so the test knows
what each held even if the kernel killed it). Once each worker holds its 150 MiB or died,
the bot lets them go, and writes which were holding then (all at once) and how each ended
to ``workers.json``. A bot whose worker was killed cannot play on and exits (status 3), as
a bot whose search processes died would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from arena.engine import Action
from arena.sdk import Bot, Decision, run

WORKERS = 4
STEP_MIB = 10
HOLD_MIB = 150

WORKER = f"""
import sys
from pathlib import Path
held, out = [], Path(sys.argv[1])
while len(held) * {STEP_MIB} < {HOLD_MIB}:
    held.append(b"\\x01" * ({STEP_MIB} << 20))  # written, so really resident
    out.write_text(str(len(held) * {STEP_MIB}))
sys.stdout.write("h")
sys.stdout.flush()
sys.stdin.read()  # hold until the bot lets go
"""


def hold_memory() -> None:
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, f"worker{i}.held"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        for i in range(WORKERS)
    ]
    holding = []
    for worker in workers:
        assert worker.stdout is not None
        holding.append(worker.stdout.read(1) == b"h")  # b"": it died first
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.close()
    codes = [worker.wait() for worker in workers]
    Path("workers.json").write_text(json.dumps({"holding": holding, "exit": codes}))
    if any(code != 0 for code in codes):
        print(f"lim_children: workers ended with {codes}; cannot play on", flush=True)
        os._exit(3)  # at once: not through the SDK's event loop


class Children(Bot):
    name = "lim_children"
    version = "1"
    started = False

    def decide(self, decision: Decision) -> Action:
        if not self.started:
            self.started = True
            hold_memory()
        return super().decide(decision)


if __name__ == "__main__":
    run(Children())
