"""The garbage collector's pace during a run.

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
from collections.abc import Iterator

RUN_THRESHOLDS = (10_000, 10, 10)
"""Young-generation threshold for the trials (the default is 700); the older generations keep the defaults."""


@contextlib.contextmanager
def run_pace() -> Iterator[None]:
    """Collect in larger batches while trials run; restore the caller's thresholds after."""
    before = gc.get_threshold()
    gc.set_threshold(*(max(now, run) for now, run in zip(before, RUN_THRESHOLDS, strict=True)))
    try:
        yield
    finally:
        gc.set_threshold(*before)
