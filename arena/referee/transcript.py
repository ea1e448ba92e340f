"""An annotated transcript of what one seat and the referee say to each other in a real game.

``python -m arena.referee.transcript`` prints it; docs/PROTOCOL.md embeds its output and
a test checks that the embedded copy is what a real game produces today. The same for a
stdio seat (``stdio_transcript``): the lines of its first deal exactly as they are written
and read on its standard input and output.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
from pathlib import Path

from google.protobuf import json_format

from arena.bots import load_bot
from arena.bots.samples import sample_bot
from arena.v1 import arena_pb2 as pb
from arena.wire.loop import run as run_loop
from arena.wire.pbjson import line_of
from arena.wire.pbjson import to_json as to_json_value

from .match import Match, MatchPlan, Referee

SEED = 11
STDIO_SEED = 5  # a first deal that is played to the end (seed 11's is thrown in)
SEAT = 0

Exchange = list[tuple[str, pb.RefereeMessage | pb.BotMessage]]


async def _capture(seed: int, log_dir: Path, stdio: bool = False) -> Exchange:
    # The samples as their manifests say, but seat 0's over the protocol transcribed (the
    # SDK speaks either).
    greedy, random_bot = load_bot(sample_bot("greedy")), load_bot(sample_bot("random"))
    greedy = dataclasses.replace(greedy, protocol="stdio" if stdio else "grpc")
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
    kinds = [e.WhichOneof("body") for e in message.events]
    events = f"{len(kinds)} events ({', '.join(dict.fromkeys(kinds))})" if kinds else ""
    if body == "welcome":
        return "The referee welcomes the seat: seat, team, partner and the time settings."
    if body == "request":
        kind = pb.DecisionKind.Name(message.request.kind).removeprefix("DECISION_KIND_").lower()
        lead = f"The events since the last message, {events}, then a " if events else "A "
        return f"{lead}{kind} decision request."
    if body == "match_over":
        return f"The end of the match{', after ' + events if events else ''}: the bot exits."
    return f"End of a deal or game: {events}, with no decision."


def to_json(message: pb.RefereeMessage | pb.BotMessage) -> str:
    """The message as the protobuf JSON mapping, every field shown (zero values too)."""
    data = json_format.MessageToDict(
        message, always_print_fields_with_no_presence=True, preserving_proto_field_name=True
    )
    return _compact(data, "")


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
    """Markdown: each message in protobuf text format, with a line saying what it is."""
    out: list[str] = []
    shown_view = False
    ending = False
    for direction, original in messages:
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
        if (
            first_deal_only
            and not ending
            and isinstance(message, pb.RefereeMessage)
            and any(e.WhichOneof("body") == "deal_scored" for e in message.events)
        ):
            ending = True
            out.append("*… the rest of the game, until the end of the match: …*\n")
            last = [m for m in messages if isinstance(m[1], pb.RefereeMessage)][-1]
            direction, final = last
            out.append(
                f"**referee → bot** — {_describe(direction, final)}\n\n```json\n"
                + to_json(final)
                + "\n```\n"
            )
            break
    return "\n".join(out)


def transcript(seed: int = SEED) -> str:
    return render(capture(seed))


def render_lines(messages: Exchange) -> str:
    """A stdio seat's first deal as the lines on its pipes, each after ``>`` (referee to
    bot, its stdin) or ``<`` (bot to referee, its stdout), then the match's last line."""
    lines: list[str] = []
    for _, message in messages:
        if isinstance(message, pb.RefereeMessage):
            lines.append("> " + line_of(message).decode().rstrip("\n"))
            if any(e.WhichOneof("body") == "deal_scored" for e in message.events):
                lines.append("… the rest of the match, until its last line:")
                last = [m for _, m in messages if isinstance(m, pb.RefereeMessage)][-1]
                assert isinstance(last, pb.RefereeMessage)
                lines.append("> " + line_of(last).decode().rstrip("\n"))
                break
        else:
            # As the SDK writes it (a bot may use any spelling json_format reads).
            lines.append("< " + json.dumps(to_json_value(message), separators=(",", ":")))
    return "```text\n" + "\n".join(lines) + "\n```"


def stdio_transcript(seed: int = STDIO_SEED) -> str:
    return render_lines(capture(seed, stdio=True))


GENERATED = "(generated by python -m arena.referee.transcript --write)"
START = f"<!-- transcript:start {GENERATED} -->"
END = "<!-- transcript:end -->"
STDIO_START = f"<!-- stdio-transcript:start {GENERATED} -->"
STDIO_END = "<!-- stdio-transcript:end -->"
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
    else:
        print(transcript())
        print(stdio_transcript())
