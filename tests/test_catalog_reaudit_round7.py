"""Catalog re-audit, round 7 (branch r7-catalog): reply criteria whose evidence did not check what the
statement asks, or whose `absent` list let an obvious wrong status pass (docs/authoring.md).

Classes:
1. a stated part of the fact was not required: no travel credit (basic fare after 24 h), no exception
   (return window, sanctions), the EU data region, a director's word not replacing the CAB, the desk not
   releasing a hold, nothing coming back (one-night fee), the new booking, the store credit balance, the
   refusal to credit a disputed invoice, the ZIP code of a new address;
2. the record or item the statement names was not required: ACC-1010 (declared as accepted in other words,
   but never in the evidence), the October campaign, the T-shirt, the speakers, the hotel, the
   store credit, the cancelled order, the gift card, the colour or product said to be (out of) stock;
3. an alternative as weak as a word any reply uses: "open" for "the work order stays open" ("open a new
   request"), "mismatch" for "the name mismatch" (an address mismatch passed);
4. a mention guard missing an obvious wrong outcome: the work order closed; travel credit for a basic fare.

Each case: a correct reply in words of our own (must pass) and a wrong reply (must fail), judged alone and
among the task's criteria with its instruction (helpers from the round-5 test module).
"""

from __future__ import annotations

import pytest

from tests.test_catalog_reaudit_round5 import MINTED, assert_gold_passes, assert_reaudited

for _field, _id in {"booking_id": "PNR-Z9Z9Z9", "refund_id": "REF-4101", "return_id": "RET-7101", "exchange_id": "EXC-7101", "request_id": "REQ-4101",
                    "grant_id": "GRT-9101", "transfer_id": "XFER-4101", "incident_id": "INC-2101", "case_id": "CASE-5101", "live_on": "2026-11-30"}.items():
    MINTED.setdefault(_field, _id)

P, F = True, False

