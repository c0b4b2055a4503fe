"""The held-out consent part of the calibration set (issue 37): labelled customer answers to an agent's
proposal, for measuring a consent judge (`grader.consent`) the way `grader.calibration` measures a reply
judge.

A reply case (criterion, replies → stated or not) cannot hold a consent case: consent is decided on a
conversation with roles (the agent's proposal, then the customer's answer), against one of the task's
consent checks, and a conditional answer ("yes if it's under $30") is kept or broken by the arguments of
the call that follows. So a consent case has its own schema (`ConsentCase`), in
`contracts/judge_calibration/heldout_consent/<domain>.yaml`: the task and the tool of its consent check
(the check is taken from the catalog when measured), the conversation up to the gated call (ending with
the customer's answer), the later call's arguments, and whether a careful reviewer says the customer
granted the decision.

The case's `call` reaches the judge as the question's gated call (`question_for`), exactly as a graded
trial's record does: a condition ("yes if it's under $250", "as long as it's not the enterprise plan") is
checked on the call's arguments by both judges, in calibration and in real grading alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from contracts.evidence import Message
from contracts.schema import ConsentCheck
from grader.calibration import (
    CALIBRATION_DIR,
    SECOND_LABEL,
    CalibrationError,
    CheckReport,
    Outcome,
    agreement,
    checked_ids,
    domain_cases,
    reviewer_figures,
)
from grader.consent import ConsentJudge, ConsentQuestion, GatedCall
from grader.values import args_match

CONSENT_SPLIT = "heldout_consent"
CONSENT_DIRNAME = "heldout_consent"
ConsentKind = Literal[
    # labelled granted
    "yes_form", "repeats_request", "conditional_kept", "upfront_request",
    # labelled not granted
    "decline", "deferral", "conditional_broken", "conditional_unverifiable", "question_back", "other_subject",
]


class ConsentTurn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    role: Literal["user", "assistant"]
    text: str = Field(min_length=1)


class ConsentCase(BaseModel):
    """One held-out consent case as written; `check` picks among several consent checks on one tool."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=3)
    task: str = Field(min_length=3)
    tool: str = Field(min_length=2)
    check: int | None = Field(default=None, ge=0, description="index into the task's consent checks, when several gate `tool`")
    conversation: list[ConsentTurn] = Field(min_length=1)
    call: dict[str, Any] | None = Field(default=None, description="the arguments of the gated call that follows the conversation")
    expected: bool = Field(description="the customer granted the decision (a careful reviewer's verdict)")
    kind: ConsentKind
    why: str = Field(min_length=8)
    second: bool | None = Field(default=None, description=SECOND_LABEL)

    @model_validator(mode="after")
    def _ends_with_the_customer(self) -> ConsentCase:
        if self.conversation[-1].role != "user":
            raise ValueError("conversation must end with the customer's message the gated call follows")
        return self


class ResolvedConsentCase(BaseModel):
    domain: str
    case: ConsentCase
    check: ConsentCheck


def load_consent(checks: Mapping[str, Sequence[ConsentCheck]], directory: Path = CALIBRATION_DIR / CONSENT_DIRNAME,
                 domains: list[str] | None = None) -> list[ResolvedConsentCase]:
    """Every consent case with its check resolved from `checks` (task id → the task's consent checks). An
    unknown task, no (or an ambiguous) check on the tool, or a check with a `${...}` reference is an error
    naming the file and the case."""
    out: list[ResolvedConsentCase] = []
    for path, domain, case in domain_cases(directory, ConsentCase, domains, checks):
        indexed = [(i, c) for i, c in enumerate(checks[case.task]) if c.tool == case.tool and (case.check is None or i == case.check)]
        if len(indexed) != 1:
            known = ", ".join(f"{i}: {c.tool}" for i, c in enumerate(checks[case.task])) or "none"
            raise CalibrationError(f"{path}: case {case.id}: task {case.task} has {len(indexed)} consent checks on {case.tool!r}"
                                   f"{'' if case.check is None else f' at index {case.check}'} (its checks: {known})")
        check = indexed[0][1]
        if "${" in check.model_dump_json():
            raise CalibrationError(f"{path}: case {case.id}: the consent check holds a result reference; held-out cases use literal checks")
        if case.call is not None and check.params and not args_match(check.params, case.call):
            raise CalibrationError(f"{path}: case {case.id}: the call {case.call} is not gated by the check (params {check.params})")
        out.append(ResolvedConsentCase(domain=domain, case=case, check=check))
    checked_ids([(r.domain, r.case) for r in out], domains)  # ids unique, every --domain present
    return out


def question_for(resolved: ResolvedConsentCase) -> ConsentQuestion:
    """The question a consent judge is asked for the case's gated call: every customer message opens a
    turn, the agent's reply shares it, and the call (its arguments, as the case gives them) comes right
    after the last customer message."""
    messages, turn = [], -1
    for entry in resolved.case.conversation:
        turn += entry.role == "user"
        messages.append(Message(role=entry.role, content=entry.text, turn=max(turn, 0)))
    calls = [] if resolved.case.call is None else [GatedCall(arguments=resolved.case.call)]
    return ConsentQuestion(check=resolved.check, tool=resolved.check.tool, turn=max(turn, 0), conversation=messages, calls=calls)


async def measure_consent(judge: ConsentJudge, cases: list[ResolvedConsentCase], *, prompt: str | None, set_sha: str,
                          split: str = CONSENT_SPLIT) -> CheckReport:
    """Ask the consent judge every case and compare `granted` with the labels; a judge failure (invalid
    output after retries) counts as a disagreement, never as agreement."""
    from grader.consent import validate_consent
    from grader.grade import JudgeFailure

    outcomes: list[Outcome] = []
    for resolved in cases:
        question = question_for(resolved)
        try:
            judgement = await judge.judge(question)
            validate_consent(judgement, question, judge.name)
            got: bool | None = judgement.granted
            explanation = judgement.explanation
        except JudgeFailure as exc:
            got, explanation = None, str(exc)
        outcomes.append(Outcome(id=resolved.case.id, domain=resolved.domain, kind=resolved.case.kind, expected=resolved.case.expected,
                                got=got, explanation=explanation[:400], second=resolved.case.second))

    def groups(key: str) -> dict:
        return {k: agreement([o for o in outcomes if getattr(o, key) == k]) for k in sorted({getattr(o, key) for o in outcomes})}
    return CheckReport(judge=judge.name, prompt=prompt, set_sha256=set_sha, split=split, overall=agreement(outcomes),
                       by_domain=groups("domain"), by_kind=groups("kind"), disagreements=[o for o in outcomes if o.got is not o.expected],
                       reviewers=reviewer_figures(outcomes))
