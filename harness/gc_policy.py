"""The garbage collector's pace during a run, and while a server starts.

A run holds many long-lived objects — the catalog, every open trial's world, the finished records — and
allocates many short-lived ones per model step. With CPython's default thresholds (a young collection
every 700 net allocations) the collector keeps walking the long-lived heap: measured with
`scripts/bench_harness.py`, about 1.9 ms of a realistic trial's ~6.5 ms of harness CPU, and 13 full
collections in a 1,024-trial run. A larger young-generation threshold for the duration of the trials
cuts that to ~5 full collections and ~4.8–5.4 ms per trial; cyclic garbage is still collected, only in
larger batches. The previous thresholds are restored afterwards (the runner may be a library call).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator

RUN_THRESHOLDS = (10_000, 10, 10)
"""Young-generation threshold for the trials (the default is 700); the older generations keep the defaults."""


SUITE_THRESHOLDS = (20_000, 20, 20)
"""The collector's pace for a process that runs many jobs over a heap it keeps (a test-suite worker: the catalog,
the judges' caches, module fixtures of ~300 MB): each generation collected ~30x less often than by default. Timed
with a `gc.callbacks` timer over the judge's test files: 3.2 s -> 0.9 s of collection, 41.9 -> 37.2 s of CPU."""


def suite_pace() -> None:
    """Collect at SUITE_THRESHOLDS from now on (a process that owns its collector: not a library call)."""
    gc.set_threshold(*SUITE_THRESHOLDS)


@contextlib.contextmanager
def run_pace() -> Iterator[None]:
    """Collect in larger batches while trials run; restore the caller's thresholds after. What exists
    when the trials start (the catalog, the plan, the provider clients, the servers) is `long_lived`
    for their length: the older generations' collections then walk what the trials made, not it."""
    before = gc.get_threshold()
    gc.set_threshold(*(max(now, run) for now, run in zip(before, RUN_THRESHOLDS, strict=True)))
    try:
        with long_lived():
            yield
    finally:
        gc.set_threshold(*before)


_frozen_depth = 0


@contextlib.contextmanager
def long_lived() -> Iterator[None]:
    """Everything that exists now lives at least as long as the body: frozen (`gc.freeze`) so the older
    generations' collections do not walk it, unfrozen at the end of the outermost such body (a run's
    `execute_run` holds its executor's: one `gc.unfreeze` would thaw both). A program that froze objects
    of its own (a worker's inherited heap, a server's start-up) keeps its policy: nothing is frozen or
    thawed here, since the collector has one permanent generation and thawing it would thaw theirs."""
    global _frozen_depth
    if _frozen_depth == 0 and gc.get_freeze_count() > 0:
        yield
        return
    gc.freeze()
    _frozen_depth += 1
    try:
        yield
    finally:
        _frozen_depth -= 1
        if _frozen_depth == 0:
            gc.unfreeze()


@contextlib.contextmanager
def startup_pace() -> Iterator[Callable[[], None]]:
    """No collections while a server starts up; call the yielded `ready()` just before serving.

    Start-up (the MCP server stack's imports, the domains' modules and tool tables) allocates a few
    hundred thousand long-lived objects and next to no garbage, yet with the default thresholds the
    collector ran several full collections over them: ~0.1–0.2 s of `crmbench serve`'s ~1.3 s to its
    first answer. `ready()` freezes what start-up built (`gc.freeze`, the standard library's recipe for
    a heap that lives as long as the process), so the server's later collections do not walk it either,
    and turns the collector back on. On the way out everything is unfrozen and the collector left as it
    was found (`serve` may be a library call)."""
    was_enabled = gc.isenabled()
    frozen = False

    def ready() -> None:
        nonlocal frozen
        if not frozen:
            gc.freeze()
            frozen = True
        if was_enabled:
            gc.enable()

    gc.disable()
    try:
        yield ready
    finally:
        if frozen:
            gc.unfreeze()
        if was_enabled:
            gc.enable()


@contextlib.contextmanager
def bulk_load() -> Iterator[None]:
    """No collections while a run directory's records are read (the report, `compare`, `grade`, a
    resume), or while a run's preflight validates its tasks (every initial world dumped and checked).

    Reading a record allocates a few hundred objects and no cyclic garbage, yet with the default
    thresholds the collector ran every 700 of them and its older generations kept walking every record
    already read: for a 1,110-trial run, 0.8 s of the 1.2 s it took to read (0.4 s without). Nothing
    to collect is lost by waiting; the collector is left as it was found."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
