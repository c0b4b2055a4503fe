"""Executable release proofs (spec A.5 step 3, plus falsifiability beyond the paper).

For each task: the gold path must pass its whole contract from fresh state; the no-op trajectory must
fail every task that expects an action or a state change; and every declared check must be failed by
at least one targeted mutation of the gold path (kill rate).
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from contracts.graph import GraphConfig
from contracts.schema import Task
from grader.grade import grade_offline
from grader.memo import GradeMemo
from grader.verdicts import TrialVerdict
from harness.release.batteries import BatteryReport, CaseResult, all_cases, judge_case
from harness.release.cases import BatteryCase
from harness.release.mutations import generic_mutations, noop, probe_mutations
from harness.release.pins import PIN_EXEMPTION
from harness.release.playability import case_id as playability_case
from harness.release.playability import unplayable_turns
from harness.release import reply_paraphrases
from harness.release.replies import reply_evidence
from harness.release.replay import GatewayReplayer, Prefixes
from contracts.schema import GoldCall, GoldTurn
from contracts.evidence import Evidence
from servers.base import ToolEnvironment


@dataclass
class TaskProof:
    task_id: str
    domain: str
    gold: TrialVerdict
    noop: TrialVerdict
    needs_effect: bool
    killed: dict[str, str] = field(default_factory=dict)
    """Declared check → the first mutation that made it fail."""
    unkilled: list[str] = field(default_factory=list)
    mutations_run: int = 0
    error: str | None = None
    batteries: BatteryReport | None = None
    policy: list[str] = field(default_factory=list)
    """Where the task (and its gold trace) disagrees with its domain's consent/refused-attempt rule
    (`harness.policy_rules`); fails the gate only for the gated domains."""
    pins: list[str] = field(default_factory=list)
    """Settings of records the gold path creates or configures that no check pins (`harness.release.pins`);
    each fails the gate."""

    @property
    def noop_ok(self) -> bool:
        """The no-op trajectory fails, as it must for a task that expects an effect."""
        return not self.needs_effect or not self.noop.strict

    @property
    def ok(self) -> bool:
        batteries_ok = self.batteries is None or (
            not self.batteries.failures and not self.batteries.stale_exemptions and not self.batteries.stale_debt
        )
        from harness.policy_rules import GATED_DOMAINS

        policy_ok = not self.policy or self.domain not in GATED_DOMAINS
        return self.error is None and self.gold.strict and self.noop_ok and not self.unkilled and batteries_ok and policy_ok and not self.pins


def needs_effect(task: Task) -> bool:
    return bool(task.contract.expected_actions or task.contract.expected_state)


async def run_batteries(
    replayer: GatewayReplayer,
    task: Task,
    gold_evidence: Evidence,
    env: type[ToolEnvironment],
    graph: GraphConfig,
    *,
    seed: int = 0,
    debt: Collection[str] = (),
    prefixes: Prefixes | None = None,
    memo: GradeMemo | None = None,
) -> BatteryReport:
    """Play every generated case of a task (behavioural, equivalence, reply, exploit, playability).

    Exempt cases are played too (so an exemption that is no longer needed shows up) but never fail the
    gate; a miss the debt ledger carries (`debt`) is reported as known debt, and a ledger entry that no
    longer misses is stale debt (the ledger only shrinks). With `prefixes` (the gold path's snapshots)
    each case starts where it leaves the gold path; with `memo` the cases share grading work (both
    optional: the verdicts are the same without, tests/test_gate_speed.py)."""
    exemptions = {e.case: e.reason for e in task.battery_exemptions or []}
    report = BatteryReport()
    cases = all_cases(task, gold_evidence, env, graph)
    generated: set[str] = set()
    for turn, tools in unplayable_turns(task, graph):
        generated.add(pid := playability_case(turn, tools))
        report.results.append(CaseResult(pid, "playability", "playability", "missed", f"gold turn {turn} needs {tools}: no node of the graph has them all"))
    played = await _play_all(replayer, task, cases, prefixes) if prefixes is not None and prefixes.seed == seed else {}
    for case in cases:
        outcome, detail = await _play_case(replayer, task, case, seed, gold_evidence, prefixes, report.kills, memo, played)
        if outcome == "inapplicable":
            continue
        generated.add(case.id)
        if case.id in exemptions and outcome in ("missed", "false_failure"):
            outcome, detail = "exempt", exemptions[case.id]
        report.results.append(CaseResult(case.id, case.battery, case.kind, outcome, detail))
    reply_paraphrases.add_to(report, task, gold_evidence)  # judged without replay (issue 37.4)
    if task.contract.consent:
        _consent_cases(task, gold_evidence, report, generated, exemptions, memo)
    for result in report.results:
        if result.case_id in exemptions and result.outcome == "missed" and result.battery == "playability":
            result.outcome, result.detail = "exempt", exemptions[result.case_id]
        if result.case_id in debt and result.outcome in ("missed", "false_failure"):
            result.outcome = "debt"
    report.stale_exemptions = [case for case in exemptions if case not in generated and not case.startswith(PIN_EXEMPTION)]
    report.stale_debt = [case for case in debt if case not in {r.case_id for r in report.results if r.outcome == "debt"}]
    return report


def _consent_cases(
    task: Task, gold_evidence: Evidence, report: BatteryReport, generated: set[str], exemptions: Mapping[str, str], memo: GradeMemo | None
) -> None:
    """The consent paraphrase battery (`harness.release.consent_battery`): graded on the gold evidence with
    the customer's decision rewritten, no replay. A refused decline kills its consent check."""
    from grader.prepared import prepare
    from harness.release.consent_battery import MUST_GRANT, run_consent_battery

    prepared_task, prepared_evidence, _ = prepare(task, gold_evidence, memo)
    consent = run_consent_battery(prepared_task, prepared_evidence)
    for item in consent.outcomes:
        case_id = item.case.case_id
        generated.add(case_id)
        if item.case.kind in MUST_GRANT:
            outcome = "passed" if item.ok else "false_failure"
        else:
            outcome = "killed" if item.ok else "missed"
        detail = repr(item.case.answer) + ("" if item.ok else f": {item.detail}")
        if case_id in exemptions and outcome in ("missed", "false_failure"):
            outcome, detail = "exempt", exemptions[case_id]
        report.results.append(CaseResult(case_id, "consent", item.case.kind, outcome, detail))  # type: ignore[arg-type]
    for check, by in consent.kills.items():
        report.kills.setdefault(check, by)


def appended_calls(turns: list[GoldTurn], gold: tuple[GoldTurn, ...]) -> list[GoldCall] | None:
    """The calls a case adds at the end of the gold path's last turn, when that is all it changes."""
    if len(turns) != len(gold) or any(a != b for a, b in zip(turns[:-1], gold[:-1])):
        return None
    last, done = turns[-1], gold[-1]
    if last.user != done.user or last.reply != done.reply or last.calls[: len(done.calls)] != done.calls:
        return None
    return last.calls[len(done.calls):]


async def _play_all(replayer: GatewayReplayer, task: Task, cases: list[BatteryCase], prefixes: Prefixes) -> dict[int, Evidence]:
    """id(case) -> evidence of every case that replays, and of every fallback a guarded case will need,
    each round on one live world (`GatewayReplayer.play_many`). Whether a case is guarded is read from its
    trace alone (`judge_case` decides `guarded` before strictness matters), so no grading happens here:
    `_play_case` grades in the cases' order, as without this."""
    played: dict[int, Evidence] = {}
    pending = [case for case in cases if case.replies is None]
    while pending:
        for case, evidence in zip(pending, await replayer.play_many(task, prefixes, [c.turns for c in pending]), strict=True):
            played[id(case)] = evidence
        pending = [c.fallback for c in pending if c.fallback is not None and judge_case(c, played[id(c)], True) == "guarded"]
    return played


MUTATION_CHUNK = 8
"""At most this many mutations are played at once on one live world (some tasks need a few dozen)."""


async def _replay_many(replayer: GatewayReplayer, task: Task, trajectories: list[list[GoldTurn]], seed: int, prefixes: Prefixes | None) -> list[Evidence]:
    """Each trajectory's evidence: on one live world from the gold path's snapshots, or each from a fresh world."""
    if prefixes is not None and prefixes.seed == seed and len(trajectories) > 1:
        return await replayer.play_many(task, prefixes, trajectories)
    return [await _replay(replayer, task, turns, seed, prefixes) for turns in trajectories]


async def _replay(replayer: GatewayReplayer, task: Task, turns: list[GoldTurn], seed: int, prefixes: Prefixes | None) -> Evidence:
    """A trajectory's evidence: from the gold path's snapshot where it leaves it, or from a fresh world."""
    if prefixes is not None and prefixes.seed == seed:
        return await replayer.play_from(task, prefixes, turns)
    return await replayer.play(task, turns, seed=seed)


async def _play_case(
    replayer: GatewayReplayer,
    task: Task,
    case: BatteryCase,
    seed: int,
    gold: Evidence,
    prefixes: Prefixes | None = None,
    kills: dict[str, str] | None = None,
    memo: GradeMemo | None = None,
    played: Mapping[int, Evidence] | None = None,
) -> tuple[str, str]:
    if case.replies is not None:
        evidence = reply_evidence(gold, case.replies, toolless=case.toolless)
    elif played is not None and id(case) in played:
        evidence = played[id(case)]
    else:
        evidence = await _replay(replayer, task, case.turns, seed, prefixes)
    verdict = grade_offline(task, evidence, memo=memo)
    outcome = judge_case(case, evidence, verdict.strict)
    if kills is not None and case.expects == "fail" and not case.toolless:  # a generated mistake is a targeted
        # mutation too (a tool-less exploit is the no-op run in other words: it kills nothing)
        for check in verdict.checks:
            if not check.passed:
                kills.setdefault(check.check, f"battery {case.id}")
    if outcome == "guarded" and case.fallback is not None:
        return await _play_case(replayer, task, case.fallback, seed, gold, prefixes, kills, memo, played)
    if outcome == "false_failure":
        return outcome, f"{case.description}: " + "; ".join(c.diff or c.reason for c in verdict.failures())[:400]
    if outcome == "missed":
        return outcome, f"{case.description}: the contract still passes"
    return outcome, case.description


def _policy_findings(task: Task, gold_evidence: Evidence) -> list[str]:
    from harness.policy_rules import PolicyRulesError, load_rules, task_findings

    try:
        return task_findings(task, load_rules(task.domain), gold_evidence)
    except PolicyRulesError as exc:
        return [str(exc)]


def _pin_findings(task: Task, gold_evidence: Evidence, env: type[ToolEnvironment]) -> list[str]:
    from grader.grade import prepare
    from harness.release.pins import pin_findings

    prepared, evidence, _ = prepare(task, gold_evidence)
    return pin_findings(prepared, evidence, env)


async def prove_task(
    replayer: GatewayReplayer,
    task: Task,
    env: type[ToolEnvironment],
    *,
    seed: int = 0,
    mutate: bool = True,
    graph: GraphConfig | None = None,
    debt: Collection[str] = (),
    shared: bool = True,
) -> TaskProof:
    """The task's release proof. `shared` (default): every case and mutation starts from the gold path's
    snapshot where it leaves it, and grading reuses what the task's cases share (`GradeMemo`); False plays
    each from a fresh world and grades it from scratch - the same verdicts (tests/test_gate_speed.py)."""
    # The gold path always goes through the real MCP stack (client, session, server, middleware); the
    # no-op run, mutations and batteries take the replayer's path (lean in the gates: same trace).
    kept: list[Prefixes] = []
    memo = GradeMemo() if shared else None
    gold_evidence = await replayer.play(task, task.gold, seed=seed, strict_refs=True, lean=False, prefixes=kept if shared else None)
    prefixes = kept[0] if kept else None
    gold = grade_offline(task, gold_evidence, memo=memo)
    noop_verdict = grade_offline(task, await replayer.play(task, noop(task).turns, seed=seed), memo=memo)
    proof = TaskProof(task_id=task.id, domain=task.domain, gold=gold, noop=noop_verdict, needs_effect=needs_effect(task))
    proof.policy = _policy_findings(task, gold_evidence)
    proof.pins = _pin_findings(task, gold_evidence, env)
    if not gold.strict or not mutate:
        return proof
    if graph is not None:
        proof.batteries = await run_batteries(replayer, task, gold_evidence, env, graph, seed=seed, debt=debt, prefixes=prefixes, memo=memo)
    declared = [c.check for c in gold.checks]
    if proof.batteries is not None:  # checks a generated mistake already failed need no mutation of their own
        proof.killed.update({check: by for check, by in proof.batteries.kills.items() if check in declared})
    # The no-op run is not a targeted mutation: it does not count towards killing a check.
    # Mutations run in order until every declared check is killed; they are played a chunk at a time
    # (1, 2, 4, ... MUTATION_CHUNK: most tasks need one or two) on one live world; a mutation played past
    # the last one needed is never graded or counted.
    for source in (generic_mutations, probe_mutations):
        mutations, size = iter(source(task, env)), 1
        while not all(check in proof.killed for check in declared):
            chunk, size = list(itertools.islice(mutations, size)), min(2 * size, MUTATION_CHUNK)
            if not chunk:
                break
            for mutation, evidence in zip(chunk, await _replay_many(replayer, task, [m.turns for m in chunk], seed, prefixes), strict=True):
                if all(check in proof.killed for check in declared):
                    break
                proof.mutations_run += 1
                for check in grade_offline(task, evidence, memo=memo).checks:
                    # only declared checks: a mutation that breaks a `${...}` reference adds a failing
                    # `reference ...` check the gold verdict does not have (the kill rate read above 100%)
                    if not check.passed and check.check in declared:
                        proof.killed.setdefault(check.check, mutation.name)
    proof.unkilled = [check for check in declared if check not in proof.killed]
    return proof
