"""Grade one trial: apply exactly the checks its contract declares to the frozen evidence."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from contracts.evidence import Evidence
from contracts.schema import Task
from grader.checks import PROGRAMMATIC_CHECKS
from grader.judge import EvidenceJudge, Judge, JudgeOutput
from grader.verdicts import CheckVerdict, TrialVerdict, roll_up

if TYPE_CHECKING:
    from grader.consent import ConsentJudge, ConsentOutput


class JudgeFailure(RuntimeError):
    """The judge's output was unusable (wrong criteria count, fabricated quote). After the judge's own
    retries the trial is *ungraded*: it stays in the denominator as a non-pass (a derailed judge must
    never be a way to dodge a failing grade) and the run is reported incomplete; a rerun re-judges it."""


MIN_QUOTE_ALNUM = 4
"""A passing verdict's quote needs at least this many letters/digits, unless it is a whole message."""


def unescape_quote(quote: str) -> str:
    """A quote copied from the JSON transcript may keep its escapes (`\\u003c`): read them back."""
    return quote.replace("\\u003c", "<").replace("\\u003e", ">").replace("\\u0026", "&")


def quote_problem(quote: str, assistant_messages: list[str], *, substantive: bool = True) -> str | None:
    """Why `quote` cannot support a passing verdict, or None: it must be substantive (not blank, not one
    character or a fragment: at least `MIN_QUOTE_ALNUM` letters or digits, unless it is a whole message)
    and occur verbatim inside ONE assistant message (never spanning two, never from the user)."""
    quote = unescape_quote(quote or "")
    stripped = quote.strip()
    if not stripped:
        return "the quote is empty"
    whole = any(stripped == m.strip() for m in assistant_messages)
    if substantive and sum(ch.isalnum() for ch in stripped) < MIN_QUOTE_ALNUM and not whole:
        return f"the quote {stripped[:40]!r} is not substantive"
    if not any(stripped in m for m in assistant_messages):
        return f"the quote does not occur in any single assistant message: {stripped[:120]!r}"
    return None


def validate_judgement(output: JudgeOutput, n_criteria: int, assistant_messages: list[str]) -> None:
    """Spec A.2 local validation: one verdict per criterion; every passing verdict's quote is substantive
    and occurs verbatim in one visible assistant message."""
    if len(output.criteria) != n_criteria:
        raise JudgeFailure(f"judge {output.judge} returned {len(output.criteria)} verdicts for {n_criteria} criteria")
    for i, item in enumerate(output.criteria):
        if item.passed:
            # The offline evidence judge quotes whole sentences it found itself; a model's quote must
            # also be substantive.
            problem = quote_problem(item.quote, assistant_messages, substantive=output.judge != "evidence")
            if problem:
                raise JudgeFailure(f"judge {output.judge}: criterion {i}: {problem}")


def ungraded_verdict(task: Task, evidence: Evidence, reason: str, model_failure: str | None = None) -> TrialVerdict:
    """The verdict of a trial whose judge failed after retries: every programmatic check as usual, and
    every reply criterion recorded as not passed ("ungraded"), so strict success is impossible."""
    checks: list[CheckVerdict] = []
    for family in PROGRAMMATIC_CHECKS:
        checks.extend(family(task.contract, evidence))
    for i, criterion in enumerate(task.contract.reply_criteria or []):
        checks.append(
            CheckVerdict(
                component="reply",
                check=f"reply_criteria[{i}]",
                passed=False,
                reason=f"{criterion.criterion}: ungraded, the judge failed after retries ({reason[:300]})",
                judge=UNGRADED,
            )
        )
    from grader.consent import ungraded_consent

    checks.extend(ungraded_consent(task.contract, reason))
    return roll_up(task.id, checks, model_failure=model_failure or trace_model_failure(evidence), judge=UNGRADED)


UNGRADED = "ungraded"


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


def _verdict(
    task: Task, evidence: Evidence, output: JudgeOutput | None, model_failure: str | None, consent: ConsentOutput | None = None
) -> TrialVerdict:
    model_failure = model_failure or trace_model_failure(evidence)
    checks: list[CheckVerdict] = []
    for family in PROGRAMMATIC_CHECKS:
        checks.extend(family(task.contract, evidence))
    if output is not None:
        validate_judgement(output, len(task.contract.reply_criteria or []), evidence.assistant_messages())
        checks.extend(reply_verdicts(task, output))
    if task.contract.consent:
        from grader.consent import consent_verdicts, rule_consent

        checks.extend(consent_verdicts(task.contract, evidence, consent or rule_consent(task.contract, evidence)))
    return roll_up(
        task.id,
        checks,
        model_failure=model_failure,
        contradiction_found=None if output is None else output.contradiction_found,
        judge=None if output is None else output.judge,
    )


def criteria_hash(task: Task) -> str | None:
    """Identifies the reply criteria a judgement answered (a changed criterion needs a new judgement)."""
    import hashlib

    criteria = task.contract.reply_criteria
    if not criteria:
        return None
    text = json.dumps([c.model_dump(mode="json") for c in criteria], sort_keys=True)
    return hashlib.sha256((task.instruction + "\n" + text).encode()).hexdigest()[:16]


async def judge_replies(task: Task, evidence: Evidence, judge: Judge | None = None) -> JudgeOutput | None:
    """The reply judgement of a trial (None when the task declares no reply criteria)."""
    if not task.contract.reply_criteria:
        return None
    judge = judge or EvidenceJudge()
    return await judge.judge(task.instruction, task.contract.reply_criteria, evidence.assistant_messages())


def grade_with(
    task: Task, evidence: Evidence, output: JudgeOutput | None, *, model_failure: str | None = None, consent: ConsentOutput | None = None
) -> TrialVerdict:
    """The verdict from evidence plus an already obtained reply judgement (validated here) and consent
    answers (`consent`; None: the offline consent rule decides)."""
    return _verdict(task, evidence, output, model_failure, consent)


async def grade(
    task: Task, evidence: Evidence, *, judge: Judge | None = None, model_failure: str | None = None, consent_judge: ConsentJudge | None = None
) -> TrialVerdict:
    """The strict verdict of a trial. Programmatic checks are authoritative; the judge only adds reply checks
    (and `consent_judge` the consent checks; None: the offline consent rule)."""
    from grader.consent import judge_consent

    output = await judge_replies(task, evidence, judge)
    consent = await judge_consent(task, evidence, consent_judge) if consent_judge is not None else None
    return _verdict(task, evidence, output, model_failure, consent)


def grade_offline(task: Task, evidence: Evidence, *, model_failure: str | None = None) -> TrialVerdict:
    """Synchronous grading with the evidence judge (no I/O), for release gates and mutation testing."""
    output = None
    if task.contract.reply_criteria:
        output = EvidenceJudge().judge_sync(task.contract.reply_criteria, evidence.assistant_messages())
    return _verdict(task, evidence, output, model_failure)
