"""Running matches with real bot processes: the referee server, seat tokens, launching.

``Referee`` owns one gRPC server for any number of concurrent matches. ``Match`` starts
six processes (one per seat, so partners never share one), plays its games on a
``Table``, and makes sure no process outlives it. A bot whose manifest says
``protocol = "stdio"`` talks over its standard input and output instead of dialing its
seat's socket; the table sees each seat through its channel (``arena.seats``: a
``GrpcChannel`` or a ``StdioChannel``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hmac
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena.bots import BotProcess, BotSpec, Limits, start_bot
from arena.bots.build import BotOptions
from arena.bots.cgroup import CpuMeter
from arena.bots.process import BotStartError, exit_status, log_summary
from arena.bots.sandbox import (
    DEFAULT_WORKDIR_BYTES,
    Sandbox,
    SandboxUnavailableError,
    runtime_paths,
    sandbox_problem,
)
from arena.seats.channel import SeatChannel
from arena.seats.grpc_seat import GrpcChannel
from arena.seats.link import SeatLink
from arena.seats.stdio import StdioChannel
from arena.wire.grpc_env import configure_grpc

from .policy import ArenaTrouble, JoinState, arena_trouble
from .server import TokenRegistry, create_server, new_token
from .starved import StarvationCredit
from .table import DealGate, GameKeyOrSeed, OnGame, Table, TableSettings, game_key

configure_grpc()  # grpc reads its settings once, when first imported
import grpc  # noqa: E402

MANUAL_JOIN_TIMEOUT_S = 600.0
SEAT_LINGER_S = 1.0  # a seat's socket outlives its match by this much (Referee.withdraw)
EXIT_GRACE_S = 2.0  # how long a bot may take to exit after MatchOver


# A seat's own server: the server, its private directory, the task that starts it.
_SeatServer = tuple[grpc.aio.Server, Path, "asyncio.Task[None]"]


class Referee:
    """The referee's servers: by default one private unix socket per seat (never off-host).

    ``register`` gives each seat its own server on its own socket, in its own directory
    (mode 0700), accepting only that seat's token: one bot's HTTP/2 abuse stays on its
    own connections, and a sandboxed bot, which sees only its seat's socket, cannot reach
    another seat or table. ``withdraw`` closes it when the match ends. ``address`` is a
    shared socket that serves only tokens registered on ``registry`` directly (tools,
    tests). With an explicit ``address`` (``HOST:PORT`` or ``unix:PATH``) every seat
    joins there instead, on one server: for bots started by hand, trusted as much as that
    address is reachable.
    """

    def __init__(self, address: str | None = None, join_timeout: float = 10.0) -> None:
        self._requested = address
        self.join_timeout = join_timeout
        self.registry = TokenRegistry()
        self.address = ""
        self._server: grpc.aio.Server | None = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._seats: dict[str, _SeatServer] = {}
        self._closing: dict[asyncio.Task[None], _SeatServer] = {}

    async def start(self) -> str:
        self._loop = asyncio.get_running_loop()
        address = self._requested
        if address is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="arena-")
            address = f"unix:{self._tmp.name}/referee.sock"
        server, self.address = create_server(address, self.registry, self.join_timeout)
        await server.start()
        self._server = server
        return self.address

    def register(self, link: SeatLink) -> None:
        """Open ``link``'s seat for its bot and set ``link.address``; from any thread.

        ``Match.launch`` runs in a launcher thread, but grpc.aio servers belong to the
        event loop: there the seat's server is opened on the loop, and this waits for it.
        """
        if self._tmp is None:  # an explicit address: every seat on the one server
            self.registry.register(link)
            link.address = self.address
            return
        loop = self._loop
        assert loop is not None, "Referee.start() first"
        try:
            on_loop = asyncio.get_running_loop() is loop
        except RuntimeError:
            on_loop = False
        if on_loop:
            self._open_seat(link)
        else:
            asyncio.run_coroutine_threadsafe(self._open_seat_started(link), loop).result(30)

    def _open_seat(self, link: SeatLink) -> asyncio.Task[None]:
        assert self._tmp is not None and self._loop is not None
        directory = Path(tempfile.mkdtemp(prefix=f"seat{link.seat}-", dir=self._tmp.name))
        registry = TokenRegistry()
        registry.register(link)
        socket = directory / "referee.sock"
        server, link.address = create_server(f"unix:{socket}", registry, self.join_timeout)
        # A bot may run as a user of its own (arena.bots.users), and connecting takes write
        # permission on the socket; its directory (0700) keeps everyone else out.
        socket.chmod(0o777)
        # Listening already: a bot that dials before the server runs waits in the backlog.
        started = self._loop.create_task(server.start())
        self._seats[link.token] = (server, directory, started)
        return started

    async def _open_seat_started(self, link: SeatLink) -> None:
        await self._open_seat(link)

    def withdraw(self, link: SeatLink) -> None:
        """The match is over: the seat's token is refused and, soon after, its socket closed."""
        self.registry.withdraw(link)
        link.expired = True  # and on the seat's own socket, while it lingers
        seat = self._seats.pop(link.token, None)
        if seat is not None:
            task = asyncio.ensure_future(_close_seat(*seat, linger=SEAT_LINGER_S))
            self._closing[task] = seat
            task.add_done_callback(self._closing.pop)

    async def stop(self) -> None:
        closing = list(self._closing.items())
        for task, _ in closing:
            task.cancel()
        await asyncio.gather(*(task for task, _ in closing), return_exceptions=True)
        seats = [*self._seats.values(), *(seat for _, seat in closing)]
        self._seats.clear()
        await asyncio.gather(*(_close_seat(*seat) for seat in seats), return_exceptions=True)
        if self._server is not None:
            await self._server.stop(grace=1.0)
            self._server = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    async def __aenter__(self) -> Referee:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


