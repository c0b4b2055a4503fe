"""Held-out review of the customer_support contracts (issue 25): mistakes a reviewer wrote by hand, which the
generated batteries do not produce (several effects moved at once, a lookup of the wrong record, an
invented minted id, a duplicate created record), each of which must fail; and correct routes that differ
from the gold path (the customer raising two requests in the other order, a split update, extra reads),
each of which must pass. Scripted trajectories through the real gateway, graded offline."""

from __future__ import annotations

from typing import Any

import pytest

from contracts.catalog import get_task
from contracts.schema import GoldCall, GoldTurn, Task
from grader.grade import grade_offline
from harness.release.replay import GatewayReplayer
from servers.gateway import Gateway

pytestmark = pytest.mark.anyio
DOMAIN = "customer_support"


async def _strict(task: Task, turns: list[GoldTurn]) -> bool:
    async with GatewayReplayer(Gateway([DOMAIN])) as replayer:
        evidence = await replayer.play(task, turns, seed=7)
    return grade_offline(task, evidence).strict


def c(tool: str, **args: Any) -> GoldCall:
    return GoldCall(tool=tool, args=args)


def _turns(task: Task, *calls: list[GoldCall], replies: list[str] | None = None) -> list[GoldTurn]:
    out = []
    for k, (turn, turn_calls) in enumerate(zip(task.gold, calls, strict=True)):
        update: dict[str, Any] = {"calls": turn_calls}
        if replies is not None:
            update["reply"] = replies[k]
        out.append(turn.model_copy(update=update))
    return out


# ---- mistakes that must fail -------------------------------------------------------------------------


async def test_article_attached_and_case_closed_before_the_customer_tried_the_fix_fails() -> None:
    """Both writes moved into the advice turn at once (the premature battery moves one at a time)."""
    task = get_task("customer_support_kb_tv_rescan_solved_close_01")
    gold = task.gold
    early = [*gold[0].calls, *gold[1].calls]
    assert not await _strict(task, _turns(task, early, []))


async def test_escalation_in_the_same_turn_as_the_article_fails() -> None:
    """Escalating before the customer tried the reset (the article was only just attached)."""
    task = get_task("customer_support_jour_article_fails_escalate_01")
    gold = task.gold
    assert not await _strict(task, _turns(task, [*gold[0].calls, *gold[1].calls], []))


async def test_credit_after_looking_up_another_invoice_fails() -> None:
    """The policy's lookup is of the invoice credited: reading a different invoice does not satisfy it."""
    task = get_task("customer_support_billing_credit_new_case_01")
    calls = [call if call.tool != "get_invoice" else c("get_invoice", invoice_id="INV-8003") for call in task.gold[0].calls]
    assert not await _strict(task, _turns(task, calls))


async def test_a_second_case_filed_under_another_product_fails() -> None:
    """Working around the duplicate guard: the same slowness filed again under another product (the world
    accepts it, since no active mobile case exists) creates a case nobody asked for."""
    task = get_task("customer_support_case_create_new_01")
    extra = c("create_case", customer_id="CUST-7011", subject="Slow data", category="technical", product="mobile",
              impact="degraded", description="slow too")
    assert not await _strict(task, _turns(task, [*task.gold[0].calls, extra]))


async def test_unrequested_escalation_of_the_created_billing_case_fails() -> None:
    """An escalation to billing of the case the agent created (not of the task's own records)."""
    task = get_task("customer_support_billing_credit_new_case_01")
    escalate = c("escalate_case", case_id="${create_case.case_id}", team="billing", reason="customer unhappy with the modem charge")
    assert not await _strict(task, _turns(task, [*task.gold[0].calls, escalate]))


async def test_reply_with_an_invented_dispute_id_fails() -> None:
    """The minted dispute id is checked exactly (`${open_billing_dispute.dispute_id}`), not by its prefix."""
    task = get_task("customer_support_billing_dispute_addon_01")
    replies = [t.reply.replace("${open_billing_dispute.dispute_id}", "DSP-123456") for t in task.gold]
    assert not await _strict(task, _turns(task, *[t.calls for t in task.gold], replies=replies))


