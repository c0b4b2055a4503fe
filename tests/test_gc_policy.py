"""The collector's pace during a run: larger young-generation batches while trials run, the caller's
thresholds restored afterwards (the runner may be a library call inside someone else's program)."""

from __future__ import annotations

import gc
from pathlib import Path

import anyio
from rich.console import Console

from harness.gc_policy import RUN_THRESHOLDS, run_pace
from harness.runner.config import RunConfig
from harness.runner.run import execute_run
from orchestrator.protocol import AgentReply, TrialSession


def test_run_pace_raises_and_restores_the_thresholds() -> None:
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        with run_pace():
            assert gc.get_threshold() == RUN_THRESHOLDS
        assert gc.get_threshold() == (700, 10, 10)
        gc.set_threshold(50_000, 20, 30)  # a caller that already collects less often keeps its pace
        with run_pace():
            assert gc.get_threshold() == (50_000, 20, 30)
    finally:
        gc.set_threshold(*before)


class _Observer:
    """An agent that notes the collector's thresholds while it runs inside a trial."""

    name = "gc-observer"
    needs_mcp_url = False
    seen: list[tuple[int, int, int]] = []

    async def start(self, session: TrialSession) -> None:
        return None

    async def respond(self, user_message: str, turn: int) -> AgentReply:
        _Observer.seen.append(gc.get_threshold())
        return AgentReply(text="noted")

    async def stop(self) -> None:
        return None


def test_trials_run_at_the_run_pace_and_the_caller_gets_its_own_back(tmp_path: Path) -> None:
    from harness.runner.components import TrialComponents
    from harness.runner.plan import resolve_plan

    before = gc.get_threshold()
    config = RunConfig(out=tmp_path / "run", task=["payments_balance_inquiry_01"])
    components = TrialComponents(config, resolve_plan(config), agent_factory=lambda view: _Observer())
    anyio.run(lambda: execute_run(config, console=Console(quiet=True), components=components))
    assert _Observer.seen and all(seen == tuple(max(a, b) for a, b in zip(before, RUN_THRESHOLDS)) for seen in _Observer.seen)
    assert gc.get_threshold() == before


def test_startup_pace_pauses_the_collector_then_freezes_the_startup_heap() -> None:
    from harness.gc_policy import startup_pace

    assert gc.isenabled() and gc.get_freeze_count() == 0
    with startup_pace() as ready:
        assert not gc.isenabled()
        kept = [object() for _ in range(10)]
        ready()
        assert gc.isenabled()
        assert gc.get_freeze_count() >= len(kept)
        ready()  # a second call changes nothing
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_startup_pace_leaves_the_collector_as_found_when_start_up_fails() -> None:
    from harness.gc_policy import startup_pace

    try:
        with startup_pace():
            raise SystemExit("cannot listen")
    except SystemExit:
        pass
    assert gc.isenabled() and gc.get_freeze_count() == 0
    gc.disable()
    try:
        with startup_pace() as ready:
            ready()
            assert not gc.isenabled()  # a caller that had it off keeps it off
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_serve_builds_the_gateway_without_collections_and_serves_with_them(monkeypatch) -> None:
    import uvicorn

    from harness.runner.config import ServeConfig
    from harness.serve import serve
    from servers import gateway as gateway_module

    seen: dict[str, object] = {}
    real_gateway = gateway_module.Gateway

    def observed_gateway(*args, **kwargs):
        seen["building"] = gc.isenabled()
        return real_gateway(*args, **kwargs)

    def observed_run(self, sockets=None):
        seen["serving"] = gc.isenabled()
        seen["frozen"] = gc.get_freeze_count()
        self.started = True

    monkeypatch.setattr(gateway_module, "Gateway", observed_gateway)
    monkeypatch.setattr(uvicorn.Server, "run", observed_run)
    serve(ServeConfig(domain=["payments"], port=0))
    assert seen["building"] is False
    assert seen["serving"] is True and seen["frozen"] > 0
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_reading_a_run_directory_runs_no_collection(tmp_path: Path) -> None:
    """`RunDirectory.records` reads under `bulk_load`: however low the thresholds, no collection while
    the records are read, and the collector is back on (or still off) afterwards."""
    import shutil

    from harness.gc_policy import bulk_load
    from harness.rundir import RunDirectory, read_record
    from harness.runner.loop import run_blocking

    run = tmp_path / "run"
    run_blocking(lambda: execute_run(RunConfig(out=run, task=["payments_transfer_daily_limit_01"]), console=Console(quiet=True)))
    [record] = (run / "trials").glob("*/*.json")
    for i in range(40):
        shutil.copy(record, record.with_name(f"copy{i:02d}_{record.name}"))
    collections: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    before = gc.get_threshold()
    gc.callbacks.append(count)
    try:
        directory = RunDirectory(run)
        gc.set_threshold(1, 1, 1)  # a collection on every allocation: thousands while 41 records are read
        collections.clear()
        records = directory.records()
        assert len(records) == 41 and gc.isenabled()
        assert len(collections) < 10, collections  # only on the way in and out, never per record
        collections.clear()
        plain = [read_record(path) for path in sorted((run / "trials").glob("*/*.json"))]
        assert len(plain) == 41 and len(collections) > 1000  # what the same read costs with the collector on
        gc.disable()
        with bulk_load():
            pass
        assert not gc.isenabled()  # a caller's disabled collector stays disabled
    finally:
        gc.enable()
        gc.callbacks.remove(count)
        gc.set_threshold(*before)


def test_long_lived_freezes_what_exists_and_thaws_it_at_the_outermost_end() -> None:
    """A run (`execute_run`) and its executor (`run_pace`) each mark the heap long-lived: the inner end
    must not thaw what the outer froze; the outer end leaves nothing frozen."""
    from harness.gc_policy import long_lived

    assert gc.get_freeze_count() == 0
    with long_lived():
        outer = gc.get_freeze_count()
        assert outer > 0
        with run_pace():
            assert gc.get_freeze_count() >= outer
        assert gc.get_freeze_count() >= outer  # still frozen: the run goes on
    assert gc.get_freeze_count() == 0
    gc.freeze()  # a program with a frozen heap of its own (a worker, a server) keeps it frozen
    try:
        mine = gc.get_freeze_count()
        with long_lived():
            pass
        assert gc.get_freeze_count() >= mine > 0
    finally:
        gc.unfreeze()
