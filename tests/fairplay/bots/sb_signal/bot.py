"""Attacker `sb_signal`: looks for every process it can signal and SIGKILLs all of them
(and -1, "everything it may signal"), then plays on. Reports one ``SB-REPORT`` JSON line."""

import ctypes
import json
import os
import signal

from arena.sdk import Bot, run

PID_SCAN = 1 << 16
LIBC = ctypes.CDLL("libc.so.6", use_errno=True)
SYS_TGKILL = 234


def own_thread(tid: int) -> bool:
    """Whether ``tid`` is one of this process's threads (gRPC's too): tgkill with signal 0
    finds it only in this thread group (no /proc/self/task in the sandbox to list them)."""
    return LIBC.syscall(SYS_TGKILL, os.getpid(), tid, 0) == 0


def report(**found: object) -> None:
    print("SB-REPORT " + json.dumps(found), flush=True)


class Attacker(Bot):
    def on_welcome(self, welcome: object) -> None:
        reachable = []
        for pid in range(1, PID_SCAN):
            if pid == os.getpid() or own_thread(pid):
                continue
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                continue
            except PermissionError:
                pass  # it exists: still worth a try
            reachable.append(pid)
        killed = []
        for pid in reachable:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except OSError:
                pass
        try:
            os.kill(-1, signal.SIGKILL)
            everything = "signalled"
        except OSError as error:
            everything = f"refused: {error}"
        report(pid=os.getpid(), reachable=reachable, killed=killed, everything=everything)


run(Attacker())
