"""What docs/PROTOCOL.md shows of the wire, generated: transcripts of a real game, every field.

``python -m arena.referee.transcript`` prints it; docs/PROTOCOL.md embeds its output and
a test checks that the embedded copy is what a real game produces today. The same for a
stdio seat (``stdio_transcript``): the lines of its first deal exactly as they are written
and read on its standard input and output. Both show the messages in the names a stdio
bot reads (protobuf's JSON mapping, lowerCamelCase), the first played deal with a notice
in it (the seat's bot, the sample ``greedy``, plays one card it does not hold), the end
of the game and the end of the match. ``field_table`` lists every field of the contract
as a stdio bot reads it, beside its name in the proto.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path
from typing import Final

from google.protobuf.descriptor import FieldDescriptor

from arena.bots import BotSpec, load_bot
from arena.bots.samples import sample_bot
from arena.bots.sandbox import contract_dir
from arena.v1 import arena_pb2 as pb
from arena.wire.loop import run as run_loop
from arena.wire.pbjson import line_of
from arena.wire.pbjson import to_json as to_json_value

from .match import Match, MatchPlan, Referee

SEED = 11
STDIO_SEED = 5  # a first deal that is played to the end (seed 11's is thrown in)
SEAT = 0

Exchange = list[tuple[str, pb.RefereeMessage | pb.BotMessage]]


# The transcript's seat: the sample ``greedy``, whose first card played is one it does not
# hold, so that the transcript shows the referee's notice of a fault (an ``illegal``, R7.2).
ONCE_WRONG = """\
from pathlib import Path
import runpy

from arena.engine import CARDS, PLAYS
from arena.sdk import run

Greedy = runpy.run_path(str(Path(__file__).with_name("bot.py")), run_name="greedy")["GreedyBot"]


class OnceWrong(Greedy):
    wrong = True

    def play(self, decision):
        if self.wrong:
            self.wrong = False
            return next(PLAYS[c.index] for c in CARDS if c not in decision.hand)
        return super().play(decision)


