"""Play games with Python bot objects called directly: the same messages, no transport.

Used to measure what gRPC costs (``arena bench referee``) and to evaluate Python bots
quickly. Requests are built and answers read exactly as the referee does.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from collections.abc import Sequence
from pathlib import Path

from arena.engine import Game, view
from arena.referee.policy import fallback_action
from arena.sdk.bot import Bot, Decision
from arena.v1 import arena_pb2 as pb
from arena.wire.protocol import (
    KIND_TO_PB,
    EventTranslator,
    action_to_answer,
    answer_to_action,
    legal_to_pb,
    view_to_pb,
)


def load_python_bot(directory: Path) -> Bot:
    """Instantiate the ``Bot`` subclass defined in ``directory/bot.py``."""
    path = directory / "bot.py"
    name = f"_arena_bot_{directory.name}_{abs(hash(path))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    for value in vars(module).values():
        if inspect.isclass(value) and issubclass(value, Bot) and value is not Bot:
            return value()
    raise ImportError(f"{path} defines no Bot subclass")


def play_game_in_process(bots: Sequence[Bot], seed: int, game_index: int = 0) -> Game:
    """One game from a test seed (for benchmarks and tests: guessable); seat s is played
    by ``bots[s]``. An illegal answer gets the fallback."""
    game = Game(seed=seed)
    cursors = [0] * 6
    translator = EventTranslator(game.events)
    started = pb.Event(game_started=pb.GameStarted(game_index=game_index))
    for bot in bots:
        bot.on_events([started])
    request_id = 0
    while not game.is_over:
        seat = game.to_act
        kind = game.decision_kind
        assert kind is not None
        request_id += 1
        request = pb.DecisionRequest(
            id=request_id,
            kind=KIND_TO_PB[kind],
            view=view_to_pb(view(game, seat), game_index),
            legal=legal_to_pb(game.legal()),
        )
        events = translator.for_seat(seat, cursors[seat])
        cursors[seat] = len(game.events)
        bot = bots[seat]
        if events:
            bot.on_events(events)
        answer = action_to_answer(request_id, bot.decide(Decision.from_request(request)))
        wire = pb.Answer.FromString(answer.SerializeToString())
        try:
            game.apply(answer_to_action(wire, kind))
        except ValueError:
            game.apply(fallback_action(game))
    return game
