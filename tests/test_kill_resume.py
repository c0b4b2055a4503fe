"""A run killed with SIGKILL mid-way and rerun with the same command finishes with every trial exactly once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from contracts.catalog import load_catalog
from tests.run_processes import wait_for_records

ROOT = Path(__file__).resolve().parents[1]
CRMBENCH = Path(sys.executable).parent / "crmbench"
ENV = {**os.environ, "FASTMCP_CHECK_FOR_UPDATES": "off", "FASTMCP_LOG_LEVEL": "CRITICAL"}
ENV.pop("OPENAI_API_KEY", None)
ROUNDS = 12
DOMAINS = ("field_service", "marketing", "sales")
"""Three domains (62 tasks, 744 trials), so the test's cost does not grow with the catalog and several
domains still exercise the per-domain trace files. Enough trials that the kill lands mid-run: trials do
not wait for the disk (the record writer takes up to 256 records per batch), so a few hundred trials
could all be on disk between two polls of a loaded machine."""


@pytest.mark.slow
def test_sigkill_then_rerun_completes_every_trial_exactly_once(tmp_path: Path) -> None:
    out = tmp_path / "run"
    command = [str(CRMBENCH), "run", "--rounds", str(ROUNDS), "--concurrency", "2", "--out", str(out)]
    for domain in DOMAINS:
        command += ["--domain", domain]
    expected = sum(t.domain in DOMAINS for t in load_catalog().values()) * ROUNDS
    proc = subprocess.Popen(command, cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    trials = out / "trials"
    wait_for_records(proc, trials, 30)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    done_before = len(list(trials.glob("*/*.json")))
    assert 30 <= done_before < expected

    rerun = subprocess.run(command, cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    files = list(trials.glob("*/*.json"))
    records = [json.loads(p.read_text()) for p in files]
    keys = [(r["key"]["task_id"], r["key"]["round"], r["key"]["seed"]) for r in records]
    assert len(keys) == expected and len(set(keys)) == expected
    assert all(r["status"] == "scored" and r["strict"] for r in records)
    assert not list(trials.glob("*/.*")), "no temp files may survive"
    assert f"{expected - done_before} trial(s) run, {done_before} resumed" in rerun.stdout
    domains = sorted({path.parent.name for path in files})
    assert domains == sorted(DOMAINS)
    traces = sum(len(json.loads((out / d / "traces.json").read_text())) for d in domains)
    assert traces == expected
