"""Catalog re-audit, round 6 (branch r6-catalog): reply criteria whose evidence did not require what the
statement asks, or whose alternatives/absent list let a wrong reply pass.

Classes (docs/authoring.md: name the record, label each value by its item, specific alternatives):
1. the evidence did not require the record or a stated part of the fact (the Lakeview stay and its
   cancellation; "today"; carried to the next bill; added to the existing case; per MB; the reset button;
   the line test clean; the breaker replaced; the segment; the original card; the call with Owen Price;
   the Cold intro sequence; the competitor reason);
2. an alternative as weak as a word the reply uses anyway ("paypal" for "PayPal does not help");
3. a mention guard missing an obvious wrong destination ("store credit" where the customer never asked
   for it: policy offers store credit only on request).

Each case: a correct reply in words of our own (must pass) and a wrong reply (must fail), judged alone and
among the task's criteria with its instruction (the helpers come from the round-5 test module).
"""

from __future__ import annotations

import pytest

from tests.test_catalog_reaudit_round5 import MINTED, assert_gold_passes, assert_reaudited

# minted ids of the tasks audited here (the round-5 map lacks them)
for _field, _id in {"refund_id": "REF-4101", "segment_id": "SEG-4101", "campaign_id": "CMP-4101", "request_id": "REQ-4101", "transfer_id": "XFER-4101"}.items():
    MINTED.setdefault(_field, _id)

P, F = True, False

