"""Matches on a Dask cluster: the coordinator (``arena run --cluster``) schedules each match as
one task, played whole by one worker, and alone stores the games that come back.

A worker declares how many tables it plays at once as a Dask resource
(``dask worker ADDRESS --resources TABLES=2``). Its tables are one referee of its own
(``WorkerTables``: as the local runner's, on an event loop of its own), which every match
task on it plays through; a task holds half a table (``TASK_TABLES``), so that while a
match plays, the next one's bots start, as on the local runner (given the threads: a
worker runs as many tasks at once as it has, ``--nthreads``, by default one per core).
The bots travel by content (``arena.bots.archive``): each entrant version is packed once
and held by the cluster as the result of a small task of its own, so a worker fetches it
when a match first needs it there, and the cluster can recompute it if the worker holding
it dies; the worker unpacks, checks and builds it once into its cache (``worker_root()``).
The match runs on the worker with its sandbox and limits as on the coordinator's machine;
its games, with its seats' logs, come back when it ends.

No deal is live at two tables, on any worker: the leases of the deals stay with the
coordinator (``arena.tournament.leases``). Before each game a match task asks for the
game's deal on the coordinator's queue at the scheduler (``DealWanted``) and its table
waits for the grant (a Dask ``Event`` of its own); as the game ends it says so
(``DealDone``). A lease whose worker has left the cluster (dead, its bots with it) is
freed by the coordinator, which watches the scheduler's workers; a match task whose
coordinator gave it up (cancelled, or the coordinator gone) stops before its next game.

Faults: a worker that dies mid-match has its task rescheduled on another worker by Dask,
which plays the match whole again, dealt the same (the game keys travel in the plan), so
nothing of it was stored and nothing is stored twice. A coordinator that stops leaves the
games it stored; the same command resumes from them. The cluster's transport is Dask's:
whoever reaches the scheduler can run code on the workers, hence ``cluster_connection``
(TLS).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import threading
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from distributed import Client, Event, Future, Queue, get_client, get_worker
from distributed.security import Security

from arena.bots import BotBuildError, BotSpec
from arena.bots.archive import BotArchive, install, pack_bot
from arena.bots.build import BotCache, BotOptions, user_cache_path
from arena.bots.sandbox import SandboxUnavailableError, sandbox_problem
from arena.engine import GameKey
from arena.referee.match import MatchPlan
from arena.referee.policy import ArenaTrouble
from arena.referee.result import GameResult
from arena.referee.table import DealGate, game_key
from arena.wire.loop import run as run_loop

from .executor import InProcessExecutor, MatchOutcome, OnMatchGame
from .leases import DealLeases

__all__ = [
    "TABLES",
    "ClusterError",
    "DaskExecutor",
    "DealDesk",
    "ShippedMatch",
    "cluster_connection",
    "play_shipped_match",
    "worker_root",
]

TABLES = "TABLES"  # the Dask worker resource: tables a worker plays at once
# Of a worker's TABLES, what one match task holds: one match plays on each table while the
# next one's bots start and wait for it.
TASK_TABLES = 0.5
CONNECT_TIMEOUT_S = 30.0
SEAT_LOG_LIMIT = 4 * 1024 * 1024  # a seat's log shipped back (the seat's own cap is lower)
# How often a table waiting for a deal looks whether its match is still wanted, and how
# often the coordinator looks for workers gone (whose leases it frees).
DEAL_POLL_S = 1.0
WORKERS_POLL_S = 2.0


class ClusterError(RuntimeError):
    """The cluster cannot be reached, or a match failed on it for another reason than a
    bot's build (which is a ``BotBuildError``, as locally)."""


