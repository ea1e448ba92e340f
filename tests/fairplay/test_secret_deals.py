"""Secret deals (issue #9, items 1 and 7): no observed hand helps to predict another card.

Before, a deal was ``random.Random(f"schmier:{seed}:deal:{k}")`` over game seeds made
from a small run seed (``arena run`` defaulted to 1), so a bot that saw its first hand
could find the seed by trying small ones and then knew every card. The attacker below
does exactly that, and more: it tries small run seeds under the old derivation and
under the new public one (``--seed N``), and otherwise guesses from everything it saw
(its own hands of every deal, the game indexes, the full records of earlier games).

- Against the old derivation it finds seed 1 from one hand and then names every card of
  another seat: the test has teeth.
- Against a run's secret key its guesses of another seat's cards hit at the rate of
  chance (a binomial test), and trying seeds finds nothing.

With real processes and the real command line: ``arena run`` with the same ``--seed``
twice gives the same records (and a one-line warning), two runs without ``--seed`` deal
differently, and nothing a bot can reach (the ``arena play`` record file, every file
under the log directories) holds the key, in hex, base64 or raw bytes.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import random
import sqlite3
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from engine.helpers import mask_of_indices
from scipy.stats import binomtest
from typer.testing import CliRunner, Result

from arena.bots import load_bot
from arena.bots.samples import sample_bots_dir
from arena.cli import app
from arena.engine import GameKey
from arena.engine.cards import DECK_SIZE, indices_of_mask
from arena.engine.record import without_times
from arena.tournament.play import read_record
from arena.tournament.schedule import RunKey
from arena.tournament.store import ResultsStore

REPO = Path(__file__).resolve().parents[2]
RANDOM = str(sample_bots_dir() / "random")
GREEDY = str(sample_bots_dir() / "greedy")
LOWEST = str(sample_bots_dir() / "lowest")
SEARCHED_SEEDS = range(2000)  # the attacker's budget of small seeds
CHANCE = 6 / (DECK_SIZE - 6)  # another seat holds 6 of the 47 cards one has not got
ALPHA = 1e-3

Deal = tuple[list[int], list[int]]  # hands (masks) by seat, stock


# --- the old derivation, kept here only to show that the attack works on it ---------------


def legacy_game_seed(run_seed: int, game_index: int) -> int:
    digest = hashlib.sha256(f"schmier-arena:{run_seed}:{game_index}".encode()).digest()
    return int.from_bytes(digest[:7], "big")


def legacy_deal(seed: int, number: int) -> Deal:
    deck = list(range(DECK_SIZE))
    random.Random(f"schmier:{seed}:deal:{number}").shuffle(deck)
    return [mask_of_indices(deck[6 * s : 6 * s + 6]) for s in range(6)], deck[36:]


def keyed_deal(run_key: RunKey, game_index: int, number: int) -> Deal:
    return run_key.game(game_index).deal(number)


# --- the attacker ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Observation:
    game_index: int
    number: int  # the deal number
    hand: int  # the attacker's own hand (seat 0), as a mask


Derivation = Any  # (run seed, game index, deal number) -> Deal


def _legacy(seed: int, game_index: int, number: int) -> Deal:
    return legacy_deal(legacy_game_seed(seed, game_index), number)


def _public(seed: int, game_index: int, number: int) -> Deal:
    return keyed_deal(RunKey.from_seed(seed), game_index, number)


class Attacker:
    """A bot author's best try: find the seed; failing that, learn from what it saw."""

    def __init__(self, history: list[Deal]) -> None:
        # Full records of earlier games: how often each card went to each seat.
        self.counts: Counter[tuple[int, int]] = Counter()
        for hands, _ in history:
            for seat, mask in enumerate(hands):
                for card in indices_of_mask(mask):
                    self.counts[(card, seat)] += 1
        self.found: tuple[Derivation, int] | None = None

    def search(self, seen: list[Observation]) -> None:
        """Try every small seed under each derivation against its first observed hands."""
        first = seen[:3]
        for derive in (_legacy, _public):
            for seed in SEARCHED_SEEDS:
                if all(derive(seed, o.game_index, o.number)[0][0] == o.hand for o in first):
                    self.found = (derive, seed)
                    return

    def observe(self, observation: Observation) -> None:
        for card in indices_of_mask(observation.hand):
            self.counts[(card, 0)] += 1

    def guess(self, observation: Observation, seat: int) -> int:
        """Six cards the attacker bets ``seat`` holds in this deal."""
        if self.found is not None:
            derive, seed = self.found
            return int(derive(seed, observation.game_index, observation.number)[0][seat])
        unseen = [c for c in range(DECK_SIZE) if not observation.hand >> c & 1]
        # The cards that went to that seat most often, and least often to the attacker.
        unseen.sort(key=lambda c: (-self.counts[(c, seat)], self.counts[(c, 0)], c))
        return mask_of_indices(unseen[:6])


