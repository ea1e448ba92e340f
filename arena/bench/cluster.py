"""``arena bench cluster``: a run on this machine's local runner, then the same run on a local
Dask cluster of one worker and of two, at the same number of tables.

Figures: games/s of each, as ratios to the local run; the CPU each kept busy (the
coordinator, each worker's own process: its referee and Dask, and the bots, which their
cgroups count wherever they run); and what the cluster adds per match: the table time
lost to it, ``(cluster wall - local wall) x tables / matches``, with its parts measured
apart: shipping (the archives packed here, then unpacked, checked and built on a worker,
once per version) and scheduling (the round trip of an empty task needing one table).

The clusters are started with docs/CLUSTER.md's commands (``dask scheduler``, ``dask worker
ADDRESS --resources TABLES=N``) as processes of their own; each worker starts with an
empty cache, so its first match of each version pays for the shipping.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from distributed.security import Security

from arena.bots import load_bot
from arena.bots.samples import sample_bot
from arena.tournament.cluster import TABLES, DaskExecutor
from arena.tournament.executor import MatchExecutor
from arena.tournament.runner import RunConfig, RunSummary, run_tournament
from arena.tournament.schedule import choose_schedule
from arena.tournament.split import read_split, referee_processes, split_path

from . import median_of

PYTHON_SAMPLES = ("random", "greedy", "lowest")
START_TIMEOUT_S = 60.0
ROUND_TRIPS = 20  # empty tasks timed for the scheduling figure


@dataclass
class ClusterWorker:
    """One ``dask worker`` (a nanny and the worker process it starts), a process group."""

    name: str
    directory: Path  # its ARENA_WORKER_DIR: bots/ (its cache) and logs/
    cwd: Path
    process: subprocess.Popen[bytes]

    @property
    def cache(self) -> Path:
        return self.directory / "bots"

    def own_pids(self) -> list[int]:
        """The nanny and its children (the worker process, multiprocessing's helper): the
        worker's own processes, without the bots that the worker process starts."""
        return [self.process.pid, *_children(self.process.pid)]

    def kill(self) -> None:
        """SIGKILL to the nanny and the worker at once, as a machine that dies."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()


@dataclass(frozen=True)
class TlsFiles:
    """A CA and one certificate and key signed by it, for every process of a test cluster."""

    ca: Path
    cert: Path
    key: Path

    def args(self) -> list[str]:
        """The options of ``dask scheduler`` and ``dask worker`` that make them use TLS."""
        return [
            "--tls-ca-file",
            str(self.ca),
            "--tls-cert",
            str(self.cert),
            "--tls-key",
            str(self.key),
        ]


@dataclass
class LocalCluster:
    """A Dask scheduler on a free loopback port and its workers, in directories under
    ``root``, each worker working in an empty directory of its own."""

    root: Path
    address: str
    scheduler: subprocess.Popen[bytes]
    workers: list[ClusterWorker] = field(default_factory=list)
    tls: TlsFiles | None = None

    def add_worker(self, tables: int = 1) -> ClusterWorker:
        """``dask worker ADDRESS --resources TABLES=N --nthreads 2N``: a thread for each
        table's match and one for the match whose bots start meanwhile."""
        name = f"w{len(self.workers)}"
        directory, cwd = self.root / name, self.root / f"{name}-cwd"
        cwd.mkdir(parents=True)
        command = [
            *_dask(),
            "worker",
            self.address,
            "--resources",
            f"{TABLES}={tables}",
            "--nthreads",
            str(2 * tables),
            "--name",
            name,
            "--no-dashboard",
            "--local-directory",
            str(self.root / f"{name}-scratch"),
            *(self.tls.args() if self.tls else ()),
        ]
        env = {**os.environ, "ARENA_WORKER_DIR": str(directory)}
        with (self.root / f"{name}.log").open("wb") as log:
            process = subprocess.Popen(
                command,
                cwd=cwd,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own group: killed whole, never by a Ctrl-C
            )
        worker = ClusterWorker(name, directory, cwd, process)
        self.workers.append(worker)
        return worker

    def wait_for_workers(self, count: int) -> None:
        from distributed import Client

        with Client(self.address, timeout=START_TIMEOUT_S, security=self.security()) as client:
            client.wait_for_workers(count, timeout=START_TIMEOUT_S)

    def security(self) -> Security | None:
        if self.tls is None:
            return None
        return Security(
            tls_ca_file=str(self.tls.ca),
            tls_client_cert=str(self.tls.cert),
            tls_client_key=str(self.tls.key),
            require_encryption=True,
        )

    def logs(self) -> str:
        """The tail of every process's output (for a failure's message)."""
        return "\n".join(
            f"--- {path.name}\n{path.read_text(errors='replace')[-3000:]}"
            for path in sorted(self.root.glob("*.log"))
        )

    def stop(self) -> None:
        processes = [w.process for w in self.workers] + [self.scheduler]
        for process in processes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def _dask() -> list[str]:
    """The ``dask`` command of this environment."""
    script = Path(sys.executable).parent / "dask"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "dask"]