def cluster_connection(
    address: str, ca_file: Path | None, cert_file: Path | None, key_file: Path | None
) -> tuple[str, Security | None]:
    """The scheduler's address and how to reach it: Dask TLS from a CA and this client's
    certificate and key (a bare HOST:PORT becomes tls://HOST:PORT), or, given none of
    them, whatever Dask's own configuration says (``distributed.comm.tls.*``: None)."""
    given = [f for f in (ca_file, cert_file, key_file) if f is not None]
    if not given:
        if address.startswith("tls://") and not _configured_tls():
            raise ClusterError(
                f"{address} is a TLS address: give --cluster-tls-ca, --cluster-tls-cert and "
                "--cluster-tls-key (or set Dask's distributed.comm.tls configuration)"
            )
        return address, None
    if len(given) != 3:
        raise ClusterError(
            "TLS to the cluster needs all three: --cluster-tls-ca, --cluster-tls-cert "
            "and --cluster-tls-key"
        )
    for path in given:
        if not path.is_file():
            raise ClusterError(f"TLS file {path} does not exist")
    security = Security(
        tls_ca_file=str(ca_file),
        tls_client_cert=str(cert_file),
        tls_client_key=str(key_file),
        require_encryption=True,
    )
    return (address if "://" in address else f"tls://{address}"), security


def _configured_tls() -> bool:
    """Whether Dask's configuration gives this client a TLS context of its own."""
    return Security().get_connection_args("client").get("ssl_context") is not None


def worker_root() -> Path:
    """A worker's own directory: shipped bots under ``bots/``, match logs under ``logs/``.
    ``$ARENA_WORKER_DIR``, else under the user's cache directory (``user_cache_path``)."""
    return user_cache_path("ARENA_WORKER_DIR", "worker")


@dataclass(frozen=True)
class ShippedMatch:
    """What a match task returns: the outcome, its games in order, its seats' logs."""

    outcome: MatchOutcome
    games: list[GameResult]
    logs: dict[str, bytes]  # seat log file name -> its content
    install_seconds: float = 0.0  # getting its bots ready on the worker (0 once cached)


_caches: dict[Path, BotCache] = {}  # one per worker process and cache root


@dataclass(frozen=True)
class DealDesk:
    """Where a match task asks for its games' deals: the coordinator's queue at the
    scheduler, and the match's name there."""

    queue: str
    match: str


def play_shipped_match(
    plan: MatchPlan,
    skip: frozenset[int],
    builds: BotOptions,
    *archives: BotArchive,
    desk: DealDesk | None = None,
) -> ShippedMatch:
    """The task: ``plan`` played whole on this worker, its entrants from ``archives`` (one
    per team) installed in this worker's cache, its logs in this worker's directory, each
    game once ``desk`` (the coordinator) granted its deal's lease (None: leases of this
    process alone, for a match played by itself)."""
    if plan.sandbox and (problem := sandbox_problem()) is not None:
        # Locally the command line says so and plays on; here nobody would read it.
        raise SandboxUnavailableError(
            f"{problem} on a worker: install bubblewrap there, or run with --no-sandbox "
            "if the bots are trusted code"
        )
    root = worker_root()
    cache = _caches.setdefault(root, BotCache(root / "bots"))
    # Built as the match's bots run: the plan's sandbox, limits and variables.
    options = dataclasses.replace(
        builds,
        sandbox=plan.sandbox,
        limits=plan.limits,
        pass_env=plan.pass_env,
        workdir_bytes=plan.workdir_bytes,
    )
    started = time.monotonic()
    installed = [install(cache, archive, options) for archive in archives]
    install_seconds = time.monotonic() - started
    logs = root / "logs"
    # The coordinator's log directory is LOG_ROOT/RUN/MATCH: the same two levels here.
    log_dir = logs / plan.log_dir.parent.name / plan.log_dir.name
    local = dataclasses.replace(
        plan,
        entrants=(installed[0], installed[1], installed[2]),
        log_dir=log_dir,
        private=(logs,),
    )
    gate = None if desk is None else _RemoteDeals(desk).gate
    outcome, games = _worker_tables(plan.settings.join_timeout_s).play(local, skip, gate)
    return ShippedMatch(outcome, games, _seat_logs(log_dir), install_seconds)


