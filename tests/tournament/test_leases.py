"""No deal live at two tables: the leases themselves, and the tables a run opens for its
deals. Real multi-table runs in which no two games of one deal are played at once: this
process's referee and referee processes in test_executor.py, a Dask cluster in
tests/cluster/test_cluster_run.py."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import GameKey
from arena.tournament.leases import DealLeases, tables_for_deals
from arena.wire.loop import run as run_loop

DEALS = [GameKey.from_seed(seed) for seed in range(3)]


def test_a_deal_has_one_holder_and_the_next_in_turn_gets_it() -> None:
    async def scenario() -> list[str]:
        leases = DealLeases()
        granted: list[str] = []

        async def take(holder: str) -> None:
            await leases.acquire(DEALS[0], holder)
            granted.append(holder)

        await leases.acquire(DEALS[0], "a")
        await leases.acquire(DEALS[1], "x")  # another deal: free at once
        waiting = [asyncio.ensure_future(take(h)) for h in ("b", "c")]
        await asyncio.sleep(0.01)
        assert granted == [] and leases.holder(DEALS[0]) == "a"
        assert leases.live == {DEALS[0], DEALS[1]}
        leases.release(DEALS[0], "c")  # not its holder: nothing happens
        assert leases.holder(DEALS[0]) == "a"
        leases.release(DEALS[0], "a")
        await asyncio.sleep(0)
        assert granted == ["b"]
        leases.release_all("b")
        await asyncio.gather(*waiting)
        leases.release(DEALS[0], "c")
        leases.release(DEALS[1], "x")
        assert leases.live == frozenset()
        return granted

    assert run_loop(scenario()) == ["b", "c"]


def test_a_waiter_cancelled_holds_nothing_even_when_granted_as_it_goes() -> None:
    async def scenario() -> None:
        leases = DealLeases()
        await leases.acquire(DEALS[0], "a")
        gone = asyncio.ensure_future(leases.acquire(DEALS[0], "gone"))
        late = asyncio.ensure_future(leases.acquire(DEALS[0], "late"))
        await asyncio.sleep(0)
        leases.release(DEALS[0], "a")  # granted to "gone", which is cancelled before it runs
        gone.cancel()
        await asyncio.gather(gone, return_exceptions=True)
        await late
        assert leases.holder(DEALS[0]) == "late"

    run_loop(scenario())


# One step of a random interleaving: a holder (0-3) asks for a deal (0-2), gives back a
# deal it holds, or gives up waiting for one.
STEPS = st.lists(
    st.tuples(
        st.sampled_from(["acquire", "release", "cancel"]), st.integers(0, 3), st.integers(0, 2)
    ),
    max_size=40,
)


@settings(max_examples=150)
@given(STEPS)
def test_whatever_the_interleaving_no_deal_ever_has_two_holders(
    steps: list[tuple[str, int, int]],
) -> None:
    """Holders take, give back and give up deals in any order: at every moment each deal
    has at most one holder, grants follow the order of asking, and once everyone gave
    back what it held, no deal is held and nobody waits."""

    async def scenario() -> None:
        leases = DealLeases()
        holding: set[tuple[int, int]] = set()  # (holder, deal) granted and not given back
        asked: dict[int, list[int]] = {d: [] for d in range(3)}  # deal -> waiters in turn
        waits: dict[tuple[int, int], asyncio.Task[None]] = {}
        out_of_turn: list[tuple[int, int]] = []

        async def take(holder: int, deal: int) -> None:
            await leases.acquire(DEALS[deal], holder)
            holding.add((holder, deal))
            if asked[deal].pop(0) != holder:
                out_of_turn.append((holder, deal))

        def check() -> None:
            assert out_of_turn == [], "granted out of turn"
            for deal in range(3):
                holders = [h for h, d in holding if d == deal]
                assert len(holders) <= 1, (deal, holders)
                assert leases.holder(DEALS[deal]) == (holders[0] if holders else None)

        for action, holder, deal in steps:
            waiting = waits.get((holder, deal))
            if waiting is not None and waiting.done():
                del waits[(holder, deal)]
                waiting = None
            if action == "acquire" and waiting is None and (holder, deal) not in holding:
                asked[deal].append(holder)
                waits[(holder, deal)] = asyncio.ensure_future(take(holder, deal))
            elif action == "release" and (holder, deal) in holding:
                holding.discard((holder, deal))
                leases.release(DEALS[deal], holder)
            elif action == "cancel" and waiting is not None:
                waiting.cancel()
                await asyncio.gather(waiting, return_exceptions=True)
                del waits[(holder, deal)]
                if waiting.cancelled():  # it holds nothing, and waits no more
                    asked[deal].remove(holder)
            await asyncio.sleep(0)
            check()
        # Everyone gives back what it holds; those still waiting are served in turn.
        while holding or any(not task.done() for task in waits.values()):
            for holder, deal in list(holding):
                holding.discard((holder, deal))
                leases.release(DEALS[deal], holder)
            await asyncio.sleep(0)
            check()
        assert leases.live == frozenset()
        assert all(not queue for queue in asked.values())

    run_loop(scenario())


def test_a_run_opens_no_more_tables_than_it_has_deals() -> None:
    assert tables_for_deals(8, 3) == (
        3,
        "playing 3 tables at once, not 8: the run has 3 deals (--games), and no deal is "
        "played at two tables at once",
    )
    kept, said = tables_for_deals(2, 1)
    assert kept == 1 and said.startswith("playing 1 table at a time, not 2: the run has 1 deal ")
    assert tables_for_deals(2, 10)[0] == 2
