"""One way to run the harness's async entry points: anyio on asyncio, on uvloop where it is installed.

A run's client is one Python thread driving hundreds of trials' HTTP calls; the standard library's event
loop spends a visible share of that thread in its own Python code (selecting, scheduling callbacks,
transports). uvloop is that loop on libuv, in C: over the real provider path (graph agent, router, user
and judge on OpenAI-compatible servers at 256 trials in flight) it takes the client's CPU per trial to
×0.88 and efficiency from 0.83 to 0.87 (docs/performance.md). Results never depend on the loop (`--event-loop`
is an execution-only setting); `asyncio` keeps the standard loop, and `auto` (the default) falls back to
it where uvloop is not installed (it does not exist for Windows).
"""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import Awaitable, Callable
from typing import Literal, TypeVar

import anyio

log = logging.getLogger(__name__)

EventLoop = Literal["auto", "uvloop", "asyncio"]
T = TypeVar("T")


def uvloop_available() -> bool:
    return importlib.util.find_spec("uvloop") is not None


def use_uvloop(choice: EventLoop) -> bool:
    """Whether `choice` runs on uvloop; asking for `uvloop` where it is missing is an error that says how
    to get it, never a silent fallback."""
    if choice == "asyncio":
        return False
    available = uvloop_available()
    if choice == "uvloop" and not available:
        raise ValueError("--event-loop uvloop: uvloop is not installed here (it is a dependency on Linux and macOS; `uv sync` installs it), or use --event-loop asyncio")
    return available


def run(function: Callable[..., Awaitable[T]], *args: object, event_loop: EventLoop = "auto") -> T:
    """`anyio.run(function, *args)` on the chosen event loop."""
    return anyio.run(function, *args, backend="asyncio", backend_options={"use_uvloop": use_uvloop(event_loop)})