class _RemoteDeals:
    """A match task's side of the coordinator's leases (made in the task's own thread,
    used from the tables' event loop through threads of its own)."""

    def __init__(self, desk: DealDesk) -> None:
        self.desk = desk
        self._worker = get_worker()
        self._client = get_client()
        self._task = self._worker.get_current_task()
        self._attempt = uuid.uuid4().hex  # this run of the task: a retry is another holder
        self._queue = Queue(desk.queue, client=self._client)

    @contextlib.asynccontextmanager
    async def gate(self, index: int) -> AsyncIterator[None]:
        try:
            await asyncio.to_thread(self._wait_for, index)
            yield
        finally:  # played, or given up waiting: the lease (if granted) is free
            done = ["done", self.desk.match, self._attempt, index]
            await asyncio.to_thread(self._queue.put, done)

    def _wait_for(self, index: int) -> None:
        reply = f"{self.desk.queue}-{self._attempt}-{index}"
        granted = Event(reply, client=self._client)
        wanted = ["want", self.desk.match, self._attempt, self._worker.address, index, reply]
        self._queue.put(wanted)
        while not granted.wait(timeout=DEAL_POLL_S):
            task = self._worker.state.tasks.get(self._task)
            if task is None or task.state not in ("executing", "long-running"):
                # Given up by its coordinator (cancelled, or the coordinator is gone).
                raise ArenaTrouble(f"match {self.desk.match}: given up by its coordinator")
        granted.clear()  # the scheduler forgets it


@dataclass
class _DealHolder:
    """One run of a match task, as the coordinator's leases know it."""

    worker: str
    deals: dict[int, GameKey] = field(default_factory=dict)
    granting: dict[int, asyncio.Task[None]] = field(default_factory=dict)


class _DealDesk:
    """The coordinator's leases, as the match tasks on the workers ask for them: the
    requests on one queue at the scheduler, each grant a Dask ``Event`` of its own."""

    def __init__(self, client: Client, leases: DealLeases) -> None:
        self._client = client
        self._leases = leases
        self.name = f"arena-deals-{uuid.uuid4().hex}"
        self._plans: dict[str, MatchPlan] = {}  # by match name
        self._holders: dict[tuple[str, str], _DealHolder] = {}  # by (match name, attempt)
        self._tasks: list[asyncio.Task[None]] = []

    async def open(self) -> None:
        queue = await Queue(self.name, client=self._client)
        self._tasks = [
            asyncio.ensure_future(self._serve(queue)),
            asyncio.ensure_future(self._watch_workers()),
        ]

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for holder in list(self._holders):
            self._free(holder)

    def desk(self, plan: MatchPlan) -> DealDesk:
        """A new match's name at the desk; ``forget`` it once its task is over."""
        match = f"{plan.match_id}-{uuid.uuid4().hex[:8]}"
        self._plans[match] = plan
        return DealDesk(self.name, match)

    def forget(self, desk: DealDesk, over: bool) -> None:
        """The match's task is over (``over``: it returned or failed, so nothing of it
        plays any more, and its leases are free), or given up (it stops by itself)."""
        self._plans.pop(desk.match, None)
        if over:
            for holder in [h for h in self._holders if h[0] == desk.match]:
                self._free(holder)

    async def _serve(self, queue: Queue) -> None:
        while True:
            message = await queue.get()
            match message:
                case ["want", str(match), str(attempt), str(worker), int(index), str(reply)]:
                    self._want((match, attempt), worker, index, reply)
                case ["done", str(match), str(attempt), int(index)]:
                    self._done((match, attempt), index)
                case _:
                    pass  # not a desk's message: nothing to grant

    def _want(self, holder: tuple[str, str], worker: str, index: int, reply: str) -> None:
        plan = self._plans.get(holder[0])
        if plan is None:
            return  # given up: its task stops by itself
        held = self._holders.setdefault(holder, _DealHolder(worker))
        deal = game_key(plan.seeds[index])
        held.deals[index] = deal
        held.granting[index] = asyncio.ensure_future(self._grant(holder, deal, reply))

    async def _grant(self, holder: tuple[str, str], deal: GameKey, reply: str) -> None:
        await self._leases.acquire(deal, holder)
        await Event(reply, client=self._client).set()

    def _done(self, holder: tuple[str, str], index: int) -> None:
        held = self._holders.get(holder)
        if held is None:
            return
        granting = held.granting.pop(index, None)
        if granting is not None:
            granting.cancel()  # not granted yet: nothing to give back
        deal = held.deals.pop(index, None)
        if deal is not None:
            self._leases.release(deal, holder)
        if not held.deals:
            del self._holders[holder]

    def _free(self, holder: tuple[str, str]) -> None:
        held = self._holders.pop(holder)
        for granting in held.granting.values():
            granting.cancel()
        self._leases.release_all(holder)

    async def _watch_workers(self) -> None:
        """Free the leases of workers that left the cluster: they died, their bots with
        them (their matches are played again elsewhere)."""
        scheduler = self._client.scheduler
        assert scheduler is not None, "a connected client"
        while True:
            await asyncio.sleep(WORKERS_POLL_S)
            if not self._holders:
                continue
            info = await scheduler.identity(n_workers=-1)
            present = set(info.get("workers", {}))
            for holder in [h for h, held in self._holders.items() if held.worker not in present]:
                self._free(holder)