def attack(deal_of: Any, games: range, deals: int, history: list[Deal]) -> tuple[int, int, bool]:
    """Seat 0 sees its hands of ``deals`` deals of each game and guesses seat 1's cards.

    Returns (hits, guesses, seed found). The first game's first deal is the one the
    attacker uses for its seed search, as a bot would after its first deal.
    """
    attacker = Attacker(history)
    observations = [
        Observation(g, k, deal_of(g, k)[0][0]) for g in games for k in range(1, deals + 1)
    ]
    attacker.search(observations)
    hits = guesses = 0
    for observation in observations:
        actual = deal_of(observation.game_index, observation.number)[0][1]
        hits += (attacker.guess(observation, 1) & actual).bit_count()
        guesses += 6
        attacker.observe(observation)
    return hits, guesses, attacker.found is not None


# --- the statistical test -----------------------------------------------------------------


@pytest.mark.timeout(120)
def test_the_attack_names_every_card_under_the_old_guessable_derivation() -> None:
    """Teeth: with the old derivation and the old default run seed (1), the attacker finds
    the seed from its first hands and then knows every card of seat 1 in every game."""
    history = [_legacy(1, g, 1) for g in range(100, 110)]
    hits, guesses, found = attack(lambda g, k: _legacy(1, g, k), range(20), 10, history)
    assert found
    assert hits == guesses == 20 * 10 * 6
    assert binomtest(hits, guesses, CHANCE, alternative="greater").pvalue < 1e-100


@pytest.mark.timeout(120)
def test_an_explicit_small_seed_is_found_as_its_warning_says() -> None:
    """The public derivation of ``--seed N`` is found the same way: hence the warning."""
    run_key = RunKey.from_seed(42)
    hits, guesses, found = attack(lambda g, k: keyed_deal(run_key, g, k), range(3), 5, [])
    assert found and hits == guesses


@pytest.mark.timeout(180)
def test_against_a_secret_key_the_attacker_guesses_no_better_than_chance() -> None:
    """R10 holds for the deal itself: with the run's secret key, the attacker's guesses of
    seat 1's cards, after watching its own hands over 40 games x 10 deals and reading 200
    earlier games' full records, hit at the rate of chance (6 of the 47 unseen cards);
    trying 2000 small seeds under either derivation finds nothing."""
    run_key = RunKey(hashlib.sha256(b"a key the attacker is not told").digest())
    history = [keyed_deal(run_key, g, 1) for g in range(1000, 1200)]
    hits, guesses, found = attack(lambda g, k: keyed_deal(run_key, g, k), range(40), 10, history)
    assert not found
    test = binomtest(hits, guesses, CHANCE)
    assert test.pvalue > ALPHA, (
        f"{hits} hits of {guesses} ({hits / guesses:.3f}; chance {CHANCE:.3f}), p={test.pvalue}"
    )
    # The same attacker, the same amount of watching, against the old derivation: it wins.
    old_hits, old_guesses, _ = attack(lambda g, k: _legacy(1, g, k), range(40), 10, [])
    assert binomtest(old_hits, old_guesses, CHANCE).pvalue < ALPHA


@pytest.mark.timeout(60)
def test_a_fresh_run_key_is_not_found_by_trying_seeds() -> None:
    run_key = RunKey.generate()
    _, _, found = attack(lambda g, k: keyed_deal(run_key, g, k), range(2), 2, [])
    assert not found


