"""The contest service's typed input and what everyone may read of a game: an organiser's
request that is not exactly of its type is refused in one line, and a fault that could
carry a bot's output or a server path reads in general words."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.referee.policy import Fault, FaultKind
from arena.serve.service import (
    BadRequest,
    BanRequest,
    PauseRequest,
    ReinstateRequest,
    RetireRequest,
    parse,
    public_fault,
    public_record,
)

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=8,
)


def test_requests_of_their_type_are_read() -> None:
    assert parse(BanRequest, b'{"name": "eve"}') == BanRequest("eve", True)
    assert parse(BanRequest, b'{"name": "eve", "banned": false}') == BanRequest("eve", False)
    assert parse(RetireRequest, b'{"name": "a", "version": null}') == RetireRequest("a", None)
    assert parse(PauseRequest, b"{}") == PauseRequest(True)
    assert parse(ReinstateRequest, b'{"name": "a", "version": "v"}') == ReinstateRequest("a", "v")


@pytest.mark.parametrize(
    ("kind", "body", "line"),
    [
        (BanRequest, b'{"name": "e", "banned": "false"}', "banned: Input should be a valid"),
        (BanRequest, b'{"name": "e", "banned": 0}', "banned: Input should be a valid boolean"),
        (RetireRequest, b'{"name": "a", "version": ["x"]}', "version: Input should be a"),
        (RetireRequest, b'{"name": 7}', "name: Input should be a valid string"),
        (RetireRequest, b'{"version": "x"}', "name: Field required"),
        (PauseRequest, b'{"paused": true, "extra": 1}', "extra: Unexpected keyword argument"),
        (PauseRequest, b"[true]", "the body:"),
        (PauseRequest, b"not json", "the body: Invalid JSON"),
    ],
)
def test_anything_else_is_a_bad_request_in_one_line(kind: type, body: bytes, line: str) -> None:
    with pytest.raises(BadRequest) as refused:
        parse(kind, body)
    assert refused.value.line.startswith(line) and "\n" not in refused.value.line
    assert refused.value.status == 400


@given(JSON)
def test_a_ban_is_only_ever_a_boolean(value: Any) -> None:
    body = json.dumps({"name": "eve", "banned": value}).encode()
    if isinstance(value, bool):
        assert parse(BanRequest, body).banned is value
    else:
        with pytest.raises(BadRequest):
            parse(BanRequest, body)


def test_what_everyone_reads_of_a_fault() -> None:
    secret = "its log ends: TOKEN=abc | ...; log: /srv/contest/arena-logs/r/m/seat0.log"
    for kind in (FaultKind.NO_JOIN, FaultKind.CLOSED, FaultKind.STALLED):
        shown = public_fault(Fault(0, 1, 0, kind, secret))
        assert "/srv" not in shown.reason and "TOKEN" not in shown.reason
    illegal = Fault(0, 1, 0, FaultKind.ILLEGAL, "R7.2: must follow suit")
    assert public_fault(illegal) == illegal  # the referee's own words stay
    record = {
        "deals": [
            {
                "decisions": [
                    {
                        "seat": 0,
                        "kind": "play",
                        "seconds": None,
                        "fallback": {"fault": "closed", "reason": secret, "sent": ""},
                    },
                    {"seat": 1, "kind": "play", "seconds": 0.1, "fallback": None},
                    {
                        "seat": 2,
                        "kind": "play",
                        "seconds": 1.0,
                        "fallback": {"fault": "timeout", "reason": "no answer in time", "sent": ""},
                    },
                ]
            }
        ],
        "meta": {"x": 1},
    }
    shown = public_record(record)
    text = json.dumps(shown)
    assert "/srv" not in text and "no answer in time" in text and shown["meta"] == {"x": 1}
    assert "/srv" in json.dumps(record)  # the stored record is left as it is
