"""Attacker `sb_files`: tries to read, list and write what is not its own. The paths to try
(other seats' logs, other matches', the results database) are in ``targets.json`` beside
this file, written there by the test: a bot has no legitimate way to learn them. Each seat
first leaves a file in its working directory, then looks for its partner's. Reports one
``SB-REPORT`` JSON line."""

import json
import os
from pathlib import Path

from arena.sdk import Bot, run

HERE = Path(__file__).resolve().parent
SEAT = os.environ["ARENA_SEAT"]


def report(**found: object) -> None:
    print("SB-REPORT " + json.dumps(found), flush=True)


def look(path: str) -> str:
    target = Path(path)
    try:
        if target.is_dir():
            return "listed: " + ",".join(sorted(p.name for p in target.iterdir()))
        with target.open("rb") as source:
            return "read: " + source.read(64).hex()
    except OSError as error:
        return f"refused: {error.strerror}"


def write(path: Path) -> str:
    try:
        path.write_text("planted")
        return "written"
    except OSError as error:
        return f"refused: {error.strerror}"


def socket_dir() -> Path:
    return Path(os.environ["ARENA_ADDRESS"].removeprefix("unix:")).parent


Path(f"mine-{SEAT}").write_text("a seat's own file")


class Attacker(Bot):
    def on_welcome(self, welcome: object) -> None:
        targets = json.loads((HERE / "targets.json").read_text())
        report(
            cwd=os.getcwd(),
            home=os.environ.get("HOME"),
            own_dir=sorted(p.name for p in Path.cwd().iterdir()),
            homes=sorted(p.name for p in Path("/home").iterdir()),
            # Beside its seat's socket: the other seats' and tables' sockets, if visible.
            beside_socket=sorted(p.name for p in socket_dir().parent.iterdir()),
            socket_dir=socket_dir().name,
            targets={name: look(path) for name, path in targets.items()},
            write_code=write(HERE / "planted"),
            write_root=write(Path("/planted")),
            write_usr=write(Path("/usr/planted")),
        )


run(Attacker())