run(OnceWrong())
"""


def _greedy_once_wrong(directory: Path, stdio: bool) -> BotSpec:
    """The sample ``greedy`` with one illegal play (``ONCE_WRONG``), over stdio if asked
    (the SDK then plays over stdio)."""
    shutil.copytree(sample_bot("greedy"), directory, ignore=shutil.ignore_patterns("__pycache__"))
    (directory / "once_wrong.py").write_text(ONCE_WRONG)
    manifest = 'name = "greedy"\ncommand = ["python3", "once_wrong.py"]\n'
    (directory / "bot.toml").write_text(manifest + ('protocol = "stdio"\n' if stdio else ""))
    return load_bot(directory)


async def _capture(seed: int, log_dir: Path, stdio: bool = False) -> Exchange:
    greedy = _greedy_once_wrong(log_dir / "greedy", stdio)
    random_bot = load_bot(sample_bot("random"))
    plan = MatchPlan("transcript", (greedy, random_bot, random_bot), [seed], log_dir, seed=seed)
    messages: Exchange = []

    def tap(direction: str, message: pb.RefereeMessage | bytes) -> None:
        if isinstance(message, bytes):
            messages.append((direction, pb.BotMessage.FromString(message)))
        else:
            copy = pb.RefereeMessage()
            copy.CopyFrom(message)
            messages.append((direction, copy))

    async with Referee() as referee:
        match = Match(referee, plan)
        match.launch()
        match.links[SEAT].tap = tap  # set before the event loop can accept the join
        await match.play()
    return messages


def capture(seed: int = SEED, stdio: bool = False) -> Exchange:
    with tempfile.TemporaryDirectory(prefix="arena-transcript-") as tmp:
        return run_loop(_capture(seed, Path(tmp), stdio))


def _describe(direction: str, message: pb.RefereeMessage | pb.BotMessage) -> str:
    if isinstance(message, pb.BotMessage):
        body = message.WhichOneof("body")
        if body == "join":
            return "The bot joins with its seat token (shown here as `<token>`)."
        return "The bot answers, echoing the request id."
    body = message.WhichOneof("body")
    kinds = [_json_name(e.WhichOneof("body")) for e in message.events]
    events = f"{len(kinds)} events ({', '.join(dict.fromkeys(kinds))})" if kinds else ""
    if body == "notice":
        return (
            "A notice: the answer was a fault (its kind, the reason, the request, and the move "
            "the referee played instead)."
        )
    if "gameEnded" in kinds:
        return f"The end of the game: {events}, with no decision."
    if body == "welcome":
        return "The referee welcomes the seat: seat, team, partner and the time settings."
    if body == "request":
        kind = pb.DecisionKind.Name(message.request.kind).removeprefix("DECISION_KIND_").lower()
        lead = f"The events since the last message, {events}, then a " if events else "A "
        return f"{lead}{kind} decision request."
    if body == "match_over":
        return f"The end of the match{', after ' + events if events else ''}: the bot exits."
    return f"End of a deal or game: {events}, with no decision."


def _json_name(name: str | None) -> str:
    """A field's name as protobuf's JSON mapping (and a stdio bot) spells it."""
    head, *rest = (name or "").split("_")
    return head + "".join(part.title() for part in rest)


def to_json(message: pb.RefereeMessage | pb.BotMessage) -> str:
    """The message in protobuf's JSON mapping, as a stdio bot reads it (lowerCamelCase,
    zero values shown), laid out to be read."""
    return _compact(to_json_value(message), "")


def _ends_game(message: pb.RefereeMessage | pb.BotMessage) -> bool:
    return isinstance(message, pb.RefereeMessage) and any(
        e.WhichOneof("body") == "game_ended" for e in message.events
    )


def _scores_deal(message: pb.RefereeMessage | pb.BotMessage) -> bool:
    return isinstance(message, pb.RefereeMessage) and any(
        e.WhichOneof("body") == "deal_scored" for e in message.events
    )


def _flat(value: object) -> bool:
    if isinstance(value, dict):
        return all(_flat(v) and not isinstance(v, dict) for v in value.values())
    if isinstance(value, list):
        return all(not isinstance(v, dict | list) for v in value)
    return True


def _compact(value: object, indent: str) -> str:
    """JSON with small objects and lists of scalars on one line, so a deal reads quickly."""
    if _flat(value) or (isinstance(value, dict) and len(json.dumps(value)) < 90):
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    inner = indent + "  "
    if isinstance(value, list):
        items = [inner + _compact(v, inner) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + indent + "]"
    assert isinstance(value, dict)
    items = [f"{inner}{json.dumps(k)}: {_compact(v, inner)}" for k, v in value.items()]
    return "{\n" + ",\n".join(items) + "\n" + indent + "}"


def render(messages: Exchange, first_deal_only: bool = True) -> str:
    """Markdown: each message as JSON (``to_json``), with a line saying what it is; up to
    the first scored deal, then the game's end and the match's (``first_deal_only``)."""
    out: list[str] = []
    shown_view = False

    def show(direction: str, original: pb.RefereeMessage | pb.BotMessage) -> None:
        nonlocal shown_view
        message = type(original)()
        message.CopyFrom(original)  # type: ignore[arg-type]
        if isinstance(message, pb.BotMessage) and message.WhichOneof("body") == "join":
            message.join.token = "<token>"
        note = ""
        if isinstance(message, pb.RefereeMessage) and message.WhichOneof("body") == "request":
            if shown_view:
                message.request.ClearField("view")
                note = "\n(`view` omitted here: it is sent in full with every request)"
            shown_view = True
        arrow = "referee → bot" if direction == "down" else "bot → referee"
        text = to_json(message)
        out.append(
            f"**{arrow}** — {_describe(direction, original)}{note}\n\n```json\n{text}\n```\n"
        )

    for index, (direction, message) in enumerate(messages):
        show(direction, message)
        if first_deal_only and _scores_deal(message) and not _ends_game(message):
            out.append("*… the rest of the game: …*\n")
            rest = messages[index + 1 :]
            end = next(i for i, (_, m) in enumerate(rest) if _ends_game(m))
            show(*rest[end])
            out.append("*… and the end of the match:*\n")
            show(*messages[-1])
            break
    return "\n".join(out)


def transcript(seed: int = SEED) -> str:
    return render(capture(seed))


def render_lines(messages: Exchange) -> str:
    """A stdio seat's first deal as the lines on its pipes, each after ``>`` (referee to
    bot, its stdin) or ``<`` (bot to referee, its stdout), then the line that ends the
    game and the match's last line."""
    lines: list[str] = []

    def show(message: pb.RefereeMessage | pb.BotMessage) -> None:
        if isinstance(message, pb.RefereeMessage):
            lines.append("> " + line_of(message).decode().rstrip("\n"))
        else:
            # As the SDK writes it (a bot may use any spelling json_format reads).
            lines.append("< " + json.dumps(to_json_value(message), separators=(",", ":")))

    for index, (_, message) in enumerate(messages):
        show(message)
        if _scores_deal(message) and not _ends_game(message):
            lines.append("… the rest of the game, until the line that ends it:")
            rest = [m for _, m in messages[index + 1 :]]
            show(next(m for m in rest if _ends_game(m)))
            lines.append("… and the match's last line:")
            show(messages[-1][1])
            break
    return "```text\n" + "\n".join(lines) + "\n```"


def stdio_transcript(seed: int = STDIO_SEED) -> str:
    return render_lines(capture(seed, stdio=True))


# --- every field, as a stdio bot reads it -------------------------------------------------

