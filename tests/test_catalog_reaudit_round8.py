"""Catalog re-audit, round 8 (branch r8-catalog): reply criteria whose evidence did not check what the
statement asks, or whose `absent` list let an obvious wrong outcome pass (docs/authoring.md).

Classes:
1. a payment-method mention guard missing an obvious wrong method: a bank-transfer or account-balance
   payment described as a card payment ("card payment", "by card", "with a card", "on a card");
2. a stated part of the fact not required: the 13:00 due time (a 4-hour SLA with a wrong due time passed),
   the Wednesday of a clash, a refund (not travel credit) within 24 hours,
   the flexible fare, the original card of a refund, that the booking was made, that the contact was
   enrolled, the direction of a fare difference (to pay, not back), no travel credit ("return nothing",
   which the judge also reads in "no refund", stood for it);
3. the record or item the statement names not required: the frozen savings account ACC-1007, the
   enterprise plan of a price.

Each case: a correct reply in words of our own (must pass) and a wrong reply (must fail), judged alone and
among the task's criteria with its instruction (helpers from the round-5 test module).
"""

from __future__ import annotations

import pytest

from tests.test_catalog_reaudit_round5 import MINTED, assert_gold_passes, assert_reaudited

for _field, _id in {"booking_id": "PNR-Z9Z9Z9", "return_id": "RET-7101", "transaction_id": "TXN-4101", "account_id": "ACC-3009",
                    "transfer_id": "XFER-4101", "dispute_id": "DSP-3101", "case_id": "CASE-5101", "live_on": "2026-11-30"}.items():
    MINTED.setdefault(_field, _id)

P, F = True, False

CASES: list[tuple[str, str, str, list[str], bool]] = [
    # ---- 1. payment-method guards -----------------------------------------------------------------------
    ("payments_checkout_pay_receipt_only_01", "If the replies say how", "bank transfer",
     ["All done: $1,249.00 went to Atlas Print Studio by bank transfer, and your receipt is in your inbox."], P),
    ("payments_checkout_pay_receipt_only_01", "If the replies say how", "card payment",
     ["All done: your card payment of $1,249.00 to Atlas Print Studio cleared and the receipt is in your inbox."], F),
    ("payments_checkout_pay_receipt_only_01", "If the replies say how", "paid by card",
     ["Atlas Print Studio has been paid $1,249.00 by card; receipt emailed."], F),
    ("payments_checkout_full_chain_01", "If the replies say how", "with a card",
     ["I settled the $1,234.56 with a card on file and emailed the receipt."], F),
    ("payments_checkout_balance_chain_01", "If the replies say how", "balance",
     ["Paid from your account balance; the receipt is on its way."], P),
    ("payments_checkout_balance_chain_01", "If the replies say how", "on a card",
     ["I put the purchase on a card and emailed the receipt."], F),
    ("payments_checkout_balance_then_pay_01", "If the replies say how", "card payment",
     ["Your card payment went through and the receipt is on its way."], F),
    # ---- 2. stated parts of the fact ---------------------------------------------------------------------
    ("customer_support_triage_p1_business_outage_01", "Tells the customer the case is P1", "due 1 pm",
     ["Logged as priority 1 - we aim to fix outages like this within four hours, so you're due a resolution by 1 pm."], P),
    ("customer_support_triage_p1_business_outage_01", "Tells the customer the case is P1", "wrong due time",
     ["Logged as P1, four-hour SLA, so it's due at 14:00 today."], F),
    ("customer_support_triage_p1_business_outage_01", "Tells the customer the case is P1", "window only",
     ["Logged as P1 with a 4-hour SLA."], F),
    ("field_service_reschedule_tech_busy_01", "Explains that Priya Shah", "Wednesday",
     ["Priya Shah has another job at 10:00 on Wednesday 2 December, so she's busy then."], P),
    ("field_service_reschedule_tech_busy_01", "Explains that Priya Shah", "wrong day",
     ["Priya Shah is busy at 10:00 on Friday, so I can't move the visit there."], F),
    ("field_service_furnace_journey_01", "Explains Priya Shah", "wrong day",
     ["Priya Shah is booked at 10:00 on Tuesday."], F),
    ("travel_basic_within_24h_refund_01", "Explains that within 24 hours", "refund",
     ["You booked less than 24 hours ago, so even on a basic fare you'd get your $99.00 back on your Visa."], P),
    ("travel_basic_within_24h_refund_01", "Explains that within 24 hours", "travel credit",
     ["Because you're inside the 24-hour window, the $99 is kept as travel credit for your next trip."], F),
    ("travel_within_24h_keep_hotel_01", "States the full refund of $298", "credit instead",
     ["Since you're within 24 hours, the $298 goes into travel credit."], F),
    ("travel_fare_change_of_mind_01", "Confirms the flexible booking", "flex",
     ["Booked on the flex fare for $349, charged to your Visa."], P),
    ("travel_fare_change_of_mind_01", "Confirms the flexible booking", "standard",
     ["Booked on the standard fare for $349, charged to your Visa."], F),
    ("travel_family_change_refund_01", "States the $30 total difference", "same card",
     ["The $30 you're owed is refunded to the same card you paid with."], P),
    ("travel_family_change_refund_01", "States the $30 total difference", "no card",
     ["The $30 difference has been refunded."], F),
    ("travel_flexible_recent_refund_01", "States the full $269 refund", "Visa",
     ["Cancelled - the whole $269 is refunded to your Visa ending 4713."], P),
    ("travel_flexible_recent_refund_01", "States the full $269 refund", "as a voucher",
     ["Cancelled - the whole $269 refund is issued as a voucher."], F),
    ("travel_book_for_colleague_01", "Confirms the booking and the $279", "booked",
     ["Aiko is booked on AU210 on the 10th, and $279.00 went on your card."], P),
    ("travel_book_for_colleague_01", "Confirms the booking and the $279", "reserved",
     ["Aiko Tanaka now has a seat reserved on AU210 (10 Dec, flexible); $279.00 charged to your Visa."], P),
    ("travel_book_for_colleague_01", "Confirms the booking and the $279", "ticketed",
     ["Ms Tanaka is ticketed on AU 210 for the 10th - $279 total on your Visa."], P),
    ("travel_book_for_colleague_01", "Confirms the booking and the $279", "done",
     ["Done - Aiko flies AU210 on 10 December, $279.00 in total."], P),
    ("travel_book_for_colleague_01", "Confirms the booking and the $279", "offer",
     ["A flexible seat on AU210 for Aiko comes to $279.00 - would you like me to go ahead?"], F),
    ("travel_book_for_colleague_01", "Confirms the booking and the $279", "not booked",
     ["AU210 at $279.00 is the cheapest flexible option, but I have not booked it yet."], F),
    ("travel_book_for_colleague_01", "Confirms the booking and the $279", "price only",
     ["The flexible seat on AU210 on the 10th is $279.00. Want it?"], F),
    ("travel_change_small_difference_01", "Quotes the $10", "to pay",
     ["The switch to AU720 on the 8th comes with a $10 fare difference you'd need to pay."], P),
    ("travel_change_small_difference_01", "Quotes the $10", "money back",
     ["The switch to AU720 on the 8th is $10 cheaper, and we'd refund the difference."], F),
    ("travel_basic_after_24h_nothing_back_01", "Explains before cancelling", "no credit either",
     ["PNR-W5AK3N is a basic ticket bought more than a day ago: no refund, and no credit either. Cancel anyway?"], P),
    ("travel_basic_after_24h_nothing_back_01", "Explains before cancelling", "refund only",
     ["PNR-W5AK3N is a basic ticket bought more than a day ago, so you won't get your money back. Cancel anyway?"], F),
    ("sales_qualify_and_enroll_01", "Confirms LEAD-1007", "enrolled",
     ["LEAD-1007 is qualified, and Nina Kowalski is now enrolled in the Webinar follow-up sequence."], P),
    ("sales_qualify_and_enroll_01", "Confirms LEAD-1007", "not enrolled",
     ["LEAD-1007 is qualified. The Webinar follow-up sequence is ready whenever you want to use it."], F),
    # ---- 3. the record or item the statement names -------------------------------------------------------
    ("payments_transfer_frozen_savings_fallback_01", "Explains that the payment from ACC-1007", "savings",
     ["I can't send it - your savings account is frozen, so nothing can go out of it."], P),
    ("payments_transfer_frozen_savings_fallback_01", "Explains that the payment from ACC-1007", "other account",
     ["I can't send it - ACC-1006 is frozen."], F),
    ("onboarding_create_account_change_mind_01", "Tells the customer the enterprise plan", "named",
     ["Enterprise runs $1,200 a month. Nothing is set up yet."], P),
    ("onboarding_create_account_change_mind_01", "Tells the customer the enterprise plan", "other plan",
     ["Growth is $1,200 a month. Nothing is set up yet."], F),
]


