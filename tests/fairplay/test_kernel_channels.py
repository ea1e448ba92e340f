"""Partners and later matches cannot share state through the kernel (issue: fair play,
round two, items 3 and 6; round three, items 1, 2 and 8; round four), with the default
options.

Every class the sandbox closes, between a pair of seats started as the arena starts them
(``arena bench channels``' probe): locks on a file both can read (every fcntl form with
its command's upper bits set or not, flock, /proc/locks), futexes on a file both map
(FUTEX_WAIT, futex_waitv), every machine file /proc shows, sysinfo's process count, free
memory and load (round three); and the machine-wide numbers of round four: pidfds' inode
numbers (clone's CLONE_PIDFD, SO_PEERPIDFD), sockets' cookies, eventfds' numbers in
/proc/self/fdinfo, who else maps a system file's pages (/proc/self/smaps, numa_maps) and a
system file's access time. The receiver must see one value in every slot, whatever the sender
does: what it would see with no sender at all.

The attacker ``bots/kc_probe`` plays team 0 (seats 0 and 3): seat 0 locks byte ranges of
its own code file and of a system file both seats can read, adds keys to the user's
keyring and probes its file's page cache; seat 3 looks for all of it at every decision.
Two matches are played one after the other, so the second also looks for what the first
left. Every seat, the attacker's included, must record no fault.
"""

from __future__ import annotations

import json
import os
import random
import stat
from pathlib import Path
from typing import Any

import pytest
from test_sandbox_attacks import copied, reports_in

from arena.bench.channels import CLOSED, SCOPES, measure
from arena.bots import BotSpec, load_bot
from arena.bots.samples import sample_bots_dir
from arena.tournament.play import PlayResult, play_one_game

SAMPLES = sample_bots_dir()

pytestmark = [pytest.mark.timeout(300), pytest.mark.usefixtures("sandbox_required")]


def root_only_files() -> list[str]:
    """Files under /etc only their owner, root, may read (the sandbox's read-only /etc
    shows them), besides the shadow files the sandbox masks anyway."""
    found = []
    for path in sorted(Path("/etc").rglob("*")):
        try:
            info = path.lstat()
        except OSError:
            continue
        only_root = stat.S_ISREG(info.st_mode) and info.st_uid == 0 and not info.st_mode & 0o077
        if only_root and "shadow" not in path.name:
            found.append(str(path))
    return found[:5]


def play(attacker: BotSpec, out: Path) -> dict[int, dict[str, Any]]:
    opponents = [load_bot(SAMPLES / "random"), load_bot(SAMPLES / "greedy")]
    result: PlayResult = play_one_game([attacker, *opponents], None, out)
    assert result.report.faults == (), result.report.faults
    reports = {}
    for seat in (0, 3):
        found = reports_in(result.log_dir / f"seat{seat}.log")
        assert len(found) == 1, (result.log_dir / f"seat{seat}.log").read_text(errors="replace")
        reports[seat] = found[0]
    return reports


@pytest.mark.slow
def test_partners_share_no_lock_keyring_or_page_cache_and_no_match_remembers(
    tmp_path: Path,
) -> None:
    targets = {"root_only": root_only_files()}
    attacker = copied("kc_probe", tmp_path / "bots", {"targets.json": json.dumps(targets)})
    first = play(attacker, tmp_path / "first")
    second = play(attacker, tmp_path / "second")
    for reports in (first, second):
        sender, receiver = reports[0], reports[3]
        # Each seat runs its own copy of the bot's files: no inode in common.
        assert sender["code_inode"] != receiver["code_inode"], reports
        # Every lock, lease and keyring call is refused by the seccomp filter...
        for name, outcome in sender["sent"].items():
            assert outcome.startswith("refused"), (name, sender)
        # ... and nothing of the sender's reaches the receiver.
        for name, outcomes in receiver["seen"].items():
            assert not any(o.startswith("SEEN") for o in outcomes), (name, receiver)
        assert "SEEN" not in json.dumps(receiver["seen"]), receiver
        # Nothing an earlier match left (the keyring outlives a match) is found.
        for seat in (0, 3):
            assert not json.dumps(reports[seat]["earlier"]).count("SEEN"), reports[seat]
            if os.geteuid() == 0:  # bots never run as root on the host
                assert reports[seat]["uid"] != 0, reports[seat]
            for path, outcome in reports[seat]["root_only"].items():
                assert outcome.startswith("refused"), (path, reports[seat])
    if os.geteuid() == 0:
        assert first[0]["uid"] != first[3]["uid"], first  # each seat a user of its own


@pytest.mark.slow
@pytest.mark.parametrize("scope", SCOPES)
def test_no_closed_class_carries_a_bit_between_two_seats(scope: str) -> None:
    figures = measure(CLOSED, 30.0, 16, random.Random(34), scope)
    assert [f.kind for f in figures] == CLOSED
    for figure in figures:
        assert figure.distinct == 1, figure.line()  # one value: nothing crosses
        assert figure.capacity == 0.0, figure.line()
    calls = figures[0].calls  # how the kernel answered each end's tries
    # The sender made its calls (only it wakes, asks for a peer's pidfd, maps and reads the
    # system file), and the kernel refused each that could carry something.
    assert calls["FUTEX_WAKE"] == calls["FUTEX_WAKE|high"] == "EINVAL", calls
    assert calls["clone CLONE_PIDFD"] == "ENOSYS", calls  # no pidfd, so no pidfs number
    assert calls["SO_PEERPIDFD"] == calls["SO_COOKIE"] == "ENOPROTOOPT", calls
    assert calls["smaps"] == calls["fdinfo"] == "ENOENT", calls  # no procfs: no self
    assert calls["mmap of a system file"] == calls["read of a system file"] == "ok", calls
    for form in ("F_SETLK", "F_OFD_SETLK", "F_GETLK", "F_OFD_GETLK"):
        assert calls[form] == calls[f"{form}|high"] == "ENOLCK", calls
    assert calls["flock"] == "ENOSYS", calls
    assert calls["FUTEX_WAIT"] == calls["FUTEX_WAIT|high"] == "EAGAIN", calls  # never sleeps
    assert calls["futex_waitv"] == calls["futex_wake"] == "ENOSYS", calls
    assert calls["sysinfo"] == "ENOSYS", calls