# --- the command line, with real processes ------------------------------------------------


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def _ok(result: Result) -> None:
    assert result.exit_code == 0, f"{result.exit_code}\n{result.stdout}\n{result.stderr}"


def _records(db: Path) -> tuple[RunKey, dict[tuple[str, int], dict[str, Any]]]:
    found = {}
    with ResultsStore.open(db, create=False) as store:
        run_id = store.latest_run_id()
        assert run_id is not None
        # Which game is which: the store reads records by id only (the arena never lists them).
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            games = conn.execute(
                """
                SELECT g.id, m.match_key, g.game_index
                FROM games g JOIN matches m ON m.id = g.match_id
                WHERE g.run_id = ?
                """,
                (run_id,),
            ).fetchall()
        finally:
            conn.close()
        for game_id, match_key, game_index in games:
            # Decision times differ from run to run: the games themselves must not.
            found[(match_key, game_index)] = without_times(store.game_record(game_id))
        return RunKey(store.deal_key(run_id)), found


def _deals(records: dict[tuple[str, int], dict[str, Any]]) -> list[Any]:
    return [[(d["hands"], d["stock"]) for d in records[key]["deals"]] for key in sorted(records)]


def _forms(secret: bytes) -> list[bytes]:
    """Every way a key could be written down: raw, hex (both cases), base64 (both kinds)."""
    return [
        secret,
        secret.hex().encode(),
        secret.hex().upper().encode(),
        base64.b64encode(secret),
        base64.urlsafe_b64encode(secret),
        base64.b64encode(secret).rstrip(b"="),
        base64.urlsafe_b64encode(secret).rstrip(b"="),
        str(int.from_bytes(secret, "big")).encode(),
    ]


def _files_under(root: Path, skip: tuple[Path, ...] = ()) -> Iterator[tuple[Path, bytes]]:
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink() and path not in skip:
            data = path.read_bytes()
            yield path, data
            if path.suffix == ".gz":
                yield path, gzip.decompress(data)


