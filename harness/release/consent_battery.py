"""The consent paraphrase battery of the release gate (issue 37).

For every consent check of a task, the customer's deciding message of the gold path is replaced by each
answer of the bank (`contracts/paraphrase_banks.yaml`, key `consent`) and the consent check alone is
graded on the rewritten dialogue (no world is replayed: the gated calls and their results are the gold
path's):
- every general yes-form must be granted (kind `grants`; a refusal is a false failure);
- every decline, deferral and broken condition must be refused (kinds `declines`, `deferrals`,
  `broken_conditions`; a grant is a miss). A broken condition states a bound the gated call breaks (an
  amount below its amounts, a date before its dates) or one nothing in the record can check.

Placement tests the rule, not the placement: the answer stands where the gold customer decides, as the
answer to the agent's proposal. Where the gold agent's message before it does not put this call to the
customer (a request-type decision: "please close the case"), a proposal sentence naming the call (its
action, its record and the check's `proposal` terms) is appended to that message; where the call is made
in the first turn, the customer's first message stays, the proposal follows it and the answer becomes
turn 1 with the gated calls. The banks are written independently of the rule's lexicon and of every
task's gold dialogue.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, Field

from contracts.catalog import CONTRACTS_DIR
from contracts.evidence import Evidence, Message, ToolCallRecord
from contracts.schema import Task
from contracts.yaml_io import read_yaml
from grader.consent import NO_DECISION, ConsentQuestion, GatedCall, check_name, fold, gated_calls, names_call, puts_decision, step
from grader.consent_language import amounts, dates, flatten


BANKS_PATH = CONTRACTS_DIR / "paraphrase_banks.yaml"
KINDS = ("grants", "declines", "deferrals", "broken_conditions")
MUST_GRANT = frozenset({"grants"})


class BrokenConditions(BaseModel):
    amount: list[str] = Field(min_length=1)
    date: list[str] = Field(min_length=1)
    unverifiable: list[str] = Field(min_length=1)


class ConsentBank(BaseModel):
    """The `consent` section of the paraphrase banks."""

    grants: list[str] = Field(min_length=5)
    declines: list[str] = Field(min_length=5)
    deferrals: list[str] = Field(min_length=5)
    broken_conditions: BrokenConditions


@lru_cache(maxsize=4)
def load_bank(path: Path = BANKS_PATH) -> ConsentBank:
    return ConsentBank.model_validate(read_yaml(path.read_text())["consent"])


@dataclass
class ConsentCase:
    check: int
    kind: str
    answer: str

    @property
    def case_id(self) -> str:
        return f"consent/{self.kind}/{self.check}/{self.answer[:40]}"


@dataclass
class ConsentOutcome:
    case: ConsentCase
    granted: bool
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.granted if self.case.kind in MUST_GRANT else not self.granted


@dataclass
class ConsentBatteryResult:
    """One task's consent battery: its outcomes, and the declared checks a refusal killed."""

    outcomes: list[ConsentOutcome] = field(default_factory=list)
    kills: dict[str, str] = field(default_factory=dict)


def _month_day(day: tuple[int | None, int, int]) -> datetime.date:
    year, month, dom = day
    return datetime.date(year or 2026, month, dom)


def broken_answers(bank: ConsentBank, calls: list[ToolCallRecord]) -> list[str]:
    """The bank's broken conditions for these calls: an amount below every amount of the calls, a date
    before every date of them (templates the calls cannot fill are skipped), and the unverifiable ones."""
    records = [flatten(c.arguments) + flatten(c.result) for c in calls]
    out = list(bank.broken_conditions.unverifiable)
    found_amounts = [a for r in records for a in amounts(r, ()) if a > 0]
    if found_amounts:
        below = min(found_amounts) / 2
        text = f"${below.quantize(Decimal('0.01'))}"
        out += [t.format(amount_below=text) for t in bank.broken_conditions.amount]
    found_dates = [d for r in records for d in dates(r)]
    if found_dates:
        earliest = min(_month_day(d) for d in found_dates) - datetime.timedelta(days=1)
        text = earliest.strftime("%B %d").replace(" 0", " ")
        out += [t.format(date_before=text) for t in bank.broken_conditions.date]
    return out