def start_local_cluster(
    root: Path, workers: int, tables: int = 1, tls: TlsFiles | None = None
) -> LocalCluster:
    """``dask scheduler`` on loopback, then ``workers`` workers of ``tables`` tables;
    with ``tls``, every connection over TLS with those files."""
    root.mkdir(parents=True, exist_ok=True)
    address_file = root / "scheduler.json"
    command = [
        *_dask(),
        "scheduler",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--no-dashboard",
        "--scheduler-file",
        str(address_file),
        *(["--protocol", "tls", *tls.args()] if tls else []),
    ]
    with (root / "scheduler.log").open("wb") as log:
        scheduler = subprocess.Popen(
            command,
            cwd=root,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    deadline = time.monotonic() + START_TIMEOUT_S
    while (address := _written_address(address_file)) is None:
        if scheduler.poll() is not None or time.monotonic() > deadline:
            LocalCluster(root, "", scheduler).stop()
            said = (root / "scheduler.log").read_text(errors="replace")
            raise RuntimeError(f"dask scheduler did not start:\n{said}")
        time.sleep(0.05)
    cluster = LocalCluster(root, address, scheduler, tls=tls)
    try:
        for _ in range(workers):
            cluster.add_worker(tables)
        if workers:
            cluster.wait_for_workers(workers)
    except BaseException:
        cluster.stop()
        raise
    return cluster


def _written_address(path: Path) -> str | None:
    try:
        return str(json.loads(path.read_text())["address"])
    except (OSError, ValueError, KeyError):
        return None  # not yet written, or not whole yet


@contextlib.contextmanager
def local_cluster(root: Path, workers: int, tables: int = 1) -> Iterator[LocalCluster]:
    cluster = start_local_cluster(root, workers, tables)
    try:
        yield cluster
    finally:
        cluster.stop()


# -- measuring ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class MeasuredRun:
    label: str
    summary: RunSummary
    coordinator_cpu_seconds: float  # this process (and, locally, the referee processes)
    worker_cpu_seconds: tuple[float, ...]  # each worker process: its referee and Dask
    matches: int
    shipping_seconds: float = 0.0  # packing and handing over the archives (coordinator)
    install_seconds: float = 0.0  # unpacking, checking and building, on the workers

    @property
    def wall(self) -> float:
        return self.summary.wall_seconds

    @property
    def games_per_second(self) -> float:
        return self.summary.played / self.wall

    @property
    def bots_cores(self) -> float | None:
        bots = self.summary.bots_cpu_seconds
        return None if bots is None else bots / self.wall

    def cpu_line(self) -> str:
        workers = ", ".join(f"{cpu / self.wall:.2f}" for cpu in self.worker_cpu_seconds)
        bots = self.bots_cores
        arena = self.coordinator_cpu_seconds / self.wall
        own = (
            f"coordinator {arena:.3f}, worker processes {workers}"
            if workers
            else f"coordinator and referee processes {arena:.2f}"
        )
        return own + (", bots unknown (no cgroups here)" if bots is None else f", bots {bots:.2f}")


@dataclass(frozen=True)
class ClusterRound:
    tables: int
    local: MeasuredRun
    one_worker: MeasuredRun
    two_workers: MeasuredRun
    round_trip_seconds: float  # median of an empty one-table task's round trip

    def overhead(self, run: MeasuredRun) -> float:
        """Table seconds per match the cluster run lost against the local one."""
        return (run.wall - self.local.wall) * self.tables / run.matches

    def ratio(self, run: MeasuredRun) -> float:
        return run.games_per_second / self.local.games_per_second


@dataclass(frozen=True)
class ClusterFigures:
    games: int
    matches: int
    tables: int
    cores: int
    rounds: list[ClusterRound]
    archive_bytes: int

    def lines(self) -> list[str]:
        lines = []
        for i, r in enumerate(self.rounds, 1):
            lines.append(
                f"round {i}: local {r.local.games_per_second:.2f} games/s, "
                f"1 worker {r.one_worker.games_per_second:.2f} ({r.ratio(r.one_worker):.2f}), "
                f"2 workers {r.two_workers.games_per_second:.2f} ({r.ratio(r.two_workers):.2f})"
            )

        def median(figure: str) -> float:
            return median_of(self.rounds, lambda r: _figure(r, figure))

        match_seconds = median("match_seconds")
        last = self.rounds[-1]
        lines += [
            f"{self.matches} matches of {self.games} games ({self.matches * self.games} games) "
            f"at {self.tables} tables on {self.cores} cores, median of {len(self.rounds)} "
            "round(s):",
            f"local runner ({self.tables} tables, arena run's default): "
            f"{median('local_gps'):.2f} games/s",
            f"cluster, 1 worker of {self.tables} tables: {median('one_gps'):.2f} games/s, "
            f"{median('one_ratio'):.2f} of local",
            f"cluster, 2 workers of {self.tables // 2} table(s): {median('two_gps'):.2f} "
            f"games/s, {median('two_ratio'):.2f} of local",
            *(
                f"CPU kept busy in the last round (cores): {label}: {run.cpu_line()}"
                for label, run in (
                    ("local", last.local),
                    ("1 worker", last.one_worker),
                    ("2 workers", last.two_workers),
                )
            ),
            f"overhead per match the cluster adds: {median('one_overhead'):+.3f} s of table "
            f"time with 1 worker, {median('two_overhead'):+.3f} s with 2 "
            f"({median('one_overhead') / match_seconds:+.1%} and "
            f"{median('two_overhead') / match_seconds:+.1%} of a local match's "
            f"{match_seconds:.2f} s)",
            f"  shipping: {self.archive_bytes / 1024:.1f} KiB of archives for "
            f"{len(PYTHON_SAMPLES)} bots, packed and handed over in "
            f"{median('shipping') * 1000:.0f} ms; unpacked, checked and built on the "
            f"workers in {median('install') * 1000:.0f} ms in all "
            "(once per version and worker)",
            f"  scheduling: an empty task needing one table comes back in "
            f"{median('round_trip') * 1000:.1f} ms (median of {ROUND_TRIPS})",
        ]
        return lines


def _figure(r: ClusterRound, name: str) -> float:
    local_match = r.local.wall * r.tables / r.local.matches
    figures = {
        "local_gps": r.local.games_per_second,
        "one_gps": r.one_worker.games_per_second,
        "two_gps": r.two_workers.games_per_second,
        "one_ratio": r.ratio(r.one_worker),
        "two_ratio": r.ratio(r.two_workers),
        "one_overhead": r.overhead(r.one_worker),
        "two_overhead": r.overhead(r.two_workers),
        "match_seconds": local_match,
        "shipping": statistics.mean(c.shipping_seconds for c in (r.one_worker, r.two_workers)),
        "install": statistics.mean(c.install_seconds for c in (r.one_worker, r.two_workers)),
        "round_trip": r.round_trip_seconds,
    }
    return figures[name]


def _config(
    games: int, matches: int, tables: int, seed: int, root: Path, sandbox: bool
) -> RunConfig:
    specs = tuple(load_bot(sample_bot(name)) for name in PYTHON_SAMPLES)
    return RunConfig(
        specs,
        games,
        seed,
        tables,
        db_path=root / "arena.db",
        schedule=choose_schedule(len(specs), "sampled", matches),
        sandbox=sandbox,
        referees=_local_referees(tables),
    )


def _local_referees(tables: int) -> int:
    """The referee processes ``arena run`` gives ``tables`` tables here by default."""
    cores = os.cpu_count() or 1
    return referee_processes(tables, cores, read_split(split_path(), cores))


def _own_cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def _stat_fields(pid: int) -> list[bytes]:
    """The fields of ``/proc/PID/stat`` after the command name (state is the first)."""
    stat = Path(f"/proc/{pid}/stat").read_bytes()
    return stat[stat.rfind(b")") + 2 :].split()


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                if int(_stat_fields(int(entry.name))[1]) == pid:
                    found.append(int(entry.name))
    return sorted(found)


def _process_cpu(pid: int) -> float:
    """User and system CPU of one process itself (not of its children: the bots' CPU is
    counted by their cgroups); 0 if it is gone."""
    try:
        fields = _stat_fields(pid)
    except OSError:
        return 0.0
    # utime and stime are stat's fields 14 and 15, in clock ticks.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _measure(
    label: str,
    config: RunConfig,
    root: Path,
    executor: MatchExecutor | None = None,
    cluster: LocalCluster | None = None,
) -> MeasuredRun:
    pids = [w.own_pids() for w in cluster.workers] if cluster else []
    workers_before = [sum(map(_process_cpu, own)) for own in pids]
    own_before = _own_cpu()
    started = time.perf_counter()
    summary = run_tournament(config, root / "logs", executor=executor)
    summary.wall_seconds = time.perf_counter() - started
    own = _own_cpu() - own_before + sum(summary.referee_cpu_seconds)
    workers = tuple(
        sum(map(_process_cpu, own)) - before
        for own, before in zip(pids, workers_before, strict=True)
    )
    matches = len(config.schedule.build(len(config.entrants), config.games))
    if isinstance(executor, DaskExecutor):
        return MeasuredRun(
            label,
            summary,
            own,
            workers,
            matches,
            executor.shipping_seconds,
            executor.install_seconds,
        )
    return MeasuredRun(label, summary, own, workers, matches)


