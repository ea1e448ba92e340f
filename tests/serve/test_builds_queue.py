"""The build queue and its helper processes, with real processes: one build at a time,
the least-served contestant first, one place per contestant, a cap on all, a build that
overruns its time killed, and at a stop every waiting upload answered; a helper process
dies with the server, ``kill -9`` included."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.bots.build import BotOptions
from arena.referee.table import TableSettings
from arena.serve.builds import (
    BuildLimits,
    BuildOutcome,
    BuildQueue,
    BuildRequest,
    QueueFull,
    ServerStopping,
)
from arena.serve.worker import Worker, WorkerError, WorkerTimeout

pytestmark = pytest.mark.slow  # helper processes, each a fresh interpreter


TESTS = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stand-in jobs below are this module's: a helper process must find it."""
    path = os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])
    monkeypatch.setenv("PYTHONPATH", path)


def request(name: str, seconds: float = 0.0) -> BuildRequest:
    """A request whose "build" (``sleepy``) sleeps ``seconds``: ``bot`` carries them."""
    return BuildRequest(
        bot=Path(str(seconds)),
        registry=Path("/nonexistent"),
        contestant=name,
        games=1,
        settings=TableSettings(),
        options=BotOptions(),
        shapes=(),
        opponents=(),
    )


def sleepy(request: BuildRequest) -> BuildOutcome:
    """A stand-in build, in the build process: it sleeps, then says who it was."""
    time.sleep(float(request.bot.name))
    pid = str(os.getpid())
    return BuildOutcome(True, "accepted", "accepted", request.contestant, None, [], pid)


def fails(message: str) -> None:
    raise ValueError(message)


def test_a_worker_runs_jobs_and_says_why_one_failed() -> None:
    async def main() -> None:
        worker = Worker("test")
        try:
            assert await worker.call(sum, [1, 2, 3]) == 6
            first = worker.pid
            with pytest.raises(WorkerError, match="ValueError: bad input"):
                await worker.call(fails, "bad input\nsecond line")
            assert worker.pid == first  # a job that raises leaves the process
            with pytest.raises(WorkerTimeout, match=r"took over 0\.5 s"):
                await worker.call(time.sleep, 30, timeout=0.5)
            assert worker.pid is None  # killed
            assert await worker.call(sum, [4]) == 4 and worker.pid != first  # a fresh one
        finally:
            worker.kill()

    asyncio.run(main())


def test_builds_go_one_at_a_time_least_served_first() -> None:
    async def main() -> list[str]:
        queue = BuildQueue(BuildLimits(queue=4))
        order: list[str] = []

        async def upload(name: str, used: float, seconds: float) -> None:
            async with queue.reserve(name, used) as ticket:
                outcome = await queue.build(ticket, request(name, seconds), 60, job=sleepy)
                order.append(outcome.version or "")

        first = asyncio.ensure_future(upload("busy", 0.0, 1.0))
        await asyncio.sleep(0.3)  # "busy" holds the build process
        others = [
            asyncio.ensure_future(upload(name, used, 0.0))
            for name, used in (("heavy", 900.0), ("light", 10.0), ("fresh", 0.0))
        ]
        await asyncio.sleep(0.1)
        assert queue.waiting == ["busy", "fresh", "heavy", "light"]
        with pytest.raises(QueueFull, match="queue is full"):
            async with queue.reserve("fifth", 0.0):
                pass
        with pytest.raises(QueueFull, match="still being built"):
            async with queue.reserve("busy", 0.0):
                pass
        await asyncio.gather(first, *others)
        assert queue.waiting == []
        return order

    assert asyncio.run(main()) == ["busy", "fresh", "light", "heavy"]


def test_a_stop_answers_the_waiting_and_kills_the_build() -> None:
    async def main() -> None:
        queue = BuildQueue()
        answers: list[object] = []

        async def upload(name: str) -> None:
            try:
                async with queue.reserve(name, 0.0) as ticket:
                    await queue.build(ticket, request(name, 60.0), 120, job=sleepy)
                answers.append("built")
            except ServerStopping as stopping:
                answers.append(str(stopping))

        tasks = [asyncio.ensure_future(upload(n)) for n in ("a", "b")]
        for _ in range(100):  # until the build process is under way
            await asyncio.sleep(0.1)
            if queue.build_pid is not None:
                break
        pid = queue.build_pid
        assert pid is not None
        queue.stop()
        await asyncio.wait_for(asyncio.gather(*tasks), 10)
        assert answers == ["the server is stopping: send it again once it is back"] * 2
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
        with pytest.raises(ServerStopping):
            async with queue.reserve("c", 0.0):
                pass

    asyncio.run(main())


PARENT = """
import asyncio, sys, time
from arena.serve.worker import Worker

async def main():
    worker = Worker("test")
    task = asyncio.ensure_future(worker.call(time.sleep, 600))
    await asyncio.sleep(1.0)
    print(worker.pid, flush=True)
    await task

asyncio.run(main())
"""


def test_a_worker_dies_with_its_server_even_by_kill_9() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        pid = int(parent.stdout.readline())
        os.kill(pid, 0)  # running
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    raise AssertionError("the worker outlived its server")
