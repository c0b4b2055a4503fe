"""The widened batteries (issue 22): generated from the world and the dialogue, never from the contract.

A contract with a known blind spot must fail the gate; a correct one must pass; each generator has a
unit test that fails without it.
"""

from __future__ import annotations

import copy
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from contracts.catalog import get_task
from contracts.graph import load_graph
from contracts.schema import Task
from harness.release import debt as debt_module
from harness.release.gates import run_batteries
from harness.release.playability import unplayable_turns
from harness.release.replay import GatewayReplayer
from harness.release.replies import reword, shape
from harness.release.widened import premature_cases
from harness.release.world import other_forms, relied_facts, world_targets
from servers.base import Money
from servers.gateway import Gateway
from servers.registry import environment_class

pytestmark = pytest.mark.anyio
PAYMENTS = environment_class("payments")


def variant(task_id: str, contract: dict[str, Any] | None = None) -> Task:
    data = copy.deepcopy(get_task(task_id).model_dump(exclude_unset=True))
    if contract is not None:
        data["contract"] = contract
    return Task.model_validate(data)


async def report_of(task: Task, debt: tuple[str, ...] = ()):
    async with GatewayReplayer(Gateway(["payments"])) as replayer:
        gold = await replayer.play(task, task.gold, strict_refs=True)
        return gold, await run_batteries(replayer, task, gold, PAYMENTS, load_graph("payments"), debt=debt)


def outcomes(report) -> dict[str, str]:
    return {r.case_id: r.outcome for r in report.results}


def kinds(report, kind: str, outcome: str) -> list[str]:
    return [r.case_id for r in report.results if r.kind == kind and r.outcome == outcome]


async def test_collateral_tries_every_write_tool_on_world_targets() -> None:
    """A contract without a collateral guard lets an unrequested write on a look-alike pass; the full
    contract's only_changes kills the writes of every other tool, on every role of target."""
    full = get_task("payments_checkout_full_chain_02")
    _, report = await report_of(full)
    collateral = [r for r in report.results if r.kind == "collateral"]
    tools = {r.case_id.split("/")[2].split("->")[0] for r in collateral}
    writes = {t for t in PAYMENTS.tool_methods() if PAYMENTS.tool_kind(t) == "write"}
    assert tools == writes  # every write tool of the domain, not only the task's nodes
    assert any("->created:" in r.case_id for r in collateral)  # aimed at a record the gold path created
    assert any("->lookalike:" in r.case_id for r in collateral)
    weak = full.contract.model_dump(exclude_none=True)
    weak.pop("only_changes")
    weak["expected_state"] = [s for s in weak["expected_state"] if s["path"] not in ("receipts", "transaction_log", "loyalty_awards")]
    # and without "exactly one new payment of any account" (the guard that fails the look-alike purchase)
    weak["expected_state"] = [s for s in weak["expected_state"] if not (s["path"] == "payments" and "where" not in s)]
    weak["expected_actions"] = [{k: v for k, v in a.items() if k not in ("count", "exact")} for a in weak["expected_actions"]]
    _, weak_report = await report_of(variant(full.id, weak))
    missed = kinds(weak_report, "collateral", "missed")
    assert len(missed) > len(kinds(report, "collateral", "missed"))
    assert any("->created:" in case for case in missed)  # the created payment is not pinned any more


async def test_premature_moves_a_later_write_into_the_first_turn_whatever_the_contract_names() -> None:
    task = get_task("payments_transfer_insufficient_then_retry_01")
    _, report = await report_of(task)
    assert outcomes(report)["behaviour/premature/execute_transfer>0@1.1"] == "killed"
    weak = task.contract.model_dump(exclude_none=True)
    weak.pop("order")
    weak.pop("consent", None)  # the consent check (issue 30) would catch it too: the weak contract has neither
    weak["expected_params"] = [p for p in weak["expected_params"] if p["tool"] != "validate_transfer"]
    weak["expected_actions"] = [a for a in weak["expected_actions"] if a["tool"] != "validate_transfer"]
    _, weak_report = await report_of(variant(task.id, weak))
    assert outcomes(weak_report)["behaviour/premature/execute_transfer>0@1.1"] == "missed"


