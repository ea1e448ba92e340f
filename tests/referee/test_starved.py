"""The fair clock's rule (``arena.referee.starved``): a seat is credited only for time
others' load kept it from the CPU, never for its own processes' contention or its own
quota; and its counters are read only once a decision is slow enough to need them.

The scenarios are counters measured on this project's 2-core machine (cgroup v1 with the
unified hierarchy's pressure), over 2 s: what each kind of bot group reads, and the credit
the rule gives it.
"""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.bots.cgroup import BotCgroup, CpuMeter, CpuReading, join_in_child
from arena.referee.deadline import Deadline
from arena.referee.starved import (
    MAX_CREDIT_S,
    SELF_QUEUE_FLOOR_S,
    SELF_QUEUE_SHARE,
    DecisionClock,
    StarvationCredit,
    owed,
)

ZERO = CpuReading(0.0, 0.0, 0.0, 0.0)

# name: (span, waiting "some", starved "full", CPU used, entitled cores), credit.
SCENARIOS: dict[str, tuple[tuple[float, float, float, float, float], float]] = {
    # Sleeps: never runnable, never credited.
    "a sleeping bot": ((2.0, 0.0, 0.0, 0.0, 1.0), 0.0),
    # One thread kept off the CPU by other groups' load: its stall, in full.
    "one thread, others' load": ((2.08, 0.831, 0.831, 0.647, 1.0), 0.831),
    # A hundred spinning children under others' load: they queue behind each other.
    "a hundred children, busy machine": ((2.0, 1.94, 1.68, 0.62, 1.0), 0.0),
    # The same on a quiet machine: it gets its quota, throttled half the time.
    "a hundred children, quiet machine": ((2.0, 2.0, 1.0, 2.0, 1.0), 0.0),
    # One thread throttled by its own 0.3-core quota: its stall is its quota's.
    "one thread on its own quota": ((2.0, 1.40, 1.40, 0.60, 0.3), 0.0),
    # A Python SDK bot over a whole game: gRPC's threads queue now and then, briefly.
    "the SDK's helper threads": ((13.1, 0.8432, 0.8345, 0.238, 1.0), 0.8345),
}


def reading(at: float, waiting: float, starved: float, used: float) -> CpuReading:
    return CpuReading(at, waiting, starved, used)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_measured_groups_earn_what_others_took(name: str) -> None:
    (span, waiting, starved, used, cores), credit = SCENARIOS[name]
    assert owed(ZERO, reading(span, waiting, starved, used), cores, 2) == pytest.approx(credit)


seconds = st.floats(0.0, 60.0, allow_nan=False)


@given(
    start=st.tuples(seconds, seconds, seconds, seconds),
    grow=st.tuples(seconds, seconds, seconds, seconds),
    cores=st.floats(0.05, 4.0),
    cpus=st.integers(1, 64),
)
def test_the_credit_never_exceeds_the_stall_nor_what_the_quota_was_short_of(
    start: tuple[float, float, float, float],
    grow: tuple[float, float, float, float],
    cores: float,
    cpus: int,
) -> None:
    """Whatever the counters: at most the stall, at most the span less the CPU the bot
    used at its entitled cores, at most MAX_CREDIT_S, never negative; nothing when its
    threads queued behind each other for much of the time it ran."""
    before = CpuReading(*start)
    after = CpuReading(*(a + b for a, b in zip(start, grow, strict=True)))
    span, some, full, used = grow
    credit = owed(before, after, cores, cpus)
    assert 0.0 <= credit <= MAX_CREDIT_S
    assert credit <= max(0.0, full) + 1e-9
    assert credit <= max(0.0, span - used / cores) + 1e-9
    queued = some - full
    if queued > SELF_QUEUE_FLOOR_S and queued * cpus > used * SELF_QUEUE_SHARE:
        assert credit == 0.0


@pytest.fixture
def group() -> Iterator[BotCgroup]:
    made = BotCgroup.create(64, None, 1.0)
    if made is None or made.cpu_meter() is None:
        pytest.skip("this machine lets the arena meter no cgroup's CPU pressure and time")
    yield made
    made.kill_all()
    made.remove()


def test_a_meter_reads_its_group_s_cpu_and_is_entitled_to_its_quota(group: BotCgroup) -> None:
    meter = group.cpu_meter()
    assert isinstance(meter, CpuMeter)
    assert meter.cores == min(1.0, meter.cpus) and meter.zero().at == group.born
    first = meter.read()
    assert first is not None and first.used == 0.0 and first.at >= group.born
    spin = "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"  # some 20 ms of CPU
    procs = group.procs_files
    burner = subprocess.Popen(["sh", "-c", spin], preexec_fn=lambda: join_in_child(procs))
    assert burner.wait(30) == 0
    after = meter.read()
    assert after is not None and after.used > 0.0 and after.at > first.at
    assert after.waiting >= after.starved >= 0.0


def test_a_decision_is_metered_only_once_it_has_lasted_the_probe(group: BotCgroup) -> None:
    meter = group.cpu_meter()
    assert meter is not None
    clock = DecisionClock(meter)
    clock.ask()
    clock.deliver()
    assert clock.credit is None  # answered before the probe: never read
    clock.ask()
    clock.deliver()
    before = time.monotonic()
    clock.probe()
    assert clock.credit is not None and clock.credit.start.at >= before
    clock.ask()
    assert clock.credit is None
    clock.probe()  # before delivery (a slow reader): metered from its delivery
    assert clock.credit is None
    clock.deliver()
    assert clock.credit is not None


def test_a_join_is_metered_from_the_group_s_birth(group: BotCgroup) -> None:
    meter = group.cpu_meter()
    assert meter is not None
    credit = StarvationCredit.since_launch(meter)
    assert credit is not None and credit.start == meter.zero()
    assert credit.more() == 0.0 and credit.granted == 0.0  # an empty group: never starved
    assert StarvationCredit.since_now(None) is None
    assert StarvationCredit.since_launch(None) is None


def test_a_deadline_armed_early_probes_once_and_still_ends_at_its_time() -> None:
    """The decision's one timer carries the probe: a wait past it calls ``early`` once and
    still times out at its deadline; a wait that ends first never calls it."""

    async def wait(seconds: float, done: asyncio.Event) -> list[str]:
        calls: list[str] = []
        deadline = Deadline(seconds, 0.001, lambda: calls.append("probe"))
        try:
            try:
                await done.wait()
                calls.append("answered")
            finally:
                deadline.cancel()
        except asyncio.CancelledError:
            assert deadline.timed_out()
            calls.append("timed out")
        return calls

    async def main() -> None:
        answered = asyncio.Event()
        answered.set()
        assert await wait(0.05, answered) == ["answered"]
        assert await wait(0.05, asyncio.Event()) == ["probe", "timed out"]

    asyncio.run(main())