async def _close_seat(
    server: grpc.aio.Server, directory: Path, started: asyncio.Task[None], linger: float = 0.0
) -> None:
    with contextlib.suppress(Exception):
        await started
    # A moment for the bot to read what is still on its way (MatchOver, or the status of
    # its own oversized message) before the socket goes; nothing can join meanwhile.
    await asyncio.sleep(linger)
    await server.stop(grace=0.5)  # by now the table has ended the seat's call
    shutil.rmtree(directory, ignore_errors=True)


@dataclass
class MatchPlan:
    """One seating: the entrant of each team, the games' keys, where logs go.

    Made by ``MatchPlan.of`` from the entrants and the operator's ``BotOptions``."""

    match_id: str
    entrants: tuple[BotSpec, BotSpec, BotSpec]  # by team (R1.2: team t = seats t, t+3)
    seeds: Sequence[GameKeyOrSeed]  # GameKeys; an int is a guessable test seed (GameKey.from_seed)
    log_dir: Path
    settings: TableSettings = field(default_factory=TableSettings)
    limits: Limits = field(default_factory=Limits)
    manual_seats: frozenset[int] = frozenset()
    seed: int = 0  # for the bots' own randomness (ARENA_SEED), so a match replays
    # Each bot inside bubblewrap (arena.bots.sandbox) where it works here, as everywhere
    # by default. Off: bots are trusted code (tests that read what their bots wrote).
    sandbox: bool = True
    workdir_bytes: int = DEFAULT_WORKDIR_BYTES  # each sandboxed bot's tmpfs working dir
    # Paths no bot may see even where they lie inside a path it sees (its own directory,
    # the arena's package): the results database, the registry, log roots.
    private: tuple[Path, ...] = ()
    pass_env: tuple[str, ...] = ()  # the arena's variables the operator passes to every bot
    # The game indices in the order the table plays them (those skipped left out); empty:
    # 0, 1, … in turn. Seatings played at once start at different games, so that their
    # tables seldom wait for the same deal (``arena.tournament.leases``).
    order: tuple[int, ...] = ()

    @classmethod
    def of(
        cls,
        match_id: str,
        entrants: tuple[BotSpec, BotSpec, BotSpec],
        seeds: Sequence[GameKeyOrSeed],
        log_dir: Path,
        options: BotOptions,
        *,
        settings: TableSettings | None = None,
        order: Sequence[int] = (),
        private: Sequence[Path] = (),
        manual_seats: frozenset[int] = frozenset(),
        seed: int = 0,
    ) -> MatchPlan:
        """The plan of a match of ``entrants`` (by team) on ``seeds``, its seats run as
        ``options`` says (sandbox, limits, working directory, variables): how every command
        that plays a match makes its plan."""
        return cls(
            match_id=match_id,
            entrants=entrants,
            seeds=list(seeds),
            log_dir=log_dir,
            settings=settings or TableSettings(),
            limits=options.limits,
            manual_seats=manual_seats,
            seed=seed,
            sandbox=options.sandbox,
            workdir_bytes=options.workdir_bytes,
            private=tuple(private),
            pass_env=options.pass_env,
            order=tuple(order),
        )


