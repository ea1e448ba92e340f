"""What each sore loser writes to its log: what it was told of its match (the Welcome) and
of each game, so that a test can compare its validation with its ladder matches."""

import json
import sys


def tell(kind, **fields):
    print(json.dumps({"spy": kind, **fields}), file=sys.stderr, flush=True)


def welcome(message):
    tell(
        "welcome",
        match_id=message.match_id,
        team=message.team,
        games=message.games,
        team_names=list(message.team_names),
        decision_ms=message.decision_ms,
    )


def game(events):
    for event in events:
        if event.WhichOneof("body") == "game_started":
            tell("game", index=event.game_started.game_index)
