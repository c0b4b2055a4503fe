"""Grade from the record: re-grade (and re-judge only where needed) a recorded run without re-running it.

A trial record holds the four evidence channels, the initial state and how execution ended, so its
verdict is a pure function of (record, task contract, reply judgement). `regrade_run` applies the
current catalog (or another catalog directory) to every recorded trial:

- the programmatic checks are recomputed from the record;
- the reply judgement is reused when the task's criteria are unchanged and no other judge was asked for,
  otherwise the judge is asked again (spec A.2: a judge failure is re-judged, never re-run);
- trials the judge could not grade (`ungraded`, or ⊥ `infra:judge` when the judge's provider was down)
  are re-judged from the record; ⊥ trials whose execution never finished (provider outage, crash) stay
  ⊥ - only a re-run can fix them.

The result is a new run directory whose manifest names the source run, the catalog lock used, the judge,
and every verdict that changed. `grade_record` is the same operation for one record, for harnesses in
other languages (the control plane's `POST /control/grade`, body: `GradeRequest`).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contracts import catalog as cat
from pydantic import BaseModel, ConfigDict, Field

from contracts.evidence import Evidence, Message, RoutingDecision, ToolCallRecord
from contracts.schema import Task
from grader.consent import consent_hash, judge_consent
from grader.consent_judges import consent_judge_for
from grader.grade import JudgeFailure, criteria_hash, grade_with, judge_replies, ungraded_verdict
from grader.judge import CriterionJudgement, Judge, JudgeOutput
from grader.text.evidence import EvidenceJudge
from grader.verdicts import TrialVerdict
from harness.records import RECORD_FORMAT, TrialKey, TrialRecord
from harness.rundir import RunDirectory
from models.base import ModelError
from servers.registry import environment_class

log = logging.getLogger(__name__)

JudgeFactory = Callable[[], Judge]


class RegradeError(ValueError):
    """The source run cannot be re-graded as asked (missing directory, unknown task); the message says why."""


@dataclass
class Change:
    slug: str
    before: bool | None
    after: bool | None
    components: dict[str, tuple[bool | None, bool | None]]
    note: str = ""


@dataclass
class RegradeResult:
    directory: Path
    records: list[TrialRecord]
    changes: list[Change] = field(default_factory=list)
    rejudged: int = 0
    reused: int = 0
    still_infra: int = 0


class GradeRequest(BaseModel):
    """The minimal trial record an outside harness sends to be graded (`POST /control/grade`)."""

    model_config = ConfigDict(extra="ignore")

    task_id: str
    conversation: list[Message]
    tool_trace: list[ToolCallRecord]
    final_state: dict[str, Any]
    initial_state: dict[str, Any] | None = None
    routing: list[RoutingDecision] = Field(default_factory=list)
    execution_failure: str | None = None


async def grade_request(request: GradeRequest, task: Task, judge: Judge | None = None) -> TrialRecord:
    """Grade an outside harness's record of one trial of `task`."""
    record = TrialRecord(
        record_format=RECORD_FORMAT,
        key=TrialKey(task_id=task.id, round=0, seed=0),
        domain=task.domain,
        difficulty=task.difficulty,
        capabilities=task.capabilities,
        agent="external",
        status="scored",
        strict=None,
        conversation=request.conversation,
        routing=request.routing,
        tool_trace=request.tool_trace,
        final_state=request.final_state,
        initial_state=request.initial_state,
        execution_failure=request.execution_failure,
    )
    graded, _ = await grade_record(record, task, judge, rejudge=True)
    return graded


def evidence_of(record: TrialRecord, task: Task) -> Evidence:
    """The evidence a record carries. Format-1 records lack the initial state: it is rebuilt from the task,
    which is exact as long as the task's `initial_state` override and the domain's default are unchanged."""
    initial = record.initial_state
    if initial is None:
        initial = environment_class(task.domain).initial_state(task.initial_state).model_dump(mode="json")
    return Evidence(
        conversation=record.conversation,
        routing=record.routing,
        tool_trace=record.tool_trace,
        initial_state=initial,
        final_state=record.final_state,
    )


def _execution_failure(record: TrialRecord) -> str | None:
    if record.record_format >= 2:
        return record.execution_failure
    if record.failure_class and record.failure_class.startswith("model:") and record.error:
        return record.error  # format 1 kept the execution failure in `error`
    return None


