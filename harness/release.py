"""Executable release proofs (spec A.5 step 3, plus falsifiability beyond the paper).

For each task: the gold path must pass its whole contract from fresh state; the no-op trajectory must
fail every task that expects an action or a state change; and every declared check must be failed by
at least one targeted mutation of the gold path (kill rate).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from contracts.schema import Task
from grader.grade import grade_offline
from grader.verdicts import TrialVerdict
from harness.mutations import generic_mutations, noop, probe_mutations
from harness.replay import GatewayReplayer
from servers.base import ToolEnvironment


@dataclass
class TaskProof:
    task_id: str
    gold: TrialVerdict
    noop: TrialVerdict
    needs_effect: bool
    killed: dict[str, str] = field(default_factory=dict)
    """Declared check → the first mutation that made it fail."""
    unkilled: list[str] = field(default_factory=list)
    mutations_run: int = 0
    error: str | None = None

    @property
    def noop_ok(self) -> bool:
        """The no-op trajectory fails, as it must for a task that expects an effect."""
        return not self.needs_effect or not self.noop.strict

    @property
    def ok(self) -> bool:
        return self.error is None and self.gold.strict and self.noop_ok and not self.unkilled


def needs_effect(task: Task) -> bool:
    return bool(task.contract.expected_actions or task.contract.expected_state)


async def prove_task(replayer: GatewayReplayer, task: Task, env: type[ToolEnvironment], *, seed: int = 0, mutate: bool = True) -> TaskProof:
    gold_evidence = await replayer.play(task, task.gold, seed=seed, strict_refs=True)
    gold = grade_offline(task, gold_evidence)
    noop_verdict = grade_offline(task, await replayer.play(task, noop(task).turns, seed=seed))
    proof = TaskProof(task_id=task.id, gold=gold, noop=noop_verdict, needs_effect=needs_effect(task))
    if not gold.strict or not mutate:
        return proof
    declared = [c.check for c in gold.checks]
    # The no-op run is not a targeted mutation: it does not count towards killing a check.
    for source in (generic_mutations, probe_mutations):
        if all(check in proof.killed for check in declared):
            break
        for mutation in source(task, env):
            evidence = await replayer.play(task, mutation.turns, seed=seed)
            proof.mutations_run += 1
            for check in grade_offline(task, evidence).checks:
                if not check.passed:
                    proof.killed.setdefault(check.check, mutation.name)
            if source is probe_mutations and all(check in proof.killed for check in declared):
                break
    proof.unkilled = [check for check in declared if check not in proof.killed]
    return proof
