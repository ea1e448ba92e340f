"""Time a bot was kept from the CPU by other bots' load: never charged to it.

A seat's clock runs on the wall (PROTOCOL.md, "Time"), so a bot that another bot's load
keeps off the CPU would miss its deadline through no fault of its own, and the hog would
win by making others fault. Where the kernel counts CPU pressure per cgroup
(``arena.bots.cgroup.CpuMeter``), the referee reads, for the seat's own group, how long
every runnable thread of the bot waited for a CPU while its clock ran, less the time its
own CPU quota held it back: that much is added to the seat's deadline (a join's or a
decision's), and taken off the time charged to its bank. A bot that sleeps, or spins on
its own quota, earns nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from arena.bots.cgroup import CpuMeter, CpuReading

# Below this, an extension is not worth a wake-up of the event loop.
MIN_CREDIT_S: Final = 0.005
# At most this much credit per decision or join: past it the machine is too busy for a
# fair game, and the usual timeout applies.
MAX_CREDIT_S: Final = 30.0


@dataclass
class StarvationCredit:
    """The credit a seat earns from one moment on (a request sent, a bot launched)."""

    meter: CpuMeter
    start: CpuReading | None  # None: parsed from ``snapshot`` when first needed
    granted: float = 0.0
    snapshot: tuple[bytes, bytes] | None = None

    @classmethod
    def since_now(cls, meter: CpuMeter | None) -> StarvationCredit | None:
        """The credit from now on. The counters are read now, at every request, but parsed
        only if the decision comes near its deadline (``more``): most never do."""
        if meter is None:
            return None
        snapshot = meter.snapshot()
        return None if snapshot is None else cls(meter, None, snapshot=snapshot)

    def more(self) -> float:
        """Seconds of starvation since ``start`` not granted yet (and now granted)."""
        if self.start is None:
            self.start = self.meter.parse(self.snapshot)
            if self.start is None:
                return 0.0
        now = self.meter.read()
        if now is None:
            return 0.0
        starved = (now.starved - self.start.starved) - (now.throttled - self.start.throttled)
        extra = min(starved, MAX_CREDIT_S) - self.granted
        if extra < MIN_CREDIT_S:
            return 0.0
        self.granted += extra
        return extra