def _recorded_judgement(record: TrialRecord, task: Task) -> JudgeOutput | None:
    """The judgement a record already holds for the task's current criteria, if any."""
    if record.judgement is not None and record.criteria_hash == criteria_hash(task):
        return record.judgement
    if record.record_format < 2 and record.verdict is not None and task.contract.reply_criteria:
        replies = [c for c in record.verdict.checks if c.component == "reply" and c.check.startswith("reply_criteria[")]
        criteria = task.contract.reply_criteria
        if len(replies) == len(criteria) and all(c.reason.startswith(k.criterion + ":") for c, k in zip(replies, criteria, strict=True)):
            items = [CriterionJudgement(passed=c.passed, quote=c.quote or "", explanation=c.reason.split(": ", 1)[-1]) for c in replies]
            return JudgeOutput(judge=record.verdict.judge or "unknown", criteria=items, contradiction_found=bool(record.verdict.contradiction_found))
    return None


async def grade_record(record: TrialRecord, task: Task, judge: Judge | None = None, *, rejudge: bool = False) -> tuple[TrialRecord, bool]:
    """Grade one record against `task`. Returns the new record and whether the judge was asked.
    A judge failure leaves the record ⊥ (`infra:judge`), visible and re-judgeable."""
    if record.status == "infra_error" and record.failure_class != "infra:judge":
        return record, False
    evidence = evidence_of(record, task)
    judgement = None if rejudge or record.ungraded else _recorded_judgement(record, task)
    consent = None
    if not (rejudge or record.ungraded) and record.consent_hash is not None and record.consent_hash == consent_hash(task):
        consent = record.consent_judgement
    asked = False
    try:
        if judgement is None and task.contract.reply_criteria:
            asked = True
            judgement = await judge_replies(task, evidence, judge or EvidenceJudge())
        if consent is None and task.contract.consent:
            consent = await judge_consent(task, evidence, consent_judge_for(judge))
        verdict = grade_with(task, evidence, judgement, model_failure=_execution_failure(record), consent=consent)
    except JudgeFailure as exc:
        return _ungraded(record, task, evidence, str(exc)), asked
    except ModelError as exc:
        if not exc.infrastructure:
            raise
        return _infra(record, evidence, str(exc)), asked
    failure = verdict.model_failure
    updated = record.model_copy(
        update={
            "record_format": RECORD_FORMAT,
            "status": "scored",
            "strict": verdict.strict,
            "verdict": verdict,
            "failure_class": None if failure is None else "model:" + failure.split(":", 1)[0],
            "error": failure,
            "initial_state": evidence.initial_state,
            "execution_failure": _execution_failure(record),
            "judgement": judgement,
            "criteria_hash": criteria_hash(task),
            "consent_judgement": consent,
            "consent_hash": consent_hash(task),
            "ungraded": None,
            "difficulty": task.difficulty,
            "capabilities": task.capabilities,
        }
    )
    return updated, asked


def _ungraded(record: TrialRecord, task: Task, evidence: Evidence, message: str) -> TrialRecord:
    """The judge failed after retries: a visible, counted non-pass, re-judgeable later (as in a live trial)."""
    verdict = ungraded_verdict(task, evidence, message, _execution_failure(record))
    failure = verdict.model_failure
    return record.model_copy(
        update={
            "record_format": RECORD_FORMAT,
            "status": "scored",
            "strict": False,
            "verdict": verdict,
            "failure_class": "ungraded:judge" if failure is None else "model:" + failure.split(":", 1)[0],
            "error": failure or message,
            "ungraded": message,
            "initial_state": evidence.initial_state,
            "execution_failure": _execution_failure(record),
        }
    )


def _infra(record: TrialRecord, evidence: Evidence, message: str) -> TrialRecord:
    return record.model_copy(
        update={
            "record_format": RECORD_FORMAT,
            "status": "infra_error",
            "strict": None,
            "verdict": None,
            "failure_class": "infra:judge",
            "error": message,
            "initial_state": evidence.initial_state,
            "execution_failure": _execution_failure(record),
        }
    )


def _components(verdict: TrialVerdict | None) -> dict[str, bool]:
    return dict(verdict.components) if verdict is not None else {}


def _change(old: TrialRecord, new: TrialRecord) -> Change | None:
    before, after = _components(old.verdict), _components(new.verdict)
    diff = {c: (before.get(c), after.get(c)) for c in sorted(set(before) | set(after)) if before.get(c) != after.get(c)}
    if old.strict == new.strict and not diff and old.status == new.status:
        return None
    note = "" if old.status == new.status else f"{old.status} -> {new.status}"
    return Change(slug=old.key.slug, before=old.strict, after=new.strict, components=diff, note=note)


