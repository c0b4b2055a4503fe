"""The domain policy's rule on refused attempts, graded on every trial (grader/refusals.py), and attempts
compared through canonical forms (grader/attempts.py, servers.base.Code).

Trajectories are the catalog's gold paths edited and replayed on the real worlds through the gateway, so
the refusals, codes and reasons are the ones the worlds really give; a few unit cases build evidence by
hand where the world cannot produce the situation on demand.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from contracts.catalog import get_task
from contracts.evidence import Evidence, ToolCallRecord
from contracts.policy import PolicyRules, load_rules
from contracts.schema import GoldCall, GoldTurn, Task
from grader import refusals
from grader.attempts import same_attempt, same_reason_retry, skeleton, trivially_equal
from grader.grade import grade_offline
from grader.verdicts import TrialVerdict
from harness.release.batteries import BatteryCase, judge_case
from harness.release.replay import GatewayReplayer
from servers.base import normalise_code
from servers.gateway import Gateway
from tests.scripts import load_script

pytestmark = pytest.mark.anyio

PIN_VARIANTS = {
    "space": " 2509",
    "tab": "2509\t",
    "nbsp": "2509\u00a0",
    "zwsp": "\u200b2509",
    "full_width": "\uff12\uff15\uff10\uff19",
    "combining_mark": "2509\u0301",
}
"""The rejected PIN 2509 of payments_journey_wrong_pin_refund_17, written as an agent might retry it."""


def policy_failures(verdict: TrialVerdict) -> list[str]:
    return [c.check for c in verdict.failures() if c.check.startswith("policy ")]


def with_calls(task: Task, turn: int, index: int, *calls: GoldCall, replace: bool = False) -> list[GoldTurn]:
    """The gold turns with `calls` inserted at `index` of `turn` (or replacing the call there)."""
    out = [t.model_copy(update={"calls": list(t.calls)}) for t in task.gold]
    if replace:
        del out[turn].calls[index]
    out[turn].calls[index:index] = list(calls)
    return out


async def play(task: Task, turns: list[GoldTurn]) -> Evidence:
    async with GatewayReplayer(Gateway([task.domain])) as replayer:
        return await replayer.play(task, turns)


# ---- rule 1: a refused call is never repeated unchanged -------------------------------------------------


async def test_every_gold_path_here_passes_and_its_unchanged_repeat_of_a_refused_pin_fails() -> None:
    task = get_task("payments_journey_wrong_pin_refund_17")
    gold = await play(task, list(task.gold))
    assert grade_offline(task, gold).strict  # the rejected PIN once, then the PIN the customer gave anew
    wrong = task.gold[0].calls[0]
    evidence = await play(task, with_calls(task, 0, 1, wrong))
    assert [c.status for c in evidence.tool_trace[:2]] == ["refused", "refused"]
    verdict = grade_offline(task, evidence)
    assert not verdict.strict and verdict.primary_failure == "forbidden"
    [check] = [c for c in verdict.failures() if c.check.startswith("policy ")]
    assert check.component == "forbidden"
    assert check.reason.startswith("payments policy, 'Consent and refused attempts': a refused call is never repeated unchanged - ")
    assert "authenticate_customer" in check.reason and "refused at turn 0 (code 403, 'Authentication failed: PIN does not match')" in check.reason
    assert "sent again unchanged at turn 0" in check.reason and check.diff


@pytest.mark.parametrize("name", sorted(PIN_VARIANTS))
async def test_a_rejected_pin_retried_in_another_form_is_the_same_attempt(name: str) -> None:
    """Issue 41 item 4: the world refuses the padded PIN for the same reason; the policy and the cap both
    see the same attempt (canonical form), not a new one."""
    task = get_task("payments_journey_wrong_pin_refund_17")
    retry = GoldCall(tool="authenticate_customer", args={"customer_id": "CUST-2003", "pin": PIN_VARIANTS[name]})
    evidence = await play(task, with_calls(task, 0, 1, retry))
    second = evidence.tool_trace[1]
    assert second.status == "refused" and second.result["reason"] == "Authentication failed: PIN does not match"
    failed = {c.check.split(" ", 1)[0] for c in grade_offline(task, evidence).failures()}
    assert "attempt_limits[0]" in failed  # the cap on PIN 2509 counts both
    assert any(c.startswith("policy payments: repeated authenticate_customer") for c in policy_failures(grade_offline(task, evidence)))


@pytest.mark.parametrize("name", sorted(PIN_VARIANTS))
async def test_the_right_pin_in_another_form_is_the_right_pin(name: str) -> None:
    """The world reads a PIN through the same type: the customer's PIN 2590 padded or full-width verifies."""
    task = get_task("payments_journey_wrong_pin_refund_17")
    pin = PIN_VARIANTS[name].replace("2509", "2590").replace("\uff12\uff15\uff10\uff19", "\uff12\uff15\uff19\uff10")
    right = GoldCall(tool="authenticate_customer", args={"customer_id": "CUST-2003", "pin": pin})
    evidence = await play(task, with_calls(task, 1, 0, right, replace=True))
    assert evidence.tool_trace[1].status == "executed"
    assert grade_offline(task, evidence).strict


