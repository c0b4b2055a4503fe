"""Catalog re-audit, round 5 (branch r5-catalog): reply criteria whose evidence let a WRONG reply pass.

Each case loads the catalog's real criterion by task id and statement prefix and judges three kinds of
replies with the offline evidence judge: the gold dialogue's replies (must pass), a correct reply in other
words (must pass) and the wrong reply the old criterion let through (must fail). Classes:

1. the statement named no record, so a reply about a look-alike record passed;
2. the evidence did not bind each value to its item, so swapped values passed (each value is now labelled
   by its item in the statement, "the X's $Y", which the judge's value labels and subjects read);
3. an alternative too weak ("another rep", "Saturday", "check", "Ben");
4. a mention guard missing a wording ("card payment").

Every case is judged twice: the criterion alone (`judge_sync([criterion], replies)`, as the calibration
set asks) and among the task's other criteria with its instruction (as a trial is graded).
"""

from __future__ import annotations

import re

import pytest

from contracts.catalog import load_catalog
from contracts.schema import ReplyCriterion
from grader.text.evidence import EvidenceJudge

CATALOG = load_catalog()
MINTED = {"appointment_id": "APT-7101", "opportunity_id": "OPP-3101", "grant_id": "GRT-9101", "transaction_id": "TXN-4101"}


def _literal(text: str) -> str:
    """A `${tool.field}` reference replaced by a plausible minted id (the same in criteria and replies)."""
    return re.sub(r"\$\{[a-z_]+(?:#\d+)?\.([a-z_]+)\}", lambda m: MINTED[m.group(1)], text)


def _criteria(task_id: str) -> list[ReplyCriterion]:
    return [ReplyCriterion.model_validate_json(_literal(c.model_dump_json(exclude_none=True))) for c in CATALOG[task_id].contract.reply_criteria or []]


def _index(task_id: str, statement: str) -> int:
    found = [i for i, c in enumerate(CATALOG[task_id].contract.reply_criteria or []) if c.criterion.startswith(statement)]
    assert len(found) == 1, (task_id, statement, found)
    return found[0]


def verdicts(task_id: str, statement: str, replies: list[str]) -> tuple[bool, bool]:
    """(alone, among the task's criteria) for the criterion of `task_id` whose statement opens with `statement`."""
    criteria, index = _criteria(task_id), _index(task_id, statement)
    replies = [_literal(r) for r in replies]
    alone = EvidenceJudge().judge_sync([criteria[index]], replies).criteria[0].passed
    among = EvidenceJudge().judge_sync(criteria, replies, instruction=CATALOG[task_id].instruction).criteria[index].passed
    return alone, among


def gold(task_id: str) -> list[str]:
    return [turn.reply for turn in CATALOG[task_id].gold]


def assert_reaudited(task_id: str, statement: str, label: str, replies: list[str], expected: bool) -> None:
    """A re-audited criterion's verdict on replies of our own, judged alone and among the task's criteria
    (the proof every round of the catalog re-audit gives for each change)."""
    alone, among = verdicts(task_id, statement, replies)
    assert alone is expected, (task_id, label, "alone")
    assert among is expected, (task_id, label, "among the task's criteria")


def assert_gold_passes(task_id: str) -> None:
    """The task's gold replies still meet every reply criterion after the re-audit."""
    from grader.text.evidence import EvidenceJudge

    result = EvidenceJudge().judge_sync(_criteria(task_id), [_literal(r) for r in gold(task_id)])
    assert all(c.passed for c in result.criteria), [c for c in result.criteria if not c.passed]


def lists(task_id: str, *later: str, keep: int = 1) -> list[str]:
    """The gold's first `keep` replies, then `later` ones (a wrong or reworded reply to the last request)."""
    return gold(task_id)[:keep] + list(later)


