"""What every test shares: one bot cache for the session, and no measured referee split.

Built bots (``arena.bots.build``) are kept per version in a cache; the tests use one of
their own, empty at the start of the session and removed at its end, so that a build the
tests make (the C++ bot's takes a minute) is made once and nothing of a user's cache is
read or written. Likewise the referee split ``arena bench tournament`` measures
(``arena.tournament.split``): the tests' file starts absent, so that a run's default
split never depends on what was measured on the machine. Commands the tests start
(``arena run`` …) inherit both.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from hypothesis import settings

_made: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    if "ARENA_BOT_CACHE" not in os.environ:
        path = tempfile.mkdtemp(prefix="arena-test-bots-")
        os.environ["ARENA_BOT_CACHE"] = path
        _made.append(path)
    if "ARENA_REFEREE_SPLIT" not in os.environ:
        path = tempfile.mkdtemp(prefix="arena-test-split-")
        os.environ["ARENA_REFEREE_SPLIT"] = os.path.join(path, "referee-split.json")
        _made.append(path)


def pytest_unconfigure(config: pytest.Config) -> None:
    for path in _made:
        shutil.rmtree(path, ignore_errors=True)


# Hypothesis: no per-example deadline anywhere (a loaded machine makes any example slow, and
# a deadline then fails the test for the machine's sake, not the code's), and in CI (which
# sets CI=true) the examples derandomised, so that a run is the same run every time.
settings.register_profile("dev", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


# A test over this many seconds (its set-up and its run) belongs to the whole suite only
# it is marked slow, so that the everyday loop (`pytest -m "not slow"`) stays fast. The
# summary lists the tests that took longer without the mark (on a busy machine everything
# is slower: a name here is a test to look at, not a failure).
SLOW_SECONDS = 5.0
_took: dict[str, float] = {}
_unmarked: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when in ("setup", "call"):
        _took[report.nodeid] = _took.get(report.nodeid, 0.0) + report.duration
    took = _took.get(report.nodeid, 0.0)
    if report.when == "call" and "slow" not in report.keywords and took > SLOW_SECONDS:
        _unmarked[report.nodeid] = took


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _unmarked:
        return
    terminalreporter.section(f"tests over {SLOW_SECONDS:.0f} s not marked slow")
    for nodeid, seconds in sorted(_unmarked.items(), key=lambda item: -item[1]):
        terminalreporter.write_line(f"{seconds:7.1f} s  {nodeid}")
