"""Grade one trial: apply exactly the checks its contract declares to the frozen evidence."""

from __future__ import annotations

from contracts.evidence import Evidence
from contracts.schema import Task
from grader.checks import PROGRAMMATIC_CHECKS
from grader.judge import EvidenceJudge, Judge, JudgeOutput
from grader.verdicts import CheckVerdict, TrialVerdict, roll_up


class JudgeFailure(RuntimeError):
    """The judge's output was unusable (wrong criteria count, fabricated quote): an infrastructure failure."""


def validate_judgement(output: JudgeOutput, n_criteria: int, assistant_messages: list[str]) -> None:
    """Spec A.2 local validation: one verdict per criterion, every quote occurs in the visible transcript."""
    if len(output.criteria) != n_criteria:
        raise JudgeFailure(f"judge {output.judge} returned {len(output.criteria)} verdicts for {n_criteria} criteria")
    transcript = "\n".join(assistant_messages)
    for i, item in enumerate(output.criteria):
        if item.passed and (not item.quote or item.quote not in transcript):
            raise JudgeFailure(f"judge {output.judge}: criterion {i} quote does not occur in the transcript: {item.quote!r}")


def reply_verdicts(task: Task, output: JudgeOutput) -> list[CheckVerdict]:
    criteria = task.contract.reply_criteria or []
    out = []
    for i, (criterion, judgement) in enumerate(zip(criteria, output.criteria, strict=True)):
        out.append(
            CheckVerdict(
                component="reply",
                check=f"reply_criteria[{i}]",
                passed=judgement.passed,
                reason=f"{criterion.criterion}: {judgement.explanation}",
                diff=None if judgement.passed else judgement.explanation,
                judge=output.judge,
                quote=judgement.quote or None,
            )
        )
    if output.contradiction_found:
        out.append(
            CheckVerdict(
                component="reply",
                check="reply_contradiction",
                passed=False,
                reason="the visible replies contradict each other",
                judge=output.judge,
            )
        )
    return out


def trace_model_failure(evidence: Evidence) -> str | None:
    """A hallucinated tool, read from the gateway's record for every agent (spec A.1: scores 0, stays in
    the denominator): a call to a tool that does not exist, or that was not exposed that turn."""
    calls = evidence.hallucinated_calls()
    if not calls:
        return None
    names = sorted({f"{c.tool} ({c.status})" for c in calls})
    return f"hallucinated_tool: {', '.join(names)}"


def _verdict(task: Task, evidence: Evidence, output: JudgeOutput | None, model_failure: str | None) -> TrialVerdict:
    model_failure = model_failure or trace_model_failure(evidence)
    checks: list[CheckVerdict] = []
    for family in PROGRAMMATIC_CHECKS:
        checks.extend(family(task.contract, evidence))
    if output is not None:
        validate_judgement(output, len(task.contract.reply_criteria or []), evidence.assistant_messages())
        checks.extend(reply_verdicts(task, output))
    return roll_up(
        task.id,
        checks,
        model_failure=model_failure,
        contradiction_found=None if output is None else output.contradiction_found,
        judge=None if output is None else output.judge,
    )


async def grade(task: Task, evidence: Evidence, *, judge: Judge | None = None, model_failure: str | None = None) -> TrialVerdict:
    """The strict verdict of a trial. Programmatic checks are authoritative; the judge only adds reply checks."""
    output = None
    if task.contract.reply_criteria:
        judge = judge or EvidenceJudge()
        output = await judge.judge(task.instruction, task.contract.reply_criteria, evidence.assistant_messages())
    return _verdict(task, evidence, output, model_failure)


def grade_offline(task: Task, evidence: Evidence, *, model_failure: str | None = None) -> TrialVerdict:
    """Synchronous grading with the evidence judge (no I/O), for release gates and mutation testing."""
    output = None
    if task.contract.reply_criteria:
        output = EvidenceJudge().judge_sync(task.contract.reply_criteria, evidence.assistant_messages())
    return _verdict(task, evidence, output, model_failure)
