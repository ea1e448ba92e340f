"""A bot that reports what it can reach from inside the sandbox (one ``PROBE`` JSON line on
stdout: its working directory ends with it), then plays by default."""

import json
import os
import socket
from pathlib import Path

import arena
from arena.sdk import Bot, run


def probe() -> dict[str, object]:
    found: dict[str, object] = {}
    try:
        with socket.create_connection(("127.0.0.1", int(os.environ["PROBE_PORT"])), timeout=2):
            found["tcp"] = "connected"
    except OSError as error:
        found["tcp"] = f"refused: {error}"
    found["cwd"] = os.getcwd()
    found["siblings"] = sorted(p.name for p in Path.cwd().parent.iterdir())
    try:
        found["other_bot"] = sorted(p.name for p in Path(os.environ["PROBE_OTHER_BOT"]).iterdir())
    except OSError as error:
        found["other_bot"] = f"refused: {error}"
    found["root"] = sorted(p.name for p in Path("/").iterdir())
    try:
        Path(arena.__file__).parent.joinpath("planted").write_text("x")
        found["write_outside"] = "written"
    except OSError as error:
        found["write_outside"] = f"refused: {error}"
    return found


print("PROBE " + json.dumps(probe()), flush=True)
run(Bot())
