"""`--concurrency` means what it says: unset, the per-provider cap is what the run's trials ask at once —
`--concurrency` × the most model calls one selected task makes together (its judges), never below 16 —,
an explicit `--provider-concurrency` wins, and the manifest records the effective value."""

from __future__ import annotations

import json

import anyio
from rich.console import Console

from contracts.catalog import load_selection
from harness.runner.config import RunConfig
from harness.runner.run import execute_run
from harness.runner.trial import judge_calls_at_once


def test_provider_cap_follows_what_the_trials_ask_at_once_unless_set() -> None:
    assert RunConfig().provider_concurrency is None  # settled by the run, once it knows its tasks
    assert RunConfig().with_provider_cap().provider_concurrency == 16
    assert RunConfig(concurrency=256).with_provider_cap().provider_concurrency == 256
    assert RunConfig(concurrency=256).with_provider_cap(2).provider_concurrency == 512
    assert RunConfig(concurrency=256, provider_concurrency=4).with_provider_cap(3).provider_concurrency == 4
    assert RunConfig(concurrency=2).with_provider_cap(2).provider_concurrency == 16


def test_judge_calls_at_once_counts_the_reply_judge_and_each_consent_question() -> None:
    tasks = load_selection()
    without = next(t for t in tasks.values() if not t.contract.consent)
    assert judge_calls_at_once(without) == 1
    for task in tasks.values():
        if task.contract.consent:
            # each check is asked at least once, once per gold turn that calls its tool
            turns = [sum(1 for turn in task.gold if any(c.tool == check.tool for c in turn.calls)) for check in task.contract.consent]
            assert judge_calls_at_once(task) == 1 + sum(max(1, n) for n in turns)
    assert max(judge_calls_at_once(t) for t in tasks.values()) > 2  # the catalog has tasks with several questions


def test_the_manifest_config_holds_the_effective_cap(tmp_path) -> None:
    dumped = RunConfig(concurrency=300).with_provider_cap(2).model_dump(mode="json")
    assert dumped["provider_concurrency"] == 600
    assert RunConfig.model_validate(dumped).provider_concurrency == 600
    # not part of the resume key: changing it never invalidates earlier records
    assert "provider_concurrency" not in RunConfig(concurrency=300).result_affecting()
    task = "payments_transfer_daily_limit_01"  # one consent check: two judge calls at its last step
    config = RunConfig(task=[task], concurrency=8, out=tmp_path / "run", offline=True)
    anyio.run(lambda: execute_run(config, console=Console(quiet=True)))
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["config"]["provider_concurrency"] == max(16, 8 * judge_calls_at_once(load_selection(task_ids=[task])[task])) == 16
    config = RunConfig(task=[task], concurrency=20, out=tmp_path / "run2", offline=True)
    anyio.run(lambda: execute_run(config, console=Console(quiet=True)))
    assert json.loads((tmp_path / "run2" / "manifest.json").read_text())["config"]["provider_concurrency"] == 40
