"""Grading many trajectories of one task without redoing what they share (the release batteries).

The release gate grades every generated case of a task (often a hundred) against the same contract, and
most cases share nearly everything with the gold path: the contract, its resolved references, the recorded
calls of the common prefix, the initial world, the assistant replies. `GradeMemo` keeps the results of the
pure steps of `grader.grade.prepare` and of the offline evidence judge, keyed so that a hit returns exactly
what the step would compute again:

- the contract's references: once per contract object (a contract without `${...}` resolves to itself);
  resolved contracts per (contract, the results of the referenced tools' successful calls, by `repr`, which
  tells 1 from 1.0 and True from 1);
- the canonical contract: once per resolved contract object (the memo keeps every object whose identity is
  a key alive, so an id is never reused while the memo lives);
- canonical trace records and the initial world: once per recorded object (prefix-sharing replays hand the same
  record and initial-world objects to many cases); the records of every other world once per distinct
  content (`repr`: a case's final world is the gold path's but for the records its calls touched);
- reply judgements: per (resolved contract, visible assistant replies) - the judge is a pure function.

One memo serves one task for the length of its proof (`harness.release.gates.prove_task`); a verdict graded
with a memo is identical to one graded without (tests/test_gate_speed.py). A run keeps only the contract's
side of this per task (`ContractMemo`): its trials' records are all different.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from contracts.evidence import Evidence, ToolCallRecord
from contracts.schema import Contract

if TYPE_CHECKING:
    from pydantic import BaseModel

    from grader.judge import JudgeOutput
    from grader.refs import Unresolved
    from grader.semantics import CanonicalCall
    from grader.semantics import RecordCache
    from servers.base import ToolEnvironment


class ContractMemo:
    """The contract's side of `grader.grade.prepare`, memoised: its `${...}` references resolved (once per
    contract object when it has none; else per the results of the referenced tools' successful calls, by
    `repr`, which tells 1 from 1.0 and True from 1) and the resolved contract's canonical form.

    A run keeps one per task (`harness.runner.components.TrialComponents.contract_memo`): every round of a task
    grades the same contract, and its rounds mostly resolve it alike, so this work is done once rather than
    in every trial's last step, where all the trials in flight want the CPU at once. `limit` bounds the
    resolved variants kept (the least recently used go first): a long sweep whose references read other
    results in every trial does not grow without end. A hit returns exactly what the step computes again."""

    def __init__(self, limit: int | None = None) -> None:
        self._limit = limit
        self._tools: dict[int, tuple[Contract, frozenset[str] | None]] = {}
        self._resolved: OrderedDict[tuple[int, tuple[tuple[str, ...], ...]], tuple[Contract, list[Unresolved]]] = OrderedDict()
        self._canonical: dict[int, tuple[Contract, Contract]] = {}
        """By the identity of the contract, which each entry keeps alive (so the id is not reused)."""

    def _referenced_tools(self, contract: Contract) -> frozenset[str] | None:
        """The tools whose results the contract refers to; None when it has no reference at all."""
        known = self._tools.get(id(contract))
        if known is None:
            from grader.refs import references_in

            refs = references_in(contract.model_dump(exclude_unset=True))
            known = self._tools[id(contract)] = (contract, frozenset(r.tool for r in refs) if refs else None)
        return known[1]

    def resolve(self, contract: Contract, evidence: Evidence) -> tuple[Contract, list[Unresolved]]:
        """`grader.refs.resolve`, memoised on what it reads: the referenced tools' successful results."""
        from grader.refs import resolve

        tools = self._referenced_tools(contract)
        if tools is None:
            return contract, []
        key = (
            id(contract),
            tuple(
                tuple(repr(r.result) for r in evidence.tool_trace if r.tool == tool and r.status == "executed")
                for tool in sorted(tools)
            ),
        )
        found = self._resolved.get(key)
        if found is None:
            found = self._resolved[key] = resolve(contract, evidence)
            while self._limit is not None and len(self._resolved) > self._limit:
                _, (evicted, _) = self._resolved.popitem(last=False)
                self._canonical.pop(id(evicted), None)
        else:
            self._resolved.move_to_end(key)
        return found[0], list(found[1])

    def canonical_contract(self, env: type[ToolEnvironment], contract: Contract) -> Contract:
        """Once per (resolved) contract object while it is memoised."""
        from grader.semantics import canonical_contract

        found = self._canonical.get(id(contract))
        if found is None:
            found = self._canonical[id(contract)] = (contract, canonical_contract(env, contract))
        return found[1]

    def canonical_evidence(self, env: type[ToolEnvironment], evidence: Evidence) -> Evidence:
        """Not memoised here: every trial's record is its own (`GradeMemo` shares a task's cases' parts)."""
        from grader.semantics import canonical_evidence

        return canonical_evidence(env, evidence)


class GradeMemo(ContractMemo):
    """Per-task caches of `prepare`'s pure steps and of the evidence judge (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self._records: dict[int, tuple[ToolCallRecord, CanonicalCall]] = {}
        self._states: dict[tuple[tuple[str, int], ...], dict[str, Any]] = {}
        self._world_records: RecordCache = {}
        self._judgements: dict[tuple[int, tuple[str, ...]], JudgeOutput] = {}
        self._alive: dict[int, Any] = {}
        """Every object whose id is part of a key, kept alive so no id is reused while the memo lives."""

    def _pin(self, obj: Any) -> int:
        self._alive[id(obj)] = obj
        return id(obj)

    def canonical_record(self, env: type[ToolEnvironment], record: ToolCallRecord) -> CanonicalCall:
        from grader.semantics import canonical_record

        found = self._records.get(id(record))
        if found is None:
            found = self._records[self._pin(record)] = (record, canonical_record(env, record))
        return found[1]

    def canonical_initial_state(self, model: type[BaseModel], state: dict[str, Any]) -> dict[str, Any]:
        """Once per initial world: the cases of a task share its collection objects (an `Evidence` copies
        the top-level dict, never the values), so the key is the identity of each top-level value."""
        key = tuple((k, self._pin(v)) for k, v in state.items())
        found = self._states.get(key)
        if found is None:
            found = self._states[key] = self.canonical_state(model, state)
        return found

    def canonical_state(self, model: type[BaseModel], state: dict[str, Any]) -> dict[str, Any]:
        """A world's canonical form, each record of a collection canonicalised once per distinct content."""
        from grader.semantics import canonical_state

        return canonical_state(model, state, self._world_records)

    def canonical_evidence(self, env: type[ToolEnvironment], evidence: Evidence) -> Evidence:
        """`grader.semantics.canonical_evidence` from memoised records and states."""
        model = env.state_model
        return evidence.model_copy(
            update={
                "tool_trace": [self.canonical_record(env, r) for r in evidence.tool_trace],
                "initial_state": self.canonical_initial_state(model, evidence.initial_state),
                "final_state": self.canonical_state(model, evidence.final_state),
            }
        )

    def judge_sync(self, contract: Contract, assistant_messages: list[str]) -> JudgeOutput:
        """The evidence judge's verdict on `contract`'s (resolved) reply criteria over these replies."""
        from grader.text.evidence import EvidenceJudge

        key = (self._pin(contract), tuple(assistant_messages))
        found = self._judgements.get(key)
        if found is None:
            found = self._judgements[key] = EvidenceJudge().judge_sync(contract.reply_criteria or [], assistant_messages)
        return found
