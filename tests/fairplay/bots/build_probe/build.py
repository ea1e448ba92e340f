"""A hostile build: everything a build command could try, reported in ``build-report.json``
(in the directory it builds, which the test reads afterwards). The paths and the port to
try are in ``targets.json``, written there by the test: a build has no legitimate way to
learn them."""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

targets = json.loads(Path("targets.json").read_text())


def look(path: str) -> str:
    target = Path(path)
    try:
        if target.is_dir():
            return "LISTED: " + ",".join(sorted(p.name for p in target.iterdir()))
        with target.open("rb") as source:
            return "READ: " + source.read(32).hex()
    except OSError as error:
        return f"refused: {error.strerror}"


def write(path: str) -> str:
    try:
        Path(path).write_text("planted by a build")
        return "WRITTEN"
    except OSError as error:
        return f"refused: {error.strerror}"


def connect(port: int) -> str:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            return "CONNECTED"
    except OSError as error:
        return f"refused: {error.strerror or error}"


# A daemon that would outlive the build (and the arena): its own session, its own
# process group, no parent to wait for it.
subprocess.Popen(
    [sys.executable, "-c", "import time; time.sleep(600)", targets["marker"]],
    start_new_session=True,
    stdin=subprocess.DEVNULL,
    stdout=subprocess.DEVNULL,
    stderr=subprocess.DEVNULL,
)
report = {
    "uid": os.getuid(),
    "cwd": os.getcwd(),
    "env": dict(os.environ),
    "reads": {name: look(path) for name, path in targets["read"].items()},
    "writes": {name: write(path) for name, path in targets["write"].items()},
    "own_copy": write("built-here.txt"),
    "network": connect(targets["port"]),
}
Path("build-report.json").write_text(json.dumps(report))
# And a log far beyond any cap.
chunk = "x" * 1023 + "\n"
for _ in range(targets["log_mib"] * 1024):
    sys.stdout.write(chunk)
sys.stdout.flush()
