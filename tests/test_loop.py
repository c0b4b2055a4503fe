"""`harness.runner.loop.run_blocking`: a coroutine's result back to synchronous code, never formatted on the way
(CPython 3.11's runner formats the main task, result included, when it restores the SIGINT handler)."""

from __future__ import annotations

import pytest

from harness.runner.loop import run_blocking


class Heavy:
    """Stands for a run's result: its repr is what the runner must not build."""

    reprs = 0

    def __repr__(self) -> str:
        Heavy.reprs += 1
        return "Heavy()"


def test_the_result_comes_back_without_being_formatted() -> None:
    async def produce() -> Heavy:
        return Heavy()

    Heavy.reprs = 0
    result = run_blocking(produce)
    assert isinstance(result, Heavy) and Heavy.reprs == 0


def test_an_exception_comes_back_as_itself() -> None:
    async def fail() -> None:
        raise LookupError("no such task")

    with pytest.raises(LookupError, match="no such task"):
        run_blocking(fail)
