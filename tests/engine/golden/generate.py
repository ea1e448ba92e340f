"""Write the golden records of ``test_golden.py``: seeded random games of one engine revision.

Run against a revision's source tree with ``-S``, so that the tree given is the one
imported (not the editable install), for example::

    git archive eb3dbeb arena | tar -x -C /tmp/eb3dbeb
    .venv/bin/python -S tests/engine/golden/generate.py /tmp/eb3dbeb \\
        tests/engine/golden/eb3dbeb.json.gz

It uses only what every revision has: ``play_random_game(seed, rng, draw_limit)`` and
``to_record``.
"""

from __future__ import annotations

import gzip
import json
import random
import sys

# (game seed, deal limit): short games to cover many deals cheaply, and whole games.
GAMES = [(seed, 12) for seed in range(1, 17)] + [(seed, 200) for seed in range(100, 102)]


def rng_for(seed: int) -> random.Random:
    return random.Random(10_000 + seed)


def main(source_root: str, out_path: str) -> None:
    sys.path.insert(0, source_root)
    from arena.engine import to_record
    from arena.engine.randomplay import play_random_game

    records = []
    for seed, draw_limit in GAMES:
        game = play_random_game(seed, rng_for(seed), draw_limit=draw_limit)
        records.append(to_record(game))
    text = json.dumps(records, separators=(",", ":"))
    with gzip.GzipFile(out_path, "wb", mtime=0) as out:
        out.write(text.encode())


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
