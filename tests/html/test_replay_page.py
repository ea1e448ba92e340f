"""The replay page in a real Chromium: what it shows at a step is what the engine gives there.

Games: six stored by a real ``arena run`` of the sample bots (real processes, real gRPC, a
real SQLite file), and in-process engine games (one from arranged start scores, one with
decision notes: times and a fault). At several decisions of each the page must show every
hand, the trick, the scores, and each seat's view as ``view(game, seat)`` gives it (R10).
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from itertools import islice
from pathlib import Path
from typing import Any

import pytest
from conftest import DESKTOP, PHONE, WIDER, PageLog
from playwright.sync_api import Page
from typer.testing import CliRunner

from arena.cli import app
from arena.engine import DecisionKind, Game, Phase, random_legal_action, view
from arena.engine.actions import Action, Play
from arena.engine.cards import card_texts
from arena.engine.legal import Legal
from arena.engine.record import (
    DecisionNote,
    Fallback,
    recorded_actions,
    start_game,
    to_record,
)
from arena.present.html.replay import bundle_of_record, render_replay, replay_document, write_replay
from arena.tournament.bundle import GameBundle, SiblingGame, game_bundle
from arena.tournament.play import write_record
from arena.tournament.store import ResultsStore

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLES = REPO_ROOT / "sample_bots"
ARENA = str(Path(sys.executable).parent / "arena")

# Slow: every test reads games played for the module: the whole suite only.
pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

HOSTILE_NAME = '</script><img src=x onerror="window.pwned=1"><b>bold</b>'
HOSTILE_LOG = "\x1b[31mred\x1b[0m <script>window.pwned=2</script> & </pre>"
FAULTS = (3, 40)  # the decisions of the noted engine game that the referee played


@dataclass(frozen=True)
class Replay:
    """A written replay page and the bundle it was made from."""

    bundle: GameBundle
    path: Path

    @property
    def url(self) -> str:
        return self.path.resolve().as_uri()

    @property
    def record(self) -> dict[str, Any]:
        return self.bundle.record


def _engine_game(seed: int, scores: tuple[int, int, int] = (0, 0, 0)) -> Game:
    """A game of random legal play, from ``scores`` (R9: short when they are near 21)."""
    rng = random.Random(seed)
    game = (
        Game(seed=seed)
        if scores == (0, 0, 0)
        else Game.arranged(
            [" ".join(h) for h in _hands_of(Game(seed=seed))], dealer=seed % 6, scores=scores
        )
    )
    while not game.is_over:
        game.apply(random_legal_action(game.legal(), rng))
    return game


def _hands_of(game: Game) -> list[list[str]]:
    return [card_texts(game.hands[seat]) for seat in range(6)]


@pytest.fixture(scope="module")
def stored_pages(tmp_path_factory: pytest.TempPathFactory) -> list[Replay]:
    """``arena run greedy lowest random --games 1``: six real games, each a page."""
    directory = tmp_path_factory.mktemp("replay-run")
    db = directory / "arena.db"
    entrants = [str(SAMPLES / name) for name in ("greedy", "lowest", "random")]
    # A process of its own: playwright's driver keeps an event loop running in this thread,
    # and arena run starts its own.
    result = subprocess.run(
        [ARENA, "run", *entrants, "--games", "1", "--jobs", "2", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    pages = []
    with ResultsStore.open(db, create=False) as store:
        for game_id in (1, 2, 3, 4, 5, 6):
            bundle = game_bundle(store, game_id)
            path = directory / f"game-{game_id}.html"
            if game_id == 1:  # through the command line, as a user would
                command = [ARENA, "replay", "1", "--db", str(db), "--html", str(path)]
                shown = subprocess.run(command, capture_output=True, text=True, timeout=300)
                assert shown.returncode == 0, shown.stdout + shown.stderr
                assert str(path) in " ".join(shown.stdout.split())
            else:
                write_replay(bundle, path)
            pages.append(Replay(bundle, path))
    return pages


@pytest.fixture(scope="module")
def engine_pages(tmp_path_factory: pytest.TempPathFactory) -> list[Replay]:
    """Two in-process games: one from arranged start scores, one with decision notes
    (each decision's time, a fault with a hostile text at decision 3, another at 40)."""
    directory = tmp_path_factory.mktemp("replay-engine")
    arranged = _engine_game(11, scores=(17, 15, 18))
    played = _engine_game(5)
    notes = [DecisionNote(seconds=0.001 * (i % 7)) for i in range(played.decisions)]
    notes[3] = DecisionNote(0.25, Fallback("timeout", "R7.2 no answer in time", HOSTILE_NAME))
    notes[FAULTS[1]] = DecisionNote(0.01, Fallback("illegal", "R7.3 not a legal play", "JK"))
    pages = []
    for number, record in enumerate(
        (to_record(arranged), to_record(played, {"note": "engine game"}, notes))
    ):
        bundle = bundle_of_record(record, f"engine-{number}")
        path = directory / f"engine-{number}.html"
        write_replay(bundle, path)
        pages.append(Replay(bundle, path))
    return pages


@pytest.fixture(scope="module")
def all_pages(stored_pages: list[Replay], engine_pages: list[Replay]) -> list[Replay]:
    return [stored_pages[0], stored_pages[3], *engine_pages]


def _game_after(record: dict[str, Any], decisions: int) -> Game:
    """The engine's game after the first ``decisions`` actions of the record."""
    game = start_game(record)
    for action in islice(recorded_actions(record), decisions):
        game.apply(action)
    return game


def _checked_decisions(record: dict[str, Any], count: int = 6) -> Iterator[tuple[int, Game]]:
    """Decisions spread over the game whose action did not end a deal (the page then
    shows the finished deal), with the engine's game right after each."""
    total = sum(1 for _ in recorded_actions(record))
    wanted = sorted({int(total * i / count) for i in range(count)} | {1, total // 2 + 1})
    for index in wanted:
        before = _game_after(record, index)
        after = _game_after(record, index + 1)
        if after.deal_number == before.deal_number and after.phase is not Phase.OVER:
            yield index, after


SHOWN = """() => {
  const seats = {};
  for (const node of document.querySelectorAll('[data-hand]')) {
    const backs = node.querySelector('[data-backs]');
    seats[node.dataset.hand] = {
      cards: [...node.querySelectorAll('[data-card]')].map((c) => c.dataset.card),
      backs: backs ? Number(backs.dataset.backs) : null,
    };
  }
  return {
    seats: seats,
    trick: [...document.querySelectorAll('#trick .play')].map(
      (p) => [Number(p.dataset.seat), p.dataset.card]),
    scores: [0, 1, 2].map(
      (t) => Number(document.querySelector('[data-team-score="' + t + '"]').textContent)),
    step: Number(document.body.dataset.step),
    trump: document.querySelector('[data-trump]')?.dataset.trump ?? null,
  };
}"""


def _expected_trick(game: Game) -> list[list[Any]]:
    """The trick in progress, or else the deal's last trick (the page shows who won it)."""
    leader, cards = game.current_trick
    if game.phase is Phase.PLAY and cards:
        return [[(leader + i) % 6, str(card)] for i, card in enumerate(cards)]
    if game.deal.tricks:
        last = game.deal.tricks[-1]
        return [[(last.leader + i) % 6, str(card)] for i, card in enumerate(last.cards)]
    return []


def _open(page: Page, shown: Replay) -> None:
    page.goto(shown.url)
    page.wait_for_function("window.replay !== undefined")


@pytest.mark.slow
def test_each_step_shows_what_the_engine_gives(page: Page, all_pages: list[Replay]) -> None:
    checked = 0
    for shown in all_pages:
        _open(page, shown)
        for index, game in _checked_decisions(shown.record):
            assert page.evaluate(f"replay.gotoDecision({index})") >= 0
            page.select_option("#mode", "all")
            state = page.evaluate(SHOWN)
            where = f"{shown.path.name} decision {index}"
            for seat in range(6):
                assert state["seats"][str(seat)]["cards"] == card_texts(game.hands[seat]), where
            assert state["trick"] == _expected_trick(game), where
            assert state["scores"] == list(game.scores), where
            assert state["trump"] == (None if game.trump is None else str(game.trump)), where
            for viewer in (index % 6, (index + 3) % 6):
                page.select_option("#mode", str(viewer))
                seen = view(game, viewer)
                state = page.evaluate(SHOWN)
                for seat in range(6):
                    hand = state["seats"][str(seat)]
                    if seat == viewer:
                        assert hand["cards"] == card_texts(seen.hand.mask), where
                    else:  # R10: only how many cards another seat holds
                        assert hand["cards"] == [], where
                        assert hand["backs"] == seen.hand_sizes[seat], where
                assert state["trick"] == _expected_trick(game), where
            checked += 1
    assert checked >= 15


@pytest.mark.slow
def test_a_deal_s_points_by_category_are_the_engine_s(page: Page, all_pages: list[Replay]) -> None:
    for shown in all_pages[:3]:
        _open(page, shown)
        game = start_game(shown.record)
        for action in recorded_actions(shown.record):
            game.apply(action)
        document = replay_document(shown.bundle)
        scored = [d for d in document["deals"] if d["scored_step"] is not None]
        assert scored, shown.path.name
        for deal in scored[:3]:
            page.evaluate(f"replay.goto({deal['scored_step']})")
            engine_deal = game.deals[deal["number"] - 1]
            shown_points = page.evaluate(
                """() => Object.fromEntries([...document.querySelectorAll('[data-category]')]
                  .map((row) => [row.dataset.category,
                    row.querySelector('[data-team]')?.dataset.team ?? null]))"""
            )
            expected = {
                name: None if team is None else str(team)
                for name, team in engine_deal.categories.items()
            }
            assert shown_points == expected, (shown.path.name, deal["number"])
            assert page.evaluate(SHOWN)["scores"] == list(engine_deal.scores_after)


@pytest.mark.slow
def test_no_console_error_and_no_request(
    page: Page, page_log: PageLog, all_pages: list[Replay]
) -> None:
    for shown in all_pages:
        _open(page, shown)
        count = page.evaluate("replay.count")
        for index in range(0, count, max(1, count // 40)):
            page.evaluate(f"replay.goto({index})")
        for mode in ("0", "4", "all"):
            page.select_option("#mode", mode)
        page.click("#btn-play")
        page.wait_for_timeout(300)
        page.click("#btn-play")
        page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        assert page_log.errors == [], shown.path.name
    assert page_log.requests_besides(*(shown.url for shown in all_pages)) == []


@pytest.mark.slow
def test_keyboard_navigation(page: Page, stored_pages: list[Replay]) -> None:
    shown = stored_pages[1]
    document = replay_document(shown.bundle)
    _open(page, shown)
    step = lambda: page.evaluate("replay.step()")  # noqa: E731
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert step() == 2
    page.keyboard.press("ArrowLeft")
    assert step() == 1
    page.keyboard.press("End")
    assert step() == len(document["steps"]["kind"]) - 1
    page.keyboard.press("Home")
    assert step() == 0
    page.keyboard.press("PageDown")
    assert step() == document["deals"][1]["first_step"]
    page.keyboard.press("PageDown")
    assert step() == document["deals"][2]["first_step"]
    page.keyboard.press("PageUp")
    assert step() == document["deals"][1]["first_step"]
    assert page.evaluate("document.body.dataset.deal") == "2"


@pytest.mark.slow
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "390x844"])
def test_both_viewports_render_without_horizontal_overflow(
    page: Page, viewport: dict[str, int], stored_pages: list[Replay], artefacts: Path
) -> None:
    shown = stored_pages[0]
    _open(page, shown)
    name = f"{viewport['width']}x{viewport['height']}"
    decisions = list(_checked_decisions(shown.record, 3))
    for mode in ("all", "2"):
        page.select_option("#mode", mode)
        for index, _ in decisions:
            page.evaluate(f"replay.gotoDecision({index})")
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= viewport["width"], (name, mode, index, width)
    # The screenshots: mid-trick, once face up and once as seat 2 saw it.
    page.select_option("#mode", "all")
    page.evaluate(f"replay.gotoDecision({_mid_trick(shown.record)})")
    page.screenshot(path=artefacts / f"replay-{name}.png")
    page.screenshot(path=artefacts / f"replay-{name}-full.png", full_page=True)
    page.select_option("#mode", "2")
    page.screenshot(path=artefacts / f"replay-{name}-seat2.png")


def _mid_trick(record: dict[str, Any]) -> int:
    """The first decision after deal 1 that leaves four cards in the third trick."""
    game = start_game(record)
    for index, action in enumerate(recorded_actions(record)):
        game.apply(action)
        if (
            game.deal_number > 1
            and game.phase is Phase.PLAY
            and len(game.deal.tricks) == 2
            and len(game.current_trick[1]) == 4
        ):
            return index
    raise AssertionError("no trick in the game reached four cards")


@pytest.mark.slow
def test_hostile_names_logs_and_faults_show_literally(
    page: Page, page_log: PageLog, engine_pages: list[Replay], tmp_path: Path
) -> None:
    base = engine_pages[1].bundle
    sibling = SiblingGame(99, (HOSTILE_NAME,) * 6, base.record)
    bundle = replace(
        base,
        labels=(HOSTILE_NAME, "a&b", "<i>x</i>", HOSTILE_NAME, "\u202eevil", "c"),
        log_tails=tuple((HOSTILE_LOG, f"line {seat}") for seat in range(6)),
        siblings=(sibling,),
    )
    html = render_replay(bundle)
    # Only the page's own script may run (by its hash) and nothing may load.
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', html)
    assert policy is not None
    assert "default-src 'none'" in policy.group(1)
    assert re.search(r"script-src 'sha256-[A-Za-z0-9+/=]+';", policy.group(1))
    assert "unsafe-inline" not in policy.group(1).split("script-src")[1].split(";")[0]
    data = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', html, re.S)
    assert data is not None
    assert "<" not in data.group(1) and ">" not in data.group(1)
    assert json.loads(data.group(1))["game"]["labels"][0] == HOSTILE_NAME
    path = tmp_path / "hostile.html"
    path.write_text(html, encoding="utf-8")
    page.goto(path.as_uri())
    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    page.evaluate("replay.gotoDecision(3)")
    assert page.evaluate("window.pwned") is None
    assert page.evaluate("document.querySelectorAll('img, b b, i').length") == 0
    names = page.locator('[data-seat="0"] .seat-name').inner_text()
    assert names == HOSTILE_NAME
    assert page.locator('[data-seat="2"] .seat-name').inner_text() == "<i>x</i>"
    # a bidi override is shown as its escape, so it cannot reorder the line
    assert page.locator('[data-seat="4"] .seat-name').inner_text() == "\\u202eevil"
    log = page.locator('[data-log-seat="0"] pre').inner_text()
    assert log.splitlines()[0] == "\\x1b[31mred\\x1b[0m <script>window.pwned=2</script> & </pre>"
    fault = page.locator("#fault").inner_text()
    assert "Fault timeout: R7.2 no answer in time" in fault
    assert HOSTILE_NAME in fault
    assert page.locator("[data-sibling='99'] td").nth(1).inner_text().startswith(HOSTILE_NAME)
    assert page_log.errors == []
    assert page_log.requests_besides(path.as_uri()) == []


def test_decision_times_and_the_fallback_played(page: Page, engine_pages: list[Replay]) -> None:
    shown = engine_pages[1]
    _open(page, shown)
    actions = list(recorded_actions(shown.record))
    page.evaluate("replay.gotoDecision(3)")
    assert page.locator("#decision [data-seconds]").get_attribute("data-seconds") == "0.25"
    assert f"the referee played the fallback: {actions[3]}" in page.locator("#fault").inner_text()
    page.evaluate("replay.gotoDecision(4)")
    assert page.locator("#fault").count() == 0
    assert page.locator("#decision [data-seconds]").get_attribute("data-seconds") == "0.004"


def test_cards_are_drawn_with_rank_suit_colour_and_a_distinct_joker(
    page: Page, stored_pages: list[Replay]
) -> None:
    _open(page, stored_pages[0])
    drawn = page.evaluate(
        """() => [...document.querySelectorAll('[data-hand] [data-card]')].map(
             (c) => [c.dataset.card, c.textContent, c.className])"""
    )
    symbols = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
    assert len(drawn) == 36
    for card, text, classes in drawn:
        if card == "JK":
            assert "joker" in classes and text == "JK\u2605"
            continue
        rank = "10" if card[0] == "T" else card[0]
        assert text == rank + symbols[card[1]]
        assert ("red" if card[1] in "HD" else "black") in classes.split()


def test_the_same_deal_at_the_other_seatings(page: Page, stored_pages: list[Replay]) -> None:
    shown = stored_pages[0]
    _open(page, shown)
    siblings = {s.game_id: s for s in shown.bundle.siblings}
    assert len(siblings) == 5  # one game seed, six seatings
    rows = page.evaluate(
        """() => [...document.querySelectorAll('#duplicate [data-sibling]')].map(
             (row) => [row.dataset.sibling, [...row.querySelectorAll('td')].map(
               (td) => td.innerText)])"""
    )
    assert [row[0] for row in rows] == ["this", *map(str, siblings)]
    for game_id, cells in rows[1:]:
        sibling = siblings[int(game_id)]
        first_deal_labels = [cells[1 + team].splitlines()[0] for team in range(3)]
        assert first_deal_labels == list(sibling.labels[:3])
        deal = sibling.record["deals"][0]
        if "points_won" in deal:
            points = [int(cells[1 + team].splitlines()[1].split()[0]) for team in range(3)]
            assert points == deal["points_won"]


def test_arena_replay_html_of_a_record_file(tmp_path: Path, page: Page) -> None:
    game = _engine_game(21, scores=(19, 19, 19))
    record = to_record(game, {"entrants": [{"name": n, "version": "1"} for n in "xyz"]})
    path = write_record(record, tmp_path / "game.json.gz")
    out = tmp_path / "page.html"
    result = CliRunner().invoke(app, ["replay", str(path), "--html", str(out)])
    assert result.exit_code == 0, result.output
    assert str(out) in " ".join(result.stdout.split())
    page.goto(out.as_uri())
    labels = [page.locator(f'[data-seat="{s}"] .seat-name').inner_text() for s in range(6)]
    assert labels == ["x@1", "y@1", "z@1", "x@1", "y@1", "z@1"]


def test_the_page_size_of_a_stored_game(stored_pages: list[Replay]) -> None:
    """Shared lists and per-step changes keep a page small: under 40 kB a deal."""
    for shown in stored_pages:
        deals = len(shown.record["deals"])
        assert shown.path.stat().st_size < 40_000 * deals + 60_000, shown.path.name


def test_arena_replay_html_refuses_a_record_that_does_not_replay(tmp_path: Path) -> None:
    record = to_record(_engine_game(4, scores=(19, 19, 19)))
    first = record["deals"][0]
    first["scores"] = [score + 1 for score in first.get("scores", [0, 0, 0])]
    path = write_record(record, tmp_path / "tampered.json.gz")
    out = tmp_path / "page.html"
    result = CliRunner().invoke(app, ["replay", str(path), "--html", str(out)])
    assert result.exit_code != 0
    assert "does not replay" in " ".join(result.stderr.split())
    assert not out.exists()


def test_a_record_without_entrants_names_its_seats() -> None:
    bundle = bundle_of_record(to_record(_engine_game(4, scores=(19, 19, 19))), "a file")
    assert bundle.labels == tuple(f"seat {seat}" for seat in range(6))
    document = replay_document(bundle)
    assert document["game"]["labels"] == [f"seat {seat}" for seat in range(6)]
    assert document["chart"][0] == [19, 19, 19]


# -- replays for analysis ---------------------------------------------------------------------


def _over_step(document: dict[str, Any]) -> int:
    return int(document["steps"]["kind"].index("over"))


@pytest.mark.slow
def test_the_result_is_shown_only_once_play_reaches_it(
    page: Page, stored_pages: list[Replay]
) -> None:
    shown = stored_pages[0]
    document = replay_document(shown.bundle)
    result = document["game"]["result"]
    over = _over_step(document)
    _open(page, shown)
    header = lambda: page.locator("#game-result").inner_text()  # noqa: E731
    scores = lambda: page.evaluate(SHOWN)["scores"]  # noqa: E731
    chart_points = lambda: int(  # noqa: E731
        page.locator("svg[data-chart-points]").get_attribute("data-chart-points") or ""
    )
    # In every mode, step 1 shows the start: no winner, no final score, one point charted.
    assert header() == "in play"
    assert scores() == document["chart"][0]
    assert chart_points() == 1
    assert page.locator("#game-length").is_visible()
    page.check("#hide-result")
    assert page.evaluate("replay.state().hideResult") is True
    assert page.locator("#game-length").is_hidden() and page.locator("#slider").is_hidden()
    assert "/" not in page.locator("#position").inner_text()
    final_text = "team " + str(result["winner"]) + " won"
    ends = [d["scored_step"] for d in document["deals"] if d["scored_step"] is not None]
    # Until the last deal is scored, neither the final scores nor the winner show anywhere.
    for step in sorted({*range(0, ends[-1], max(1, ends[-1] // 12)), ends[-1] - 1}):
        page.evaluate(f"replay.goto({step})")
        scored = sum(1 for end in ends if end <= step)
        assert header() == "in play", step
        assert final_text not in page.locator("body").inner_text(), step
        assert scores() != result["scores"], step
        assert chart_points() == scored + 1, step
        assert "of" not in page.locator("#deal h2").inner_text().lower().split("deal", 1)[1]
    page.evaluate(f"replay.goto({over - 1})")
    assert header() == "in play"
    page.locator("body").click(position={"x": 5, "y": 5})  # the keys, not the checkbox
    page.keyboard.press("End")
    assert page.evaluate("replay.step()") == len(document["steps"]["kind"]) - 1
    assert header().startswith(final_text) or result["winner"] is None
    assert scores() == result["scores"]
    assert chart_points() == len(document["chart"])


def test_the_next_fault_button_and_key_land_on_faults(
    page: Page, engine_pages: list[Replay]
) -> None:
    _open(page, engine_pages[1])
    page.click("#btn-next-fault")
    state = page.evaluate("replay.state()")
    assert (state["decision"], state["fault"]) == (FAULTS[0], True)
    assert page.locator("#fault").is_visible()
    assert page.locator("#jump-note").inner_text() == f"fault: decision {FAULTS[0] + 1}"
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("f")
    state = page.evaluate("replay.state()")
    assert (state["decision"], state["fault"]) == (FAULTS[1], True)
    assert "Fault illegal: R7.3 not a legal play" in page.locator("#fault").inner_text()
    page.click("#btn-next-fault")
    assert page.evaluate("replay.state()")["decision"] == FAULTS[1]  # nowhere further
    assert page.locator("#jump-note").inner_text() == "no fault after this step"


@pytest.mark.slow
def test_the_next_turn_of_a_chosen_seat(page: Page, stored_pages: list[Replay]) -> None:
    shown = stored_pages[2]
    game = start_game(shown.record)
    turns = []
    for index, action in enumerate(recorded_actions(shown.record)):
        if game.to_act == 4:
            turns.append(index)
        game.apply(action)
    _open(page, shown)
    page.select_option("#turn-seat", "4")
    for expected in turns[:8]:
        page.click("#btn-next-turn")
        state = page.evaluate("replay.state()")
        assert (state["decision"], state["seat"]) == (expected, 4)
        assert page.locator("#decision").get_attribute("data-seat") == "4"


@pytest.mark.slow
def test_each_decision_shows_the_engine_s_legal_choices(
    page: Page, stored_pages: list[Replay]
) -> None:
    shown = stored_pages[0]
    actions = list(recorded_actions(shown.record))
    game = start_game(shown.record)
    firsts: dict[DecisionKind, int] = {}
    checked: list[tuple[int, Legal, Action, int]] = []
    for index, action in enumerate(actions):
        kind = game.decision_kind
        assert kind is not None
        if kind not in firsts or index % 97 == 0:
            firsts.setdefault(kind, index)
            checked.append((index, game.legal(), action, game.to_act))
        game.apply(action)
    assert set(firsts) == set(DecisionKind)
    _open(page, shown)
    for index, legal, action, seat in checked:
        page.evaluate(f"replay.gotoDecision({index})")
        box = page.locator("#legal")
        assert box.get_attribute("data-count") == str(len(legal)), index
        if legal.kind is DecisionKind.DISCARD:
            rule = legal.discard_rule
            may = box.locator("[data-card]").evaluate_all("(cs) => cs.map((c) => c.dataset.card)")
            assert may[: len(rule.may)] == card_texts(rule.may.mask), index
            assert f"played: {action}" in box.inner_text()
        else:
            choices = box.locator("[data-choice]")
            listed = [choices.nth(i).get_attribute("data-choice") for i in range(choices.count())]
            expected = [
                str(choice.card) if isinstance(choice, Play) else str(choice) for choice in legal
            ]
            assert listed == expected, index
            chosen = box.locator('[data-chosen="true"]')
            assert chosen.count() == 1
            played = action.card if isinstance(action, Play) else action
            assert chosen.get_attribute("data-choice") == str(played), index
        # As another seat saw it, the choices stay that seat's own (R10).
        page.select_option("#mode", str((seat + 1) % 6))
        assert page.locator("#legal [data-choice], #legal [data-card]").count() == 0
        page.select_option("#mode", str(seat))
        assert page.locator("#legal").get_attribute("data-count") == str(len(legal))
        page.select_option("#mode", "all")


@pytest.mark.parametrize("viewport", [PHONE], ids=["390x844"])
def test_on_a_phone_the_controls_stay_in_view(
    page: Page, viewport: dict[str, int], stored_pages: list[Replay], artefacts: Path
) -> None:
    shown = stored_pages[0]
    _open(page, shown)
    page.evaluate(f"replay.gotoDecision({_mid_trick(shown.record)})")
    assert page.evaluate(WIDER) == []
    # Halfway down, not to the bottom: a step may shorten the page, and at the bottom the
    # browser would then move the page itself, which is not what this test is about. For
    # the same reason the browser's scroll anchoring is off: when a step changes the height
    # of what lies above the view, Chromium moves scrollY to keep the content in place
    # (seen: 814 -> 779), which is the browser's doing; this test is about the page's own.
    page.add_style_tag(content="html, body { overflow-anchor: none; }")
    page.evaluate("window.scrollTo(0, (document.body.scrollHeight - window.innerHeight) / 2)")
    page.wait_for_function("window.scrollY > 0")
    scrolled = page.evaluate("window.scrollY")
    nav = page.locator("nav").bounding_box()
    assert nav is not None
    assert nav["y"] >= 0 and nav["y"] + nav["height"] <= viewport["height"]
    assert nav["height"] < viewport["height"] / 4  # the game keeps most of the screen
    before = page.evaluate("replay.step()")
    for name in ("next", "next-fault", "next-turn"):
        box = page.locator(f"#btn-{name}").bounding_box()
        assert box is not None
        centre = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        on_top = f"document.elementFromPoint({centre[0]}, {centre[1]}).closest('button').id"
        assert page.evaluate(on_top) == f"btn-{name}", name  # visible, nothing over it
    box = page.locator("#btn-next").bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    assert page.evaluate("replay.step()") == before + 1
    assert page.evaluate("window.scrollY") == scrolled  # stepping never jumps the page
    nav = page.locator("nav").bounding_box()
    assert nav is not None and nav["y"] >= 0 and nav["y"] + nav["height"] <= viewport["height"]
    page.screenshot(path=artefacts / "replay-390x844-scrolled.png")


@pytest.mark.slow
def test_a_record_of_arena_play_shows_its_seat_logs(tmp_path: Path, page: Page) -> None:
    """``arena play`` writes OUT/games/<match>.json.gz and OUT/logs/<match>/seat*.log; the
    replay page of the record shows each seat's log (a bot that writes one, on team 0)."""
    chatty = tmp_path / "chatty"
    shutil.copytree(SAMPLES / "greedy", chatty, ignore=shutil.ignore_patterns("__pycache__"))
    (chatty / "bot.toml").write_text(
        'name = "chatty"\ncommand = ["sh", "-c", "echo chatty is here; exec python3 bot.py"]\n'
    )
    out = tmp_path / "out"
    entrants = [str(chatty), str(SAMPLES / "lowest"), str(SAMPLES / "random")]
    played = subprocess.run(
        [ARENA, "play", *entrants, "--seed", "4", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert played.returncode == 0, played.stdout + played.stderr
    (record,) = (out / "games").glob("*.json.gz")
    html = tmp_path / "page.html"
    shown = subprocess.run(
        [ARENA, "replay", str(record), "--html", str(html)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert shown.returncode == 0, shown.stdout + shown.stderr
    logs = out / "logs" / record.name.removesuffix(".json.gz")
    assert f"seat logs from {logs}" in " ".join(shown.stdout.split())
    page.goto(html.as_uri())
    for seat in range(6):
        details = page.locator(f'[data-log-seat="{seat}"]')
        text = (logs / f"seat{seat}.log").read_text()
        lines = text.splitlines()
        assert details.get_attribute("data-lines") == str(len(lines)), seat
        if seat % 3 == 0:  # chatty's seats
            assert "chatty is here" in lines
            assert f": last {len(lines)} line" in details.locator("summary").inner_text()
            details.locator("summary").click()
            assert "chatty is here" in details.locator("pre").inner_text()
