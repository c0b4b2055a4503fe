"""Release gates end to end: gold paths through the gateway, the no-op run, mutation kill rate."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from contracts.catalog import get_task, load_catalog
from contracts.schema import GoldTurn, Task
from grader.grade import grade_offline
from harness.benchmark_spec import run_release
from harness.release.gates import prove_task
from harness.release.replay import GatewayReplayer
from harness.runner.config import ReleaseConfig
from servers.gateway import Gateway
from servers.registry import environment_class

pytestmark = pytest.mark.anyio
PAYMENTS = environment_class("payments")


def variant(task_id: str, **changes: Any) -> Task:
    data = copy.deepcopy(get_task(task_id).model_dump(exclude_unset=True))
    for key, value in changes.items():
        if key == "contract":
            data["contract"] = value
        else:
            data[key] = value
    return Task.model_validate(data)


async def test_case_a_refusal_then_fifty_passes_strictly() -> None:
    task = get_task("payments_transfer_insufficient_then_retry_01")
    async with GatewayReplayer(Gateway(["payments"])) as replayer:
        evidence = await replayer.play(task, task.gold, seed=997688223, strict_refs=True)
    verdict = grade_offline(task, evidence)
    assert verdict.strict, verdict.summary()
    validation = [c for c in evidence.tool_trace if c.tool == "validate_transfer"]
    assert validation[0].result == {"valid": False, "reason": "Insufficient funds", "status": 422, "available_balance": 180.0}
    assert evidence.final_state["accounts"]["ACC-1002"]["balance"] == 130.00
    assert evidence.final_state["accounts"]["ACC-1001"]["balance"] == 2500.75
    transfer_id = evidence.tool_trace[-1].result["transfer_id"]
    assert transfer_id.startswith("XFER-") and transfer_id in evidence.conversation[-1].content


async def test_case_b_repeated_checkout_fails_only_state() -> None:
    task = get_task("payments_checkout_full_chain_02")
    chain = task.gold[0]
    turns = [chain, GoldTurn(user="Can you give me the timestamp and other ids?", calls=[], reply="I don't have those details."), chain]
    async with GatewayReplayer(Gateway(["payments"])) as replayer:
        evidence = await replayer.play(task, turns, seed=4275343667)
    verdict = grade_offline(task, evidence)
    assert not verdict.strict
    assert verdict.components == {"action": True, "params": True, "order": True, "state": False, "reply": True, "collateral": True}
    assert verdict.primary_failure == "state"
    [loyalty] = [c for c in verdict.failures() if "loyalty_points" in c.check]
    assert loyalty.diff == "accounts.ACC-1002.loyalty_points: expected 155, got 310"
    assert len({c.result["transaction_id"] for c in evidence.tool_trace if c.tool == "process_payment"}) == 2


async def test_a_bare_double_charge_fails_case_b_task_on_state() -> None:
    """Charging twice and running the rest of the chain once used to pass; the effect is now pinned."""
    task = get_task("payments_checkout_full_chain_02")
    calls = list(task.gold[0].calls)
    turns = [task.gold[0].model_copy(update={"calls": [calls[0], *calls]})]
    async with GatewayReplayer(Gateway(["payments"])) as replayer:
        evidence = await replayer.play(task, turns, seed=4275343667)
    verdict = grade_offline(task, evidence)
    assert not verdict.strict and verdict.primary_failure == "state"
    assert any("payments" in (c.diff or "") and "expected exactly 1 new item(s)" in (c.diff or "") for c in verdict.failures())


async def test_unfalsifiable_check_is_reported() -> None:
    contract = get_task("payments_balance_inquiry_01").contract.model_dump(exclude_none=True)
    contract["protected_state"] = ["customers.CUST-2005.pin"]  # no tool can ever change a PIN
    task = variant("payments_balance_inquiry_01", contract=contract)
    async with GatewayReplayer(Gateway(["payments"])) as replayer:
        proof = await prove_task(replayer, task, PAYMENTS)
    assert proof.gold.strict
    assert proof.unkilled == ["protected_state[0] customers.CUST-2005.pin"]
    assert not proof.ok


async def test_noop_that_passes_is_reported() -> None:
    contract = {"expected_state": [{"path": "accounts.ACC-1001.frozen", "equals": False}]}  # already true at start
    task = variant("payments_balance_inquiry_01", contract=contract)
    async with GatewayReplayer(Gateway(["payments"])) as replayer:
        proof = await prove_task(replayer, task, PAYMENTS, mutate=False)
    assert proof.needs_effect and proof.noop.strict and not proof.noop_ok and not proof.ok


async def test_wrong_gold_expectation_fails_the_gold_gate() -> None:
    contract = get_task("payments_checkout_full_chain_02").contract.model_dump(exclude_none=True)
    [loyalty] = [c for c in contract["expected_state"] if c["path"].endswith("loyalty_points")]
    loyalty["equals"] = 150
    task = variant("payments_checkout_full_chain_02", contract=contract)
    async with GatewayReplayer(Gateway(["payments"])) as replayer:
        proof = await prove_task(replayer, task, PAYMENTS)
    assert not proof.gold.strict and not proof.ok
    assert "expected 150, got 155" in proof.gold.summary()


def test_structural_validation_catches_bad_bindings() -> None:
    from contracts.graph import load_graph
    from harness.validate import validate_task

    contract = {
        "expected_actions": [{"tool": "wire_money"}],
        "expected_params": [{"tool": "execute_transfer", "params": {"amount": "lots", "currency": "EUR"}}],
        "expected_state": [{"path": "wallets.W1", "equals": 1}],
        "forbidden_actions": ["get_weather"],
        "protected_state": ["accounts.ACC-4242.balance"],
    }
    task = variant("payments_balance_inquiry_01", contract=contract, capabilities=["teleportation"])
    problems = "\n".join(validate_task(task, PAYMENTS, load_graph("payments")))
    for expected in (
        "capability 'teleportation' is not an expert node",
        "tool 'wire_money' is not registered",
        "execute_transfer.amount='lots' is invalid",
        "execute_transfer has no parameter 'currency'",
        "state path 'wallets.W1' does not start at a root",
        "forbidden action 'get_weather' is not a tool of any payments graph node",
        "protected path 'accounts.ACC-4242.balance' does not exist",
    ):
        assert expected in problems


@pytest.mark.timeout(1200)  # the whole 555-task catalog with both batteries (scripts/bench_gates.py measures it)
@pytest.mark.slow
def test_release_gates_pass_on_the_catalog() -> None:
    """The command CI relies on: every gold path passes, no-op fails, every declared check is killed."""
    load_catalog.cache_clear()
    assert run_release(ReleaseConfig(gold=True)) == 0