def test_premature_with_consent_adds_the_upfront_authorisation_variant() -> None:
    task = get_task("payments_transfer_insufficient_then_retry_01")
    gold = SimpleNamespace(tool_trace=[SimpleNamespace(status="executed")] * 4)
    unconsented = SimpleNamespace(gold=task.gold, contract=SimpleNamespace(consent=None))  # the task itself now declares consent
    plain = list(premature_cases(unconsented, gold, PAYMENTS))  # type: ignore[arg-type]
    assert [c.kind for c in plain] == ["premature"]
    consenting = SimpleNamespace(gold=task.gold, contract=SimpleNamespace(consent=[SimpleNamespace(tool="execute_transfer", params={"amount": 50}, upfront=True)]))
    cases = list(premature_cases(consenting, gold, PAYMENTS))  # type: ignore[arg-type]
    upfront = [c for c in cases if c.kind == "premature_upfront"]
    assert len(upfront) == 1 and upfront[0].expects == "pass" and cases[0].expects == "fail"
    assert upfront[0].turns[0].user == f"{task.gold[1].user}\n{task.gold[0].user}"
    assert upfront[0].turns[0].calls[-1].tool == "execute_transfer"
    declined = SimpleNamespace(gold=task.gold, contract=SimpleNamespace(consent=[SimpleNamespace(tool="execute_transfer", params=None, upfront=False)]))
    assert all(c.kind == "premature" for c in premature_cases(declined, gold, PAYMENTS))  # type: ignore[arg-type]


async def test_a_required_read_with_an_equivalent_tool_is_a_false_failure() -> None:
    """retail_status_cancelled_01 requires `get_order_status` by name; `get_order_details` on the same order
    returns the same `status` field with the same value on the real world, so an agent that used it is
    failed wrongly: a false failure until the contract names the alternative. A read whose result only
    echoes what it was given is no substitute (list_cases -> get_case(the case id list_cases found))."""
    task_id = "retail_status_cancelled_01"
    retail = environment_class("retail")

    async def substitutions(contract: dict[str, Any]) -> dict[str, str]:
        task = variant(task_id, contract)
        async with GatewayReplayer(Gateway(["retail"])) as replayer:
            gold = await replayer.play(task, task.gold, strict_refs=True)
            report = await run_batteries(replayer, task, gold, retail, load_graph("retail"))
        return {r.case_id: r.outcome for r in report.results if r.kind == "read_substitution"}

    case = "equivalence/read_substitution/get_order_status->get_order_details@0.0"
    # the catalog now names the alternatives (issue 24); the by-name form it had is rebuilt here
    fixed = get_task(task_id).contract.model_dump(exclude_none=True)
    by_name = copy.deepcopy(fixed)
    by_name["expected_actions"] = [a for a in fixed["expected_actions"] if a["tool"] != "get_order_status"] + [{"tool": "get_order_status"}]
    by_name["expected_params"] = [{"tool": "get_order_status", "params": {"order_id": "ORD-9006", "customer_id": "CUST-5005"}}]
    assert (await substitutions(by_name))[case] == "false_failure"
    assert (await substitutions(fixed))[case] == "passed"


async def test_debt_turns_known_misses_into_debt_and_stale_debt_fails() -> None:
    weak = get_task("payments_balance_inquiry_01").contract.model_dump(exclude_none=True)
    weak.pop("only_changes")  # the catalog task misses nothing since issue 24; without its guard it does
    task = variant("payments_balance_inquiry_01", weak)
    _, report = await report_of(task)
    missing = [r.case_id for r in report.failures]
    assert missing
    _, with_debt = await report_of(task, debt=(*missing, "behaviour/repeat/gone@0.0"))
    assert not with_debt.failures
    assert {r.case_id for r in with_debt.debt} == set(missing)
    assert with_debt.stale_debt == ["behaviour/repeat/gone@0.0"]


async def test_reply_and_exploit_batteries_on_a_correct_contract() -> None:
    task = get_task("payments_checkout_full_chain_02")
    _, report = await report_of(task)
    found = outcomes(report)
    assert found["reply/reply_wrong_value/criterion0"] == "killed"  # 155 points stated as another number
    for kind in ("exploit_claim_success", "exploit_refuse", "exploit_read_only", "exploit_write_all", "exploit_invented_id"):
        assert found[f"exploit/{kind}/all"] == "killed", kind


