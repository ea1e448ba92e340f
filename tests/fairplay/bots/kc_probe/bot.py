"""Attacker `kc_probe`: partners (seats 0 and 3) try to talk through the kernel's shared
state instead of a file or a socket, and to leave state for a later match.

Seat 0 sends: it locks byte ranges (fcntl, OFD and flock) of its own code file and of a
system file both seats can read, adds a key to the user's keyring, and marks pages of its
own file cached. Seat 3 receives: at every decision it probes for those locks, searches
the keyring and reads /proc/keys, and watches its code file with inotify. Each seat also
reports what it learnt of a match before (a key left in the keyring), its own code file's
inode (a partner's copy must be another), its user id, and whether it can read the
root-only files named in ``targets.json`` (written there by the test). One ``SB-REPORT``
JSON line per seat, at the end of the match.
"""

import ctypes
import ctypes.util
import errno
import fcntl
import json
import mmap
import os
import struct
from pathlib import Path

from arena.sdk import Bot, run

HERE = Path(__file__).resolve().parent
CODE = HERE / "bot.py"
SHARED = Path("/etc/hostname") if Path("/etc/hostname").exists() else Path("/etc/passwd")
SEAT = int(os.environ["ARENA_SEAT"])
LIBC = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
SYS_ADD_KEY, SYS_KEYCTL, SYS_MINCORE = 248, 250, 27
KEY_SPEC_USER_KEYRING = -4
KEYCTL_SEARCH = 10
F_OFD_GETLK, F_OFD_SETLK = 36, 37


def report(**found: object) -> None:
    print("SB-REPORT " + json.dumps(found), flush=True)


def err(error: OSError) -> str:
    return f"refused: {errno.errorcode.get(error.errno or 0, error.errno)}"


def syscall(number: int, *args: object) -> int:
    result = LIBC.syscall(number, *args)
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return int(result)


def lock(path: Path, how: str) -> str:
    try:
        fd = os.open(path, os.O_RDONLY)  # kept open for the match: the lock lives with it
        if how == "posix":
            fcntl.fcntl(fd, fcntl.F_SETLK, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 7, 1, 0))
        elif how == "ofd":
            fcntl.fcntl(fd, F_OFD_SETLK, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 9, 1, 0))
        else:
            fcntl.flock(fd, fcntl.LOCK_SH)
        return "locked"
    except OSError as error:
        return err(error)


def probe(path: Path, how: str) -> str:
    try:
        fd = os.open(path, os.O_RDONLY)
        try:
            if how == "flock":
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return "free"
                except BlockingIOError:
                    return "SEEN"
            start = 7 if how == "posix" else 9
            command = fcntl.F_GETLK if how == "posix" else F_OFD_GETLK
            answer = fcntl.fcntl(fd, command, struct.pack("hhqqi", fcntl.F_WRLCK, 0, start, 1, 0))
            return "free" if struct.unpack("hhqqi", answer)[0] == fcntl.F_UNLCK else "SEEN"
        finally:
            os.close(fd)
    except OSError as error:
        return err(error)


def add_key(description: bytes, payload: bytes) -> str:
    try:
        syscall(SYS_ADD_KEY, b"user", description, payload, len(payload), KEY_SPEC_USER_KEYRING)
        return "added"
    except OSError as error:
        return err(error)


def search_key(description: bytes) -> str:
    try:
        key = syscall(SYS_KEYCTL, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, b"user", description, 0)
        return f"SEEN {key}"
    except OSError as error:
        return err(error)


def proc_keys() -> str:
    try:
        text = Path("/proc/keys").read_text()
        return "SEEN " + text if "schmier" in text else "nothing"
    except OSError as error:
        return err(error)


def mincore(path: Path) -> str:
    """Whether the pages of a file are cached, without reading them."""
    mmap_ = LIBC.mmap
    mmap_.restype = ctypes.c_void_p
    mmap_.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int]
    mmap_.argtypes += [ctypes.c_int, ctypes.c_long]
    fd = os.open(path, os.O_RDONLY)
    try:
        address = mmap_(None, 4096, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        vector = ctypes.create_string_buffer(1)
        syscall(SYS_MINCORE, ctypes.c_void_p(address), ctypes.c_size_t(4096), vector)
        return "probed"
    except OSError as error:
        return err(error)
    finally:
        os.close(fd)


def inotify() -> str:
    try:
        fd = syscall(294, 0)  # inotify_init1
        os.close(fd)
        return "watching"
    except OSError as error:
        return err(error)


def readable(path: str) -> str:
    try:
        with open(path, "rb") as source:
            source.read(1)
        return "READ"
    except OSError as error:
        return err(error)


class Attacker(Bot):
    def __init__(self) -> None:
        self.sent: dict[str, str] = {}
        self.seen: dict[str, set[str]] = {}
        self.earlier = {
            "keyring": search_key(b"schmier-earlier-match"),
            "proc_keys": proc_keys(),
        }

    def on_welcome(self, welcome: object) -> None:
        if SEAT == 0:
            for name, path in (("code", CODE), ("shared", SHARED)):
                for how in ("posix", "ofd", "flock"):
                    self.sent[f"{name}_{how}"] = lock(path, how)
            self.sent["keyring"] = add_key(b"schmier-partner", b"AS KD 3C")
            self.sent["keyring_later"] = add_key(b"schmier-earlier-match", b"QH JH")
            self.sent["mincore"] = mincore(CODE)
        self.sent["inotify"] = inotify()

    def decide(self, decision):  # type: ignore[no-untyped-def]
        if SEAT == 3:
            for name, path in (("code", CODE), ("shared", SHARED)):
                for how in ("posix", "ofd", "flock"):
                    self.seen.setdefault(f"{name}_{how}", set()).add(probe(path, how))
            self.seen.setdefault("keyring", set()).add(search_key(b"schmier-partner"))
            self.seen.setdefault("proc_keys", set()).add(proc_keys())
        return super().decide(decision)

    def report(self) -> None:
        targets = json.loads((HERE / "targets.json").read_text())
        stat = CODE.stat()
        report(
            seat=SEAT,
            uid=os.getuid(),
            code_inode=[stat.st_dev, stat.st_ino],
            sent=self.sent,
            seen={key: sorted(values) for key, values in self.seen.items()},
            earlier=self.earlier,
            root_only={path: readable(path) for path in targets["root_only"]},
        )


attacker = Attacker()
run(attacker)
attacker.report()
