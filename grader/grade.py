"""Grade one trial: apply exactly the checks its contract declares to the frozen evidence, and the domain
policy's rule on refused attempts, which holds for every trial (grader/refusals.py)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from contracts.evidence import Evidence
from contracts.schema import ReplyCriterion, Task
from grader.checks import PROGRAMMATIC_CHECKS
from grader.consent import ConsentJudge, ConsentOutput, consent_verdicts, judge_consent, rule_consent, ungraded_consent
from grader.judge import Judge, JudgeOutput
from grader.prepared import (  # noqa: F401  (re-exported: the grader's public names stay where they were)
    MIN_QUOTE_ALNUM,
    MIN_QUOTE_WORDS,
    QUOTE_SEPARATOR,
    JudgeFailure,
    Prepared,
    prepare,
    quote_problem,
    quote_spans,
    unescape_quote,
)
from grader.availability import availability_checks
from grader.refs import Unresolved, resolve
from grader.refusals import refusal_checks
from grader.text.evidence import EvidenceJudge
from grader.text.values import durations, find_values, id_mentions
from grader.verdicts import CheckVerdict, Component, TrialVerdict, roll_up

if TYPE_CHECKING:
    from grader.memo import ContractMemo, GradeMemo
    from servers.base import ToolEnvironment


def fact_problem(quote: str, criterion: ReplyCriterion) -> str | None:
    """Why a model's quote does not contain the fact the criterion asks for, or None: when the criterion
    names values (amounts, dates, times, ids), the quote must state at least one of them, in any written
    form (an id too in the other writings the offline judge reads, `values.id_mentions`; a span of time in other
    units or words, "a day" for "24 hours", `values.durations`), or one of the
    criterion's evidence phrases (a passing verdict must rest on the passage that
    states the fact, not on a sentence next to it)."""
    from grader.text.matching import contains

    # values the criterion writes in digits, dates, times or ids; its number words ("the three campaigns",
    # "one step at a time") are prose, not the asked value (a quote may still state a value in words)
    # "P3" / "tier 2" name a label, like a status word: matched as the criterion's evidence, not required here
    wanted = [v for v in find_values(criterion.criterion) if (not v.text[:1].isalpha() or v.kind != "number") and v.kind != "level"]
    if not wanted:
        return None
    text = unescape_quote(quote)
    stated = find_values(text)
    if any(w.same(s) or s.same(w) for w in wanted for s in stated):
        return None
    if any(w.kind == "id" and id_mentions(str(w.value), text) for w in wanted):
        return None  # the id in another writing the reply judge also reads: "case 5006", "INC 2004", "order #9002"
    spans = {seconds for seconds, _, _ in durations(criterion.criterion)}
    if spans and any(seconds in spans for seconds, _, _ in durations(text)):
        return None  # a span of time in other words: "more than a day" for "after 24 hours"
    phrases = [p for item in criterion.evidence for p in ([item] if isinstance(item, str) else item)]
    if any(contains(p, text) for p in phrases):
        return None  # the quote states the fact in the author's own evidence words
    return "the quote states none of the criterion's values (" + ", ".join(repr(w.text) for w in wanted) + ")"


def validate_judgement(output: JudgeOutput, n_criteria: int, assistant_messages: list[str], criteria: list[ReplyCriterion] | None = None) -> None:
    """Spec A.2 local validation: one verdict per criterion; every passing verdict's quote is substantive
    and each of its spans occurs verbatim in one visible assistant message; with `criteria`, a model's
    passing quote must also state one of the criterion's values when it names any."""
    if len(output.criteria) != n_criteria:
        raise JudgeFailure(f"judge {output.judge} returned {len(output.criteria)} verdicts for {n_criteria} criteria")
    for i, item in enumerate(output.criteria):
        if item.passed and criteria is not None and criteria[i].is_guard and not (item.quote or "").strip():
            continue  # a mention guard passes on what the replies do not say: there is nothing to quote
        if item.passed:
            # The offline evidence judge quotes whole sentences it found itself; a model's quote must
            # also be substantive and state the fact.
            model = output.judge != "evidence"
            problem = quote_problem(item.quote, assistant_messages, substantive=model)
            if problem is None and model and criteria is not None and not criteria[i].is_guard:
                problem = fact_problem(item.quote, criteria[i])
            if problem:
                raise JudgeFailure(f"judge {output.judge}: criterion {i + 1}: {problem}")  # numbered as the judges' requests number them


