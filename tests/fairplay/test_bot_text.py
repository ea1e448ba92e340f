"""Bot text is data (issue #9): answers, names, logs and manifests print literally.

A hostile bot (``bots/markup``) answers with card texts that are rich markup and terminal
escapes, joins under such a name and writes escapes to its log. ``arena play``,
``arena submit``, ``arena run``, ``arena report``, ``arena replay`` and ``arena bots``
run against it with real processes and real gRPC, and each must exit as it would for
any bot, print what the bot said with its control characters made visible, and put no
raw control byte on the terminal.
"""

from __future__ import annotations

import io
import json
import re
import sqlite3
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from typer.testing import CliRunner, Result

from arena.bots import BotSpecError
from arena.bots.manifest import check_name
from arena.bots.samples import sample_bots_dir
from arena.cli import app
from arena.present.display import RunProgressBar
from arena.present.safe_text import literal, printable
from arena.tournament.play import read_record, write_record
from arena.tournament.registry import Registry
from arena.tournament.runner import RunProgress

REPO = Path(__file__).resolve().parents[2]
MARKUP = str(Path(__file__).resolve().parent / "bots" / "markup")
RANDOM = str(sample_bots_dir() / "random")
GREEDY = str(sample_bots_dir() / "greedy")
ENV = {"COLUMNS": "200"}  # wide enough that no table cuts a label

# What the markup bot answers when it must play, each as the fault line shows it: the
# referee quotes the answer (R7.2: a card is one of the contract's card texts).
SHOWN_ANSWERS = (
    "not a card: '[/]'",
    "not a card: '[bold red]x'",
    r"not a card: '\x1b[2J\x1b]0;pwned\x07'",
    r"not a card: '\u202eKJ'",
    r"not a card: '\u2066[/]\u2069\u200b'",
    r"not a card: 'A\rB\x08\x7f\x9b'",
)
# The line the markup bot writes to stdout and stderr, as a log tail must show it.
SHOWN_LOG_LINE = r"log: \x1b[31m[bold red]red[/] \x1b]0;pwned\x07 \u202eevil\r\x08 [/]"
# A name as a database, a record or a registry index could hold it.
HOSTILE = "[/]\x1b[2J\x1b]0;t\x07\u202emarkup[bold]\r"
SHOWN_HOSTILE = r"[/]\x1b[2J\x1b]0;t\x07\u202emarkup[bold]\r"

pytestmark = pytest.mark.timeout(300)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), env=ENV)


def show(result: Result) -> str:
    return (
        f"exit code {result.exit_code}, exception {result.exception!r}\n"
        f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    )


def raw_controls(text: str) -> set[str]:
    """What would act on a terminal rather than show: every non-printable but newline."""
    return {c for c in text if not c.isprintable() and c != "\n"}


def assert_literal(result: Result) -> None:
    """No traceback, and nothing on stdout or stderr that a terminal would obey."""
    assert "Traceback" not in result.output, show(result)
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), show(result)
    for stream in (result.stdout, result.stderr):
        assert raw_controls(stream) == set(), show(result)


def assert_ok(result: Result) -> None:
    assert result.exit_code == 0, show(result)
    assert result.exception is None, show(result)
    assert_literal(result)


def one_line(text: str) -> str:
    return " ".join(text.split())


# --- the function ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("[/]", "[/]"),
        ("[bold red]x[/]", "[bold red]x[/]"),
        ("\x1b[2J", r"\x1b[2J"),
        ("\x1b]0;pwned\x07", r"\x1b]0;pwned\x07"),
        ("a\rb\x08c\x7f\x00", r"a\rb\x08c\x7f\x00"),
        ("\x85\x9b", r"\x85\x9b"),  # C1 controls: NEL and the one-byte CSI
        ("\u202eabc\u202c", r"\u202eabc\u202c"),  # right-to-left override, pop
        ("\u2066x\u2069\u2067\u2068", r"\u2066x\u2069\u2067\u2068"),  # bidi isolates
        ("a\u200bb\u200dc\ufeff", r"a\u200bb\u200dc\ufeff"),  # zero-width space, joiner, BOM
        ("a\u2028b\u2029", r"a\u2028b\u2029"),  # line and paragraph separators
        ("a\tb\nc", r"a\tb\nc"),
        ("\xa0", r"\xa0"),  # a space that is not the ASCII space
        ("\udc80", r"\udc80"),  # an undecodable byte, as surrogateescape keeps it
        ("\U000e0001", r"\U000e0001"),  # a language tag (format character)
        ("é 漢字 😀 ♠ 10♥", "é 漢字 😀 ♠ 10♥"),
        (r"\x1b is four characters", r"\x1b is four characters"),
    ],
)
def test_printable_shows_control_characters_as_escapes(text: str, shown: str) -> None:
    assert printable(text) == shown


