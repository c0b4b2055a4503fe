"""The release gate's shortcuts never change a verdict (issue 22, the gate's speed).

The gate starts each case from the gold path's snapshot where it leaves the gold path
(`GatewayReplayer.play_from`; all of a task's cases on one live world rolled back between them,
`play_many`) and grades a task's cases with shared work (`grader.memo.GradeMemo`). Both
are checked against the straightforward path - every case replayed from a fresh world and graded from
scratch (`prove_task(..., shared=False)`) - on tasks of every domain: every case's outcome and detail,
every kill, every mutation count must be the same.
"""

from __future__ import annotations

from typing import Any

import pytest

from contracts.catalog import get_task, load_selection
from contracts.evidence import Evidence, ToolCallRecord
from contracts.graph import load_graph
from contracts.schema import GoldCall, GoldTurn
from grader.grade import grade_offline
from grader.memo import GradeMemo
from harness.release.batteries import all_cases
from harness.release.debt import load_debt
from harness.release.gates import TaskProof, prove_task
from harness.release.replay import GatewayReplayer, Prefixes, divergence
from servers.gateway import Gateway
from servers.registry import environment_class

pytestmark = pytest.mark.anyio

SAMPLE = (
    # per domain its longest journey (most turns and calls; `${...}` references where the domain has them)
    "customer_support_jour4_mei_tv_internet_addon_01",
    "field_service_furnace_journey_01",
    "itsm_journey_finance_director_01",
    "marketing_flash_sale_journey_01",
    "onboarding_journey_upgrade_verify_golive_01",
    "payments_checkout_balance_pay_refund_01",
    "retail_journey_full_service_02",
    "sales_sdr_journey_01",
    "travel_reshuffle_december_01",
    # a refused call the gold path retries (snapshots after a refusal)
    "payments_transfer_insufficient_then_retry_01",
)


def outcomes(proof: TaskProof) -> dict[str, Any]:
    """Everything the gate prints or decides from a proof."""
    batteries = proof.batteries
    return {
        "gold": proof.gold.model_dump(),
        "noop": proof.noop.model_dump(),
        "killed": proof.killed,
        "unkilled": proof.unkilled,
        "mutations_run": proof.mutations_run,
        "error": proof.error,
        "policy": proof.policy,
        "cases": None if batteries is None else [(r.case_id, r.battery, r.kind, r.outcome, r.detail) for r in batteries.results],
        "kills": None if batteries is None else batteries.kills,
        "stale": None if batteries is None else (batteries.stale_exemptions, batteries.stale_debt),
    }


@pytest.mark.slow
async def test_shared_prefixes_and_memoised_grading_keep_every_verdict() -> None:
    for task_id in SAMPLE:
        task = get_task(task_id)
        env, graph, debt = environment_class(task.domain), load_graph(task.domain), load_debt(task.domain).get(task_id, [])
        async with GatewayReplayer(Gateway([task.domain]), lean=True) as replayer:
            fast = await prove_task(replayer, task, env, graph=graph, debt=debt)
            plain = await prove_task(replayer, task, env, graph=graph, debt=debt, shared=False)
        assert fast.batteries is not None and fast.batteries.results, task_id  # the sample exercises the batteries
        assert outcomes(fast) == outcomes(plain), task_id


def _strip(evidence: Evidence) -> dict[str, Any]:
    return {
        "trace": [r.model_dump(exclude={"latency_ms"}) for r in evidence.tool_trace],
        "initial": evidence.initial_state,
        "final": evidence.final_state,
        "conversation": [m.model_dump() for m in evidence.conversation],
    }


async def test_play_from_a_snapshot_equals_a_full_replay() -> None:
    """Trace, worlds and replies of every generated case are those of a full replay, for cases that leave
    the gold path in an early turn, mid-turn, after it, or drop turns; minted ids and `${...}` continue."""
    for task_id in ("payments_checkout_balance_pay_refund_01", "itsm_journey_finance_director_01"):
        task = get_task(task_id)
        env = environment_class(task.domain)
        async with GatewayReplayer(Gateway([task.domain])) as replayer:
            kept: list[Prefixes] = []
            gold = await replayer.play(task, task.gold, strict_refs=True, prefixes=kept)
            assert set(kept[0].at) >= {(0, 0), (len(task.gold), 0)}
            cases = [c for c in all_cases(task, gold, env, load_graph(task.domain)) if c.replies is None]
            starts = {divergence(task.gold, c.turns) for c in cases}
            assert len({t for t, _ in starts}) > 1 and any(c > 0 for _, c in starts)  # early, late and mid-turn starts
            truncated = list(task.gold[:-1])
            trajectories = [c.turns for c in cases] + [truncated, list(task.gold)]
            many = await replayer.play_many(task, kept[0], trajectories)  # one live world, rolled back per case
            assert len(many) == len(trajectories)
            for turns, shared in zip(trajectories, many, strict=True):
                full = await replayer.play(task, turns)
                fast = await replayer.play_from(task, kept[0], turns)
                assert _strip(fast) == _strip(full)
                assert _strip(shared) == _strip(full)
            again = await replayer.play_many(task, kept[0], trajectories[::-1])  # nothing leaks between cases
            assert [_strip(e) for e in again[::-1]] == [_strip(e) for e in many]


