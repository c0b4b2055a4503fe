"""Run independent awaitables at once and keep every outcome, in order.

The judges of one trial (the reply judge, each consent question) do not depend on each other; run one
after another, an LLM judge costs a trial one model latency per question. `settle` runs them together
and returns each result or exception in the order given, so a caller re-raises the first failure exactly
as the sequential code would have, and no judge call is cancelled half-way (its usage is still charged).
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import TypeVar

import anyio

T = TypeVar("T")


async def settle(awaitables: Sequence[Awaitable[T]]) -> list[T | BaseException]:
    outcomes: list[T | BaseException] = [RuntimeError("not settled")] * len(awaitables)

    async def one(index: int, awaitable: Awaitable[T]) -> None:
        try:
            outcomes[index] = await awaitable
        except Exception as exc:  # kept, not raised: the caller decides which failure it reports
            outcomes[index] = exc

    if len(awaitables) == 1:
        await one(0, awaitables[0])
        return outcomes
    async with anyio.create_task_group() as group:
        for index, awaitable in enumerate(awaitables):
            group.start_soon(one, index, awaitable)
    return outcomes


def first_failure(outcomes: Sequence[object]) -> BaseException | None:
    return next((o for o in outcomes if isinstance(o, BaseException)), None)