class WorkerTables:
    """A worker process's tables: one ``InProcessExecutor`` on an event loop of its own
    (a thread), which the match tasks, each on a thread of the worker's, play through.

    It lives as long as the process: its launch thread, which the bots' PR_SET_PDEATHSIG
    ties them to, with it; a worker killed takes its bots along.
    """

    def __init__(self, tables: int, join_timeout: float) -> None:
        self.tables = tables
        started: concurrent.futures.Future[tuple[asyncio.AbstractEventLoop, InProcessExecutor]] = (
            concurrent.futures.Future()
        )

        async def serve() -> None:
            try:
                async with InProcessExecutor(tables, join_timeout) as executor:
                    started.set_result((asyncio.get_running_loop(), executor))
                    await asyncio.Event().wait()  # for as long as the process lives
            except BaseException as error:
                if not started.done():
                    started.set_exception(error)
                raise

        threading.Thread(target=run_loop, args=(serve(),), name="arena-tables", daemon=True).start()
        self._loop, self._executor = started.result()

    def play(
        self, plan: MatchPlan, skip: frozenset[int], gate: DealGate | None = None
    ) -> tuple[MatchOutcome, list[GameResult]]:
        """``plan`` played on one of these tables, its games in order, each through
        ``gate`` (None: this process's own leases); from any thread."""
        games: list[GameResult] = []
        playing = self._executor.play(plan, skip, games.append, gate=gate)
        outcome = asyncio.run_coroutine_threadsafe(playing, self._loop).result()
        return outcome, games


_tables: dict[float, WorkerTables] = {}  # by join timeout: a referee has one
_tables_lock = threading.Lock()


def _worker_tables(join_timeout: float) -> WorkerTables:
    """This process's tables, as many as its Dask worker declares (1 outside one)."""
    with _tables_lock:
        tables = _tables.get(join_timeout)
        if tables is None:
            try:
                declared = get_worker().state.total_resources.get(TABLES, 1)
            except ValueError:  # not in a worker's task
                declared = 1
            tables = _tables[join_timeout] = WorkerTables(max(1, int(declared)), join_timeout)
        return tables


def _seat_logs(log_dir: Path) -> dict[str, bytes]:
    shipped = {}
    for path in sorted(log_dir.glob("seat*.log")):
        with path.open("rb") as log:
            shipped[path.name] = log.read(SEAT_LOG_LIMIT)
    return shipped


def _hold(archive: BotArchive) -> BotArchive:
    """A task whose result is its argument: the archive, kept by the cluster (and
    recomputed from the scheduler's copy of the task if the worker holding it dies)."""
    return archive