async def test_a_wrong_value_reply_replaces_every_written_form_of_the_fact() -> None:
    """Payments journey 20: the evidence "200" was replaced in "$200 transfer" but not in the confirmation
    "$200.00 went from ACC-1002 to ACC-1001", so the "wrong" replies still confirmed the right amount."""
    from grader.grade import grade_offline
    from grader.text.values import find_values
    from harness.release.replies import reply_cases, reply_evidence, restate

    assert restate("$200.00 went to ACC-1001; $200 in all, not 1200.", "200", "180") == "$180 went to ACC-1001; $180 in all, not 1200."
    task = get_task("payments_journey_refund_funds_transfer_20")
    async with GatewayReplayer(Gateway(["payments"])) as replayer:
        gold = await replayer.play(task, task.gold, strict_refs=True)
    [case] = [c for c in reply_cases(task, gold) if c.id == "reply/reply_wrong_value/criterion1"]
    assert case.replies and not any(v.kind == "number" and v.value == 200 for r in case.replies for v in find_values(r))
    assert not grade_offline(task, reply_evidence(gold, case.replies)).strict


def test_argument_forms_follow_the_tools_own_types() -> None:
    assert other_forms(Money, "15.50") == [("spaces", " 15.50 ")]  # parse_money strips; case is moot
    _, hints = PAYMENTS.tool_signature("process_payment")
    assert other_forms(hints["account_id"], "${x.y}") == []
    from typing import Annotated

    from pydantic import AfterValidator

    lowered = Annotated[str, AfterValidator(lambda v: v.strip().upper())]
    forms = dict(other_forms(lowered, "ACC-1002"))
    assert forms == {"case": "acc-1002", "spaces": " ACC-1002 "}
    assert other_forms(str, "ACC-1002") == []  # a plain str keeps case and spaces: another value


def test_reword_and_shapes() -> None:
    assert reword("You paid $1,450.00 on 2026-12-15 at 13:00.") == "You paid USD 1,450.00 on December 15, 2026 at 1 pm."
    assert reword("Refund of $75 at 09:30") == "Refund of 75.00 dollars at 9:30 am"
    # cents followed by punctuation stay with their amount (they were cut off: "25.00 dollars.50,")
    assert reword("A credit of $25.50, then $1,200.00; done") == "A credit of 25.50 dollars, then USD 1,200.00; done"
    assert [shape(x) for x in ("$75", "2026-12-15", "13:00", "TXN-K1L2M3", "approved")] == ["number", "date", "time", "id", None]


async def test_world_targets_and_relied_facts() -> None:
    task = get_task("payments_checkout_full_chain_02")
    gold, _ = await report_of(variant(task.id, {"expected_actions": [{"tool": "process_payment"}]}))
    targets = world_targets(task, gold)
    assert "ACC-1002" in targets.own and "ACC-1002" not in targets.lookalikes
    assert any(t.startswith("TXN-") for t in targets.created)
    balance = get_task("payments_balance_inquiry_01")
    async with GatewayReplayer(Gateway(["payments"])) as replayer:
        evidence = await replayer.play(balance, balance.gold, strict_refs=True)
    facts = relied_facts(evidence, 0)
    assert "balance=640.2" in facts and "loyalty_points=310" in facts  # numbers under their field names
    assert not any(f.endswith("=ACC-1005") for f in facts)  # the read's own argument is no fact it found


def test_playability_flags_a_turn_that_needs_two_nodes() -> None:
    task = get_task("payments_loyalty_points_award_01")
    graph = load_graph("payments")
    assert unplayable_turns(task, graph) == []  # issue 24: the checkout node carries the payment lookups
    narrow = graph.model_copy(update={"nodes": [
        n.model_copy(update={"tools": [t for t in n.tools if t != "get_payment_details"]}) if n.name == "checkout" else n
        for n in graph.nodes]})
    assert unplayable_turns(task, narrow) == [(0, ["award_loyalty_points", "get_payment_details"])]
    assert unplayable_turns(get_task("payments_checkout_full_chain_02"), load_graph("payments")) == []


