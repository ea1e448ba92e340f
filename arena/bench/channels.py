"""``arena bench channels``: the bandwidth of the covert channels two sandboxed bots keep.

The sandbox, the seccomp filter and a copy of its files per seat leave two bots no file,
socket, lock, key or process in common (docs/SECURITY.md). What one machine still
shares cannot be taken away from processes on it: its CPU, its memory and its count of
threads. Two bots, each started exactly as a seat is (``start_bot`` with the default
limits and sandbox: a cgroup, a user and a copy of their own), agree on a start time and
a slot length; in each slot the sender does or does not do something (spin, start
threads, hold memory) and the receiver looks at what it can see of the machine (its own
speed, ``sysinfo``'s thread count and free memory). The bits are random; the figures are
the raw rate, the error rate and the capacity ``rate × (1 − H(error rate))`` of a binary
symmetric channel, per kind and slot length.
"""

from __future__ import annotations

import json
import math
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from arena.bots import BotSpec, Limits, start_bot
from arena.bots.sandbox import Sandbox, runtime_paths, sandbox_problem

PROBE = Path(__file__).with_name("channel_probe.py")
KINDS = {
    "procs": "the machine's thread count (sysinfo)",
    "memory": "the machine's free memory (sysinfo)",
    "cpu": "the receiver's own speed (CPU contention)",
}
HAND_BITS = math.log2(math.comb(53, 9))  # a hand of nine cards of 53 (R3.2)


@dataclass(frozen=True)
class ChannelFigure:
    kind: str
    slot_ms: float
    bits: int
    errors: int

    @property
    def raw_bits_per_s(self) -> float:
        return 1000 / self.slot_ms

    @property
    def error_rate(self) -> float:
        return self.errors / self.bits

    @property
    def capacity(self) -> float:
        """Bits per second a code could carry through it without error (BSC capacity)."""
        p = min(self.error_rate, 1 - self.error_rate)
        entropy = 0.0 if p == 0 else -p * math.log2(p) - (1 - p) * math.log2(1 - p)
        return self.raw_bits_per_s * (1 - entropy)

    def line(self) -> str:
        return (
            f"{self.kind} ({KINDS[self.kind]}), {self.slot_ms:g} ms slots: "
            f"{self.raw_bits_per_s:.0f} bits/s raw, error rate {self.error_rate:.3f} "
            f"({self.errors} of {self.bits}), capacity {self.capacity:.1f} bits/s"
        )


def _decode(seen: list[float]) -> list[int]:
    """Two clusters (the sender's 0s and 1s), split where the sorted values jump most."""
    ordered = sorted(seen)
    gaps = [(ordered[i + 1] - ordered[i], i) for i in range(len(ordered) - 1)]
    _, at = max(gaps) if gaps else (0.0, 0)
    threshold = (ordered[at] + ordered[at + 1]) / 2 if gaps else ordered[0]
    return [1 if value > threshold else 0 for value in seen]


def measure(kind: str, slot_ms: float, bits: int, rng: random.Random) -> ChannelFigure:
    """One transmission of ``bits`` random bits between two sandboxed bot processes."""
    sent = [rng.randrange(2) for _ in range(bits)]
    with tempfile.TemporaryDirectory(prefix="arena-channel-") as tmp:
        root = Path(tmp)
        (root / "probe").mkdir()
        (root / "probe" / PROBE.name).write_bytes(PROBE.read_bytes())
        spec = BotSpec(
            name="channel",
            version="0" * 12,
            command=(sys.executable, str(root / "probe" / PROBE.name)),
            directory=root / "probe",
            build=None,
        )
        sandbox = Sandbox(bot_dir=spec.directory, socket=None, runtime=runtime_paths())
        start = time.time() + 2.0  # both started and settled
        env = {
            "CH_KIND": kind,
            "CH_START": repr(start),
            "CH_SLOT_MS": repr(slot_ms),
            "CH_BITS": "".join(map(str, sent)),
        }
        processes = [
            start_bot(
                spec,
                env=env | {"CH_ROLE": role},
                workdir=root / role,
                log_path=root / f"{role}.log",
                limits=Limits(),
                sandbox=sandbox,
            )
            for role in ("send", "receive")
        ]
        deadline = start + bits * slot_ms / 1000 + 30
        while any(p.poll() is None for p in processes) and time.time() < deadline:
            time.sleep(0.05)
        for process in processes:
            process.stop(grace=0.0)
        lines = [
            line.removeprefix("CH-RESULT ")
            for line in (root / "receive.log").read_text().splitlines()
            if line.startswith("CH-RESULT ")
        ]
    if not lines:
        return ChannelFigure(kind, slot_ms, bits, bits // 2)  # nothing received: a coin
    received = _decode(json.loads(lines[-1]))
    errors = sum(a != b for a, b in zip(sent, received, strict=True))
    return ChannelFigure(kind, slot_ms, bits, errors)


@dataclass(frozen=True)
class ChannelsReport:
    figures: list[ChannelFigure]

    def lines(self) -> list[str]:
        out = [figure.line() for figure in self.figures]
        best = max(self.figures, key=lambda f: f.capacity)
        if best.capacity > 0:
            seconds = HAND_BITS / best.capacity
            out.append(
                f"best: {best.kind} at {best.capacity:.1f} bits/s, so a hand "
                f"({HAND_BITS:.1f} bits) crosses in {seconds:.2f} s"
            )
        return out


def bench_channels(
    slots_ms: list[float], bits: int, seed: int, kinds: list[str] | None = None
) -> ChannelsReport:
    problem = sandbox_problem()
    if problem is not None:
        raise RuntimeError(f"the channels are measured between sandboxed bots: {problem}")
    rng = random.Random(seed)
    figures = []
    for kind in kinds or list(KINDS):
        for slot in slots_ms:
            figures.append(measure(kind, slot, bits, rng))
    return ChannelsReport(figures)