CASES: list[tuple[str, str, str, list[str], bool]] = [
    # ---- 1. the record the statement is about -----------------------------------------------------------
    ("retail_journey_list_then_cancel_01", "Confirms ORD-9017", "gold", gold("retail_journey_list_then_cancel_01"), True),
    ("retail_journey_list_then_cancel_01", "Confirms ORD-9017", "reworded",
     lists("retail_journey_list_then_cancel_01", "The yoga mat order, ORD-9017, has been canceled; you'll get $32.00 back on PayPal."), True),
    ("retail_journey_list_then_cancel_01", "Confirms ORD-9017", "the other order",
     lists("retail_journey_list_then_cancel_01", "I've cancelled ORD-9016 and $32.00 will go back to your PayPal. ORD-9017 is unchanged."), False),
    ("travel_lookalike_basic_cancel_01", "Tells the customer the basic booking PNR-R4T8VX", "gold", gold("travel_lookalike_basic_cancel_01"), True),
    ("travel_lookalike_basic_cancel_01", "Tells the customer the basic booking PNR-R4T8VX", "reworded",
     ["Your 12 December trip is PNR-R4T8VX, a basic fare, so cancelling it gives no refund at all. Go ahead?", "Done, PNR-R4T8VX is cancelled."], True),
    ("travel_lookalike_basic_cancel_01", "Tells the customer the basic booking PNR-R4T8VX", "the other booking",
     ["PNR-R4T8VX is a flexible fare and would be refunded in full; PNR-K7Q2MA is basic and gets nothing back."], False),
    ("field_service_full_journey_01", "Confirms Ben Carter is assigned to APT-7005", "gold", gold("field_service_full_journey_01"), True),
    ("field_service_full_journey_01", "Confirms Ben Carter is assigned to APT-7005", "reworded",
     lists("field_service_full_journey_01", "Ben Carter (TECH-103) is now your technician for the sink leak visit APT-7005.", keep=2), True),
    ("field_service_full_journey_01", "Confirms Ben Carter is assigned to APT-7005", "another work order",
     lists("field_service_full_journey_01", "Ben Carter (TECH-103) is now assigned to your water heater work order WO-5010.", keep=2), False),
    ("field_service_full_journey_01", "Confirms Ben Carter is assigned to APT-7005", "another appointment",
     lists("field_service_full_journey_01", "Ben Carter is assigned to APT-7010.", keep=2), False),
    ("itsm_access_grant_payroll_admin_01", "Confirms the payroll administrator role is granted to Alice", "gold", gold("itsm_access_grant_payroll_admin_01"), True),
    ("itsm_access_grant_payroll_admin_01", "Confirms the payroll administrator role is granted to Alice", "reworded",
     ["All set, Alice: you now have ROLE-PAYROLL-ADMIN (grant ${grant_access.grant_id}), since Robert Hayes's approval was on file."], True),
    ("itsm_access_grant_payroll_admin_01", "Confirms the payroll administrator role is granted to Alice", "another person",
     ["Thank you. Robert Hayes's approval is on file, so the Payroll administrator role is now granted to Maria Santos."], False),
    ("itsm_access_grant_payroll_admin_01", "Confirms the payroll administrator role is granted to Alice", "the approver",
     ["Thanks, Alice. The Payroll administrator role is now granted to Robert Hayes (USR-1003)."], False),
    # ---- 2. each value bound to its item -----------------------------------------------------------------
    ("retail_catalog_compare_audio_01", "Gives the Portable Bluetooth Speaker's price", "gold", gold("retail_catalog_compare_audio_01"), True),
    ("retail_catalog_compare_audio_01", "Gives the Portable Bluetooth Speaker's price", "reworded",
     ["The speaker is $79.99 - 9 of them in stock - while the earbuds are $99 and currently sold out."], True),
    ("retail_catalog_compare_audio_01", "Gives the Portable Bluetooth Speaker's price", "swapped",
     ["The speaker is $99 (9 in stock) and the earbuds are $79.99, sold out."], False),
    ("retail_catalog_compare_audio_01", "Gives the Portable Bluetooth Speaker's price", "swapped lines",
     ["Speaker: $99.00, 9 in stock. Earbuds: $79.99, out of stock."], False),
    ("retail_return_two_of_three_01", "Confirms both returns with their amounts", "gold", gold("retail_return_two_of_three_01"), True),
    ("retail_return_two_of_three_01", "Confirms both returns with their amounts", "reworded",
     ["I've started the returns for the earbuds, $99, and the wallet, $40 - $139 in all back to PayPal once they arrive. Keep the bottles."], True),
    ("retail_return_two_of_three_01", "Confirms both returns with their amounts", "swapped",
     ["Both returns are initiated: the wireless earbuds ($40.00) and the leather wallet ($99.00), $139.00 in total."], False),
    ("marketing_roi_ranking_01", "Gives the ROI of the three sent campaigns", "gold", gold("marketing_roi_ranking_01"), True),
    ("marketing_roi_ranking_01", "Gives the ROI of the three sent campaigns", "reworded",
     ["Sent so far: October Product Update returned 1075%, Black Friday Flash Sale 2340% and the November Newsletter 400%. Black Friday wins."], True),
    ("marketing_roi_ranking_01", "Gives the ROI of the three sent campaigns", "swapped",
     ["The October Product Update had an ROI of 2,340%, the Black Friday Flash Sale 1,075% and the November Newsletter 400%; Black Friday was best."], False),
    ("marketing_roi_ranking_01", "Gives the ROI of the three sent campaigns", "swapped list",
     ["- October Product Update: 400%\n- Black Friday Flash Sale: 2,340%\n- November Newsletter: 1,075%\nBest: Black Friday Flash Sale."], False),
    ("travel_rates_only_sf_01", "Lists the nightly rates of both San Francisco hotels", "gold", gold("travel_rates_only_sf_01"), True),
    ("travel_rates_only_sf_01", "Lists the nightly rates of both San Francisco hotels", "reworded",
     ["Bayfront Suites runs $279 a night for a king (suite $399); Golden Gate Inn is $189 for a standard room and $219 for a king. Nothing booked."], True),
    ("travel_rates_only_sf_01", "Lists the nightly rates of both San Francisco hotels", "swapped",
     ["Bayfront Suites has kings at $219 a night and Golden Gate Inn has standard rooms at $189 and kings at $279."], False),
    ("retail_catalog_rain_jacket_alternatives_01", "Gives the in-stock alternatives", "gold", gold("retail_catalog_rain_jacket_alternatives_01"), True),
    ("retail_catalog_rain_jacket_alternatives_01", "Gives the in-stock alternatives", "reworded",
     lists("retail_catalog_rain_jacket_alternatives_01", "You can get it in black M - 5 left - or in yellow L, where we have 3."), True),
    ("retail_catalog_rain_jacket_alternatives_01", "Gives the in-stock alternatives", "swapped",
     lists("retail_catalog_rain_jacket_alternatives_01", "The Rain Jacket ($95.00) is available in yellow size L (5 in stock) and black size M (3 in stock)."), False),
    ("customer_support_billing_invoice_totals_two_months_01", "States the October invoice and the November invoice", "gold",
     gold("customer_support_billing_invoice_totals_two_months_01"), True),
    ("customer_support_billing_invoice_totals_two_months_01", "States the October invoice and the November invoice", "reworded",
     ["October (INV-8002) came to $204.00 and November (INV-8001) also to $204.00; both have been paid."], True),
    ("customer_support_billing_invoice_totals_two_months_01", "States the October invoice and the November invoice", "one month wrong",
     ["Your October invoice totals $204.00 and your November invoice totals $189.00; both are paid."], False),
    ("travel_missing_miles_one_of_two_01", "Explains the return flight AU211", "gold", gold("travel_missing_miles_one_of_two_01"), True),
    ("travel_missing_miles_one_of_two_01", "States 867 miles were credited for the outbound", "gold", gold("travel_missing_miles_one_of_two_01"), True),
    ("travel_missing_miles_one_of_two_01", "Explains the return flight AU211", "reworded",
     ["I've credited the 867 miles for your outbound flight AU210 on 24 November. The return leg, AU211 on the 27th, already had its miles "
      "credited, so nothing more is owed there. New balance: 30,867 miles."], True),
    ("travel_missing_miles_one_of_two_01", "States 867 miles were credited for the outbound", "reworded",
     ["I've credited the 867 miles for your outbound flight. The return leg had already been credited. New balance: 30,867 miles."], True),
    ("travel_missing_miles_one_of_two_01", "Explains the return flight AU211", "the other flight",
     ["I added 867 miles for the return AU211 on 27 November. The outbound AU210 on 24 November was already credited. Your balance is now 30,867 miles."], False),
    ("travel_missing_miles_one_of_two_01", "States 867 miles were credited for the outbound", "the other flight",
     ["I added 867 miles for the return AU211 on 27 November. The outbound AU210 on 24 November was already credited. Your balance is now 30,867 miles."], False),
    # ---- 3. alternatives too weak ----------------------------------------------------------------------
    ("sales_convert_other_rep_01", "Explains LEAD-1004 is owned by another rep", "gold", gold("sales_convert_other_rep_01"), True),
    ("sales_convert_other_rep_01", "Explains LEAD-1004 is owned by another rep", "reworded",
     ["Sorry, Jordan - LEAD-1004 belongs to Avery Stone, not you, so only Avery can convert it."], True),
    ("sales_convert_other_rep_01", "Explains LEAD-1004 is owned by another rep", "another owner",
     ["I can't convert LEAD-1004: it's owned by another rep, Priya Nair (REP-03)."], False),
    ("field_service_reschedule_weekend_01", "Explains that appointments are only available", "gold", gold("field_service_reschedule_weekend_01"), True),
    ("field_service_reschedule_weekend_01", "Explains that appointments are only available", "reworded",
     ["We only book visits on weekdays, so Saturday the 5th won't work. Another day?"], True),
    ("field_service_reschedule_weekend_01", "Explains that appointments are only available", "another reason",
     ["Saturday is fully booked, I'm afraid. Another day?"], False),
    ("field_service_cancel_owner_01", "Tells Sofia the first customer id does not match", "gold", gold("field_service_cancel_owner_01"), True),
    ("field_service_cancel_owner_01", "Tells Sofia the first customer id does not match", "reworded",
     ["Hmm, CUST-3005 isn't the owner of APT-7004, so I can't cancel it with that id. Could you double-check the number?"], True),
    ("field_service_cancel_owner_01", "Tells Sofia the first customer id does not match", "no mismatch",
     ["Let me check APT-7004 for you. Could you confirm your customer id?"], False),
    ("field_service_book_and_assign_01", "Confirms Ben Carter is assigned", "gold", gold("field_service_book_and_assign_01"), True),
    ("field_service_book_and_assign_01", "Confirms Ben Carter is assigned", "reworded",
     lists("field_service_book_and_assign_01", "Ben Carter is now the technician on ${book_appointment.appointment_id} - assigned and confirmed."), True),
    ("field_service_book_and_assign_01", "Confirms Ben Carter is assigned", "someone else",
     lists("field_service_book_and_assign_01", "Ben isn't free then, so I've assigned Luis Ortega (TECH-105) instead."), False),
    ("field_service_book_and_assign_01", "Confirms Ben Carter is assigned", "Ben only named",
     lists("field_service_book_and_assign_01", "I've noted that Ben fixed things for you before. Luis Ortega is assigned."), False),
    # ---- 4. the mention guard ----------------------------------------------------------------------------
    ("payments_checkout_full_chain_02", "If the replies say how a new payment was made", "gold", gold("payments_checkout_full_chain_02"), True),
    ("payments_checkout_full_chain_02", "If the replies say how a new payment was made", "reworded",
     ["Paid: $15.50 via PayPal (transaction ${process_payment.transaction_id}), receipt emailed, logged; you earned 155 loyalty points."], True),
    ("payments_checkout_full_chain_02", "If the replies say how a new payment was made", "a card",
     ["Your $15.50 card payment went through (transaction ${process_payment.transaction_id}); you earned 155 loyalty points."], False),
]


@pytest.mark.parametrize(("task_id", "statement", "kind", "replies", "expected"), CASES, ids=[f"{c[0]}:{c[2]}" for c in CASES])
def test_reaudited_criterion(task_id: str, statement: str, kind: str, replies: list[str], expected: bool) -> None:
    alone, among = verdicts(task_id, statement, replies)
    assert (alone, among) == (expected, expected), f"{kind}: alone={alone} among the task's criteria={among}"
