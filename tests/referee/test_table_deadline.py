"""At the decision deadline the table looks once more at what has arrived; a stream that
closed meanwhile is a `closed` fault, never an exception that stops the table."""

from __future__ import annotations

import asyncio
import time

from arena.engine import DecisionKind
from arena.referee.policy import FaultKind
from arena.referee.table import Table, TableSettings, _SeatState
from arena.seats.grpc_seat import GrpcChannel
from arena.seats.link import SeatLink
from arena.wire.answers import Refusal


def test_stream_closed_at_the_deadline_is_a_closed_fault() -> None:
    async def main() -> None:
        links = [SeatLink(seat, f"token-{seat}", time.monotonic() + 5) for seat in range(6)]
        channels = [GrpcChannel(link) for link in links]
        table = Table("m", channels, [1], TableSettings(), ["a", "b", "c"])
        links[2].close()  # the stream ended just as the deadline passed
        state = _SeatState(channels[2])
        answer = await table._answer_already_here(state, DecisionKind.PLAY, 1)
        assert isinstance(answer, Refusal) and answer.kind is FaultKind.CLOSED

    asyncio.run(main())
