"""Running the harness's coroutines from synchronous code (the CLI, scripts, tests).

`run_blocking(fn)` is `anyio.run(fn)` with one difference: the result is handed back outside the event
loop's main task. Why: on the way out, CPython 3.11's `asyncio.Runner` puts the SIGINT handler back, and
`signal.signal` / `signal.getsignal` try the old handler as a `signal.Handlers` member; the `ValueError`
they build for the miss formats its repr, a partial that holds the main task, whose repr holds the
task's result. For a run that result is every trial's record: the 555-task offline run spent ~0.8 s and
two 24 MB strings there (measured; later CPython versions check the handler's type first and never
format it).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


def run_blocking(fn: Callable[[], Awaitable[T]]) -> T:
    """Run `fn()` to completion on a new event loop (anyio's asyncio backend) and return its result."""
    import anyio

    box: list[T] = []

    async def main() -> None:
        box.append(await fn())

    anyio.run(main)
    return box[0]