@pytest.mark.parametrize("task_id,statement,label,replies,expected", CASES, ids=[f"{c[0]}:{c[2]}" for c in CASES])
def test_round8_reaudited_criterion(task_id: str, statement: str, label: str, replies: list[str], expected: bool) -> None:
    assert_reaudited(task_id, statement, label, replies, expected)


GOLD_TASKS = sorted({c[0] for c in CASES})


@pytest.mark.parametrize("task_id", GOLD_TASKS)
def test_round8_gold_still_passes(task_id: str) -> None:
    assert_gold_passes(task_id)


CASES_CS: list[tuple[str, str, str, list[str], bool]] = [
    # customer_support, audited in round 8: a part of the statement that nothing required
    ("customer_support_auth_spouse_account_01", "Explains that Hannah", "herself",
     ["Sorry - only Hannah can approve changes to her account, after she verifies with her own PIN."], P),
    ("customer_support_auth_spouse_account_01", "Explains that Hannah", "changed anyway",
     ["No problem, I've updated Hannah's phone number for you."], F),
    ("customer_support_kb_sim_swap_no_case_01", "Tells the customer to reset the APN", "default",
     ["Set the APN back to its default, northstar.net, and then reboot - I mean restart - the phone."], P),
    ("customer_support_kb_sim_swap_no_case_01", "Tells the customer to reset the APN", "other APN",
     ["Change the APN to internet.mobile and restart the phone."], F),
    ("customer_support_jour_dispute_blocks_close_and_credit_01", "Explains the open billing dispute", "both",
     ["With dispute DSP-3001 still open, INV-8005 cannot be credited and CASE-5008 cannot be closed."], P),
    ("customer_support_jour_dispute_blocks_close_and_credit_01", "Explains the open billing dispute", "dispute only",
     ["There's an open billing dispute, DSP-3001, on INV-8005."], F),
]


@pytest.mark.parametrize("task_id,statement,label,replies,expected", CASES_CS, ids=[f"{c[0]}:{c[2]}" for c in CASES_CS])
def test_round8_customer_support_audit(task_id: str, statement: str, label: str, replies: list[str], expected: bool) -> None:
    assert_reaudited(task_id, statement, label, replies, expected)


@pytest.mark.parametrize("task_id", sorted({c[0] for c in CASES_CS}))
def test_round8_customer_support_gold_still_passes(task_id: str) -> None:
    test_round8_gold_still_passes(task_id)