def test_codes_normalise_like_the_world_reads_them() -> None:
    for variant in PIN_VARIANTS.values():
        assert normalise_code(variant) == "2509"
    assert normalise_code("25 09") == "25 09"  # inner spacing is kept: only the edges are trimmed
    assert normalise_code(2509) == 2509  # a non-string is left to the type to refuse


@pytest.mark.parametrize("domain", ["retail", "customer_support", "payments"])
def test_every_pin_parameter_is_a_code(domain: str) -> None:
    """Every authentication tool's PIN compares in canonical form, for the grader as for the world."""
    from grader.semantics import canonical_param
    from servers.registry import environment_class

    env = environment_class(domain)
    for variant in PIN_VARIANTS.values():
        assert canonical_param(env, "authenticate_customer", "pin", variant) == "2509"


async def test_a_repeat_after_a_write_that_changed_the_world_is_a_new_attempt() -> None:
    """Onboarding: verification refused for a missing document; the agent registers the document and runs
    it again - the same arguments, another world."""
    task = get_task("onboarding_verify_only_pointed_upload_01")
    verify, register = GoldCall(tool="run_verification", args={"account_id": "ACC-3005"}), task.gold[0].calls[0]
    early = await play(task, with_calls(task, 0, 0, verify))  # run_verification, register_document, run_verification
    assert [c.status for c in early.tool_trace] == ["refused", "executed", "refused"]
    assert not policy_failures(grade_offline(task, early))
    again = await play(task, with_calls(task, 0, 2, verify))  # register, verify (refused), verify again at once
    assert [c.status for c in again.tool_trace] == ["executed", "refused", "refused"]
    assert policy_failures(grade_offline(task, again)) == ["policy onboarding: repeated run_verification @turn0#2"]
    assert register.tool == "register_document"


async def test_a_rejected_pin_after_an_unrelated_write_is_still_the_rejected_pin() -> None:
    """A successful write in between does not make the same PIN a new attempt when the world gives the
    very same refusal again (nothing the refusal depends on changed)."""
    task = get_task("payments_checkout_insufficient_then_card_01")
    wrong = GoldCall(tool="authenticate_customer", args={"customer_id": "CUST-2002", "pin": "0000"})
    write = GoldCall(tool="process_payment", args={"account_id": "ACC-1002", "amount": 5.0, "method": "card", "merchant": "Kiosk"})
    evidence = await play(task, with_calls(task, 0, 0, wrong, write, wrong))
    assert [c.status for c in evidence.tool_trace[:3]] == ["refused", "executed", "refused"]
    assert "policy payments: repeated authenticate_customer @turn0#2" in policy_failures(grade_offline(task, evidence))


async def test_a_refused_answer_retried_with_what_the_customer_chose_passes() -> None:
    """refusal_is_an_answer tools retried with new arguments: the marketing segment without the
    unsubscribed person, the payment on the card, the PIN the customer gave anew."""
    for task_id in ("marketing_add_unsubscribed_01", "payments_checkout_insufficient_then_card_01", "retail_auth_wrong_then_right_pin_01"):
        task = get_task(task_id)
        evidence = await play(task, list(task.gold))
        assert any(c.status == "refused" for c in evidence.tool_trace), task_id
        assert grade_offline(task, evidence).strict, task_id


