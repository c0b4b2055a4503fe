"""The `attempt_limits` family: at most N attempted calls (refused ones count) of a tool with matching
arguments, vacuous when the tool is never called - so "never repeat a refused call" is checkable without
requiring the call (a valid agent may read the balance first and never attempt the payment)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from contracts.catalog import get_task
from contracts.evidence import Evidence, ToolCallRecord
from contracts.schema import Contract, Task
from grader.grade import grade_offline
from harness.release.mutations import generic_mutations
from harness.validate import _consistency
from servers.registry import environment_class

CAP = {"tool": "process_payment", "params": {"account_id": "ACC-1003", "amount": 64.9, "method": "card"}, "max": 1}
FROZEN = {"account_id": "ACC-1003", "amount": 64.9, "method": "card", "merchant": "Maple Street Pharmacy"}


def make_task(contract: dict[str, Any]) -> Task:
    return Task.model_validate(
        {
            "id": "payments_unit_test_01",
            "domain": "payments",
            "title": "unit test task",
            "capabilities": ["checkout"],
            "difficulty": "easy",
            "instruction": "You are a unit test user. You want the thing done; stop when it is done.",
            "contract": contract,
            "gold": [{"user": "hi", "calls": [], "reply": "hello"}],
        }
    )


def evidence(*calls: tuple[str, str, dict[str, Any]]) -> Evidence:
    trace = [ToolCallRecord(seq=i, turn=0, tool=tool, arguments=args, status=status) for i, (tool, status, args) in enumerate(calls)]  # type: ignore[arg-type]
    return Evidence(tool_trace=trace)


def verdict(contract: dict[str, Any], ev: Evidence):
    return grade_offline(make_task(contract), ev)


def test_never_attempting_passes() -> None:
    v = verdict({"attempt_limits": [CAP]}, evidence(("get_account_balance", "executed", {"account_id": "ACC-1003"})))
    assert v.strict and v.components == {"forbidden": True}


def test_one_refused_attempt_passes_and_a_retry_with_the_same_arguments_fails() -> None:
    once = verdict({"attempt_limits": [CAP]}, evidence(("process_payment", "refused", FROZEN)))
    assert once.strict
    twice = verdict({"attempt_limits": [CAP]}, evidence(("process_payment", "refused", FROZEN), ("process_payment", "refused", FROZEN)))
    assert not twice.strict and twice.primary_failure == "forbidden"
    [check] = [c for c in twice.failures() if c.check.startswith("attempt_limits[")]
    assert check.check.startswith("attempt_limits[0] process_payment(")
    # the domain policy fails the unchanged repeat too, on its own (grader/refusals.py)
    assert any(c.check.startswith("policy payments: repeated process_payment") for c in twice.failures())
    assert "at most 1 time(s), refused attempts included; it was attempted 2 time(s)" in check.reason
    assert "1 attempt(s) beyond the cap of 1" in (check.diff or "")


def test_a_retry_the_customer_chose_passes() -> None:
    """Another account or method is another call; the free-text merchant is not part of the cap."""
    other = verdict(
        {"attempt_limits": [CAP]},
        evidence(("process_payment", "refused", FROZEN), ("process_payment", "executed", {**FROZEN, "account_id": "ACC-1002"})),
    )
    assert other.strict
    reworded = verdict({"attempt_limits": [CAP]}, evidence(("process_payment", "refused", FROZEN), ("process_payment", "refused", {**FROZEN, "merchant": "Maple St."})))
    assert not reworded.strict


def test_malformed_calls_do_not_count_and_canonical_forms_match() -> None:
    malformed = verdict({"attempt_limits": [CAP]}, evidence(("process_payment", "tool_error", FROZEN), ("process_payment", "refused", FROZEN)))
    assert malformed.strict
    spelled = verdict({"attempt_limits": [CAP]}, evidence(("process_payment", "refused", FROZEN), ("process_payment", "refused", {**FROZEN, "amount": "64.90"})))
    assert not spelled.strict  # "64.90" is the Money value 64.9: the same call


def test_without_params_every_call_of_the_tool_counts_and_max_is_respected() -> None:
    two = {"attempt_limits": [{"tool": "process_payment", "max": 2}]}
    calls = [("process_payment", "executed", {**FROZEN, "account_id": f"ACC-100{i}"}) for i in (1, 2, 4)]
    assert verdict(two, evidence(*calls[:2])).strict
    assert not verdict(two, evidence(*calls)).strict


def test_an_unresolved_reference_caps_nothing() -> None:
    contract = {"attempt_limits": [{"tool": "send_receipt", "params": {"transaction_id": "${process_payment.transaction_id}"}}]}
    v = verdict(contract, evidence(("send_receipt", "refused", {"transaction_id": "TXN-1"}), ("send_receipt", "refused", {"transaction_id": "TXN-1"})))
    caps = [c for c in v.checks if not c.check.startswith("policy ")]  # the policy fails the repeat on its own
    assert len(caps) == 1 and caps[0].passed and caps[0].check.startswith("attempt_limits[0] send_receipt(")  # no failing reference check


def test_schema_rejects_a_zero_cap_and_an_empty_family() -> None:
    with pytest.raises(ValidationError, match="greater than or equal to 1"):
        Contract.model_validate({"attempt_limits": [{**CAP, "max": 0}]})
    with pytest.raises(ValidationError, match="declared but empty"):
        Contract.model_validate({"attempt_limits": [], "only_changes": []})


def test_validation_reports_a_cap_below_an_expected_count() -> None:
    task = make_task({"expected_actions": [{"tool": "process_payment", "count": 2}], "attempt_limits": [{"tool": "process_payment", "max": 1}]})
    assert any("attempt_limits caps process_payment at 1" in p for p in _consistency(task))


@pytest.mark.anyio
async def test_the_kill_mutation_retries_the_capped_call_and_fails_it() -> None:
    from harness.release.replay import GatewayReplayer
    from servers.gateway import Gateway

    task = get_task("payments_checkout_frozen_account_01")
    env = environment_class("payments")
    [mutation] = [m for m in generic_mutations(task, env) if m.name.startswith("retry process_payment(")]
    calls = [c for turn in mutation.turns for c in turn.calls if c.tool == "process_payment"]
    assert len(calls) == 2 and calls[0] == calls[1]
    async with GatewayReplayer(Gateway(["payments"])) as replayer:
        evidence = await replayer.play(task, mutation.turns)
    [failed] = [c for c in grade_offline(task, evidence).failures() if not c.check.startswith("policy ")]
    assert failed.check.startswith("attempt_limits[0] process_payment(") and failed.component == "forbidden"


def test_without_a_gold_call_the_mutation_attempts_the_capped_call_past_the_cap() -> None:
    task = get_task("payments_checkout_frozen_account_01")
    capped = task.contract.model_dump(exclude_none=True)
    capped["attempt_limits"] = [{"tool": "process_payment", "params": {"account_id": "ACC-1004"}, "max": 2}]
    other = task.model_copy(update={"contract": Contract.model_validate(capped)})
    [mutation] = [m for m in generic_mutations(other, environment_class("payments")) if m.name.startswith("attempt process_payment(")]
    added = [c for c in mutation.turns[-1].calls if c.tool == "process_payment" and c.args.get("account_id") == "ACC-1004"]
    assert len(added) == 3