def _round_trip(address: str) -> float:
    """The median round trip of an empty task that needs one table, on an idle cluster."""
    from distributed import Client

    times = []
    with Client(address, timeout=START_TIMEOUT_S) as client:
        for _ in range(ROUND_TRIPS):
            started = time.perf_counter()
            client.submit(_nothing, resources={TABLES: 1}, pure=False).result()
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def _nothing() -> None:
    return None


def bench_cluster(
    games: int, matches: int, tables: int, seed: int, rounds: int, sandbox: bool = True
) -> ClusterFigures:
    """``rounds`` rounds of: the local run, a cluster of one worker of ``tables`` tables,
    one of two workers sharing them; ratios within each round, medians reported."""
    measured = []
    with tempfile.TemporaryDirectory(prefix="arena-bench-cluster-") as tmp:
        root = Path(tmp)
        for index in range(rounds):
            here = root / f"round{index}"
            config = _config(games, matches, tables, seed, here / "local", sandbox)
            local = _measure("local", config, here / "local")
            runs = []
            round_trip = 0.0
            for workers in (1, 2):
                where = here / f"cluster{workers}"
                with local_cluster(where, workers, max(1, tables // workers)) as cluster:
                    config = _config(games, matches, tables, seed, where, sandbox)
                    executor = DaskExecutor(cluster.address)
                    runs.append(_measure(f"{workers}", config, where, executor, cluster))
                    if workers == 1:
                        round_trip = _round_trip(cluster.address)
            measured.append(ClusterRound(tables, local, runs[0], runs[1], round_trip))
    specs = [load_bot(sample_bot(name)) for name in PYTHON_SAMPLES]
    from arena.bots.archive import pack_bot

    archive_bytes = sum(len(pack_bot(spec).data) for spec in specs)
    return ClusterFigures(games, matches, tables, os.cpu_count() or 1, measured, archive_bytes)