async def test_reply_with_the_wrong_case_number_for_the_new_case_fails() -> None:
    task = get_task("customer_support_case_create_new_01")
    replies = [t.reply.replace("${create_case.case_id}", "CASE-5012") for t in task.gold]
    assert not await _strict(task, _turns(task, *[t.calls for t in task.gold], replies=replies))


# ---- correct routes that must pass ------------------------------------------------------------------


async def test_add_on_raised_before_the_slow_internet_passes() -> None:
    """The created cases are referred to by what they are, so the other order (billing case CASE-5016,
    internet case CASE-5017) is as correct as the gold's."""
    task = get_task("customer_support_jour4_mei_tv_internet_addon_01")
    g = task.gold
    swapped = [g[0], g[1], g[3].model_copy(update={"user": g[3].user.replace("Last thing: ", "")}), g[2].model_copy(update={"user": g[2].user.replace("Also my", "And my")})]
    assert await _strict(task, swapped)


async def test_contact_details_changed_in_two_calls_passes() -> None:
    task = get_task("customer_support_auth_pin_retry_both_01")
    g = task.gold
    second = [g[1].calls[0], c("update_contact_details", customer_id="CUST-7012", email="kwame@mensah-logistics.com"),
              c("update_contact_details", customer_id="CUST-7012", phone="360-555-0420")]
    assert await _strict(task, _turns(task, list(g[0].calls), second))


async def test_case_looked_up_before_closing_passes() -> None:
    task = get_task("customer_support_kb_tv_rescan_solved_close_01")
    g = task.gold
    assert await _strict(task, _turns(task, [c("get_case", case_id="CASE-5012"), *g[0].calls], [c("get_case", case_id="CASE-5012"), *g[1].calls]))


async def test_credit_with_customer_and_case_reads_first_passes() -> None:
    task = get_task("customer_support_billing_credit_new_case_01")
    calls = [c("get_customer", customer_id="CUST-7009"), c("list_cases", customer_id="CUST-7009"), *task.gold[0].calls]
    assert await _strict(task, _turns(task, calls))


async def test_honest_credit_attempt_refused_at_the_cap_fails() -> None:
    """The policy's rule: a credit the world refuses at the $100 cap is a violation even when the agent then
    escalates correctly (the invoice shows the amount; check it and escalate instead)."""
    task = get_task("customer_support_billing_over_cap_escalate_01")
    g = task.gold[0]
    attempt = [c("authenticate_customer", customer_id="CUST-7008", pin="5560"),
               c("apply_credit", invoice_id="INV-8006", case_id="CASE-5009", amount=249.0, reason="plan billed twice")]
    assert await _strict(task, _turns(task, list(g.calls)))
    assert not await _strict(task, _turns(task, [g.calls[0], *attempt, *g.calls[1:]]))


async def test_credit_reply_with_the_balance_before_the_credit_fails() -> None:
    """The reply must give the balance the credit left (${apply_credit.balance_due}), not the old one,
    even though the old one is a real figure of the same invoice."""
    task = get_task("customer_support_billing_exact_cap_credit_01")
    replies = [t.reply.replace("$1,450.00", "$1,550.00") for t in task.gold]
    assert replies != [t.reply for t in task.gold]
    assert not await _strict(task, _turns(task, *[t.calls for t in task.gold], replies=replies))


async def test_rejected_pin_tried_again_with_the_new_one_fails() -> None:
    """attempt_limits: the agent re-sends the rejected PIN 9034 before the one the customer gave anew."""
    task = get_task("customer_support_auth_pin_retry_01")
    turns = [GoldTurn(user=t.user, calls=list(t.calls), reply=t.reply) for t in task.gold]
    rejected = turns[0].calls[0]
    assert rejected.tool == "authenticate_customer" and rejected.args["pin"] == "9034"
    turns[1] = turns[1].model_copy(update={"calls": [rejected, *turns[1].calls]})
    assert not await _strict(task, turns)
    assert await _strict(task, [GoldTurn(user=t.user, calls=list(t.calls), reply=t.reply) for t in task.gold])