class DaskExecutor:
    """Plays matches as tasks of the Dask cluster at ``address`` (see the module)."""

    def __init__(
        self,
        address: str,
        security: Security | None = None,
        builds: BotOptions | None = None,
        tables: int = 256,
    ) -> None:
        self.address = address
        self.security = security
        self.builds = builds or BotOptions()  # whether and how workers build (--no-build, ...)
        # Matches handed over at once: Dask queues them and gives each worker what its
        # TABLES allow, late joiners too; this only bounds the coordinator's memory.
        self._tables = tables
        self._client: Client | None = None
        # The deals' leases of every table of every worker: the coordinator's alone.
        self.leases = DealLeases()
        self._desk: _DealDesk | None = None
        self._archives: dict[str, Future[BotArchive]] = {}  # by version
        self._futures: set[Future[ShippedMatch]] = set()
        self.shipping_seconds = 0.0  # packing the archives and handing them to the cluster
        self.install_seconds = 0.0  # the workers getting shipped bots ready, in all

    @property
    def tables(self) -> int:
        return self._tables

    @property
    def referee_cpu_seconds(self) -> tuple[float, ...]:
        return ()  # the referees run on the workers, whose CPU this process cannot see

    async def __aenter__(self) -> Self:
        try:
            self._client = await Client(
                self.address,
                security=self.security,
                asynchronous=True,
                timeout=CONNECT_TIMEOUT_S,
                set_as_default=False,
            )
        except (OSError, TimeoutError) as error:
            raise ClusterError(
                f"cannot reach the Dask scheduler at {self.address}: {error}"
            ) from None
        workers, tables = await self.tables_declared()
        if workers and not tables:  # else every match would wait for ever, and say nothing
            await self._client.close()
            self._client = None
            raise ClusterError(
                f"none of the {workers} workers at {self.address} declares {TABLES}: start "
                f"them with `dask worker {self.address} --resources {TABLES}=N`"
            )
        self._desk = _DealDesk(self._client, self.leases)
        await self._desk.open()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        client, self._client = self._client, None
        if client is None:
            return
        desk, self._desk = self._desk, None
        if desk is not None:
            await desk.close()
        try:
            # Matches not started are dropped; one under way ends on its worker, its bots
            # with it, and its result is discarded.
            if self._futures:
                await client.cancel(list(self._futures))
        finally:
            self._futures.clear()
            self._archives.clear()
            await client.close()

    async def tables_declared(self) -> tuple[int, int]:
        """(workers, the TABLES they declare in all) at this moment."""
        scheduler = self._client.scheduler if self._client is not None else None
        assert scheduler is not None, "async with the executor"
        info = await scheduler.identity(n_workers=-1)
        workers: dict[str, Any] = info.get("workers", {})
        tables = sum(int(w.get("resources", {}).get(TABLES, 0)) for w in workers.values())
        return len(workers), tables

    async def play(
        self, plan: MatchPlan, skip: frozenset[int], on_game: OnMatchGame
    ) -> MatchOutcome:
        client, desk = self._client, self._desk
        assert client is not None and desk is not None, "async with the executor"
        archives = [self._shipped(client, spec) for spec in plan.entrants]
        deals = desk.desk(plan)
        future: Future[ShippedMatch] = client.submit(
            play_shipped_match,
            plan,
            skip,
            self.builds,
            *archives,
            desk=deals,
            key=f"arena-match-{deals.match}",
            resources={TABLES: TASK_TABLES},
            pure=False,
        )
        self._futures.add(future)
        over = False
        try:
            shipped: ShippedMatch = await future
            over = True
        # A match its worker could not give its bots is played again by the runner.
        except (BotBuildError, SandboxUnavailableError, ArenaTrouble):
            over = True
            raise
        except asyncio.CancelledError:
            raise  # given up: its task stops before its next game, and frees its leases
        except Exception as error:
            over = True
            raise ClusterError(f"match {plan.match_id} failed on the cluster: {error}") from error
        finally:
            self._futures.discard(future)
            desk.forget(deals, over)
        self.install_seconds += shipped.install_seconds
        await asyncio.to_thread(_write_logs, plan.log_dir, shipped.logs)
        for game in shipped.games:
            on_game(game)
        return shipped.outcome

    def _shipped(self, client: Client, spec: BotSpec) -> Future[BotArchive]:
        """``spec``'s archive as the cluster holds it: packed and handed over once a run."""
        held = self._archives.get(spec.version)
        if held is None:
            started = time.monotonic()
            archive = pack_bot(spec)  # once per version: a bot's files, read on the loop
            key = f"arena-bot-{spec.name}-{spec.version}-{uuid.uuid4().hex[:8]}"
            held = self._archives[spec.version] = client.submit(_hold, archive, key=key, pure=False)
            self.shipping_seconds += time.monotonic() - started
        return held


def _write_logs(log_dir: Path, logs: dict[str, bytes]) -> None:
    """The seats' logs where a local match leaves them (reports read them there)."""
    log_dir.mkdir(parents=True, exist_ok=True)
    for name, content in logs.items():
        if "/" in name or not name.startswith("seat"):
            continue  # only a seat's log file name, never a path
        (log_dir / name).write_bytes(content)
