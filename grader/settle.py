"""Run independent awaitables at once and keep every outcome, in order.

The judges of one trial (the reply judge, each consent question) do not depend on each other; run one
after another, an LLM judge costs a trial one model latency per question. `settle` runs them together
and returns each result or exception in the order given, so a caller re-raises the first failure exactly
as the sequential code would have, and no judge call is cancelled half-way (its usage is still charged).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import anyio
import anyio.lowlevel

T = TypeVar("T")
W = TypeVar("W")


async def _keep(outcomes: list[T | BaseException], index: int, awaitable: Awaitable[T]) -> None:
    try:
        outcomes[index] = await awaitable
    except Exception as exc:  # kept, not raised: the caller decides which failure it reports
        outcomes[index] = exc


async def settle(awaitables: Sequence[Awaitable[T]]) -> list[T | BaseException]:
    outcomes: list[T | BaseException] = [RuntimeError("not settled")] * len(awaitables)
    if len(awaitables) == 1:
        await _keep(outcomes, 0, awaitables[0])
        return outcomes
    async with anyio.create_task_group() as group:
        for index, awaitable in enumerate(awaitables):
            group.start_soon(_keep, outcomes, index, awaitable)
    return outcomes


async def settle_while(awaitables: Sequence[Awaitable[T]], work: Callable[[], W]) -> tuple[list[T | BaseException], W]:
    """`settle`, with `work` (synchronous, CPU-bound) done once every awaitable has started and reached its
    first wait — an LLM judge's request is then on its way — so the caller's own work overlaps their
    latency instead of delaying their requests. `work`'s exception is raised after the awaitables settle
    (none is cancelled half-way)."""
    outcomes: list[T | BaseException] = [RuntimeError("not settled")] * len(awaitables)
    done: list[W] = []
    failed: list[BaseException] = []
    async with anyio.create_task_group() as group:
        for index, awaitable in enumerate(awaitables):
            group.start_soon(_keep, outcomes, index, awaitable)
        await anyio.lowlevel.checkpoint()  # the tasks started above run first, up to their first wait
        try:
            done.append(work())
        except Exception as exc:  # noqa: BLE001 - re-raised below, once the awaitables have settled
            failed.append(exc)
    if failed:
        raise failed[0]
    return outcomes, done[0]


def first_failure(outcomes: Sequence[object]) -> BaseException | None:
    return next((o for o in outcomes if isinstance(o, BaseException)), None)