def test_printable_cuts_with_an_ellipsis_never_inside_an_escape() -> None:
    assert printable("greedy@1a2b3c4d5e6f", 10) == "greedy@1a…"
    assert printable("greedy", 6) == "greedy"
    assert printable("ab\x1bcd", 6) == "ab…"  # not "ab\x1…": the escape goes whole or not at all
    assert printable("ab\x1bcd", 9) == r"ab\x1bcd"


def test_printable_keeps_newlines_only_when_asked() -> None:
    assert printable("one\r\ntwo\n", keep_newlines=True) == "one\\r\ntwo\n"
    assert printable("one\ntwo") == r"one\ntwo"


_CONTROL_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


@pytest.mark.slow
@given(st.text())
def test_printable_output_has_no_control_or_format_character(text: str) -> None:
    out = printable(text)
    assert out.isprintable()
    assert not {unicodedata.category(c) for c in out} & _CONTROL_CATEGORIES


@given(st.text().filter(str.isprintable))
def test_printable_text_is_unchanged(text: str) -> None:
    assert printable(text) == text


@given(st.text(), st.integers(min_value=1, max_value=40))
def test_printable_keeps_within_its_limit(text: str, limit: int) -> None:
    whole, cut = printable(text), printable(text, limit)
    assert len(cut) <= limit
    if len(whole) <= limit:
        assert cut == whole
    else:
        assert cut.endswith("…") and whole.startswith(cut[:-1])


@given(st.text())
def test_printable_with_newlines_keeps_the_lines_and_nothing_else(text: str) -> None:
    out = printable(text, keep_newlines=True)
    assert raw_controls(out) == set()
    assert out.count("\n") == text.count("\n")


@settings(deadline=None)  # rendering through rich; a busy machine must not fail it
@given(st.text())
def test_rich_prints_literal_text_exactly(text: str) -> None:
    """Never parsed as markup (no MarkupError, no style), never highlighted, never wrapped."""
    buffer = io.StringIO()
    console = Console(file=buffer, color_system=None, soft_wrap=True, width=40)
    console.print(literal(text))
    assert buffer.getvalue() == printable(text) + "\n"


def test_the_progress_display_shows_the_leader_literally() -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, color_system=None, width=200)
    progress = RunProgress(total=3)
    progress.games_by_entrant[HOSTILE + "@1"] = 1
    progress.wins[HOSTILE + "@1"] = 1
    with RunProgressBar(console) as bar:
        bar.update(progress)
    shown = buffer.getvalue()
    assert f"leader: {SHOWN_HOSTILE}@1 (100%)" in shown, shown
    assert raw_controls(shown) == set()


# --- names -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["greedy", "random_bot", "v1.2-beta", "_x", "A" * 64])
def test_safe_bot_names_are_accepted(name: str) -> None:
    assert check_name(name, "bot.toml") == name


@pytest.mark.parametrize(
    "name",
    ["", ".", "..", ".hidden", "-rf", "a/b", "../x", "a b", "[/]", "x\x1b", "é", "A" * 65],
)
def test_names_that_could_break_a_path_or_a_table_are_refused(name: str) -> None:
    with pytest.raises(BotSpecError, match=r"bot.toml: invalid bot name .* in 'name'"):
        check_name(name, "bot.toml")


def test_a_manifest_name_with_markup_is_refused_in_one_literal_line(tmp_path: Path) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.toml").write_text('name = "[/]\\u001b[2J"\ncommand = ["python3", "bot.py"]\n')
    for command in (["play", str(bot), RANDOM, GREEDY], ["submit", str(bot)]):
        result = invoke(*command, "--out" if command[0] == "play" else "--registry", str(tmp_path))
        assert result.exit_code == 2, show(result)
        assert_literal(result)
        assert r"invalid bot name '[/]\x1b[2J' in 'name'" in one_line(result.stderr), show(result)


def test_a_build_that_prints_escapes_fails_in_literal_lines(tmp_path: Path) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.toml").write_text(
        'name = "builder"\ncommand = ["python3", "bot.py"]\nbuild = ["sh", "build.sh", "[/]"]\n'
    )
    # ESC [2J, markup, and U+202E (right-to-left override) in UTF-8, on the build's output.
    (bot / "build.sh").write_text("printf '\\033[2J[/]\\342\\200\\256x\\n'\nexit 3\n")
    result = invoke("play", str(bot), RANDOM, GREEDY, "--out", str(tmp_path / "out"))
    assert result.exit_code == 2, show(result)
    assert_literal(result)
    lines = result.stderr.splitlines()
    # The build runs in the version's copy of the directory: its arguments as written.
    assert any(re.fullmatch(r"building builder@\w+: sh build.sh '\[/\]'", x) for x in lines)
    assert r"\x1b[2J[/]\u202ex" in lines, show(result)  # the build log's tail
    said = one_line(result.stderr)
    assert "builder did not build: build of bot 'builder' failed with exit status 3" in said


