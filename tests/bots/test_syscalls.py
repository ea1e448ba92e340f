"""The syscall table (arena/bots/syscalls.py) is one readable allowlist: every entry has a
reason, no refusal overlaps an allowed value of the same call (libseccomp would pick one of
the two silently), and every argument condition compares what the kernel reads."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from arena.bots.seccomp import allowed_names, filter_program
from arena.bots.syscalls import BUILD, REFUSED, SEAT, Only


def matches(only: Only, value: int) -> bool:
    return any(value & only.mask == allowed & only.mask for allowed in only.values)


def test_every_entry_says_why_and_no_call_is_listed_twice_in_a_table() -> None:
    for table in (SEAT, BUILD):
        names = [entry.name for entry in table]
        assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
        assert all(entry.why.strip() for entry in table)
    assert all(refusal.why.strip() for refusal in REFUSED)
    assert allowed_names() < allowed_names(build=True)
    assert "sysinfo" not in allowed_names() and "sysinfo" in allowed_names(build=True)
    assert {"clone3", "flock", "futex_waitv", "io_uring_setup"}.isdisjoint(allowed_names(True))


@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_no_refusal_overlaps_an_allowed_value(value: int) -> None:
    for refusal in REFUSED:
        if refusal.when is None:
            continue
        for entry in SEAT + BUILD:
            if entry.name == refusal.name and entry.only is not None:
                assert not (matches(refusal.when, value) and matches(entry.only, value)), (
                    refusal.name,
                    hex(value),
                )


@given(st.integers(min_value=0, max_value=2**32 - 1), st.integers(min_value=0, max_value=2**32 - 1))
def test_a_32_bit_argument_is_judged_by_its_low_32_bits(low: int, high: int) -> None:
    for entry in SEAT + BUILD:
        if entry.only is not None:
            assert entry.only.mask <= 0xFFFF_FFFF, entry  # the upper half is never compared
            assert matches(entry.only, low) == matches(entry.only, (high << 32) | low)


def test_both_filters_compile() -> None:
    assert len(filter_program()) > 0 and filter_program(build=True) != filter_program()