def _assert_no_key_material(roots: list[Path], secrets: list[bytes], skip: tuple[Path, ...]) -> int:
    searched = 0
    for root in roots:
        for path, data in _files_under(root, skip):
            searched += 1
            for secret in secrets:
                for form in _forms(secret):
                    assert form not in data, f"{path} holds key material ({form[:12]!r}…)"
    return searched


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_arena_run_same_seed_same_records_no_seed_secret_and_no_key_in_the_logs(
    tmp_path: Path,
) -> None:
    """``arena run`` twice with ``--seed 5``: the same records, and the warning line; twice
    without: no warning, different deals, each run's key in its database only, and no
    key (run or game) in any file under the log directories a bot's match writes."""
    args = ("run", RANDOM, GREEDY, "--games", "1", "--jobs", "2")
    seeded = [
        invoke(*args, "--seed", "5", "--db", str(tmp_path / f"s{i}" / "a.db")) for i in (0, 1)
    ]
    secret = [invoke(*args, "--db", str(tmp_path / f"r{i}" / "a.db")) for i in (0, 1)]
    for result in seeded + secret:
        _ok(result)
    warning = "anyone who knows the seed can know every card"
    assert all(r.stderr.count(warning) == 1 and "--seed 5" in r.stderr for r in seeded)
    assert all(warning not in r.stderr + r.stdout for r in secret)

    (key_a, a), (key_b, b) = (_records(tmp_path / f"s{i}" / "a.db") for i in (0, 1))
    assert key_a == key_b == RunKey.from_seed(5)
    assert a == b and len(a) == 6, "the same seed, the same games (deterministic bots)"

    (key_c, c), (key_d, d) = (_records(tmp_path / f"r{i}" / "a.db") for i in (0, 1))
    assert key_c != key_d and RunKey.from_seed(5) not in (key_c, key_d)
    assert _deals(c) != _deals(d), "two secret runs must not deal alike"
    assert all(len(run) == 6 for run in (c, d))

    for name, key, records in (("r0", key_c, c), ("r1", key_d, d)):
        games = {g for _, g in records}
        keys = [key.secret, *(key.game(g).secret for g in games)]
        root = tmp_path / name
        db = root / "a.db"
        skip = tuple(db.with_name(db.name + s) for s in ("", "-wal", "-shm", "-journal"))
        assert _assert_no_key_material([root], keys, skip) > 12  # logs of six matches
        # The key is in the database, and that is what the sandbox hides from bots.
        assert key.secret in b"".join(p.read_bytes() for p in skip if p.exists())


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_arena_play_keeps_its_key_nowhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``arena play`` without ``--seed``: the key it draws is in no file it writes (the
    record, the seat logs and working directories); two such games deal differently; the
    record still replays with ``arena replay``."""
    drawn: list[RunKey] = []
    generate = RunKey.generate.__func__  # type: ignore[attr-defined]

    def spy(cls: type[RunKey]) -> RunKey:
        drawn.append(generate(cls))
        return drawn[-1]

    monkeypatch.setattr(RunKey, "generate", classmethod(spy))
    outs = [tmp_path / "one", tmp_path / "two"]
    results = [invoke("play", RANDOM, GREEDY, LOWEST, "--out", str(out)) for out in outs]
    for result in results:
        _ok(result)
        assert "anyone who knows the seed" not in result.stderr
    assert len(drawn) == 2 and drawn[0] != drawn[1]

    records: list[dict[str, Any]] = []
    for out, run_key in zip(outs, drawn, strict=True):
        (path,) = (out / "games").iterdir()
        record = read_record(path)
        records.append(record)
        assert "seed" not in record
        secrets = [run_key.secret, run_key.game(0).secret]
        assert _assert_no_key_material([out], secrets, ()) >= 7  # the record, six seat logs
        _ok(invoke("replay", str(path)))
    assert records[0]["deals"][0]["hands"] != records[1]["deals"][0]["hands"]


def test_a_game_key_is_not_derived_from_anything_public() -> None:
    """The game keys of a secret run differ from those of every small seed, so records
    that name a game index (meta.game_index) say nothing about its cards."""
    run_key = RunKey.generate()
    public = {RunKey.from_seed(s).game(0) for s in range(200)} | {
        GameKey.from_seed(s) for s in range(200)
    }
    assert run_key.game(0) not in public


def test_the_key_search_finds_a_key_written_in_any_form(tmp_path: Path) -> None:
    """The search above has teeth: a key planted raw, in hex, in base64 or inside a
    gzip file is found."""
    secret = RunKey.generate().secret
    plants = {
        "raw.bin": b"x" + secret + b"y",
        "hex.log": f"key={secret.hex()}\n".encode(),
        "b64.json": b'{"k": "' + base64.b64encode(secret) + b'"}',
        "rec.json.gz": gzip.compress(secret.hex().upper().encode()),
    }
    for name, data in plants.items():
        root = tmp_path / name.replace(".", "_")
        (root / "deep").mkdir(parents=True)
        (root / "deep" / name).write_bytes(data)
        with pytest.raises(AssertionError, match="holds key material"):
            _assert_no_key_material([root], [secret], ())


def test_arena_seed_is_keyed_by_the_game_key() -> None:
    """ARENA_SEED (a bot's own randomness) is a keyed function of the match's first game
    key: the same plan, the same seeds; another key, other seeds; nothing public (match
    id, seat, plan seed) determines it."""
    from arena.referee.match import MatchPlan, _seat_seed

    spec = load_bot(Path(RANDOM))

    def plan(key: GameKey) -> MatchPlan:
        return MatchPlan("t0-s0-0-0-1", (spec, spec, spec), [key], Path("unused"))

    run_key = RunKey.generate()
    one = [_seat_seed(plan(run_key.game(0)), seat) for seat in range(6)]
    assert one == [_seat_seed(plan(run_key.game(0)), seat) for seat in range(6)]
    assert len(set(one)) == 6
    other = [_seat_seed(plan(RunKey.generate().game(0)), seat) for seat in range(6)]
    assert not set(one) & set(other)
