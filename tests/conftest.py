"""Shared fixtures: an offline environment, a gateway, and a live streamable-HTTP gateway on loopback."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
os.environ.setdefault("FASTMCP_LOG_LEVEL", "CRITICAL")
# Tests check behaviour on whatever the catalog holds; whether its lock is fresh is the release gates'
# check (`python -m harness.benchmark_spec`), so `crmbench run` in tests does not refuse a stale lock.
os.environ.setdefault("CRMBENCH_ALLOW_STALE_LOCK", "1")


def pytest_configure(config: pytest.Config) -> None:
    """Tests keep derived tool specs (`servers.tool_specs`) in a cache directory of their own, never in
    the user's: made once by the controlling process (xdist workers and CLI subprocesses inherit it) and
    removed at its end. Every test process collects garbage at the pace of a long-lived process
    (`harness.gc_policy.suite_pace`)."""
    from harness.gc_policy import suite_pace

    suite_pace()
    if "PYTEST_XDIST_WORKER" in os.environ:
        return
    import shutil
    import tempfile

    from servers.tool_specs import CACHE_ENV

    directory = tempfile.mkdtemp(prefix="crmbench-test-cache-")
    os.environ[CACHE_ENV] = directory
    config.add_cleanup(lambda: shutil.rmtree(directory, ignore_errors=True))


@pytest.hookimpl(tryfirst=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Every test has run: freeze the process's heap (`gc.freeze`) before pytest's own end-of-session
    collections. A worker holds ~1.5-1.9 million objects by then, and pytest's unraisable-exception plugin
    collects them all twice more (its unconfigure and its cleanup), then the interpreter once again at exit:
    ~5 s between the last test and the end of `uv run pytest` (measured with a timeline of the workers:
    sessionfinish -> exit 5.1 s before, 0.6 s after). What this gives up: a garbage cycle still alive when
    the last test ends is not collected, so an exception in its `__del__` is not reported at the end (each
    test's own unraisable exceptions are still reported with it). Not done at the start of the session:
    the product's GC policy reads the frozen count (`harness.gc_policy`), and its tests need it at 0."""
    import gc

    gc.freeze()


ONE_PROCESS = {
    "tests/test_judge_calibration.py": "calibration",
    "tests/test_judge_calibration_heldout.py": "calibration",
    "tests/test_consent_calibration.py": "calibration",
    "tests/test_second_reviewer.py": "calibration",
}
"""Test files handed out together, to one xdist worker: each measures the calibration set whole, and the judges'
verdict memo (per process) answers the second measurement (the four files: 30.5 -> 24.9 s of CPU together)."""


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto` (pyproject's addopts): one worker more than the cores this process may run on. About a tenth
    of the suite's wall is spent waiting (subprocess agents and CLIs starting, servers on loopback, the Ray
    cluster), during which a core-per-worker pool leaves a core idle. Measured on a 2-core machine (`uv run
    pytest`, two runs each, docs/performance.md): 3 workers 171.1 / 170.2 s against 2 workers 174.2 / 176.1 s,
    for ~6% more CPU time (a third collection). `PYTEST_XDIST_AUTO_NUM_WORKERS` still decides when set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own hook reads it
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cores + 1


def pytest_xdist_make_scheduler(config: pytest.Config, log):  # type: ignore[no-untyped-def]  # noqa: ANN001, ANN201
    """`--dist loadfile` with the files of ONE_PROCESS as one unit of work; any other `--dist` as xdist has it."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class Scheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return ONE_PROCESS.get(scope, scope)

    return Scheduling(config, log)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class LiveGateway:
    def __init__(self, gateway, base_url: str) -> None:
        self.gateway = gateway
        self.base_url = base_url

    def mcp_url(self, domain: str, trial_id: str | None = None) -> str:
        url = f"{self.base_url}/{domain}/mcp"
        return f"{url}?trial={trial_id}" if trial_id else url


@pytest.fixture(scope="module")
def live_gateway() -> Iterator[LiveGateway]:
    """The real gateway app (payments) under uvicorn on an ephemeral loopback port, in a background thread."""
    from tests.live_http import serve_gateway

    with serve_gateway(["payments"]) as (gateway, base_url):
        yield LiveGateway(gateway, base_url)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked `slow` first, otherwise in collection order. Under xdist (`--dist loadfile
    --no-loadscope-reorder`) the files are handed out in the order of their first test, so the files with
    long tests start while there is still other work for the other cores, instead of one of them starting
    last and running alone. The order is a pure function of the collection, so every worker computes the
    same one (xdist requires it)."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
