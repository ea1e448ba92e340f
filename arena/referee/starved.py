"""The fair clock: time others' load kept a bot from the CPU, which is never charged to it.

A seat's clock runs on the wall (PROTOCOL.md, "Time"), so a bot that other bots' load
keeps off the CPU would miss its deadline through no fault of its own, and a hog would
win by making others fault. Where the kernel counts a bot group's CPU pressure and CPU
time (``arena.bots.cgroup.CpuMeter``), the referee reads them when a decision (or a
join) is slow enough to need it, and credits the seat, over the span since then (``owed``):

* at most the time every runnable thread of the bot waited for a CPU (its pressure's
  "full" stall): a bot that sleeps, or waits for anything but a CPU, earns nothing;
* at most the span less the time its own CPU use takes at the cores it is entitled to
  (its quota, ``CpuMeter.cores``): a bot that got its quota was not kept from the CPU by
  anyone, however long its threads queued, so its own quota's throttling and the
  contention among its own processes earn nothing;
* nothing at all while its own threads queued behind each other (pressure "some" beyond
  "full": one of its threads held a CPU that another of its threads waited for) for more
  than ``SELF_QUEUE_FLOOR_S`` and more than ``SELF_QUEUE_SHARE`` of the time it ran: a bot that
  runs more at once than its cores, such as a sleeping seat whose hundred children spin,
  has chosen to wait for itself, and the clock cannot tell which of its waits its answer
  needed.

The credit moves the seat's deadline on by that much and is not taken from its bank; the
game record carries each decision's credit (docs/GAME_RECORD.md), so that anyone can judge
every timeout from the record alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from arena.bots.cgroup import CpuMeter, CpuReading

# Below this, an extension is not worth a wake-up of the event loop; and a decision's
# counters are read only once it has lasted this long (a decision that is answered
# sooner needs no credit), so a starved first few milliseconds go uncredited.
MIN_CREDIT_S: Final = 0.005
PROBE_S: Final = MIN_CREDIT_S
# At most this much credit per decision or join: past it the machine is too busy for a
# fair game, and the usual timeout applies.
MAX_CREDIT_S: Final = 30.0
# The share of the time a bot ran (its CPU time per CPU of the machine) during which its
# own threads may queue behind each other, and for how long in all, and it still earns
# credit. A single thread never queues behind itself; a hundred spinning children queue
# for all of it (measured on 2 CPUs: 0.7 to 1.3 of it, whatever the load, and 4 ms every
# half second even when the machine left them 2 % of a core); the runtimes' helper
# threads (gRPC's pollers, Go's) queue for a large share of the little a quick decision
# runs, but for a fraction of a millisecond (docs/SECURITY.md, "A fair clock").
SELF_QUEUE_SHARE: Final = 0.5
SELF_QUEUE_FLOOR_S: Final = 0.001


def owed(start: CpuReading, now: CpuReading, cores: float, cpus: int) -> float:
    """Seconds of the span from ``start`` to ``now`` that others' load kept the bot from
    the CPU: the fair clock's credit (the rules of this module's docstring).

    ``cores``: the CPU the bot is entitled to; ``cpus``: the CPUs it may run on.
    """
    span = now.at - start.at
    starved = now.starved - start.starved
    used = now.used - start.used
    queued = (now.waiting - start.waiting) - starved  # its threads behind its own threads
    if queued > SELF_QUEUE_FLOOR_S and queued * cpus > used * SELF_QUEUE_SHARE:
        return 0.0
    return max(0.0, min(starved, span - used / cores, MAX_CREDIT_S))


@dataclass
class StarvationCredit:
    """The credit a seat earns from one moment on (a decision under way, a bot launched)."""

    meter: CpuMeter
    start: CpuReading
    granted: float = 0.0  # seconds already given (a deadline moved by them, or charged less)

    @classmethod
    def since_now(cls, meter: CpuMeter | None) -> StarvationCredit | None:
        """The credit from now on; None where nothing is metered."""
        if meter is None:
            return None
        start = meter.read()
        return None if start is None else cls(meter, start)

    @classmethod
    def since_launch(cls, meter: CpuMeter | None) -> StarvationCredit | None:
        """The credit since the bot's group was made (its counters were 0 then): a join's."""
        return None if meter is None else cls(meter, meter.zero())

    def owed(self) -> float:
        """The whole credit earned by now (granted or not)."""
        now = self.meter.read()
        if now is None:
            return self.granted  # the group is gone: nothing more is known
        return owed(self.start, now, self.meter.cores, self.meter.cpus)

    def more(self) -> float:
        """Seconds of credit not granted yet, now granted if at least ``MIN_CREDIT_S`` (the
        clock's resolution: less is not worth a wake-up, and a bot whose threads only
        woke now and then earns none of it): how far to move a deadline that has passed,
        or how much less to charge an answer."""
        extra = self.owed() - self.granted
        if extra < MIN_CREDIT_S:
            return 0.0
        self.granted += extra
        return extra


class DecisionClock:
    """The fair clock of one seat's decisions: its counters are read only once a
    decision has lasted ``PROBE_S`` (``probe``, called by the decision's deadline timer),
    never at a decision answered sooner, which needs no credit."""

    __slots__ = ("credit", "delivered", "meter", "probed")

    def __init__(self, meter: CpuMeter) -> None:
        self.meter = meter
        self.credit: StarvationCredit | None = None  # from the probe on, once it came
        self.delivered = False
        self.probed = False

    def ask(self) -> None:
        """A request is about to be delivered: a new decision."""
        self.credit = None
        self.delivered = self.probed = False

    def deliver(self) -> None:
        """The request is delivered; if the probe came first, the decision is already slow
        and is metered from now."""
        self.delivered = True
        if self.probed:
            self.credit = StarvationCredit.since_now(self.meter)

    def probe(self) -> None:
        """``PROBE_S`` after the request was asked: the decision is slow enough to meter."""
        self.probed = True
        if self.delivered:
            self.credit = StarvationCredit.since_now(self.meter)