def test_divergence_tells_value_types_apart() -> None:
    """`180 == 180.0` in Python, but a case that spells a number as a float sends other arguments: it must
    not be mistaken for the gold call (and start after it)."""
    gold = [GoldTurn(user="u", calls=[GoldCall(tool="t", args={"amount": 180}), GoldCall(tool="t", args={"n": 1})], reply="r")]
    assert divergence(gold, [GoldTurn(user="u", calls=[GoldCall(tool="t", args={"amount": 180.0})], reply="r")]) == (0, 0)
    assert divergence(gold, [GoldTurn(user="u", calls=[GoldCall(tool="t", args={"amount": "180"})], reply="r")]) == (0, 0)
    assert divergence(gold, [GoldTurn(user="u", calls=[GoldCall(tool="t", args={"amount": 180})], reply="r")]) == (0, 1)
    assert divergence(gold, [gold[0].model_copy(update={"reply": "other"})]) == (0, 2)
    assert divergence(gold, gold + gold) == (1, 0)
    assert divergence(gold, []) == (0, 0)


def test_memoised_references_follow_the_referenced_results() -> None:
    """A resolved contract is reused only for the same referenced results (1 and 1.0 are not the same),
    and a verdict graded with the memo equals one graded without, whatever the memo saw before."""
    from grader.refs import references_in, resolve

    task = get_task("payments_transfer_own_accounts_01")
    ref = references_in(task.contract.model_dump(exclude_unset=True))[0]
    memo = GradeMemo()

    def evidence(value: Any) -> Evidence:
        record = ToolCallRecord(seq=0, turn=0, tool=ref.tool, arguments={}, status="executed", result={ref.field: value})
        return Evidence(conversation=[], tool_trace=[record], initial_state={}, final_state={})

    seen = []
    for value in ("TR-1", "TR-2", 1, 1.0, "TR-1"):
        ev = evidence(value)
        mine, plain = memo.resolve(task.contract, ev), resolve(task.contract, ev)
        assert mine[0].model_dump() == plain[0].model_dump()
        assert [u.model_dump() for u in mine[1]] == [u.model_dump() for u in plain[1]]
        seen.append(mine[0].model_dump_json())
        assert grade_offline(task, ev, memo=memo).model_dump() == grade_offline(task, ev).model_dump()
    assert len(set(seen[:4])) == 4 and seen[0] == seen[4]


def test_a_runs_contract_memo_is_bounded_and_exact() -> None:
    """`ContractMemo` (a run's memo per task): the same resolutions as without it, at most `limit`
    resolved variants kept (the least recently used go first, with their canonical forms), and a contract
    without references resolves to itself without an entry."""
    from grader.grade import prepare
    from grader.memo import ContractMemo
    from grader.refs import references_in

    task = get_task("payments_transfer_own_accounts_01")
    ref = references_in(task.contract.model_dump(exclude_unset=True))[0]
    memo = ContractMemo(limit=2)

    def evidence(value: Any) -> Evidence:
        record = ToolCallRecord(seq=0, turn=0, tool=ref.tool, arguments={}, status="executed", result={ref.field: value})
        return Evidence(conversation=[], tool_trace=[record], initial_state={}, final_state={})

    first = memo.resolve(task.contract, evidence("TR-1"))[0]
    assert memo.resolve(task.contract, evidence("TR-1"))[0] is first  # a hit
    for value in ("TR-2", "TR-3"):
        memo.resolve(task.contract, evidence(value))
    assert memo.resolve(task.contract, evidence("TR-1"))[0] is not first  # evicted, worked out again
    for value in ("TR-1", "TR-9", 1.0):
        ev = evidence(value)
        mine, plain = prepare(task, ev, memo), prepare(task, ev)
        assert mine[0].contract.model_dump() == plain[0].contract.model_dump() and mine[2] == plain[2]
    assert len(memo._resolved) == 2 and len(memo._canonical) == 2  # the evicted variants' canonical forms went too
    plain_task = next(t for t in load_selection(domains=["payments"]).values() if not references_in(t.contract.model_dump(exclude_unset=True)))
    assert memo.resolve(plain_task.contract, evidence("x")) == (plain_task.contract, [])