async def test_a_payment_retried_a_cent_higher_after_insufficient_funds_is_the_same_attempt() -> None:
    task = get_task("payments_checkout_insufficient_then_card_01")
    first = task.gold[0].calls[0]
    cent = GoldCall(tool=first.tool, args={**first.args, "amount": 212.41})
    evidence = await play(task, with_calls(task, 0, 1, cent))
    a, b = evidence.tool_trace[:2]
    assert a.status == b.status == "refused" and a.result["reason"] == b.result["reason"] == "Insufficient funds"
    verdict = grade_offline(task, evidence)
    [check] = [c for c in verdict.failures() if c.check.startswith("policy ")]
    assert "with only amount 212.4 -> 212.41" in check.reason and "refused again with the same answer" in check.reason
    assert any(c.check.startswith("attempt_limits[0]") for c in verdict.failures())  # the cap counts it too
    # a new amount the customer chose (not a trivial change) refused again is a new answer, not a repeat
    smaller = GoldCall(tool=first.tool, args={**first.args, "amount": 195.0})  # still above the $180.00 balance
    other = await play(task, with_calls(task, 0, 1, smaller))
    assert other.tool_trace[1].status == "refused" and not policy_failures(grade_offline(task, other))


async def test_a_refused_read_asked_again_never_counts() -> None:
    task = get_task("retail_status_other_customer_01")
    wrong = task.gold[0].calls[0]
    evidence = await play(task, with_calls(task, 0, 1, wrong))
    assert [c.status for c in evidence.tool_trace[:2]] == ["refused", "refused"]
    assert not policy_failures(grade_offline(task, evidence))


async def test_a_write_sent_again_after_it_succeeded_and_refused_fails() -> None:
    task = get_task("payments_checkout_full_chain_02")
    receipt = task.gold[0].calls[1]
    assert receipt.tool == "send_receipt"
    evidence = await play(task, with_calls(task, 0, 2, receipt))
    assert evidence.tool_trace[2].status == "refused"
    failures = policy_failures(grade_offline(task, evidence))
    assert "policy payments: repeated send_receipt @turn0#2" in failures
    assert "policy payments: refused send_receipt @turn0#2" in failures  # send_receipt's refusal is no answer


# ---- rule 2: a refused write is a violation where the rule says so --------------------------------------


async def test_a_refused_write_fails_and_an_answer_or_a_compute_tool_does_not() -> None:
    task = get_task("payments_journey_wrong_pin_refund_17")
    refund = task.gold[2].calls[1]
    early = await play(task, with_calls(task, 0, 1, refund))  # the refund before the customer is verified: 403
    assert early.tool_trace[1].status == "refused"
    verdict = grade_offline(task, early)
    [check] = [c for c in verdict.failures() if c.check.startswith("policy ")]
    assert check.check == "policy payments: refused refund_payment @turn0#1"
    assert check.reason.startswith("payments policy, 'Consent and refused attempts': a write the world refuses is a violation")
    assert "validate_transfer, authenticate_customer, award_loyalty_points, process_payment" in check.reason
    # the rejected PIN itself (an answer, and a compute tool) never counts under this rule
    assert not policy_failures(grade_offline(task, await play(task, list(task.gold))))


def _trace(task: Task, *calls: tuple[str, str, dict[str, Any], dict[str, Any] | None]) -> Evidence:
    return Evidence(
        tool_trace=[
            ToolCallRecord(seq=i, turn=0, tool=tool, arguments=args, status=status, result=result)  # type: ignore[arg-type]
            for i, (tool, status, args, result) in enumerate(calls)
        ],
        initial_state=task.initial_state or {},
    )


