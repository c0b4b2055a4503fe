"""The report keeps a summary of each record, not the record (issue 39): a record's initial and final
states are ~85% of its bytes and were most of a report's memory (469 MiB for 1,110 trials); they are read
one record at a time, reduced to their difference (all the report shows of them) and let go."""

from __future__ import annotations

import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from contracts.catalog import catalog_lock, load_catalog, select_tasks
from harness.runner.config import RunConfig
from harness.runner.loop import run_blocking
from harness.report.data import load_runs
from harness.report.explorer import explorer_payload
from harness.report.state_changes import state_diff
from harness.runner.run import execute_run
from harness.rundir import RunDirectory

QUIET = Console(file=open("/dev/null", "w"))  # noqa: SIM115


@pytest.fixture(scope="module")
def payments_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("memory") / "oracle"
    run_blocking(lambda: execute_run(RunConfig(out=out, domain=["payments"], offline=True, allow_stale_lock=True), console=QUIET))
    return out


def _context() -> dict[str, Any]:
    return {"catalog": {t.id: t for t in select_tasks(load_catalog(), domains=["payments"])}, "lock": catalog_lock()}


def test_records_are_held_without_their_states_and_with_their_difference(payments_run: Path) -> None:
    full = {r.key.task_id: r for r in RunDirectory(payments_run).records()}
    [system] = load_runs([payments_run], **_context()).systems
    [round_] = system.rounds
    assert set(round_.records) == set(full) == set(round_.state_diffs)
    changed = 0
    for task_id, record in round_.records.items():
        assert record.initial_state is None and record.final_state == {}
        whole = full[task_id]
        assert whole.initial_state is not None
        assert round_.state_diffs[task_id] == state_diff(whole.initial_state, whole.final_state)
        assert record.model_dump(exclude={"initial_state", "final_state"}) == whole.model_dump(exclude={"initial_state", "final_state"})
        changed += bool(round_.state_diffs[task_id])
    assert changed > 30  # most payments tasks write: the differences are not all empty


def test_the_explorer_shows_each_trials_state_difference(payments_run: Path) -> None:
    data = load_runs([payments_run], **_context())
    details = explorer_payload(data)["details"]
    full = {r.key.task_id: r for r in RunDirectory(payments_run).records()}
    for ident, detail in details.items():
        task_id = ident.split("-", 2)[2]
        whole = full[task_id]
        assert [row[0] for row in detail["diff"]] == [p for p, _, _ in state_diff(whole.initial_state, whole.final_state)][:60]


def test_loading_a_run_for_the_report_holds_much_less_than_its_records(payments_run: Path) -> None:
    context = _context()
    tracemalloc.start()
    try:
        records = RunDirectory(payments_run).records()
        whole, _ = tracemalloc.get_traced_memory()
        del records
        tracemalloc.reset_peak()
        start, _ = tracemalloc.get_traced_memory()
        data = load_runs([payments_run], **context)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert data.systems
    assert held - start < 0.6 * whole, (held - start, whole)
    assert peak - start < 0.7 * whole, (peak - start, whole)  # read one at a time: never all whole records at once


def test_state_diff_finds_every_change_and_only_changes() -> None:
    before = {"a": {"x": 1, "y": [1, 2]}, "b": {"k": {"deep": True}}, "gone": 1, "same": {"n": {"m": 3}}}
    after = {"a": {"x": 2, "y": [1, 2]}, "b": {"k": {"deep": True, "new": None}}, "added": {"z": 0}, "same": {"n": {"m": 3}}}
    assert state_diff(before, after) == [
        ("a.x", 1, 2), ("added", None, {"z": 0}), ("b.k.new", None, None), ("gone", 1, None),
    ]
    assert state_diff(before, before) == []
    assert state_diff(1, 2) == [("(root)", 1, 2)]
    assert state_diff({"l": [1]}, {"l": [2]}) == [("l", [1], [2])]
