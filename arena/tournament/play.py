"""``arena play``: one game between three entrants over gRPC, with real processes."""

from __future__ import annotations

import gzip
import json
import secrets
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bots import BotSpec, Limits
from arena.bots.build import BotOptions
from arena.bots.sandbox import DEFAULT_WORKDIR_BYTES
from arena.engine.record import dumps
from arena.referee.match import ManualSeat, Match, MatchPlan, Referee
from arena.referee.result import GameResult
from arena.referee.table import TableSettings
from arena.tournament.schedule import RunKey
from arena.wire.loop import run as run_loop


@dataclass(frozen=True)
class PlayResult:
    report: GameResult
    record_path: Path
    log_dir: Path
    entrants: tuple[BotSpec, BotSpec, BotSpec]


def write_record(record: dict[str, Any], path: Path) -> Path:
    """A game record as gzip-compressed JSON (docs/GAME_RECORD.md)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.write(dumps(record))
    return path


def read_record(path: Path) -> dict[str, object]:
    """A record file (JSON, or gzip-compressed JSON); any damage raises ValueError."""
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as source:
            record = json.load(source)
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as error:
        raise ValueError(f"unreadable ({error})") from error
    if not isinstance(record, dict):
        raise ValueError("not a game record (a JSON object is expected)")
    return record


def play_one_game(
    entrants: Sequence[BotSpec],
    seed: int | None,
    out_dir: Path,
    settings: TableSettings | None = None,
    manual_seats: frozenset[int] = frozenset(),
    on_manual: Callable[[list[ManualSeat]], None] | None = None,
    sandbox: bool = True,
    limits: Limits | None = None,
    workdir_bytes: int = DEFAULT_WORKDIR_BYTES,
    pass_env: tuple[str, ...] = (),
) -> PlayResult:
    """One game over gRPC; by default each bot in its sandbox where bubblewrap works."""
    if len(entrants) != 3:
        raise ValueError("a game needs three entrants, one per team")
    triple = (entrants[0], entrants[1], entrants[2])
    # The game is game 0 of a run: of the run of ``--seed N`` if given (reproducible by
    # anyone), else of a secret key drawn here and kept nowhere.
    if seed is None:
        key = RunKey.generate().game(0)
        match_id = f"play-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"
    else:
        key = RunKey.from_seed(seed).game(0)
        match_id = f"play-{seed}"
    log_dir = out_dir / "logs" / match_id
    options = BotOptions(
        limits=limits or Limits(),
        sandbox=sandbox,
        workdir_bytes=workdir_bytes,
        pass_env=pass_env,
    )
    plan = MatchPlan.of(
        match_id,
        triple,
        [key],
        log_dir,
        options,
        settings=settings,
        manual_seats=manual_seats,
        private=(out_dir,),
    )
    reports: list[GameResult] = []

    async def main() -> None:
        async with Referee() as referee:
            match = Match(referee, plan)
            match.launch()
            if match.manual and on_manual is not None:
                on_manual(match.manual)
            await match.play(on_game=reports.append)

    run_loop(main())
    report = reports[0]
    path = write_record(report.record, out_dir / "games" / f"{match_id}.json.gz")
    return PlayResult(report, path, log_dir, triple)
