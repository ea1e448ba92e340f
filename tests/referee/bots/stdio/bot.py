"""The referee tests' stdio bot: JSON lines on stdin and stdout, nothing but json and sys.

It answers every request with its first legal choice (docs/PROTOCOL.md, "Decisions"), but
bids the lowest bid it may (so that deals are played when it holds every seat),
keeps every line it received in ``received.jsonl`` in its working directory (the seat's
directory of the match), and misbehaves on request: ``TEST_BOT_FAULT_<seat>`` names one
of ``MODES``.
"""

import fcntl
import json
import os
import sys
import time

MODES = (
    "malformed",  # the third request: a line that is not JSON, then the answer
    "oversized",  # the third request: a line of 10 MB instead of the answer
    "no_newline",  # the third request: its answer with no newline; the sixth: the same,
    # then stdout closed (the process stays)
    "wrong_request",  # every request: the right answer, to the request id + 1000
    "illegal",  # the first play: a card it may not play (R7.1, R7.2)
    "extra_fields",  # the third request: the answer with a field the contract lacks
    "binary",  # the third request: a line of bytes that are not UTF-8, then the answer
    "stderr_flood",  # 50 MB to stderr before it joins, then plays legally
    "sleep",  # the third request: answers after 1.2 s (past 200 ms and the bank)
    "early",  # on the welcome: a pass for request 1, before it is sent
    "exit",  # the fifth request: the process exits without answering
    "close_stdout",  # the fifth request: stdout closed, the process stays
    "deaf",  # joins, shrinks its stdin's pipe to 4 KiB, then never reads it
    "stderr",  # plays legally; writes junk, JSON answers too, to stderr
    "snake",  # plays legally, with the proto's field names and numeric request ids
    "bad_join",  # its first line is an answer, not a join
    "crash",  # raises an exception before it joins: a traceback on stderr, status 1
)

seat = os.environ.get("ARENA_SEAT", "0")
mode = os.environ.get(f"TEST_BOT_FAULT_{seat}", "")
out = sys.stdout.buffer


def send(data: object) -> None:
    out.write(json.dumps(data).encode() + b"\n")
    out.flush()


def first_legal(request: dict) -> dict:
    legal = request["legal"]
    kind = request["kind"]
    if kind == "DECISION_KIND_BID":  # the lowest bid it may make: six of it play deals
        bids = legal["bids"]
        return {"bid": bids[1] if len(bids) > 1 else bids[0]}
    if kind == "DECISION_KIND_TRUMP":
        return {"trump": legal["suits"][0]}
    if kind == "DECISION_KIND_DISCARD":
        rule = legal["discard"]
        must = rule["must"]
        extra = [c for c in rule["may"] if c not in must]
        return {"discard": {"cards": must + extra[: max(0, rule["minCount"] - len(must))]}}
    return {"card": legal["cards"][0]}


# What the arena told it, for the tests to read in its log (stderr).
names = sorted(name for name in os.environ if name.startswith("ARENA_"))
sys.stderr.write(f"env: {' '.join(names)} ARENA_PROTOCOL={os.environ.get('ARENA_PROTOCOL')}\n")
sys.stderr.flush()
if mode == "stderr_flood":
    block = b"x" * 1023 + b"\n"
    for _ in range(50 * 1024):  # 50 MB; the arena keeps 1 MiB of it and drains the rest
        sys.stderr.buffer.write(block)
    sys.stderr.flush()
if mode == "bad_join":
    send({"answer": {"requestId": "1", "bid": 0}})
if mode == "crash":
    raise RuntimeError("the stdio test bot crashes before it joins")
send({"join": {"botName": "stdio", "botVersion": "1", "protocolVersion": "PROTOCOL_VERSION_1"}})
if mode == "deaf":
    # The pipe from the referee holds 4 KiB instead of 64: it is full all the sooner.
    fcntl.fcntl(0, fcntl.F_SETPIPE_SZ, 4096)
    time.sleep(600)
record = open("received.jsonl", "w")  # noqa: SIM115 - open for the whole match
requests = 0
plays = 0
closed = False
for line in sys.stdin.buffer:
    record.write(line.decode())
    record.flush()
    message = json.loads(line)
    if mode == "stderr":
        sys.stderr.write('junk {"answer": {"requestId": "1", "bid": 6}}\n\x00\xff not json\n')
        sys.stderr.flush()
    if "welcome" in message and mode == "early":
        send({"answer": {"requestId": "1", "bid": 0}})
    if "matchOver" in message:
        break
    if "request" not in message or closed:
        continue
    request = message["request"]
    requests += 1
    request_id = int(request["id"])
    answer = first_legal(request)
    if request["kind"] == "DECISION_KIND_PLAY":
        plays += 1
    if mode == "malformed" and requests == 3:
        out.write(b"this is not json\n")
    if mode == "binary" and requests == 3:
        out.write(b"\xff\xfe\x00 not UTF-8 \x80\n")
    if mode == "oversized" and requests == 3:
        out.write(b'{"answer": {"requestId": "' + b"9" * 10 * 1024 * 1024 + b'"}}\n')
        out.flush()
        continue
    if mode == "no_newline" and requests in (3, 6):
        out.write(json.dumps({"answer": {"requestId": str(request_id), **answer}}).encode())
        out.flush()
        if requests == 6:
            out.close()
            os.close(1)
            closed = True
        continue
    if mode == "illegal" and plays == 1:  # a card of its hand it may not play, or one it lacks
        legal, hand = set(request["legal"]["cards"]), request["view"]["hand"]
        deck = [rank + suit for suit in "CDHS" for rank in "23456789TJQKA"] + ["JK"]
        wrong = [c for c in hand if c not in legal] + [c for c in deck if c not in hand]
        answer = {"card": wrong[0]}
    if mode == "extra_fields" and requests == 3:
        answer = {**answer, "colour": "red"}
    if mode == "sleep" and requests == 3:
        time.sleep(1.2)
    if mode in ("exit", "close_stdout") and requests == 5:
        if mode == "exit":
            sys.exit(3)
        out.close()
        os.close(1)  # sys.stdout's file object never closes the descriptor itself
        closed = True
        continue
    if mode == "early" and requests == 1:
        continue  # answered on the welcome
    if mode == "wrong_request":
        request_id += 1000
    if mode == "snake":
        snake = {"discard": answer["discard"]} if "discard" in answer else answer
        send({"answer": {"request_id": request_id, **snake}})
    else:
        send({"answer": {"requestId": str(request_id), **answer}})
