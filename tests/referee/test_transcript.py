"""docs/PROTOCOL.md's transcript is what a real game sends today (regenerate it with
``python -m arena.referee.transcript --write`` after changing the contract or the referee)."""

from __future__ import annotations

import json
import re

import pytest

from arena.referee.transcript import (
    PROTOCOL_DOC,
    STDIO_END,
    STDIO_START,
    embedded,
    stdio_transcript,
    transcript,
)


def normalised(text: str) -> str:
    # The overage bank left depends on how fast the machine answered; nothing else may.
    return re.sub(r'"bank_ms": \d+', '"bank_ms": N', text).strip()


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_protocol_doc_transcript_is_current() -> None:
    documented = embedded(PROTOCOL_DOC.read_text())
    assert documented, "docs/PROTOCOL.md has no transcript"
    assert normalised(transcript()) == normalised(documented), (
        "docs/PROTOCOL.md's transcript is stale: run python -m arena.referee.transcript --write"
    )


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_protocol_doc_stdio_transcript_is_current() -> None:
    """§8's lines are what a stdio seat's pipes carry in a real game today."""
    documented = embedded(PROTOCOL_DOC.read_text(), STDIO_START, STDIO_END)
    assert documented.startswith('```text\n< {"join"')
    fresh = stdio_transcript()
    for text in (fresh, documented):
        for line in text.splitlines()[1:-1]:
            if line[:2] in ("> ", "< "):
                json.loads(line[2:])  # every line one JSON object
    bank = r'"bankMs":\d+'
    assert re.sub(bank, "", fresh) == re.sub(bank, "", documented), (
        "docs/PROTOCOL.md's stdio transcript is stale: "
        "run python -m arena.referee.transcript --write"
    )