CASES: list[tuple[str, str, str, list[str], bool]] = [
    # ---- 1. record and stated parts of the fact ------------------------------------------------------
    ("travel_cancel_chicago_hotel_keep_rest_01", "Confirms the Lakeview", "terse",
     ["Lakeview (STAY-4001) cancelled - no fee."], P),
    ("travel_cancel_chicago_hotel_keep_rest_01", "Confirms the Lakeview", "chatty",
     ["All done, Nora! Your Chicago hotel at the Lakeview has been called off and there is nothing to pay for it."], P),
    ("travel_cancel_chicago_hotel_keep_rest_01", "Confirms the Lakeview", "only says it can be cancelled free",
     ["The Lakeview stay STAY-4001 can be cancelled free of charge until 8 December. Want me to go ahead?"], F),
    ("travel_cancel_chicago_hotel_keep_rest_01", "Confirms the Lakeview", "no hotel named",
     ["Your flight stays as it is and there is no fee for anything today."], F),
    ("field_service_reschedule_past_slot_01", "Confirms APT-7006", "this afternoon",
     ["Sorted: APT-7006 is now this afternoon, 16:00-18:00, with Mei."], P),
    ("field_service_reschedule_past_slot_01", "Confirms APT-7006", "today by date",
     ["APT-7006 has been moved to today (30 Nov) at 4 pm."], P),
    ("field_service_reschedule_past_slot_01", "Confirms APT-7006", "another day",
     ["APT-7006 is now tomorrow at 16:00."], F),
    ("field_service_reschedule_past_slot_01", "Confirms APT-7006", "another date",
     ["APT-7006 is now on 2 December at 16:00."], F),
    ("customer_support_billing_which_invoice_lookalike_01", "Says INV-8007", "upcoming invoice",
     ["November (INV-8007) got a $49.99 credit; you will see it on your upcoming invoice."], P),
    ("customer_support_billing_which_invoice_lookalike_01", "Says INV-8007", "rolls over",
     ["Credited $49.99 on INV-8007 (Nov). It rolls over to your next statement."], P),
    ("customer_support_billing_which_invoice_lookalike_01", "Says INV-8007", "refunded instead",
     ["INV-8007 for November was credited $49.99, refunded to your card today."], F),
    ("customer_support_case_existing_no_recreate_01", "Says the report", "updated instead",
     ["I have updated CASE-5002 with the 8 pm reading instead of raising another one."], P),
    ("customer_support_case_existing_no_recreate_01", "Says the report", "already open",
     ["That reading is now on CASE-5002, which you already have open for this, so nothing new was opened."], P),
    ("customer_support_case_existing_no_recreate_01", "Says the report", "new case linked",
     ["Done - I created a new case for last night and linked it to CASE-5002."], F),
    ("customer_support_case_existing_no_recreate_01", "Says the report", "fresh ticket",
     ["A fresh ticket has been raised; your old one, CASE-5002, stays as it is."], F),
    ("customer_support_kb_roaming_rate_explained_01", "States roaming", "cents a megabyte",
     ["Canada roaming is ten cents a megabyte, unless you have a travel pass on."], P),
    ("customer_support_kb_roaming_rate_explained_01", "States roaming", "slash MB",
     ["In Canada roaming is $0.10/MB, unless a travel pass is active."], P),
    ("customer_support_kb_roaming_rate_explained_01", "States roaming", "per gigabyte",
     ["Canada roaming is $0.10 a gigabyte unless a travel pass is active."], F),
    ("customer_support_kb_roaming_rate_explained_01", "States roaming", "per minute",
     ["Canada roaming costs $0.10 per minute unless a travel pass is active."], F),
    ("customer_support_kb_router_reboot_advice_01", "Tells the customer", "words",
     ["Hold down Reset for thirty seconds and wait roughly five minutes."], P),
    ("customer_support_kb_router_reboot_advice_01", "Tells the customer", "power cycle instead",
     ["Unplug the router for 30 seconds, plug it back in and wait 5 minutes."], F),
    ("customer_support_kb_router_reboot_advice_01", "Tells the customer", "power button",
     ["Hold the power button for 30 seconds, then wait 5 minutes."], F),
    ("customer_support_case_notes_lookup_01", "Reports the recorded", "passed",
     ["Tier 1 owns CASE-5001. The note: drops began on 26 November and the line test passed with no faults."], P),
    ("customer_support_case_notes_lookup_01", "Reports the recorded", "nothing wrong",
     ["The case sits with tier one; notes say the drops started 2026-11-26 and the line test showed nothing wrong."], P),
    ("customer_support_case_notes_lookup_01", "Reports the recorded", "test still to run",
     ["Tier 1 owns it; drops since 2026-11-26, and a line test is still to be run."], F),
    ("field_service_wo_status_01", "States that WO-5008", "swapped out",
     ["WO-5008 is complete: the tech swapped out the 20 amp breaker on circuit 7 and it tested fine."], P),
    ("field_service_wo_status_01", "States that WO-5008", "replacement",
     ["Completed. Circuit 7 got a replacement 20A breaker."], P),
    ("field_service_wo_status_01", "States that WO-5008", "only reset",
     ["WO-5008 is completed; the tech reset the 20A breaker on circuit 7."], F),
    ("field_service_wo_status_01", "States that WO-5008", "inspected",
     ["WO-5008 is completed - the 20A breaker on circuit 7 was inspected and left in place."], F),
    ("marketing_flash_sale_journey_01", "Confirms the Holiday", "segment named",
     ["Holiday Flash Sale is drafted as SMS on TPL-803, going out to the NA retail engaged segment."], P),
    ("marketing_flash_sale_journey_01", "Confirms the Holiday", "no audience",
     ["Holiday Flash Sale is an SMS draft on TPL-803; no audience yet."], F),
    ("retail_refund_other_card_01", "Confirms the $75.00", "card paid with",
     ["Refunded $75.00 to the card you originally paid with."], P),
    ("retail_refund_other_card_01", "Confirms the $75.00", "original payment method",
     ["$75.00 is on its way back to your original payment method."], P),
    ("retail_refund_other_card_01", "Confirms the $75.00", "the new card",
     ["I have sent the $75.00 refund to the Visa ending 8812."], F),
    ("sales_log_call_01", "Confirms the call", "terse",
     ["Owen Price call logged (CON-3008)."], P),
    ("sales_log_call_01", "Confirms the call", "a meeting",
     ["Logged a meeting with Owen Price for January."], F),
    ("sales_log_call_01", "Confirms the call", "another contact",
     ["I logged your call with Emma Schultz about the January review."], F),
    ("sales_enroll_opted_out_01", "Confirms Nina", "sequence id",
     ["Nina Kowalski is now enrolled in SEQ-01, the cold intro sequence."], P),
    ("sales_enroll_opted_out_01", "Confirms Nina", "another sequence",
     ["Nina is enrolled in the Webinar follow-up sequence."], F),
    ("sales_disqualify_lookalike_01", "Confirms Mark", "competitor",
     ["LEAD-1002 (Mark Chen, Northwind Foods) is disqualified - reason: lost to a competitor."], P),
    ("sales_disqualify_lookalike_01", "Confirms Mark", "another reason",
     ["LEAD-1002 is disqualified as not a fit."], F),
    # ---- 2. an alternative as weak as a word the reply uses anyway -----------------------------------
    ("payments_checkout_frozen_account_01", "Makes clear", "refused the same way",
     ["No - PayPal would be refused the same way, since the account itself is frozen."], P),
    ("payments_checkout_frozen_account_01", "Makes clear", "will not help",
     ["Switching to PayPal will not help: while ACC-1003 is frozen no payment method can go through."], P),
    ("payments_checkout_frozen_account_01", "Makes clear", "every way",
     ["PayPal would not work either - the freeze blocks every way of paying."], P),
    ("payments_checkout_frozen_account_01", "Makes clear", "PayPal gets around it",
     ["PayPal should get around it, since only the card is blocked."], F),
    ("payments_checkout_frozen_account_01", "Makes clear", "PayPal works",
     ["Sure, PayPal works - the freeze is on cards only."], F),
    # ---- 3. mention guard: store credit never asked for ----------------------------------------------
    ("retail_cancel_one_of_two_shipped_01", "If the replies", "card",
     ["ORD-9014 is cancelled; the $249.00 goes back to your card."], P),
    ("retail_cancel_one_of_two_shipped_01", "If the replies", "store credit denied",
     ["ORD-9014 is cancelled and $249.00 is refunded to your card; cancellations are never turned into store credit."], P),
    ("retail_cancel_one_of_two_shipped_01", "If the replies", "store credit",
     ["ORD-9014 is cancelled and $249.00 has been added as store credit."], F),
    ("retail_cancel_processing_01", "If the replies", "store credit",
     ["Your order is cancelled and the refund sits on your account as store credit."], F),
]


@pytest.mark.parametrize("task_id,statement,label,replies,expected", CASES, ids=[f"{c[0]}:{c[2]}" for c in CASES])
def test_round6_reaudited_criterion(task_id: str, statement: str, label: str, replies: list[str], expected: bool) -> None:
    assert_reaudited(task_id, statement, label, replies, expected)


GOLD_TASKS = sorted({c[0] for c in CASES})


@pytest.mark.parametrize("task_id", GOLD_TASKS)
def test_round6_gold_still_passes(task_id: str) -> None:
    assert_gold_passes(task_id)