def test_the_rule_on_refused_writes_follows_the_block(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under `refused_attempts: allowed` a single refused write passes; an unchanged repeat still fails."""
    task = first_task("travel")
    args = {"booking_id": "PNR-R4T8VX"}
    refusal = {"refused": True, "status": 409, "reason": "Already cancelled"}
    once = _trace(task, ("cancel_booking", "refused", args, refusal))
    twice = _trace(task, ("cancel_booking", "refused", args, refusal), ("cancel_booking", "refused", args, refusal))
    assert load_rules("travel").refused_attempts == "violation"
    assert policy_failures(grade_offline(task, once)) == ["policy travel: refused cancel_booking @turn0#0"]
    monkeypatch.setattr(refusals, "policy_of", lambda domain: PolicyRules(refused_attempts="allowed"))
    assert policy_failures(grade_offline(task, once)) == []
    assert policy_failures(grade_offline(task, twice)) == ["policy travel: repeated cancel_booking @turn0#1"]


def first_task(domain: str) -> Task:
    from contracts.catalog import load_catalog

    return next(t for t in load_catalog().values() if t.domain == domain)


# ---- the attempt comparison itself -------------------------------------------------------------------------


def _call(status: str, args: dict[str, Any], code: int | None = 422, reason: str = "Insufficient funds", tool: str = "process_payment") -> ToolCallRecord:
    result = {"refused": True, "status": code, "reason": reason} if status == "refused" and code is not None else None
    return ToolCallRecord(seq=0, turn=0, tool=tool, arguments=args, status=status, result=result)  # type: ignore[arg-type]


def test_same_reason_needs_the_same_code_and_the_same_words() -> None:
    a = _call("refused", {"amount": 100.0, "merchant": "Pinecrest Audio"})
    assert same_attempt(a, _call("refused", {"amount": 100.5, "merchant": "Pinecrest Audio"}))
    assert not same_attempt(a, _call("refused", {"amount": 100.5, "merchant": "Pinecrest Audio"}, code=403, reason="Account is frozen"))
    assert not same_attempt(a, _call("refused", {"amount": 100.5, "merchant": "Pinecrest Audio"}, code=None))  # no recorded reason
    assert not same_attempt(a, _call("refused", {"amount": 90.0, "merchant": "Pinecrest Audio"}))  # a 10% change is a choice
    assert not same_reason_retry(a, _call("executed", {"amount": 100.5, "merchant": "Pinecrest Audio"}))
    # free text never addresses a refusal; an id does
    assert same_reason_retry(a, _call("refused", {"amount": 100.0, "merchant": "Pinecrest Audio, Main St"}), free_text={"merchant"})
    assert not same_reason_retry(a, _call("refused", {"amount": 100.0, "merchant": "Pinecrest Audio, Main St"}))
    assert not same_attempt(_call("refused", {"account_id": "ACC-1002"}), _call("refused", {"account_id": "ACC-1003"}))


def test_trivial_differences_are_the_ones_that_cannot_answer_a_refusal() -> None:
    assert trivially_equal(212.4, 212.41) and trivially_equal(0.5, 0.51) and not trivially_equal(0.5, 0.52)
    assert not trivially_equal(2, 3) and not trivially_equal(True, 1)
    assert skeleton("Lost\u00a0card.") == skeleton("lost card") and trivially_equal(["A-1", "b 2"], ["a1", "B2"])
    assert not trivially_equal("SUB-7006", "SUB-7007")


# ---- the release gate's battery and sweep ---------------------------------------------------------------------


def test_a_refused_repeat_in_the_battery_must_fail_not_guarded() -> None:
    case = BatteryCase("behaviour/repeat/send_receipt@0.1", "behaviour", "repeat", "repeat", [], added=(2,))
    refused = Evidence(tool_trace=[_call("executed", {}), _call("executed", {}, tool="send_receipt"), _call("refused", {}, tool="send_receipt")])
    assert judge_case(case, refused, strict=False) == "killed"
    assert judge_case(case, refused, strict=True) == "missed"
    collateral = BatteryCase("behaviour/collateral/x", "behaviour", "collateral", "collateral", [], added=(2,))
    assert judge_case(collateral, refused, strict=True) == "guarded"  # other kinds keep the world's guard


async def test_the_sweep_replays_every_gold_write_and_every_refused_repeat_fails() -> None:
    sweep = load_script("refused_repeat_sweep")
    reports = await sweep.sweep(["sales"])
    sales = reports["sales"]
    assert sales.tasks == 18 and sales.repeats > 0 and sales.refused > 0 and not sales.gold_failures
    assert sales.passing == [] and sales.failing_tasks == len(sales.refused_tasks) > 0


def test_the_grader_reads_the_policy_without_the_harness() -> None:
    code = "import sys, grader.grade, grader.refusals; sys.exit(1 if any(m == 'harness' or m.startswith('harness.') for m in sys.modules) else 0)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_the_grading_docs_list_every_domains_exempt_tools() -> None:
    """docs/grading.md's table is the policies' blocks and the tools' kinds, not a copy that drifts."""
    from pathlib import Path

    from servers.registry import environment_class

    docs = (Path(__file__).resolve().parents[1] / "docs" / "grading.md").read_text(encoding="utf-8")
    for domain in ("retail", "customer_support", "field_service", "itsm", "payments", "travel", "onboarding", "sales", "marketing"):
        rules, env = load_rules(domain), environment_class(domain)
        answers = ", ".join(f"`{t}` ({env.tool_kind(t)})" for t in rules.refusal_is_an_answer) or "none"
        compute = ", ".join(f"`{t}`" for t in env.tool_methods() if env.tool_kind(t) == "compute") or "none"
        writes = sum(env.tool_kind(t) == "write" for t in env.tool_methods())
        assert f"| {domain} | `{rules.refused_attempts}` | {answers} | {compute} | {writes} |" in docs, domain
