"""The judges of a trial run at once (`grader.settle`): each outcome kept, in order, the first failure the
one reported — as the sequential code reported it."""

from __future__ import annotations

import anyio
import pytest

from grader.settle import first_failure, settle, settle_while

pytestmark = pytest.mark.anyio


async def test_independent_awaitables_run_at_once() -> None:
    # each waits for the other: sequential execution would deadlock (and time out)
    first, second = anyio.Event(), anyio.Event()

    async def a() -> str:
        first.set()
        await second.wait()
        return "a"

    async def b() -> str:
        await first.wait()
        second.set()
        return "b"

    with anyio.fail_after(5):
        assert await settle([a(), b()]) == ["a", "b"]


async def test_every_outcome_kept_in_order_and_first_failure_reported() -> None:
    finished: list[str] = []

    async def fails(message: str) -> str:
        raise ValueError(message)

    async def slow_ok() -> str:
        await anyio.sleep(0.01)
        finished.append("slow")  # not cancelled by the other's failure: its usage is charged
        return "ok"

    outcomes = await settle([slow_ok(), fails("second"), fails("third")])
    assert outcomes[0] == "ok" and finished == ["slow"]
    failure = first_failure(outcomes)
    assert isinstance(failure, ValueError) and str(failure) == "second"
    assert await settle([]) == [] and first_failure(["x", None]) is None


async def test_cancellation_is_not_swallowed() -> None:
    async def forever() -> None:
        await anyio.sleep(60)

    with anyio.move_on_after(0.05) as scope:
        await settle([forever(), forever()])
    assert scope.cancelled_caught
    with pytest.raises(TimeoutError):
        with anyio.fail_after(0.05):
            await settle([forever()])


async def test_work_runs_once_every_awaitable_is_on_its_way() -> None:
    """`settle_while`: the caller's work runs after each awaitable has started (an LLM judge's request has
    gone out), and its result comes back with the outcomes, in order."""
    started: list[str] = []
    release = anyio.Event()

    async def judge(name: str) -> str:
        started.append(name)
        await release.wait()
        return name

    def work() -> list[str]:
        seen = list(started)
        release.set()
        return seen

    with anyio.fail_after(5):
        outcomes, seen = await settle_while([judge("reply"), judge("consent")], work)
    assert seen == ["reply", "consent"] and outcomes == ["reply", "consent"]


async def test_failing_work_is_raised_after_the_awaitables_settle() -> None:
    finished: list[str] = []

    async def judge() -> str:
        await anyio.sleep(0.01)
        finished.append("judge")  # not cancelled by the work's failure: its usage is charged
        return "ok"

    def work() -> None:
        raise KeyError("conformance")

    with pytest.raises(KeyError, match="conformance"):
        await settle_while([judge()], work)
    assert finished == ["judge"]
    outcomes, value = await settle_while([], lambda: 7)
    assert outcomes == [] and value == 7
