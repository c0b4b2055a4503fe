"""The validity batteries: generated mistakes must fail, generated valid alternatives must pass."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from contracts.catalog import get_task
from contracts.graph import load_graph
from contracts.schema import Task
from harness.release.behaviour import lookalike
from harness.release.gates import run_batteries
from harness.release.replay import GatewayReplayer
from servers.gateway import Gateway
from servers.registry import environment_class

pytestmark = pytest.mark.anyio
PAYMENTS = environment_class("payments")


def variant(task_id: str, contract: dict[str, Any] | None = None, **extra: Any) -> Task:
    data = copy.deepcopy(get_task(task_id).model_dump(exclude_unset=True))
    if contract is not None:
        data["contract"] = contract
    data.update(extra)
    return Task.model_validate(data)


async def batteries(task: Task):
    async with GatewayReplayer(Gateway(["payments"])) as replayer:
        gold = await replayer.play(task, task.gold, strict_refs=True)
        return await run_batteries(replayer, task, gold, PAYMENTS, load_graph("payments"))


def outcomes(report) -> dict[str, str]:
    return {r.case_id: r.outcome for r in report.results}


async def test_hardened_case_b_task_kills_every_generated_mistake() -> None:
    report = await batteries(get_task("payments_checkout_full_chain_02"))
    found = outcomes(report)
    assert found["behaviour/repeat/process_payment@0.0"] == "killed"
    # the world refuses a second receipt (409): not guarded by the world but a repeat the payments policy
    # forbids (a call the world answered is never sent again unchanged), so it must fail and does
    assert found["behaviour/repeat/send_receipt@0.1"] == "killed"
    assert found["behaviour/alter/process_payment.method@0.0"] == "killed"
    old_kinds = {"repeat", "drop", "lookalike", "alter", "before_check", "forbidden", "extra_read", "reorder_reads", "numbers", "recheck"}
    assert not [r for r in report.failures if r.kind in old_kinds], report.failures
    # The widened batteries found what the contract-derived ones could not: a second purchase on another
    # account of the customer's world passed, and a bare "155" passed the offline evidence judge (issue 24:
    # the bare "155" is killed by the keyword-list rule; the look-alike PayPal purchase, which changes
    # nothing but `payments`, by exactly one new payment of any account - a state check, so the spec's
    # case B still fails on state alone, tests/test_release.py)
    assert found["behaviour/collateral/process_payment->lookalike:ACC-1001"] == "killed"
    assert not report.failures, report.failures


async def test_a_contract_without_effect_checks_lets_a_double_charge_pass() -> None:
    """The class of weakness the battery exists for: the pre-hardening case-B contract."""
    weak = {
        "expected_actions": [{"tool": t} for t in ("process_payment", "send_receipt", "award_loyalty_points", "log_transaction")],
        "expected_params": [{"tool": "process_payment", "params": {"account_id": "ACC-1002", "amount": 15.5, "method": "paypal"}}],
        "expected_state": [{"path": "receipts", "min_length": 1}],
    }
    report = await batteries(variant("payments_checkout_full_chain_02", weak))
    found = outcomes(report)
    assert found["behaviour/repeat/process_payment@0.0"] == "missed"
    assert found["behaviour/lookalike/award_loyalty_points.account_id@0.2"] == "killed"  # the world refuses it
    assert found["behaviour/alter/process_payment.merchant@0.0"] == "missed"  # the wrong merchant passes


async def test_over_specified_contract_fails_a_valid_route() -> None:
    """`match: first` on a read, and an exact order, reject an extra read and a re-validation."""
    task = get_task("payments_transfer_insufficient_then_retry_01")
    contract = task.contract.model_dump(exclude_none=True)
    contract["expected_params"].append({"tool": "get_account_balance", "params": {"account_id": "ACC-1002"}, "match": "first"})
    contract["order"] = [{"tools": ["validate_transfer", "validate_transfer", "execute_transfer"], "mode": "exact"}]
    report = await batteries(variant(task.id, contract))
    found = outcomes(report)
    assert found["equivalence/extra_read/get_account_balance"] == "passed"  # the same read again is harmless
    assert found["equivalence/extra_read/get_account_balance#1"] == "false_failure"  # a read of the payee first
    assert found["equivalence/recheck/validate_transfer@0.1"] == "false_failure"
    assert found["equivalence/numbers/string"] == "passed"


async def test_exemptions_are_honoured_and_stale_ones_reported() -> None:
    weak = {"expected_actions": [{"tool": "process_payment"}], "reply_criteria": [{"criterion": "Reports the points.", "evidence": ["155"]}]}
    exemptions = [
        {"case": "behaviour/repeat/process_payment@0.0", "reason": "a test exemption with a long enough reason"},
        {"case": "behaviour/repeat/no_such_tool@9.9", "reason": "names a case that is never generated"},
    ]
    report = await batteries(variant("payments_checkout_full_chain_02", weak, battery_exemptions=exemptions))
    assert outcomes(report)["behaviour/repeat/process_payment@0.0"] == "exempt"
    assert report.stale_exemptions == ["behaviour/repeat/no_such_tool@9.9"]


def test_lookalike_prefers_the_most_similar_record() -> None:
    state = {
        "accounts": {
            "ACC-1": {"owner": "CUST-1", "currency": "USD"},
            "ACC-2": {"owner": "CUST-2", "currency": "EUR"},
            "ACC-3": {"owner": "CUST-1", "currency": "USD"},
        }
    }
    assert lookalike("ACC-1", state) == "ACC-3"
    assert lookalike("ACC-9", state) is None