def _proposal_sentence(question: ConsentQuestion) -> str:
    """A proposal naming the call: its action and object (the tool's words), its record ids and the
    check's `proposal` terms."""
    ids = sorted({str(v) for call in question.calls for _, v in flatten(call.arguments) if isinstance(v, str) and "-" in v and any(ch.isdigit() for ch in v) and len(v) <= 24})
    terms = [item if isinstance(item, str) else item[0] for item in question.check.proposal or []]
    what = question.tool.replace("_", " ")
    detail = ", ".join([*ids, *terms])
    return f"I can {what} now{f' ({detail})' if detail else ''}. Shall I go ahead?"


def placement(evidence: Evidence, check_index: int, task: Task) -> ConsentQuestion:
    """The question of the check's first gated turn, its conversation ending where the customer decides:
    the answer goes after it (see the module docstring)."""
    check = (task.contract.consent or [])[check_index]
    calls = gated_calls(check, evidence)
    turn = min(c.turn for c in calls)
    gated = [GatedCall(arguments=c.arguments, status=c.status, result=c.result) for c in calls if c.turn == turn]
    question = ConsentQuestion(check=check, tool=check.tool, turn=turn, conversation=[], calls=gated)
    before = [m for m in evidence.conversation if m.turn < turn]
    if turn == 0:
        first = next(m for m in evidence.conversation if m.turn == 0 and m.role == "user")
        before = [first, Message(role="assistant", content=_proposal_sentence(question), turn=0)]
        turn = 1
    else:
        last = before[-1]
        if last.role != "assistant" or not (puts_decision(last.content) and names_call(last.content, question)):
            before = [*before[:-1], last.model_copy(update={"content": f"{last.content} {_proposal_sentence(question)}"})]
    question.conversation = before
    question.turn = turn
    return question


def run_consent_battery(task: Task, evidence: Evidence, bank: ConsentBank | None = None) -> ConsentBatteryResult:
    """Grade the consent checks of a prepared task (contract resolved and canonical) on every bank answer
    placed in its prepared gold evidence. The rule reads the dialogue up to the decision once per check
    (`grader.consent.fold`) and then each answer (`grader.consent.step`): the same verdict as reading
    every rewritten dialogue whole (tests/test_consent_battery.py)."""
    bank = bank or load_bank()
    result = ConsentBatteryResult()
    for index, check in enumerate(task.contract.consent or []):
        calls = gated_calls(check, evidence)
        if not calls:
            continue
        question = placement(evidence, index, task)
        prefix = fold(question)
        answers = {"grants": bank.grants, "declines": bank.declines, "deferrals": bank.deferrals, "broken_conditions": broken_answers(bank, [c for c in calls if c.turn == min(x.turn for x in calls)])}
        for kind in KINDS:
            for answer in answers[kind]:
                case = ConsentCase(index, kind, answer)
                message = Message(role="user", content=answer, turn=question.turn)
                verdict = step(prefix.copy(), len(question.conversation), message, question).verdict
                granted = verdict is not None and verdict.granted
                result.outcomes.append(ConsentOutcome(case, granted, verdict.explanation if verdict else NO_DECISION))
                if not granted and kind not in MUST_GRANT:
                    result.kills.setdefault(check_name(index, check), f"consent battery {case.case_id}")
    return result


def placed(evidence: Evidence, check_index: int, task: Task, answer: str) -> Evidence:
    """The rewritten evidence of one case, whole (for tests and for reading a case): the placement's
    conversation, the answer, and the gated calls in the answer's turn."""
    question = placement(evidence, check_index, task)
    check = (task.contract.consent or [])[check_index]
    calls = gated_calls(check, evidence)
    first = min(c.turn for c in calls)
    conversation = [*question.conversation, Message(role="user", content=answer, turn=question.turn)]
    return Evidence(conversation=conversation, tool_trace=[c.model_copy(update={"turn": question.turn}) for c in calls if c.turn == first])


def consent_table(rows: list[tuple[str, str, str, bool]]) -> dict[str, dict[str, object]]:
    """domain (and "all") -> checks and [refused or granted as required, total] per kind, from one
    (domain, task id, case id, ok) row per consent battery case."""
    table: dict[str, dict[str, object]] = {}
    for domain in sorted({d for d, *_ in rows}) + ["all"]:
        mine = [r for r in rows if domain in ("all", r[0])]
        counts = {}
        for kind in KINDS:
            of_kind = [ok for _, _, case, ok in mine if case.split("/")[1] == kind]
            counts[kind] = [sum(of_kind), len(of_kind)]
        checks = len({(task, case.split("/")[2]) for _, task, case, _ in mine})
        table[domain] = {"checks": checks, **counts}
    return table