@dataclass
class ManualSeat:
    """A seat left open for a bot started by hand, which dials ``address`` (the seat's own)."""

    seat: int
    address: str
    token: str
    seed: str = ""  # ARENA_SEED, as a launched bot of this seat would get it


def _entrant_meta(spec: BotSpec) -> dict[str, str]:
    """A team's entrant as its game records name it: ``name``, ``version`` and, for a
    prepared bot, ``build`` (docs/GAME_RECORD.md)."""
    meta = {"name": spec.name, "version": spec.version}
    if spec.build_digest is not None:
        meta["build"] = spec.build_digest
    return meta


class Match:
    """A match's processes and table. ``launch`` early, ``play`` when its turn comes."""

    def __init__(self, referee: Referee, plan: MatchPlan) -> None:
        self.referee = referee
        self.plan = plan
        self.links: list[SeatLink] = []
        self.channels: list[SeatChannel] = []  # the table's side of each seat, by seat
        self.processes: list[BotProcess | None] = [None] * 6
        self.manual: list[ManualSeat] = []
        self.start_seconds = 0.0  # wall time spent starting processes
        self._watchers: list[asyncio.Task[None]] = []
        # Each seat's wait for its join, from the launch until it joins, goes or misses its
        # deadline: one task per seat, so that the deadline moves with the seat's starvation
        # and the loop's lag all along, also while the match waits for a table.
        self._joins: list[asyncio.Task[None]] = []
        self.table: Table | None = None
        self.lingering: list[int] = []  # seats whose process had to be stopped by signal
        self.not_started: dict[int, str] = {}  # seats whose process the machine could not start
        self.stdio: dict[int, StdioChannel] = {}  # the seats whose bots speak stdio
        # CPU of every bot process of the match (their cgroups count it), once it is over;
        # None where some bot ran without a group that counts it.
        self.bots_cpu_seconds: float | None = None

    def launch(self) -> None:
        """Register six tokens and start six bot processes (not the manual seats)."""
        plan = self.plan
        started = time.monotonic()
        plan.log_dir.mkdir(parents=True, exist_ok=True)
        # Where bubblewrap does not work the run goes on unsandboxed; the command line
        # has said so in one line (arena.cli.common.check_sandbox).
        sandbox = plan.sandbox and sandbox_problem() is None
        for seat in range(6):
            manual = seat in plan.manual_seats
            spec = plan.entrants[seat % 3]
            stdio = spec.stdio and not manual  # a seat left for a person dials its socket
            timeout = MANUAL_JOIN_TIMEOUT_S if manual else plan.settings.join_timeout_s
            # A stdio bot's pipes are its seat: it has no token and no socket.
            link = SeatLink(seat, "" if stdio else new_token(), time.monotonic() + timeout)
            if not stdio:
                self.referee.register(link)
            self.links.append(link)
            self.channels.append(GrpcChannel(link))
            if manual:
                seed = _seat_seed(plan, seat)
                self.manual.append(ManualSeat(seat, link.address, link.token, seed))
                continue
            env = {
                "ARENA_ADDRESS": link.address,
                "ARENA_TOKEN": link.token,
                "ARENA_SEAT": str(seat),
                "ARENA_SEED": _seat_seed(plan, seat),
            }
            if stdio:
                del env["ARENA_ADDRESS"], env["ARENA_TOKEN"]
                env["ARENA_PROTOCOL"] = "stdio"
            # Unsandboxed, the working dir stays after the match: such bots are trusted
            # code that can write anywhere anyway, and what they left is what their
            # author debugs with. Sandboxed, it is a tmpfs that ends with the bot.
            workdir = plan.log_dir / f"seat{seat}"
            try:
                process = start_bot(
                    spec,
                    env=env,
                    workdir=workdir,
                    log_path=plan.log_dir / f"seat{seat}.log",
                    limits=plan.limits,
                    sandbox=self._sandbox(spec, None if stdio else link) if sandbox else None,
                    pass_env=plan.pass_env,
                    stdio=stdio,
                )
            except BotStartError as error:
                # The arena's trouble, not the bot's: the match is not scored (``play``).
                self.not_started[seat] = str(error)
                link.ended = f"the arena could not start its process: {error}"
                link.close()
                continue
            self.processes[seat] = process
            link.cpu_meter = meter = process.cpu_meter
            if meter is not None:
                link.join_credit = functools.partial(_since_launch, meter)
            if stdio and process.protocol_pipes is not None:
                process.protocol_taken = True
                channel = StdioChannel(link, process, process.protocol_pipes)
                self.stdio[seat] = channel
                self.channels[seat] = channel
        self.start_seconds = time.monotonic() - started

    def _seat_socket(self, link: SeatLink) -> Path:
        """The referee socket of ``link``'s seat: the one path out of its sandbox."""
        address = link.address
        if not address.startswith("unix:"):
            raise SandboxUnavailableError("the sandbox needs the referee on a unix socket")
        return Path(address.removeprefix("unix:"))

    def _sandbox(self, spec: BotSpec, link: SeatLink | None) -> Sandbox:
        """The seat's own code (``start_bot`` gives it a private copy), socket (none for a
        stdio bot: its pipes are its way out) and tmpfs; every seat's files, the other
        entrants' code and the plan's private paths hidden wherever they lie inside a
        bound path."""
        others = {e.path.resolve() for e in self.plan.entrants} - {spec.path.resolve()}
        private = {p.resolve() for p in (self.plan.log_dir, *self.plan.private)}
        return Sandbox(
            bot_dir=spec.path.resolve(),
            socket=None if link is None else self._seat_socket(link),
            runtime=runtime_paths(),
            hidden=tuple(sorted(private | others)),
            workdir_bytes=self.plan.workdir_bytes,
        )

    async def joined(self, timeout: float) -> None:
        """Wait until every launched bot has joined or ended, for at most ``timeout`` s.

        Bots starting at the same time share the CPU; a launcher that waits for one
        match's bots before starting the next gets the first table playing sooner.
        """
        await self._watch_processes()
        launched = [self._joins[seat] for seat, p in enumerate(self.processes) if p is not None]
        if launched:
            await asyncio.wait(launched, timeout=timeout)

    async def _watch_processes(self) -> None:
        """On the loop: watch each process, and read and write the stdio seats' pipes."""
        if self._watchers or self._joins:
            return
        # A join refused as late by the wall clock while nothing watched its seat would
        # blame a bot the machine starved (issue 35): the waits start with the match.
        self._joins = [asyncio.ensure_future(link.joined_or_gone()) for link in self.links]
        for seat, process in enumerate(self.processes):
            if process is not None:
                self._watchers.append(asyncio.ensure_future(_watch(process, self.links[seat])))
        for channel in self.stdio.values():
            channel.start()

    async def play(
        self,
        on_game: OnGame | None = None,
        skip: set[int] | None = None,
        gate: DealGate | None = None,
    ) -> Table:
        """Play the match once every seat has joined, gone, or missed its deadline; each
        game, in the plan's order, inside ``gate`` (its deal's lease).

        Raises ``ArenaTrouble`` (its processes ended, no game played) where the arena
        could not give the bots their start (``arena_trouble``): such a match is not the
        bots' result, and is played again by whoever asked for it.
        """
        if not self.links:
            self.launch()
        await self._watch_processes()
        waiting_since = time.monotonic()
        await asyncio.gather(*self._joins)
        join_wait = time.monotonic() - waiting_since
        states = [self._join_state(seat) for seat in range(len(self.links))]
        trouble = arena_trouble(states, self.plan.settings.join_timeout_s)
        if trouble is not None:
            await self.shutdown()
            # What the operator needs to tell a busy machine from bots that cannot start:
            # the machine's error, else how the first seat that ended did.
            ended = (
                f"seat {seat}: {self.links[seat].ended}"
                for seat, state in enumerate(states)
                if state is JoinState.EXITED and self.links[seat].ended
            )
            detail = next(iter(self.not_started.values()), "") or next(ended, "")
            raise ArenaTrouble(
                f"match {self.plan.match_id}: {trouble}" + (f" ({detail})" if detail else "")
            )
        for seat, state in enumerate(states):
            process = self.processes[seat]
            if state is JoinState.SILENT and process is not None:
                timeout = self.plan.settings.join_timeout_s
                self.links[seat].ended = (
                    f"its process ran but did not join within {timeout:g} s; "
                    + log_summary(process)
                )
        names = [spec.name for spec in self.plan.entrants]
        meta = {
            # The build each team's seats ran: their copies were checked against it.
            "entrants": [_entrant_meta(s) for s in self.plan.entrants],
        }
        self.table = Table(
            self.plan.match_id, self.channels, self.plan.seeds, self.plan.settings, names, meta
        )
        self.table.join_wait_seconds = join_wait
        try:
            await self.table.play(on_game, skip, self.plan.order, gate)
        finally:
            await self.shutdown()
        return self.table

    def _join_state(self, seat: int) -> JoinState:
        if seat in self.plan.manual_seats:
            return JoinState.MANUAL
        if self.links[seat].joined.is_set():
            return JoinState.JOINED
        if seat in self.not_started:
            return JoinState.NOT_STARTED
        # A process that ended after its deadline (a bot whose late join was refused,
        # say) was running when the deadline passed: it counts as one that did not join.
        if self.links[seat].expired:
            return JoinState.SILENT
        return JoinState.EXITED

    async def shutdown(self) -> None:
        """Withdraw the tokens and end every process of the match (TERM, then KILL)."""
        for link in self.links:
            self.referee.withdraw(link)
            link.finished.set()
        for watcher in (*self._watchers, *self._joins):
            watcher.cancel()
        running = [p for p in self.processes if p is not None]
        # Well-behaved bots exit on MatchOver; give them a moment before signals. A moment
        # of their own: time that other bots' load kept them off the CPU moves the deadline
        # (the fair clock's credit), so a busy machine never makes a sound bot linger.
        credits = [StarvationCredit.since_now(link.cpu_meter) for link in self.links]
        deadline = time.monotonic() + EXIT_GRACE_S
        while any(p.poll() is None for p in running) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
            deadline += max((c.more() for c in credits if c is not None), default=0.0)
        if not self.lingering:
            self.lingering = [s for s, p in enumerate(self.processes) if p and p.poll() is None]
        await asyncio.gather(*(asyncio.to_thread(p.stop, 1.0) for p in running))
        await asyncio.gather(*(channel.stop() for channel in self.stdio.values()))
        counted = [p.cpu_seconds for p in running]
        self.bots_cpu_seconds = (
            None if any(c is None for c in counted) else sum(c or 0.0 for c in counted)
        )


