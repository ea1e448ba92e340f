"""Attacker `sb_tcp`: partners try to talk outside the game. Seats 0-2 listen on loopback
TCP and an abstract unix socket before joining; seats 3-5 connect to their partner's once
every seat has joined. Each reports one ``SB-REPORT`` JSON line after the match."""

import json
import os
import socket
import threading

from arena.sdk import Bot, run

PORT = 47_321
ABSTRACT = "\0sb-tcp-partner"
SEAT = int(os.environ["ARENA_SEAT"])
found: dict[str, object] = {"seat": SEAT}
accepted: list[str] = []


def report(**fields: object) -> None:
    print("SB-REPORT " + json.dumps(fields), flush=True)


def serve(server: socket.socket, label: str) -> None:
    while True:
        try:
            conn, _ = server.accept()
        except OSError:
            return
        accepted.append(label)
        conn.close()


def listen() -> None:
    for family, address, label in (
        (socket.AF_INET, ("127.0.0.1", PORT), "tcp"),
        (socket.AF_UNIX, ABSTRACT, "abstract"),
    ):
        try:
            server = socket.socket(family, socket.SOCK_STREAM)  # AF_INET: the filter refuses
        except OSError as error:
            found[f"listen_{label}"] = f"refused: {error}"
            continue
        try:
            if family == socket.AF_INET:
                server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            server.bind(address)
            server.listen(8)
        except OSError as error:
            found[f"listen_{label}"] = f"failed: {error}"
            continue
        found[f"listen_{label}"] = "listening"
        threading.Thread(target=serve, args=(server, label), daemon=True).start()


def connect() -> None:
    for family, address, label in (
        (socket.AF_INET, ("127.0.0.1", PORT), "tcp"),
        (socket.AF_UNIX, ABSTRACT, "abstract"),
    ):
        try:
            client = socket.socket(family, socket.SOCK_STREAM)
        except OSError as error:
            found[f"connect_{label}"] = f"refused: {error}"
            continue
        client.settimeout(0.5)
        try:
            client.connect(address)
            found[f"connect_{label}"] = "connected"
        except OSError as error:
            found[f"connect_{label}"] = f"refused: {error}"
        finally:
            client.close()


class Attacker(Bot):
    def on_welcome(self, welcome: object) -> None:
        if SEAT >= 3:
            connect()


if SEAT < 3:
    listen()
run(Attacker())
report(**found, accepted=accepted)
