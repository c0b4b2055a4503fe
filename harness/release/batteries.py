"""Validity batteries: the mistakes agents really make must fail, and valid alternatives must pass.

The falsifiability gate (`harness.release.mutations`) proves that each *declared* check can fail. These
batteries prove something stronger about the contract as a whole, generated from each task's gold path,
its world and its graph (issue "Contracts that catch the mistakes agents really make"):

- **behavioural** - plausible agent mistakes, each of which must fail strictly: repeat each write; drop
  each write; aim each write at a look-alike record of the same kind; move each write before the
  validation (or contract-named read) that precedes it, and - when that check happened in an earlier
  user turn - into that turn (acting before the customer asked or confirmed); change each non-free-text
  argument of each write;
  add an unrequested write of each write tool the task's nodes expose; attempt each forbidden action.
- **equivalence** - correct-but-different routes, each of which must pass strictly: extra reads of every
  read tool at every turn; adjacent independent reads swapped; numbers spelled 180 / 180.0 / "180"; a
  re-validation or re-read just before the write it guards.

A mutation that *adds* a call is only meaningful if the world let that call succeed: when the world
refuses it, the world itself guards the mistake and the case is reported as `guarded`, not as a miss -
except a repeated write the world refuses (a 409 on a repeated receipt): every domain policy forbids
sending a call again once the world answered it, so that case must fail strictly (`killed`). A task may exempt a generated case with a written reason
(`battery_exemptions`); the gate prints every exemption.

This module assembles the cases of every battery (`behaviour`, `equivalence`, `widened`, `replies`,
`exploits`; the case type and the gold path's helpers are in `harness.release.cases`) and judges a
played case.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from contracts.evidence import Evidence
from contracts.graph import GraphConfig
from contracts.schema import Task
from harness.release import behaviour, equivalence, exploits, replies, widened
from harness.release.cases import Battery, BatteryCase, Outcome
from harness.release.world import result_facts
from servers.base import ToolEnvironment



@dataclass
class CaseResult:
    case_id: str
    battery: Battery
    kind: str
    outcome: Outcome
    detail: str = ""


@dataclass
class BatteryReport:
    results: list[CaseResult] = field(default_factory=list)
    stale_exemptions: list[str] = field(default_factory=list)

    def count(self, battery: Battery, *outcomes: Outcome) -> int:
        return sum(r.battery == battery and r.outcome in outcomes for r in self.results)

    @property
    def failures(self) -> list[CaseResult]:
        """Misses and false failures the debt ledger does not carry: these fail the gate."""
        return [r for r in self.results if r.outcome in ("missed", "false_failure")]

    @property
    def debt(self) -> list[CaseResult]:
        """Misses and false failures the ledger carries (known debt: not a pass, not a gate failure)."""
        return [r for r in self.results if r.outcome == "debt"]

    kills: dict[str, str] = field(default_factory=dict)
    """Declared check -> the first must-fail case whose verdict failed it (counts towards the kill proof)."""
    stale_debt: list[str] = field(default_factory=list)
    """Ledger entries of this task that no longer miss: the ratchet must shrink, so they fail the gate."""


def all_cases(task: Task, gold: Evidence, env: type[ToolEnvironment], graph: GraphConfig) -> list[BatteryCase]:
    cases = (
        list(behaviour.behavioural_cases(task, gold, env, graph))
        + list(widened.behavioural_cases(task, gold, env))
        + list(equivalence.equivalence_cases(task, gold, env))
        + list(widened.equivalence_cases(task, gold, env))
        + list(replies.reply_cases(task, gold))
        + list(exploits.exploit_cases(task, gold, env))
    )
    seen: set[str] = set()
    unique = []
    for case in cases:  # two edits can land on one id (e.g. two forbidden patterns); keep the first
        if case.id not in seen:
            seen.add(case.id)
            unique.append(case)
    return unique


def judge_case(case: BatteryCase, evidence: Evidence, strict: bool) -> Outcome:
    """What a played case means: a behavioural case must fail strictly (unless the world refused what it
    added), an equivalence case must pass strictly."""
    trace = evidence.tool_trace
    if case.requires is not None:
        index, facts = case.requires
        # what the substitute returned beyond what it was given (an echoed argument is no fact it found)
        if index >= len(trace) or trace[index].status != "executed" or not facts <= result_facts(trace[index].result, trace[index].arguments):
            return "inapplicable"
    if case.expects == "pass":
        return "passed" if strict else "false_failure"
    if any(index >= len(trace) or trace[index].status != "executed" for index in case.added) and not _refused_repeat(case, trace):
        return "guarded"
    return "missed" if strict else "killed"


def _refused_repeat(case: BatteryCase, trace: list[Any]) -> bool:
    """A gold write sent again that the world refused: not guarded by the world but a mistake every domain
    policy forbids (a call the world answered is never repeated unchanged; grader/refusals.py), so the
    case must fail strictly like any other."""
    return case.kind == "repeat" and all(index < len(trace) and trace[index].status == "refused" for index in case.added)