_MESSAGE = re.compile(r"^message (\w+) \{$")
_FIELD = re.compile(r"^(repeated )?(\w+) (\w+) = \d+;")
_SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")


# The message fields the referee may leave unset, and when it sets them: a message field
# has presence, so a stdio line holds it only when it is set (test_transcript.py checks
# these against every message of a real game). Any other is "when set".
SENT: Final = {
    ("DecisionRequest", "view"): "always",
    ("DecisionRequest", "legal"): "always",
    ("View", "current_trick"): "always",
    ("LegalChoices", "discard"): "only in a discard request",
}


def sent(message: str, field: FieldDescriptor) -> str:
    """When a stdio line holds the field: always, only the oneof's one set, or when set."""
    if field.containing_oneof is not None:
        return f"one of `{field.containing_oneof.name}`: only the one set"
    if field.message_type is None or field.is_repeated:
        return "always"
    return SENT.get((message, field.name), "when set")


def _comments(proto: str) -> dict[tuple[str, str], str]:
    """(message, field) to the comment above the field in the contract's text."""
    found: dict[tuple[str, str], str] = {}
    message, comment = "", []
    for raw in proto.splitlines():
        line = raw.strip()
        if line.startswith("//"):
            comment.append(line.removeprefix("//").strip())
            continue
        if (opened := _MESSAGE.match(line)) is not None:
            message = opened.group(1)
        elif message and (field := _FIELD.match(line)) is not None:
            found[message, field.group(3)] = " ".join(comment)
        comment = []
    return found


def _type_of(field: FieldDescriptor) -> str:
    if field.message_type is not None:
        name = f"`{field.message_type.name}`"
    elif field.enum_type is not None:
        name = f"`{field.enum_type.name}` (by name)"
    else:
        name = {
            FieldDescriptor.TYPE_UINT64: "`uint64` (a string)",
            FieldDescriptor.TYPE_BOOL: "`bool`",
            FieldDescriptor.TYPE_STRING: "`string`",
        }.get(field.type, "`int32`" if field.type == FieldDescriptor.TYPE_INT32 else "`uint32`")
    if field.is_repeated:
        return f"list of {name}"
    return name


def field_table() -> str:
    """Markdown: every field of every message of the contract, as a stdio bot (and
    protobuf's JSON mapping) names it, beside its name in the proto, with its type, when
    it may be absent, and the proto's own comment (its field names in the JSON spelling)."""
    directory = contract_dir()
    assert directory is not None, "the contract is part of the package"
    comments = _comments((directory / "arena" / "v1" / "arena.proto").read_text())
    renamed = {
        field.name: field.json_name
        for message in pb.DESCRIPTOR.message_types_by_name.values()
        for field in message.fields
    }
    rows = [
        "| field, as a stdio bot reads it | in the proto | type | sent | what it is |",
        "| --- | --- | --- | --- | --- |",
    ]
    for message in pb.DESCRIPTOR.message_types_by_name.values():
        for field in message.fields:
            said = comments.get((message.name, field.name), "")
            said = _SNAKE.sub(lambda m: renamed.get(m.group(0), m.group(0)), said)
            said = said.replace("|", "\\|")
            rows.append(
                f"| `{message.name}.{field.json_name}` | `{field.name}` | {_type_of(field)} "
                f"| {sent(message.name, field)} | {said} |"
            )
    return "\n".join(rows)


GENERATED = "(generated by python -m arena.referee.transcript --write)"
START = f"<!-- transcript:start {GENERATED} -->"
END = "<!-- transcript:end -->"
STDIO_START = f"<!-- stdio-transcript:start {GENERATED} -->"
STDIO_END = "<!-- stdio-transcript:end -->"
FIELDS_START = f"<!-- fields:start {GENERATED} -->"
FIELDS_END = "<!-- fields:end -->"
PROTOCOL_DOC = Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md"


def embedded(document: str, start: str = START, end: str = END) -> str:
    """The transcript part of docs/PROTOCOL.md (``STDIO_START``, ``STDIO_END``: the stdio one)."""
    begin = document.index(start) + len(start)
    return document[begin : document.index(end)].strip()


def write_into(document_path: Path, text: str, start: str = START, end: str = END) -> None:
    document = document_path.read_text()
    begin = document.index(start) + len(start)
    finish = document.index(end)
    document_path.write_text(document[:begin] + "\n\n" + text.strip() + "\n\n" + document[finish:])


if __name__ == "__main__":
    import sys

    if "--write" in sys.argv:
        write_into(PROTOCOL_DOC, transcript())
        write_into(PROTOCOL_DOC, stdio_transcript(), STDIO_START, STDIO_END)
        write_into(PROTOCOL_DOC, field_table(), FIELDS_START, FIELDS_END)
    else:
        print(transcript())
        print(stdio_transcript())
        print(field_table())