REFERENCE_COMPONENT: dict[str, Component] = {
    "expected_actions": "action",
    "expected_params": "params",
    "order": "order",
    "reply_criteria": "reply",
    "expected_state": "state",
    "forbidden_state": "state",
    "forbidden_actions": "forbidden",
    "forbidden_params": "forbidden",
    "attempt_limits": "forbidden",
    "protected_state": "collateral",
    "only_changes": "collateral",
}
"""Which component an unresolvable `${tool.field}` in a family fails (a new family defaults to its own
component name when that is one, else `reply`)."""


VACUOUS_WHEN_UNRESOLVED = frozenset({"only_changes", "forbidden_params", "forbidden_state", "protected_state", "consent", "attempt_limits"})
"""Families whose items only allow or forbid something: an item naming a result the trial never produced
(the record `${book_flight.booking_id}` of a trial that booked nothing) allows or forbids nothing, so it
cannot fail - a no-op run must not break a negative check. Every other family needs the result."""


def reference_verdicts(unresolved: list[Unresolved]) -> list[CheckVerdict]:
    """One failing check per unresolvable reference of a family that needs the result (see
    VACUOUS_WHEN_UNRESOLVED): the check that depends on it cannot pass."""
    from typing import get_args

    components = set(get_args(Component))
    unresolved = [u for u in unresolved if u.family not in VACUOUS_WHEN_UNRESOLVED]
    return [
        CheckVerdict(
            component=REFERENCE_COMPONENT.get(u.family) or (u.family if u.family in components else "reply"),  # type: ignore[arg-type]
            check=f"reference {u.location} {u.reference}",
            passed=False,
            reason=f"{u.location} names a result the trial never produced: {u.reason}",
            diff=u.reason,
        )
        for u in unresolved
    ]


def _unresolved_criteria(unresolved: list[Unresolved]) -> dict[int, str]:
    out: dict[int, str] = {}
    for u in unresolved:
        if u.family == "reply_criteria" and u.location.startswith("reply_criteria["):
            index = int(u.location[len("reply_criteria[") :].split("]", 1)[0])
            out.setdefault(index, u.reason)
    return out


def record_checks(prepared: Prepared) -> list[CheckVerdict]:
    """The checks that read only the record (every programmatic family, and the references no call
    produced): none waits for a judge, so a trial can work them out while its judges are being asked."""
    task, evidence, unresolved = prepared
    checks = [verdict for family in PROGRAMMATIC_CHECKS for verdict in family(task.contract, evidence)]
    checks.extend(reference_verdicts(unresolved))
    checks.extend(refusal_checks(task, evidence, _environment(task.domain)))
    checks.extend(availability_checks(task, evidence))  # what the replies say is free or taken (grader/availability.py)
    return checks


def _environment(domain: str) -> type[ToolEnvironment] | None:
    """The domain's tool environment, or None for a domain the registry does not know (a synthetic test)."""
    from servers.registry import UnknownDomain, environment_class

    try:
        return environment_class(domain)
    except UnknownDomain:
        return None


def ungraded_verdict(task: Task, evidence: Evidence, reason: str, model_failure: str | None = None) -> TrialVerdict:
    """The verdict of a trial whose judge failed after retries: every programmatic check as usual, and
    every reply criterion recorded as not passed ("ungraded"), so strict success is impossible."""
    raw_evidence = evidence
    prepared = prepare(task, evidence)
    task = prepared[0]
    checks = record_checks(prepared)
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
    checks.extend(ungraded_consent(task.contract, reason))
    return roll_up(task.id, checks, model_failure=model_failure or trace_model_failure(raw_evidence), judge=UNGRADED)


UNGRADED = "ungraded"


