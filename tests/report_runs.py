"""Run directories for the report tests, shared by the full-catalog tests (tests/test_report.py) and the
run-identity tests over two domains (tests/test_report_systems.py): two files, so xdist can build the
full-catalog runs on one core while the two-domain tests run on another."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from contracts.catalog import catalog_lock, load_catalog, select_tasks
from contracts.schema import Task
from harness.runner.config import RunConfig
from harness.runner.loop import run_blocking
from harness.runner.run import execute_run

DATA = Path(__file__).parent / "data"
QUIET = Console(file=open(os.devnull, "w"))  # noqa: SIM115
SMALL_DOMAINS = ("payments", "retail")  # the script run's task (commerce_returns_01) is a retail task


def run_dir(out: Path, **kwargs) -> Path:  # type: ignore[no-untyped-def]
    # allow_stale_lock: these tests are about reports, not about whether the catalog lock was rewritten after an edit
    run_blocking(lambda: execute_run(RunConfig(out=out, allow_stale_lock=True, **kwargs), console=QUIET))
    return out


def small_catalog() -> dict[str, Task]:
    return {t.id: t for t in select_tasks(load_catalog(), domains=SMALL_DOMAINS)}


def two_domains() -> dict[str, Any]:
    """What the two-domain tests pass to `load_runs` / `build_report`: SMALL_DOMAINS' tasks as the
    catalog, and the catalog's real lock (the runs recorded it, so they are not marked mixed)."""
    return {"catalog": small_catalog(), "lock": catalog_lock()}


@pytest.fixture(scope="module")
def scripted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One-task runs of the script agent: a timeout (case C) and a graded failure on state (case B)."""
    root = tmp_path_factory.mktemp("scripted")
    return {
        "script": run_dir(root / "script", agent="script", script=DATA / "case_c.yaml", task=["commerce_returns_01"], max_turns=19),
        "case_b": run_dir(root / "case_b", agent="script", script=DATA / "case_b.yaml", task=["payments_checkout_full_chain_02"]),
    }


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The oracle and the no-op agent over every task of SMALL_DOMAINS, two rounds each."""
    root = tmp_path_factory.mktemp("small")
    return {
        "oracle": run_dir(root / "oracle", rounds=2, offline=True, domain=list(SMALL_DOMAINS)),
        "noop": run_dir(root / "noop", agent="noop", rounds=2, offline=True, domain=list(SMALL_DOMAINS)),
    }


def table(report, key: str):  # type: ignore[no-untyped-def]
    return next(t for t in report.tables if t.key == key)


def copy_run(src: Path, dst: Path, **manifest_changes) -> Path:  # type: ignore[no-untyped-def]
    shutil.copytree(src, dst)
    manifest = json.loads((dst / "manifest.json").read_text())
    for key, value in manifest_changes.items():
        target = manifest
        *parents, leaf = key.split("__")
        for p in parents:
            target = target[p]
        target[leaf] = value
    (dst / "manifest.json").write_text(json.dumps(manifest))
    return dst
