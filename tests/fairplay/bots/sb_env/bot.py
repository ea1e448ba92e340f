"""Attacker `sb_env`: reports the environment it was given (one ``SB-REPORT`` JSON line),
looking for anything of the arena's; its manifest asks for SB_WANTED by name."""

import json
import os

# Before the SDK is imported: it sets grpc's variables in its own process.
GIVEN = dict(os.environ)

from arena.sdk import Bot, run  # noqa: E402

print("SB-REPORT " + json.dumps({"env": GIVEN, "cwd": os.getcwd()}), flush=True)
run(Bot())
