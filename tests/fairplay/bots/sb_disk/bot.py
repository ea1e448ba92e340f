"""Attacker `sb_disk`: fills its working directory and /tmp until the writes fail (at
most 1 GiB each), then plays on. Reports one ``SB-REPORT`` JSON line."""

import errno
import json
from pathlib import Path

from arena.sdk import Bot, run

CHUNK = b"\0" * (1 << 20)
LIMIT = 1 << 30


def report(**found: object) -> None:
    print("SB-REPORT " + json.dumps(found), flush=True)


def fill(path: Path) -> dict[str, object]:
    written = 0
    error = "none"
    try:
        with path.open("wb", buffering=0) as out:
            while written < LIMIT:
                written += out.write(CHUNK)
    except OSError as failure:
        error = errno.errorcode.get(failure.errno or 0, str(failure))
    return {"written": written, "error": error}


class Attacker(Bot):
    def on_welcome(self, welcome: object) -> None:
        home = fill(Path.cwd() / "fill")
        tmp = fill(Path("/tmp/fill"))
        report(home=home, tmp=tmp, cwd=str(Path.cwd()))


run(Attacker())
