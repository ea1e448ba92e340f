"""One end of a covert channel between two sandboxed bots (``arena bench channels``).

Run as a bot process, with the standard library only: ``CH_ROLE`` (``send`` or
``receive``), ``CH_KIND`` (what carries the bits), ``CH_START`` (the wall-clock time the
first slot starts), ``CH_SLOT_MS`` and ``CH_BITS`` (the bits to send, as 0s and 1s; the
receiver gets only their number). Time is cut into slots; in each the sender does or does
not do something the receiver can see in what the machine shares, and the receiver
prints one ``CH-RESULT`` JSON line with what it saw in each slot.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import threading
import time

KIND = os.environ.get("CH_KIND", "procs")
START = float(os.environ.get("CH_START", "0"))
SLOT = float(os.environ.get("CH_SLOT_MS", "50")) / 1000
BITS = os.environ.get("CH_BITS", "")
THREADS = 40  # what the sender adds to the machine's thread count for a 1
MEMORY = 256 * 1024 * 1024  # what it allocates and touches for a 1


class SysInfo(ctypes.Structure):
    _fields_ = [
        ("uptime", ctypes.c_long),
        ("loads", ctypes.c_ulong * 3),
        ("totalram", ctypes.c_ulong),
        ("freeram", ctypes.c_ulong),
        ("sharedram", ctypes.c_ulong),
        ("bufferram", ctypes.c_ulong),
        ("totalswap", ctypes.c_ulong),
        ("freeswap", ctypes.c_ulong),
        ("procs", ctypes.c_ushort),
        ("pad", ctypes.c_ushort),
        ("totalhigh", ctypes.c_ulong),
        ("freehigh", ctypes.c_ulong),
        ("mem_unit", ctypes.c_uint),
    ]


LIBC = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


def sysinfo() -> SysInfo:
    info = SysInfo()
    LIBC.sysinfo(ctypes.byref(info))
    return info


def wait_until(moment: float) -> None:
    while (left := moment - time.time()) > 0:
        time.sleep(min(left, 0.05))


def spin_until(moment: float) -> int:
    count = 0
    while time.time() < moment:
        count += 1
    return count


def send() -> None:
    for index, bit in enumerate(BITS):
        begin, end = START + index * SLOT, START + (index + 1) * SLOT
        wait_until(begin)
        if bit != "1":
            continue
        if KIND == "cpu":
            spin_until(end)
        elif KIND == "procs":
            remaining = max(0.0, end - time.time())
            threads = [
                threading.Thread(target=time.sleep, args=(remaining,)) for _ in range(THREADS)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        elif KIND == "memory":
            block = b"\x01" * MEMORY  # written, so every page is really held
            wait_until(end)
            del block


def receive() -> None:
    seen: list[float] = []
    for index in range(len(BITS)):
        begin = START + index * SLOT
        if KIND == "cpu":
            wait_until(begin + SLOT * 0.2)
            seen.append(spin_until(begin + SLOT * 0.8))
        else:
            wait_until(begin + SLOT * 0.6)
            info = sysinfo()
            seen.append(info.procs if KIND == "procs" else info.freeram * info.mem_unit)
    print("CH-RESULT " + json.dumps(seen), flush=True)


if __name__ == "__main__":
    (send if os.environ.get("CH_ROLE") == "send" else receive)()