async def _watch(process: BotProcess, link: SeatLink) -> None:
    """A process that exits closes its seat at once, instead of at the next timeout; one
    that exits before joining says how in its seat's fault (status, log's end, log)."""
    with contextlib.suppress(asyncio.CancelledError):
        code = await process.wait_exit()
        # One that ends after its deadline was refused as late: it ran and did not join.
        # A seat already closed has its one reason (a stdio bot's first line, say).
        if not (link.joined.is_set() or link.expired or link.closed):
            # In a thread: the log may wait a moment for the last words still in the pipe.
            summary = await asyncio.to_thread(log_summary, process)
            if not link.closed:
                link.ended = f"its process {exit_status(code)} before it joined; {summary}"
        link.close()


def _since_launch(meter: CpuMeter) -> Callable[[], float]:
    """The starvation a bot's join deadline is credited with: counted from its launch (its
    group's counters start there)."""
    credit = StarvationCredit.since_launch(meter)
    assert credit is not None
    return credit.more


def _seat_seed(plan: MatchPlan, seat: int) -> str:
    """ARENA_SEED, for a seat's own randomness: keyed by the match's first game key, so it
    is the same when the match is played again, and tells the bot nothing of any deal
    (a seed made from public values would let a bot check guesses at the run's key)."""
    key = game_key(plan.seeds[0] if plan.seeds else plan.seed)
    message = f"schmier-arena/arena-seed:{plan.seed}:{plan.match_id}:{seat}".encode()
    digest = hmac.digest(key.secret, message, "sha256")
    return str(int.from_bytes(digest[:6], "big"))