def test_debt_ledger_round_trip_and_bad_file(tmp_path: Path) -> None:
    debt_module.write_debt("payments", {"t1": ["b/k/x@0.0"], "t2": []}, tmp_path)
    assert debt_module.load_debt("payments", tmp_path) == {"t1": ["b/k/x@0.0"]}
    assert debt_module.load_debt("travel", tmp_path) == {}
    (tmp_path / "travel.yaml").write_text("- not a mapping\n")
    with pytest.raises(debt_module.DebtError):
        debt_module.load_debt("travel", tmp_path)


async def test_continuing_from_the_gold_checkpoint_equals_a_full_replay() -> None:
    """The cost saving must not change a verdict: trace, world and replies are those of a full replay,
    for every domain's sample, with minted ids and `${...}` references continuing across the seam."""
    from harness.release.gates import appended_calls
    from harness.release.widened import collateral_cases

    for task_id in ("payments_checkout_full_chain_02", "payments_transfer_insufficient_then_retry_01"):
        task = get_task(task_id)
        async with GatewayReplayer(Gateway(["payments"])) as replayer:
            kept: list[Any] = []
            gold = await replayer.play(task, task.gold, strict_refs=True, keep=kept)
            cases = list(collateral_cases(task, gold, PAYMENTS))
            assert cases
            for case in cases:
                extra = appended_calls(case.turns, kept[0].turns)
                assert extra is not None
                full = await replayer.play(task, case.turns)
                fast = await replayer.continue_from(task, kept[0], extra)
                strip = lambda e: [r.model_dump(exclude={"latency_ms"}) for r in e.tool_trace]  # noqa: E731
                assert strip(fast) == strip(full), case.id
                assert fast.final_state == full.final_state, case.id
                assert fast.initial_state == full.initial_state
                assert [m.model_dump() for m in fast.conversation] == [m.model_dump() for m in full.conversation], case.id


def test_wrong_value_replaces_every_written_form_of_the_value() -> None:
    """A bare "200" replaced only where it is written bare left "$200.00 went to ACC-1001" in the final reply:
    the generated reply still confirmed the right amount, so it was not a mistake (payments journey 20)."""
    from harness.release.replies import restate

    text = "It is $20.00 short of a 200 transfer. $200.00 went to ACC-1001; 2,000 is not it."
    assert restate(text, "200", "180") == "It is $20.00 short of a 180 transfer. $180 went to ACC-1001; 2,000 is not it."
    assert restate("Due on December 15, 2026.", "2026-12-15", "2026-12-16") == "Due on 2026-12-16."
    assert restate("Approved.", "approved", "denied") == "Approved."  # not a value: the textual pass handles it


async def test_journey_20_wrong_transfer_amount_replaces_the_final_confirmation_and_fails() -> None:
    from harness.release.replies import reply_cases

    task = get_task("payments_journey_refund_funds_transfer_20")
    async with GatewayReplayer(Gateway(["payments"])) as replayer:
        gold = await replayer.play(task, task.gold, strict_refs=True)
    [case] = [c for c in reply_cases(task, gold) if c.id == "reply/reply_wrong_value/criterion1"]
    assert "$200.00" not in case.replies[-1] and "went from ACC-1002 to ACC-1001" in case.replies[-1]
    _, report = await report_of(task)
    assert outcomes(report)["reply/reply_wrong_value/criterion1"] == "killed"


async def test_refused_calls_are_retried_by_retry_refused_and_never_rechecked() -> None:
    """A rejected PIN (a compute tool, not a write) retried unchanged is a behavioural mistake; the recheck
    equivalence kind never repeats it (every policy forbids repeating a refused call)."""
    _, report = await report_of(get_task("payments_journey_wrong_pin_refund_17"))
    found = outcomes(report)
    assert found["behaviour/retry_refused/authenticate_customer@0.0"] == "killed"
    assert "equivalence/recheck/authenticate_customer@0.0" not in found
    assert found["equivalence/recheck/authenticate_customer@1.0"] == "passed"  # the accepted PIN may be re-checked