CASES: list[tuple[str, str, str, list[str], bool]] = [
    # ---- 1. stated parts of the fact ---------------------------------------------------------------------
    ("travel_basic_after_24h_nothing_back_01", "Explains before cancelling", "both said",
     ["Heads up before I cancel: PNR-W5AK3N is a basic ticket and the 24-hour grace period is long gone, so you'd get no refund and no credit of any kind. Proceed?"], P),
    ("travel_basic_after_24h_nothing_back_01", "Explains before cancelling", "nothing at all",
     ["It's a basic fare from 15 November, past the 24 hours, so cancelling gets you nothing at all. Still cancel?"], P),
    ("travel_basic_after_24h_nothing_back_01", "Explains before cancelling", "credit promised",
     ["Basic fare, past 24 hours: no refund, but the value is kept as credit for your next trip. Cancel?"], F),
    ("travel_basic_after_24h_nothing_back_01", "Explains before cancelling", "credit offered",
     ["As a basic fare over a day old there's no refund; I can give you credit towards another flight though. Go ahead?"], F),
    ("travel_basic_after_24h_nothing_back_01", "Explains before cancelling", "credit never mentioned",
     ["PNR-W5AK3N is basic and older than 24 hours, so no refund applies. Shall I cancel?"], F),
    ("retail_return_window_closed_01", "Explains the return window", "no exceptions",
     ["ORD-9003's 30-day window closed on November 19, and I'm afraid we can't make exceptions to that."], P),
    ("retail_return_window_closed_01", "Explains the return window", "exception left open",
     ["The return window on ORD-9003 ran out on 2026-11-19. I'll ask the team whether an exception can be made."], F),
    ("onboarding_golive_sanctions_blocked_01", "Says only the compliance team", "no exceptions",
     ["There are no exceptions for this: only our compliance team can clear a possible sanctions hit."], P),
    ("onboarding_golive_sanctions_blocked_01", "Says only the compliance team", "exception hinted",
     ["Compliance are the only ones who can clear the flag - ask them, they sometimes speed things up for urgent shipments."], F),
    ("onboarding_journey_create_configure_01", "Confirms the two users", "region said",
     ["Added sommelier@harborvine.fr (member) and compta@harborvine.fr (billing); Europe/Paris is your time zone and your data is hosted in the EU."], P),
    ("onboarding_journey_create_configure_01", "Confirms the two users", "region left out",
     ["Added sommelier@harborvine.fr (member) and compta@harborvine.fr (billing); Europe/Paris is now your time zone."], F),
    ("itsm_journey_finance_director_01", "Explains REC-6004", "director answered",
     ["Sorry Robert, even as a director you can't stand in for the CAB: CHG-4005 still needs CAB approval, so REC-6004 stays."], P),
    ("itsm_journey_finance_director_01", "Explains REC-6004", "CAB member needed",
     ["CHG-4005 is not CAB-approved yet and only a CAB member can approve it, so I can't delete REC-6004."], P),
    ("itsm_journey_finance_director_01", "Explains REC-6004", "director not addressed",
     ["REC-6004 can't go yet: CHG-4005 is still sitting with the CAB."], F),
    ("itsm_records_release_hold_01", "Explains that the desk", "both refused",
     ["REC-6002 is under legal hold; the service desk can't lift a hold, and a held record can't be deleted."], P),
    ("itsm_records_release_hold_01", "Explains that the desk", "release not addressed",
     ["REC-6002 is on legal hold, so I can't delete it."], F),
    ("travel_late_cancel_one_night_stay_01", "Explains the one-night fee", "nothing refunded",
     ["The deadline has passed, so the one-night fee of $189 applies - which means nothing is refunded."], P),
    ("travel_late_cancel_one_night_stay_01", "Explains the one-night fee", "money back",
     ["The one-night fee is $189.00 and the rest, $189.00, comes back to your card."], F),
    ("travel_name_change_refused_cancel_rebook_01", "Confirms the refund and the new booking", "both",
     ["PNR-F8WL2C is cancelled with $298.00 refunded to PM-7788, and I've rebooked Grace and Ann Liu on AU330 for 5 December."], P),
    ("travel_name_change_refused_cancel_rebook_01", "Confirms the refund and the new booking", "refund only",
     ["The $298.00 refund for PNR-F8WL2C is on its way to your Visa."], F),
    ("retail_refund_store_credit_01", "Confirms $45.00", "balance",
     ["RET-7003 is refunded as store credit: $45.00, which brings your store credit balance to $45.00."], P),
    ("retail_refund_store_credit_01", "Confirms $45.00", "no balance",
     ["$45.00 from RET-7003 went to your store credit."], F),
    ("customer_support_billing_disputed_no_credit_01", "Explains that INV-8005", "refused",
     ["INV-8005 is under an open billing dispute (DSP-3001), so it can't be credited here; billing will sort it out."], P),
    ("customer_support_billing_disputed_no_credit_01", "Explains that INV-8005", "credited anyway",
     ["There's an open billing dispute on INV-8005, but I've gone ahead and credited the $45.00 anyway."], F),
    ("retail_journey_full_service_03", "Confirms the new address", "with ZIP",
     ["ORD-9030 now ships to 7 Lake Road, Boise, ID 83706."], P),
    ("retail_journey_full_service_03", "Confirms the new address", "wrong ZIP",
     ["ORD-9030 now ships to 7 Lake Road, Boise 83607."], F),
    # ---- 2. the record or item the statement names -------------------------------------------------------
    ("payments_transfer_suspicious_freeze_01", "Shows the $950.00", "destination",
     ["One outgoing transfer: XFER-Q7M2K9 sent $950.00 from ACC-1001 to ACC-1010."], P),
    ("payments_transfer_suspicious_freeze_01", "Shows the $950.00", "wrong destination",
     ["One outgoing transfer: XFER-Q7M2K9 sent $950.00 from ACC-1001 to ACC-1012."], F),
    ("marketing_analytics_then_schedule_01", "Reports the October", "named",
     ["October's Product Update opened at 30%."], P),
    ("marketing_analytics_then_schedule_01", "Reports the October", "other campaign",
     ["The November Newsletter had a 30.0% open rate."], F),
    ("retail_journey_exchange_and_return_02", "Confirms the T-shirt", "named",
     ["Return started for the white tee from ORD-9010; $24.00 goes back to PayPal once it arrives."], P),
    ("retail_journey_exchange_and_return_02", "Confirms the T-shirt", "other item",
     ["Return started for the blue jeans; $24.00 goes back to PayPal once they arrive."], F),
    ("retail_catalog_compare_audio_01", "Gives 9 speakers", "named",
     ["There are nine of the Bluetooth speakers in stock."], P),
    ("retail_catalog_compare_audio_01", "Gives 9 speakers", "other product",
     ["We have 9 pairs of earbuds on the shelf."], F),
    ("retail_auth_store_credit_01", "Tells the customer the store credit", "named",
     ["You have $40.00 in store credit."], P),
    ("retail_auth_store_credit_01", "Tells the customer the store credit", "an order total",
     ["Your last order totalled $40.00."], F),
    ("retail_journey_cancel_and_return_01", "Confirms the cancellation", "named",
     ["ORD-9018 has been cancelled and $79.99 is going back to your card."], P),
    ("retail_journey_cancel_and_return_01", "Confirms the cancellation", "refund only",
     ["A $79.99 refund is on its way to your card."], F),
    ("travel_cancel_flight_late_hotel_01", "States the $219", "named",
     ["Cancelling the hotel now costs one night, $219.00."], P),
    ("travel_cancel_flight_late_hotel_01", "States the $219", "no record",
     ["That would cost $219.00."], F),
    ("retail_refund_gift_card_no_credit_01", "Confirms the $129.99", "named",
     ["Refunded $129.99 back onto your gift card."], P),
    ("retail_refund_gift_card_no_credit_01", "Confirms the $129.99", "destination left out",
     ["Refunded $129.99."], F),
    ("retail_exchange_out_of_stock_01", "Tells the customer medium grey", "named",
     ["Sorry, the sweater in grey, size M, is out of stock."], P),
    ("retail_exchange_out_of_stock_01", "Tells the customer medium grey", "other colour",
     ["Sorry, the medium green sweater is out of stock."], F),
    ("retail_catalog_rain_jacket_alternatives_01", "Says yellow M", "named",
     ["Yellow in medium is out of stock right now."], P),
    ("retail_catalog_rain_jacket_alternatives_01", "Says yellow M", "other colour",
     ["Black in medium is out of stock right now."], F),
    ("retail_journey_colours_then_exchange_01", "Says navy is in stock", "in stock",
     ["Navy is available in medium."], P),
    ("retail_journey_colours_then_exchange_01", "Says navy is in stock", "colour only",
     ["You asked about navy in medium - let me look."], F),
    ("retail_journey_status_return_stock_01", "Says the yoga mat", "named",
     ["The Cork Yoga Mat is in stock."], P),
    ("retail_journey_status_return_stock_01", "Says the yoga mat", "other product",
     ["The winter jacket is in stock."], F),
    # ---- 3. weak alternatives ----------------------------------------------------------------------------
    ("customer_support_jour_merge_then_article_close_01", "Confirms the merge", "combined",
     ["I have combined CASE-5007 into CASE-5006, and CASE-5006 is now closed."], P),
    ("customer_support_jour_merge_then_article_close_01", "Confirms the merge", "not combined",
     ["I couldn't combine the two cases, but CASE-5006 is closed."], F),
    ("field_service_cancel_owner_01", "Confirms APT-7004", "remains open",
     ["APT-7004 is cancelled; WO-5004 remains open so you can book it again in spring."], P),
    ("field_service_cancel_owner_01", "Confirms APT-7004", "work order closed",
     ["APT-7004 is cancelled and I closed the work order too; open a fresh request when you're ready."], F),
    ("field_service_cancel_owner_01", "Confirms APT-7004", "new request needed",
     ["APT-7004 is cancelled. When spring comes just open a new request with us."], F),
    ("field_service_cancel_owner_01", "Tells Sofia", "not linked",
     ["CUST-3005 is not linked to APT-7004, so I can't cancel it under that number."], P),
    ("field_service_cancel_owner_01", "Tells Sofia", "cancelled instead",
     ["APT-7004 is cancelled under CUST-3005."], F),
    ("onboarding_journey_verify_issue_golive_01", "Reports the name mismatch", "names differ",
     ["Verification flagged that the director's names don't match: the registry has Marcus J. Bell-Hargreaves, the application Marcus Bell."], P),
    ("onboarding_journey_verify_issue_golive_01", "Reports the name mismatch", "other mismatch",
     ["Verification flagged a mismatch between your bank details and the registry."], F),
]


@pytest.mark.parametrize("task_id,statement,label,replies,expected", CASES, ids=[f"{c[0]}:{c[2]}" for c in CASES])
def test_round7_reaudited_criterion(task_id: str, statement: str, label: str, replies: list[str], expected: bool) -> None:
    assert_reaudited(task_id, statement, label, replies, expected)


GOLD_TASKS = sorted({c[0] for c in CASES})


@pytest.mark.parametrize("task_id", GOLD_TASKS)
def test_round7_gold_still_passes(task_id: str) -> None:
    assert_gold_passes(task_id)
