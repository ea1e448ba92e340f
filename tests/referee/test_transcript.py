"""docs/PROTOCOL.md's transcript is what a real game sends today (regenerate it with
``python -m arena.referee.transcript --write`` after changing the contract or the referee)."""

from __future__ import annotations

import re

import pytest

from arena.referee.transcript import PROTOCOL_DOC, embedded, transcript


def normalised(text: str) -> str:
    # The overage bank left depends on how fast the machine answered; nothing else may.
    return re.sub(r'"bank_ms": \d+', '"bank_ms": N', text).strip()


@pytest.mark.timeout(120)
def test_protocol_doc_transcript_is_current() -> None:
    documented = embedded(PROTOCOL_DOC.read_text())
    assert documented, "docs/PROTOCOL.md has no transcript"
    assert normalised(transcript()) == normalised(documented), (
        "docs/PROTOCOL.md's transcript is stale: run python -m arena.referee.transcript --write"
    )
