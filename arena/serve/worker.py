"""A helper process of the server that dies with it: builds and statistics run there.

A ``Worker`` is a fresh interpreter (``python -c``, importing only what its jobs need,
never the server's main module) in a session of its own, so that a Ctrl-C at the
terminal reaches the server alone, which ends it. It is killed (SIGKILL) when the
server's thread that started it ends, ``kill -9`` of the server included
(``die_with_parent``): no worker, and no bot a worker started, outlives the server.

Each job is a function named by reference with its arguments, pickled down one pipe; its
result (or the one line of its error) comes back up the other. A job that overruns its
time, or a call that is cancelled, kills the process: a stuck build or a statistics fit
that hangs (a BLAS deadlock, say) never holds the server, and the next job gets a fresh
process.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import multiprocessing.connection
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from typing import Any, Final, TypeVar

__all__ = ["Worker", "WorkerError", "WorkerLost", "WorkerTimeout"]

T = TypeVar("T")

# One thread for the BLAS libraries of a helper: the machine's cores are the tables', and
# a threaded BLAS in a process that forks is what hung the ladder (docs/CONTEST.md).
SINGLE_THREADED: Final = {
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}

_MAIN: Final = "from arena.serve.worker import serve_jobs; serve_jobs()"


class WorkerError(RuntimeError):
    """The job raised; the message is its one line."""


class WorkerLost(WorkerError):
    """The process died during the job (or could not be started)."""


class WorkerTimeout(WorkerError):
    """The job overran its time: the process was killed."""


class Worker:
    """One helper process, one job at a time; started on first use, again after a kill."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._process: subprocess.Popen[bytes] | None = None
        self._jobs: multiprocessing.connection.Connection | None = None
        self._results: multiprocessing.connection.Connection | None = None
        self._lock = asyncio.Lock()
        # Its own thread waits for each result (one per process): the loop's shared pool
        # may be busy (a slow unpacking), and a wait must never queue behind it.
        self._waiter: concurrent.futures.ThreadPoolExecutor | None = None

    @property
    def pid(self) -> int | None:
        process = self._process
        return None if process is None or process.poll() is not None else process.pid

    def _start(self) -> None:
        """From the event loop's thread: the worker dies when that thread ends."""
        jobs_out, jobs_in = os.pipe()
        results_out, results_in = os.pipe()
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-c", _MAIN, str(jobs_out), str(results_in), str(os.getpid())],
                stdin=subprocess.DEVNULL,
                pass_fds=(jobs_out, results_in),
                start_new_session=True,
                env={**os.environ, **SINGLE_THREADED},
            )
        except OSError as error:
            for fd in (jobs_in, results_out):
                os.close(fd)
            raise WorkerLost(f"the {self.name} process could not start: {error}") from None
        finally:
            os.close(jobs_out)
            os.close(results_in)
        self._jobs = multiprocessing.connection.Connection(jobs_in, readable=False)
        self._results = multiprocessing.connection.Connection(results_out, writable=False)
        self._waiter = concurrent.futures.ThreadPoolExecutor(1, f"arena-{self.name}")

    async def call(self, function: Callable[..., T], *args: Any, timeout: float | None = None) -> T:
        """``function(*args)`` in the worker; ``WorkerError`` with its line if it raised,
        ``WorkerTimeout`` past ``timeout`` seconds, ``WorkerLost`` if the process died.
        Cancelled, the job's process is killed."""
        async with self._lock:
            if self.pid is None:
                self.kill()
                self._start()
            jobs, results, waiter = self._jobs, self._results, self._waiter
            assert jobs is not None and results is not None and waiter is not None
            try:
                jobs.send((function, args))
                async with asyncio.timeout(timeout):
                    # In a thread: a kill ends its wait (the pipe's end), so it never lingers.
                    loop = asyncio.get_running_loop()
                    status, value = await loop.run_in_executor(waiter, results.recv)
            except TimeoutError:
                self.kill()
                raise WorkerTimeout(
                    f"the {self.name} process took over {timeout:g} s and was stopped"
                ) from None
            except (EOFError, OSError):
                code = self._process.wait() if self._process is not None else None
                self.kill()
                raise WorkerLost(f"the {self.name} process died (exit status {code})") from None
            except BaseException:
                self.kill()
                raise
        if status == "error":
            raise WorkerError(str(value))
        result: T = value
        return result

    def kill(self) -> None:
        """End the process now (its bots die with it) and close the pipes; idempotent."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        for connection in (self._jobs, self._results):
            if connection is not None:
                with contextlib.suppress(OSError):
                    connection.close()
        self._jobs = self._results = None
        if self._waiter is not None:  # its thread ends once its wait has (the pipe's end)
            self._waiter.shutdown(wait=False)
            self._waiter = None


def serve_jobs() -> None:
    """A worker's main: the pipes' descriptors and the server's pid are its arguments."""
    from arena.bots.process import die_with_parent

    jobs_fd, results_fd, parent = (int(arg) for arg in sys.argv[1:4])
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server ends it, not the terminal
    jobs = multiprocessing.connection.Connection(jobs_fd, writable=False)
    results = multiprocessing.connection.Connection(results_fd, readable=False)
    while True:
        try:
            function, args = jobs.recv()
        except (EOFError, OSError):
            return
        except Exception as error:  # a job that does not unpickle here
            results.send(("error", f"the job could not be read: {_line(error)}"))
            continue
        try:
            answer: tuple[str, Any] = ("ok", function(*args))
        except Exception as error:  # the job's failure is its caller's to report
            answer = ("error", _line(error))
        try:
            results.send(answer)
        except Exception as error:  # the result would not pickle
            results.send(("error", f"its result could not be sent back: {_line(error)}"))


def _line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0] if lines else ''}".rstrip(": ")