def reply_verdicts(task: Task, output: JudgeOutput, unresolved: dict[int, str] | None = None) -> list[CheckVerdict]:
    """One verdict per criterion; a criterion naming a result the trial never produced fails whatever
    the judge said (`unresolved`: criterion index -> why)."""
    criteria = task.contract.reply_criteria or []
    unresolved = unresolved or {}
    out = []
    for i, (criterion, judgement) in enumerate(zip(criteria, output.criteria, strict=True)):
        passed = judgement.passed and i not in unresolved
        explanation = judgement.explanation if i not in unresolved else f"unresolvable reference: {unresolved[i]}"
        out.append(
            CheckVerdict(
                component="reply",
                check=f"reply_criteria[{i}]",
                passed=passed,
                reason=f"{criterion.criterion}: {explanation}",
                diff=None if passed else explanation,
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
    task: Task,
    evidence: Evidence,
    output: JudgeOutput | None,
    model_failure: str | None,
    consent: ConsentOutput | None = None,
    prepared: Prepared | None = None,
    memo: GradeMemo | None = None,
    recorded: list[CheckVerdict] | None = None,
) -> TrialVerdict:
    model_failure = model_failure or trace_model_failure(evidence)
    prepared = prepared or prepare(task, evidence, memo)
    task, evidence, unresolved = prepared
    checks = list(recorded) if recorded is not None else record_checks(prepared)
    if output is not None:
        validate_judgement(output, len(task.contract.reply_criteria or []), evidence.assistant_messages(), task.contract.reply_criteria)
        checks.extend(reply_verdicts(task, output, _unresolved_criteria(unresolved)))
    if task.contract.consent:
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


async def judge_replies(task: Task, evidence: Evidence, judge: Judge | None = None, *, memo: ContractMemo | None = None) -> JudgeOutput | None:
    """The reply judgement of a trial (None when the task declares no reply criteria). `memo`: the run's
    resolutions of this task's contract (`prepare` has just resolved it for this record)."""
    if not task.contract.reply_criteria:
        return None
    judge = judge or EvidenceJudge()
    criteria = (memo.resolve if memo is not None else resolve)(task.contract, evidence)[0].reply_criteria or []
    return await judge.judge(task.instruction, criteria, evidence.assistant_messages())


def grade_with(
    task: Task,
    evidence: Evidence,
    output: JudgeOutput | None,
    *,
    model_failure: str | None = None,
    consent: ConsentOutput | None = None,
    prepared: Prepared | None = None,
    recorded: list[CheckVerdict] | None = None,
) -> TrialVerdict:
    """The verdict from evidence plus an already obtained reply judgement (validated here) and consent
    answers (`consent`; None: the offline consent rule decides). `prepared`: `prepare(task, evidence)`
    when the caller already has it (the consent judge needed it too), so it is not worked out twice;
    `recorded`: `record_checks(prepared)`, likewise (worked out while the judges were asked)."""
    return _verdict(task, evidence, output, model_failure, consent, prepared, recorded=recorded)


async def grade(
    task: Task, evidence: Evidence, *, judge: Judge | None = None, model_failure: str | None = None, consent_judge: ConsentJudge | None = None
) -> TrialVerdict:
    """The strict verdict of a trial. Programmatic checks are authoritative; the judge only adds reply checks
    (and `consent_judge` the consent checks; None: the offline consent rule)."""
    output = await judge_replies(task, evidence, judge)
    consent = await judge_consent(task, evidence, consent_judge) if consent_judge is not None else None
    return _verdict(task, evidence, output, model_failure, consent)


def grade_offline(task: Task, evidence: Evidence, *, model_failure: str | None = None, memo: GradeMemo | None = None) -> TrialVerdict:
    """Synchronous grading with the evidence judge (no I/O), for release gates and mutation testing.
    `memo`: one task's many trajectories share the pure steps (grader/memo.py; the verdict is identical)."""
    output = None
    if task.contract.reply_criteria:
        if memo is None:
            criteria = resolve(task.contract, evidence)[0].reply_criteria or []
            output = EvidenceJudge().judge_sync(criteria, evidence.assistant_messages())
        else:
            output = memo.judge_sync(memo.resolve(task.contract, evidence)[0], evidence.assistant_messages())
    return _verdict(task, evidence, output, model_failure, memo=memo)