async def regrade_run(
    source: Path,
    *,
    out: Path | None = None,
    judge_factory: JudgeFactory | None = None,
    judge_name: str = "recorded",
    only_infra: bool = False,
    tasks_dir: Path | None = None,
    rejudge: bool = False,
) -> RegradeResult:
    """Re-grade every trial of the run at `source` into a new run directory (default `<source>-regraded`).
    Recorded judgements are reused where the criteria are unchanged unless `rejudge` asks the judge again."""
    source_dir = RunDirectory(source)
    manifest = source_dir.read_manifest()
    if manifest is None:
        raise RegradeError(f"{source} is not a run directory (no manifest.json)")
    records = source_dir.records()
    catalog = cat.load_catalog(tasks_dir.resolve() if tasks_dir else cat.TASKS_DIR)
    missing = sorted({r.key.task_id for r in records} - set(catalog))
    if missing:
        raise RegradeError(f"the catalog has no task {missing[0]!r} (and {len(missing) - 1} more) recorded in {source}")
    judge = judge_factory() if judge_factory else None

    result = RegradeResult(directory=out or source.with_name(source.name + "-regraded"), records=[])
    new_records = []
    for record in records:
        if only_infra and record.status == "scored" and record.ungraded is None:
            new_records.append(record)
            continue
        task = catalog[record.key.task_id]
        updated, asked = await grade_record(record, task, judge, rejudge=rejudge)
        result.rejudged += asked
        result.reused += bool(task.contract.reply_criteria) and not asked and updated.status == "scored"
        result.still_infra += updated.status == "infra_error"
        change = _change(record, updated)
        if change is not None:
            result.changes.append(change)
        new_records.append(updated)

    lock = cat.catalog_lock() if tasks_dir is None else {"catalog_sha256": _dir_hash(tasks_dir)}
    identity = json.dumps([manifest.get("config_hash"), lock.get("catalog_sha256"), judge_name, only_infra], sort_keys=True)
    new_manifest = {
        **manifest,
        "config_hash": hashlib.sha256(identity.encode()).hexdigest()[:16],
        "regrade": {
            "source_run": str(source.resolve()),
            "source_config_hash": manifest.get("config_hash"),
            "catalog_lock": lock.get("catalog_sha256"),
            "tasks_dir": str(tasks_dir) if tasks_dir else None,
            "judge": judge_name,
            "only_infra": only_infra,
            "rejudged": result.rejudged,
            "judgements_reused": result.reused,
            "still_infra": result.still_infra,
            "changed": [
                {"trial": c.slug, "strict": [c.before, c.after], "components": {k: list(v) for k, v in c.components.items()}, "note": c.note}
                for c in result.changes
            ],
        },
    }
    target = RunDirectory(result.directory)
    target.open(new_manifest)
    for record in new_records:
        target.save(record)
    target.write_traces(new_records)
    from harness.summary import summarise_regrade

    target.write_results(new_records, summarise_regrade(new_records, new_manifest))
    result.records = new_records
    return result


def _dir_hash(path: Path) -> str:
    digest = hashlib.sha256()
    for file in sorted(path.rglob("*.yaml")):
        digest.update(file.name.encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()


def judge_factory_for(kind: str, judge_model: str | None, manifest: dict[str, Any]) -> tuple[JudgeFactory | None, str]:
    """The judge a re-grade uses and its name. With `recorded` the caller re-grades without `rejudge`, so
    the judge is asked only where no recorded judgement fits; `evidence` / `llm` re-judge every reply."""
    recorded = manifest.get("judge", {}) or {}
    if kind == "evidence" or (kind == "recorded" and recorded.get("kind") != "llm"):
        return EvidenceJudge, "evidence" if kind == "evidence" else "recorded (evidence)"
    model_name = judge_model or recorded.get("model")
    if not model_name:
        raise RegradeError("no judge model: pass --judge-model provider:model")

    def llm() -> Judge:
        from grader.llm_judge import LLMJudge
        from models.model import Model
        from models.registry import get_model_api
        from models.types import GenerateConfig

        return LLMJudge(Model(get_model_api(model_name), role="judge", config=GenerateConfig(temperature=0.0)))

    return llm, f"{'llm' if kind == 'llm' else 'recorded (llm)'}:{model_name}"