def test_submit_refuses_a_name_that_is_a_path_before_any_match(tmp_path: Path) -> None:
    registry = tmp_path / "registry"
    result = invoke("submit", RANDOM, "--name", "../../escaped", "--registry", str(registry))
    assert result.exit_code == 2, show(result)
    assert_literal(result)
    assert "arena submit: invalid bot name '../../escaped' in --name" in one_line(result.stderr)
    assert "checked" not in result.stdout  # refused before the validation match
    assert not registry.exists() and not (tmp_path / "escaped").exists()


def test_a_tampered_registry_index_prints_literally_and_runs_nothing(tmp_path: Path) -> None:
    registry = tmp_path / "registry"
    registry.mkdir()
    entry = {
        "name": "evil[bold]\x1b[2J",
        "version": "\u202e123",
        "path": "[/]",
        "registered_at": "\r\x08",
        "checks": [],
    }
    (registry / "registry.json").write_text(json.dumps({"bots": [entry]}))
    listing = invoke("bots", "--registry", str(registry))
    assert_ok(listing)
    for shown in (r"evil[bold]\x1b[2J", r"\u202e123", "[/]", r"\r\x08"):
        assert shown in listing.stdout, show(listing)
    as_json = invoke("bots", "--registry", str(registry), "--json")
    assert_ok(as_json)
    assert json.loads(as_json.stdout) == [entry]  # JSON stays literal and exact
    run = invoke("run", "evil[bold]\x1b[2J", RANDOM, "--registry", str(registry))
    assert run.exit_code == 2, show(run)
    assert_literal(run)
    assert r"invalid bot name 'evil[bold]\x1b[2J'" in one_line(run.stderr), show(run)
    assert Registry(registry).entries()[0].name == entry["name"]


# --- the hostile bot, with real processes -----------------------------------------------


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Result, Path]:
    """``arena play markup random greedy``: one game, its output and its record file."""
    out = tmp_path_factory.mktemp("markup-play")
    result = invoke("play", MARKUP, RANDOM, GREEDY, "--out", str(out))
    (record,) = (out / "games").glob("*.json.gz")
    return result, record


@pytest.mark.slow
def test_play_prints_the_faults_of_a_hostile_bot_literally(played: tuple[Result, Path]) -> None:
    result, _ = played
    assert_ok(result)
    text = result.stdout
    for shown in SHOWN_ANSWERS:
        assert shown in text, show(result)
    seats = {int(s) for s in re.findall(r"^fault: seat (\d)", text, re.MULTILINE)}
    assert seats == {0, 3}  # only the markup bot's seats; its victims record no fault
    assert re.search(r"team 1 \(seats 1, 4\).*│\s+0 │$", text, re.MULTILINE), text


def test_replay_of_a_record_whose_entrant_name_is_hostile(
    played: tuple[Result, Path], tmp_path: Path
) -> None:
    _, path = played
    record = read_record(path)
    record["meta"]["entrants"][0]["name"] = HOSTILE  # type: ignore[index]
    hostile = write_record(record, tmp_path / "hostile.json.gz")
    result = invoke("replay", str(hostile))
    assert_ok(result)
    assert f"team 0 ({SHOWN_HOSTILE}) = seats 0 and 3" in result.stdout, show(result)


@pytest.mark.slow
def test_submit_refuses_a_hostile_bot_with_its_reason_and_log_literally(tmp_path: Path) -> None:
    registry = tmp_path / "registry"
    result = invoke("submit", MARKUP, "--games", "1", "--registry", str(registry))
    assert result.exit_code == 2, show(result)
    assert_literal(result)
    assert "FAIL answers every decision legally" in result.stdout, show(result)
    assert "malformed: " + SHOWN_ANSWERS[0] in result.stdout, show(result)
    assert "the bot's log ends with:" in result.stderr, show(result)
    assert SHOWN_LOG_LINE in result.stderr.splitlines(), show(result)
    assert "markup refused: answers every decision legally failed" in one_line(result.stderr)
    assert Registry(registry).entries() == []


@pytest.mark.slow
def test_run_report_and_replay_with_a_hostile_bot_and_a_hostile_stored_name(
    tmp_path: Path,
) -> None:
    db = tmp_path / "arena.db"
    run = invoke("run", MARKUP, RANDOM, "--games", "1", "--jobs", "2", "--db", str(db))
    assert_ok(run)
    assert re.search(r"markup@[0-9a-f]{12}", run.stdout), show(run)
    replayed = invoke("replay", "1", "--db", str(db))
    assert_ok(replayed)
    assert "Deal 1" in replayed.stdout
    # A database written by another tool (or an older arena) may hold any name.
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE entrants SET name = ? WHERE name = 'markup'", (HOSTILE,))
    report = invoke("report", "--db", str(db))
    assert_ok(report)
    labels = re.findall(re.escape(SHOWN_HOSTILE) + r"@[0-9a-f]{12}", report.stdout)
    assert len(labels) == 2, show(report)  # its standings row and its head-to-head row
    as_json = invoke("report", "--db", str(db), "--json")
    assert_ok(as_json)
    entrants = {s["entrant"].rsplit("@", 1)[0] for s in json.loads(as_json.stdout)["standings"]}
    assert entrants == {HOSTILE, "random"}
