"""Grade from the record: re-grading reproduces verdicts, reports contract flips, and re-judges ⊥ judge
trials without any agent or user model call."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from contracts import catalog as cat
from grader.llm_judge import LLMJudge
from harness.records import TrialRecord
from harness.regrade import RegradeError, grade_record, regrade_run
from harness.report.compare import compare_runs
from harness.runner.components import TrialComponents
from harness.runner.config import RunConfig
from harness.runner.plan import Plan
from harness.runner.run import execute_run
from models.model import Model
from models.scripted import ScriptedModel

pytestmark = pytest.mark.anyio
QUIET = Console(file=open("/dev/null", "w"), force_terminal=False)  # noqa: SIM115
TASKS = ["payments_checkout_full_chain_02", "payments_transfer_insufficient_then_retry_01", "payments_transfer_frozen_source_01"]


async def offline_run(tmp_path: Path, **kwargs):
    config = RunConfig(out=tmp_path / "run", task=TASKS, offline=True, **kwargs)
    return await execute_run(config, console=QUIET)


def _verdicts(records: list[TrialRecord]) -> dict[str, object]:
    return {r.key.slug: (r.strict, r.verdict.model_dump() if r.verdict else None) for r in records}


async def test_regrading_an_unchanged_run_reproduces_every_verdict(tmp_path: Path) -> None:
    run = await offline_run(tmp_path)
    assert all(r.record_format == 2 and r.initial_state for r in run.records)
    result = await regrade_run(run.directory, out=tmp_path / "regraded")
    assert result.changes == [] and result.rejudged == 0
    assert _verdicts(result.records) == _verdicts(run.records)
    manifest = json.loads((tmp_path / "regraded" / "manifest.json").read_text())
    assert manifest["regrade"]["source_run"] == str(run.directory.resolve())
    assert manifest["regrade"]["catalog_lock"] == cat.catalog_lock()["catalog_sha256"]


async def test_a_contract_change_is_reported_as_flips(tmp_path: Path) -> None:
    run = await offline_run(tmp_path)
    changed = tmp_path / "tasks"
    shutil.copytree(cat.TASKS_DIR, changed)
    path = changed / "payments.yaml"
    path.write_text(path.read_text().replace("{path: accounts.ACC-1002.loyalty_points, equals: 155}", "{path: accounts.ACC-1002.loyalty_points, equals: 156}"))
    result = await regrade_run(run.directory, out=tmp_path / "regraded", tasks_dir=changed)
    [change] = result.changes
    assert change.slug.startswith("payments_checkout_full_chain_02") and (change.before, change.after) == (True, False)
    assert change.components == {"state": (True, False)}
    flips = "\n".join(str(t.rows) for t in compare_runs(run.directory, tmp_path / "regraded").tables())
    assert "payments_checkout_full_chain_02" in flips


async def test_judge_failures_are_rejudged_without_running_agent_or_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plan = Plan(agent="oracle", user="scripted", judge="llm", judge_model="mock:judge", offline=False)
    config = RunConfig(out=tmp_path / "run", task=TASKS, judge="llm", infra_retries=0)
    broken = ScriptedModel(lambda m, t: "I refuse to answer in JSON")
    run = await execute_run(config, console=QUIET, components=TrialComponents(config, plan, apis={"judge": broken}))
    assert {r.failure_class for r in run.records} == {"ungraded:judge"} and all(r.ungraded for r in run.records)

    def forbidden(*args, **kwargs):  # re-grading must never build an agent or a user
        raise AssertionError("re-grading called an agent or user model")

    monkeypatch.setattr(TrialComponents, "agent", forbidden)
    monkeypatch.setattr(TrialComponents, "user", forbidden)

    def answer(messages, tools):
        if "<conversation_json" in messages[1].content:  # the consent judge (a consent check of the retry task)
            items = json.loads(messages[1].content.split('<conversation_json untrusted="true">\n', 1)[1].split("\n</conversation_json>", 1)[0])
            last = items[-1]
            return json.dumps({"granted": True, "message": last["number"], "quote": last["text"], "explanation": "asked for it"})
        transcript = json.loads(messages[1].content.split('<transcript_json untrusted="true">\n', 1)[1].split("\n</transcript_json>", 1)[0])
        first = transcript[0].split("\n", 1)[0]
        n = messages[1].content.count("\n", messages[1].content.index("<criteria>"), messages[1].content.index("</criteria>")) - 1
        items = [{"index": i + 1, "verdict": True, "message": 1, "evidence": first, "explanation": "ok"} for i in range(n)]
        return json.dumps({"criteria": items, "contradiction_found": False})

    judge_model = Model(ScriptedModel(answer), role="judge")
    result = await regrade_run(run.directory, out=tmp_path / "regraded", judge_factory=lambda: LLMJudge(judge_model), judge_name="llm:mock", only_infra=True)
    assert [r.status for r in result.records] == ["scored"] * 3
    # three reply judgements, plus one consent judgement (the $50 retry's gated transfer)
    assert result.rejudged == 3 and len(judge_model.api.requests) == 4
    [retry] = [r for r in result.records if r.key.task_id == "payments_transfer_insufficient_then_retry_01"]
    assert retry.consent_judgement is not None and retry.consent_judgement.judge.startswith("llm-consent:")
    assert retry.verdict is not None and retry.verdict.components["consent"] is True
    assert all(r.verdict is not None and r.verdict.judge == "llm:mock:scripted" for r in result.records)


async def test_format_1_records_are_regraded_from_the_task(tmp_path: Path) -> None:
    run = await offline_run(tmp_path)
    for path in (run.directory / "trials").glob("*/*.json"):  # strip what format 2 added
        data = json.loads(path.read_text())
        for key in ("record_format", "initial_state", "execution_failure", "judgement", "criteria_hash"):
            data.pop(key, None)
        path.write_text(json.dumps(data))
    result = await regrade_run(run.directory, out=tmp_path / "regraded")
    assert result.changes == [] and result.rejudged == 0
    assert all(r.record_format == 2 and r.initial_state for r in result.records)


async def test_unknown_task_and_missing_run_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(RegradeError, match="not a run directory"):
        await regrade_run(tmp_path / "nothing")
    run = await offline_run(tmp_path)
    record = run.records[0]
    task = cat.get_task(record.key.task_id)
    same, asked = await grade_record(record, task)
    assert same.verdict == record.verdict and not asked


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
def test_cli_grade_writes_a_regraded_run(tmp_path: Path, capsys: pytest.CaptureFixture[str], anyio_backend: str) -> None:
    import anyio

    from harness.cli import main

    run = anyio.run(offline_run, tmp_path)
    main(["grade", str(run.directory), "--out", str(tmp_path / "cli")])
    out = capsys.readouterr().out
    assert "0 verdict(s) changed" in out and (tmp_path / "cli" / "results.md").exists()
    with pytest.raises(SystemExit) as exc:
        main(["grade", str(tmp_path / "missing")])
    assert exc.value.code == 2


def test_committed_record_schema_is_current() -> None:
    from tests.scripts import load_script

    module = load_script("export_record_schema")
    assert module.SCHEMA_PATH.read_text(encoding="utf-8") == module.record_schema(), "run: uv run python scripts/export_record_schema.py"
