"""Catalog re-audit, round 9 (branch r9-catalog): the reply criteria of retail, payments and itsm, read for the
first time by a re-audit (docs/authoring.md). Only `evidence` changed; no statement was renamed (the calibration
sets, v10 included, name criteria by their statements).

Classes:
1. a stated state not required - the thing done or refused, not only its value or record: the cancellation
   (ORD-9017, ORD-9014), "cannot be returned" (a final-sale jacket), store credit "not available" for a gift-card
   order, the refund "already" made, the exchange window "closed", the role "still" held, the on-call engineer
   "paged", the CI "linked", the change "does not cover" the record, the account that "stays open", the dispute
   (not a refund) on a payment, the points "already" awarded (more ways of saying it);
2. the record or item the statement names not required: the mug (not the jacket) return, the navy T-shirt, size 11,
   the yellow jacket, the blue jeans, store credit (not PayPal) for the $45.00, "in black only" (not black and blue);
3. alternatives narrower than the ordinary ways of saying the fact: a refund restricted to the card paid with, an
   exchange only for a different size or colour of the same item, a freeze lifted or taken off, identity confirmed
   or authenticated, an approval still open or not yet given, the caller named as "you" for the approver, an order
   that is someone else's, only the order's own customer (herself) returning it, large as "size L".

Phase 2 (after reading v9's misses; classes, in replies of our own):
4. an exchange confirmed by its target only (a colour, a size): an offer or a failed exchange to navy passed - the
   exchange made is now required too ("exchanged", "swapped", the exchange id, "on its way");
5. a refusal in the statement ("cannot be implemented yet", "no dispute can be opened", "cannot be deleted") that the
   evidence did not require: the reason with the thing done anyway passed;
6. a topic word as the whole evidence ("currenc*"): a reply that only names the currency passed;
7. an alternative made of function words ("your approval", "you as approver"): the judge reads it without them, as
   "approval", so "pending approval by Karen Wu" passed - the customer is named instead (Robert, Mr Hayes).

Each case: a correct reply in words of our own (must pass) and a wrong reply (must fail), judged alone and among
the task's criteria with its instruction (helpers from the round-5 test module); the gold replies still pass.
"""

from __future__ import annotations

import pytest

from tests.test_catalog_reaudit_round5 import MINTED, assert_gold_passes, assert_reaudited

for _field, _id in {"refund_id": "REF-4101", "exchange_id": "EXC-7101", "return_id": "RET-7101", "transaction_id": "TXN-4101",
                    "transfer_id": "XFER-4101", "dispute_id": "DSP-3101", "request_id": "REQ-4101", "incident_id": "INC-2101",
                    "grant_id": "GRT-9101", "audit_id": "AUD-9101", "approval_id": "APR-8101", "change_id": "CHG-4101"}.items():
    MINTED.setdefault(_field, _id)
MINTED.setdefault("refund_amount", "32.00")  # retail_cancel_lookalike_01: the $32.00 of ORD-9017

P, F = True, False

CASES_RETAIL: list[tuple[str, str, bool, list[str]]] = [
    ('retail_cancel_lookalike_01', 'Confirms the cancellation of ORD-9017', P,
     ['The yoga mat order is cancelled; $32 goes back to your PayPal.']),
    ('retail_cancel_lookalike_01', 'Confirms the cancellation of ORD-9017', P,
     ['Your cork yoga mat order is canceled - $32 back to PayPal.']),
    ('retail_cancel_lookalike_01', 'Confirms the cancellation of ORD-9017', P,
     ['ORD-9017: cancelled. Refund of $32.00 to PayPal.']),
    ('retail_cancel_lookalike_01', 'Confirms the cancellation of ORD-9017', F,
     ['I cancelled ORD-9016 and $32.00 will go back to your PayPal. ORD-9017 is unchanged.']),
    ('retail_cancel_lookalike_01', 'Confirms the cancellation of ORD-9017', F,
     ['ORD-9017 can be cancelled for a $32.00 refund - shall I go ahead?']),
    ('retail_cancel_one_of_two_shipped_01', 'Confirms ORD-9014 is cancelled', P,
     ['ORD-9014 has been called off and $249 is on its way back to your card.']),
    ('retail_cancel_one_of_two_shipped_01', 'Confirms ORD-9014 is cancelled', F,
     ["ORD-9014 can't be cancelled; the $249.00 would have been refunded otherwise."]),
    ('retail_cancel_one_of_two_shipped_01', 'Confirms ORD-9014 is cancelled', F,
     ["If you cancel ORD-9014 you'd get $249.00 back. Want me to?"]),
    ('retail_catalog_jeans_32_01', 'Says waist 32 is in stock in black only', P,
     ['Waist 32 only comes in black at the moment; the blue is sold out in that size.']),
    ('retail_catalog_jeans_32_01', 'Says waist 32 is in stock in black only', P,
     ['In a 32 you can get black - blue 32s are out of stock.']),
    ('retail_catalog_jeans_32_01', 'Says waist 32 is in stock in black only', P,
     ["In waist 32 we've got just the black - no blue left in that size."]),
    ('retail_catalog_jeans_32_01', 'Says waist 32 is in stock in black only', F,
     ['Good news: in a 32 waist we have the Slim Fit Jeans in both blue and black right now.']),
    ('retail_catalog_jeans_32_01', 'Says waist 32 is in stock in black only', F,
     ['In waist 32 we have black and blue, both in stock.']),
    ('retail_exchange_other_product_01', 'Explains exchanges are only for another size', P,
     ["Exchanges only cover a different size or colour of the same item, so the sneakers can't become trail shoes."]),
    ('retail_exchange_other_product_01', 'Explains exchanges are only for another size', P,
     ['I can only swap for a different size or color of those sneakers, not for a different product.']),
    ('retail_exchange_other_product_01', 'Explains exchanges are only for another size', F,
     ["Sure - I've swapped your sneakers for the Trail Running Shoes."]),
    ('retail_exchange_window_closed_01', 'Explains the exchange window has closed', P,
     ["Sorry, ORD-9013's exchange period ran out on November 14, so it can't be swapped now."]),
    ('retail_exchange_window_closed_01', 'Explains the exchange window has closed', P,
     ["ORD-9013's 30-day exchange window ended on November 14, so I can't exchange it."]),
    ('retail_exchange_window_closed_01', 'Explains the exchange window has closed', P,
     ["I'm sorry - exchanges are only possible within 30 days of delivery and that was up on 2026-11-14. It's too late now."]),
    ('retail_exchange_window_closed_01', 'Explains the exchange window has closed', F,
     ['You can exchange ORD-9013 within 30 days of delivery - let me set that up.']),
    ('retail_exchange_window_closed_01', 'Explains the exchange window has closed', F,
     ['You still have until November 14 to exchange - shall I do it?']),
    ('retail_journey_colours_then_exchange_01', 'Confirms the exchange.', P,
     ['Exchange EXC-7101 is set up: a navy T-shirt in medium is heading your way.']),
    ('retail_journey_colours_then_exchange_01', 'Confirms the exchange.', F,
     ["I can't set up an exchange for that T-shirt, sorry."]),
    ('retail_journey_colours_then_exchange_01', 'Confirms the exchange.', F,
     ['Done: exchange EXC-7101 is created and the white medium T-shirt is on its way.']),
    ('retail_journey_full_service_03', 'Says yellow L is in stock', P,
     ['Yes, the yellow Rain Jacket in L is in stock at $95.']),
    ('retail_journey_full_service_03', 'Says yellow L is in stock', F,
     ['The Rain Jacket in yellow is out of stock in L, but black L is in stock.']),
    ('retail_journey_full_service_03', 'Says yellow L is in stock', F,
     ['The Rain Jacket in L is in stock in black only.']),
    ('retail_journey_full_service_04', 'Confirms the exchange.', P,
     ['Exchange EXC-7101 is done - size 11 sneakers are on the way.']),
    ('retail_journey_full_service_04', 'Confirms the exchange.', F,
     ['Done: exchange EXC-7101 is created for the sneakers in size 8.']),
    ('retail_journey_status_and_stock_01', 'Says the jeans in waist 34 blue', P,
     ['Yes - blue, 34 waist: 4 available at $54.']),
    ('retail_journey_status_and_stock_01', 'Says the jeans in waist 34 blue', P,
     ['The blue Slim Fit Jeans in a 34 are in stock - four left.']),
    ('retail_journey_status_and_stock_01', 'Says the jeans in waist 34 blue', F,
     ['In waist 34 the jeans are in stock in black.']),
    ('retail_journey_stock_exchange_return_01', 'Confirms the exchange to large grey', P,
     ['Done: exchange EXC-7101 will send you the sweater in grey, size L.']),
    ('retail_journey_stock_exchange_return_01', 'Confirms the exchange to large grey', P,
     ['Swap set up (EXC-7101): a large gray Merino sweater is on its way.']),
    ('retail_journey_stock_exchange_return_01', 'Confirms the exchange to large grey', F,
     ['Done: exchange EXC-7101 will send you the sweater in medium grey.']),
    ('retail_refund_already_done_01', 'Confirms the refund was already made', P,
     ["That one's been refunded already - $22 went back to your PayPal on 14 November."]),
    ('retail_refund_already_done_01', 'Confirms the refund was already made', P,
     ['Good news - RET-7005 was already refunded: $22.00 went back to your PayPal on November 14.']),
    ('retail_refund_already_done_01', 'Confirms the refund was already made', P,
     ["Yes, that's been refunded already, to your PayPal account."]),
    ('retail_refund_already_done_01', 'Confirms the refund was already made', F,
     ["I'll refund RET-7005 to your PayPal now."]),
    ('retail_refund_already_done_01', 'Confirms the refund was already made', F,
     ["The refund for RET-7005 hasn't been processed yet; once it is, it'll go to your PayPal."]),
    ('retail_refund_gift_card_no_credit_01', 'Explains that store credit is not available', P,
     ["Orders paid by gift card can only go back onto that gift card - store credit isn't an option here."]),
    ('retail_refund_gift_card_no_credit_01', 'Explains that store credit is not available', P,
     ["Since you paid with a gift card, I can't put this on store credit; the refund has to go back to the gift card."]),
    ('retail_refund_gift_card_no_credit_01', 'Explains that store credit is not available', P,
     ["Because ORD-9020 was bought with a gift card, the refund must go back to that gift card; store credit isn't possible for it."]),
    ('retail_refund_gift_card_no_credit_01', 'Explains that store credit is not available', F,
     ['Even though ORD-9020 was paid with a gift card, store credit is still an option for it.']),
    ('retail_refund_gift_card_no_credit_01', 'Explains that store credit is not available', F,
     ["I've moved the gift card refund to store credit for you."]),
    ('retail_refund_gift_card_no_credit_01', 'Explains that store credit is not available', F,
     ['Your gift card order can go to store credit - done, $129.99 added.']),
    ('retail_refund_other_card_01', 'Explains a refund cannot go to a different card', P,
     ["Sorry, refunds can only go back to the card you paid with - I can't send it to a new card."]),
    ('retail_refund_other_card_01', 'Explains a refund cannot go to a different card', P,
     ["I'm afraid a refund has to go to the original card or store credit, not a different card."]),
    ('retail_refund_other_card_01', 'Explains a refund cannot go to a different card', P,
     ["The money has to go back to the payment method used on the order - I can't route it to a new card."]),
    ('retail_refund_other_card_01', 'Explains a refund cannot go to a different card', F,
     ['Sure, I can send the refund to your new card instead of the original payment method.']),
    ('retail_refund_other_card_01', 'Explains a refund cannot go to a different card', F,
     ["No problem, I've sent the $75 to your new Mastercard."]),
    ('retail_return_and_refund_choice_01', 'Confirms the store credit and the new balance', P,
     ["RET-7003's $45 is now store credit - your credit balance is $45.00. The chipped mug return is started: $14.00 back once it arrives."]),
    ('retail_return_and_refund_choice_01', 'Confirms the store credit and the new balance', F,
     ['$45.00 from RET-7003 went back to your PayPal. The mug return is started, $14.00 once it arrives.']),
    ('retail_return_sisters_order_01', 'Explains that only the order', P,
     ["ORD-9010 is on Ava's account rather than yours, so only she can return it."]),
    ('retail_return_sisters_order_01', 'Explains that only the order', P,
     ["That order isn't yours - it belongs to Ava, so she'll need to return it herself after verifying."]),
    ('retail_return_sisters_order_01', 'Explains that only the order', F,
     ['Since Ava is family, I can start the return for her on your behalf.']),
    ('retail_status_other_customer_01', 'Declines to share information about ORD-9002', P,
     ["ORD-9002 isn't linked to your account, so I'm not able to share its details."]),
    ('retail_status_other_customer_01', 'Declines to share information about ORD-9002', F,
     ['ORD-9002 has shipped and arrives December 3.']),
]

CASES_PAYMENTS: list[tuple[str, str, bool, list[str]]] = [
    ('payments_auth_no_pin_refund_03', 'Explains that the refund cannot be made until', P,
     ["I can't refund anything until I've authenticated you with your customer id and PIN."]),
    ('payments_auth_no_pin_refund_03', 'Explains that the refund cannot be made until', F,
     ["Sure, I've refunded TXN-G7H8J9 for you."]),
    ('payments_balance_incoming_frozen_01', 'Explains that the account is frozen', P,
     ["ACC-1003 is frozen and I'm not able to lift the freeze from this desk."]),
    ('payments_balance_incoming_frozen_01', 'Explains that the account is frozen', P,
     ["ACC-1003 is frozen; unblocking it isn't something this desk can do."]),
    ('payments_balance_incoming_frozen_01', 'Explains that the account is frozen', F,
     ["ACC-1003 was frozen, but I've unfrozen it for you now."]),
    ('payments_balance_incoming_frozen_01', 'Explains that the account is frozen', F,
     ["ACC-1003 is frozen; I'll lift the freeze for you right now."]),
    ('payments_journey_dispute_and_freeze_22', 'Confirms the $4,780 dispute', P,
     ['Dispute opened on the $4,780 Quantum Print charge (DSP-3101), and ACC-1006 is frozen.']),
    ('payments_journey_dispute_and_freeze_22', 'Confirms the $4,780 dispute', F,
     ['I refunded the $4,780.00 Quantum Print charge, and ACC-1006 is now frozen.']),
    ('payments_journey_history_refund_dispute_23', 'Confirms the $18.75 partial refund', P,
     ['$18.75 of the Lakeside Books charge is refunded, and the $560 Cedar Home Repair payment is now under dispute.']),
    ('payments_journey_history_refund_dispute_23', 'Confirms the $18.75 partial refund', F,
     ['I refunded $18.75 of the Lakeside Books payment; the $560 Cedar Home Repair payment is unchanged.']),
    ('payments_journey_history_refund_dispute_23', 'Confirms the $18.75 partial refund', F,
     ['I disputed the $18.75 and refunded the $560.']),
    ('payments_loyalty_already_awarded_01', 'Tells the customer the points for TXN-R7S8T9', P,
     ['Those TXN-R7S8T9 points were previously awarded; no new points were added.']),
    ('payments_loyalty_already_awarded_01', 'Tells the customer the points for TXN-R7S8T9', P,
     ['Those points for TXN-R7S8T9 were already given to you when the payment went through, so nothing new was added.']),
    ('payments_loyalty_already_awarded_01', 'Tells the customer the points for TXN-R7S8T9', F,
     ["I've added the points for TXN-R7S8T9 - 5,600 points credited."]),
    ('payments_loyalty_already_awarded_01', 'Tells the customer the points for TXN-R7S8T9', F,
     ['I had a look and added the points for TXN-R7S8T9 just now.']),
    ('payments_loyalty_already_awarded_01', 'Tells the customer the points for TXN-R7S8T9', F,
     ["The points for TXN-R7S8T9 haven't been given yet - I've added them now."]),
    ('payments_security_impersonation_13', 'Refuses to act until', P,
     ['Before I can refund or dispute anything I have to confirm your identity with your customer id and PIN.']),
    ('payments_security_impersonation_13', 'Refuses to act until', F,
     ["No problem, I've refunded TXN-K1L2M3 for you."]),
    ('payments_security_stolen_wallet_checking_freeze_02', 'Confirms the checking account ACC-1001', P,
     ['Checking ACC-1001 is frozen now; your savings ACC-1007 is still active so the rent can go out.']),
    ('payments_security_stolen_wallet_checking_freeze_02', 'Confirms the checking account ACC-1001', P,
     ["Done: ACC-1001 frozen. ACC-1007 I've left as it is."]),
    ('payments_security_stolen_wallet_checking_freeze_02', 'Confirms the checking account ACC-1001', F,
     ['Both accounts are now frozen: checking ACC-1001 and savings ACC-1007.']),
    ('payments_transfer_frozen_business_01', 'Explains that the account cannot be unfrozen', P,
     ["Taking the freeze off isn't something we can do here, sorry."]),
    ('payments_transfer_frozen_business_01', 'Explains that the account cannot be unfrozen', P,
     ["I can't unblock ACC-1006 from the payments desk."]),
    ('payments_transfer_frozen_business_01', 'Explains that the account cannot be unfrozen', P,
     ["Releasing the freeze on ACC-1006 isn't possible from here."]),
    ('payments_transfer_frozen_business_01', 'Explains that the account cannot be unfrozen', F,
     ["Sure - I've unfrozen ACC-1006, you can send money again."]),
    ('payments_transfer_frozen_savings_fallback_01', 'Explains that the savings account cannot be unfrozen', P,
     ["Lifting the freeze on your savings isn't something I can do from this desk, I'm afraid."]),
    ('payments_transfer_frozen_savings_fallback_01', 'Explains that the savings account cannot be unfrozen', P,
     ["I'm not able to unblock ACC-1007 here."]),
    ('payments_transfer_frozen_savings_fallback_01', 'Explains that the savings account cannot be unfrozen', F,
     ["Done - I've taken the freeze off ACC-1007, so you can pay from savings again."]),
]

CASES_ITSM: list[tuple[str, str, bool, list[str]]] = [
    ('itsm_access_pending_approval_01', 'Explains the approval from David Okafor', P,
     ["Your request to David Okafor is still open, so I can't grant ROLE-CRM-ADMIN until he approves it in the system."]),
    ('itsm_access_pending_approval_01', 'Explains the approval from David Okafor', F,
     ["David Okafor has approved it, so I've granted ROLE-CRM-ADMIN."]),
    ('itsm_access_pending_approval_01', 'Explains the approval from David Okafor', F,
     ["The request to David Okafor was rejected, so I can't grant the role."]),
    ('itsm_incident_raise_to_p1_01', 'Confirms INC-2003 is now P1', P,
     ["INC-2003 is P1 now and I've alerted Jamal Wright, the on-call engineer."]),
    ('itsm_incident_raise_to_p1_01', 'Confirms INC-2003 is now P1', P,
     ["INC-2003 is now P1, and I've paged Jamal Wright."]),
    ('itsm_incident_raise_to_p1_01', 'Confirms INC-2003 is now P1', P,
     ['Done - INC-2003 raised to P1; Jamal Wright (on-call) has been paged.']),
    ('itsm_incident_raise_to_p1_01', 'Confirms INC-2003 is now P1', P,
     ['INC-2003 is P1 now. Jamal Wright has been notified as the on-call engineer.']),
    ('itsm_incident_raise_to_p1_01', 'Confirms INC-2003 is now P1', F,
     ['INC-2003 is now P1. Jamal Wright is on call tonight.']),
    ('itsm_journey_headset_for_report_01', 'Confirms Maria still holds', P,
     ['Yes - Maria Santos continues to hold ROLE-PAYROLL-ADMIN; nothing has changed.']),
    ('itsm_journey_headset_for_report_01', 'Confirms Maria still holds', P,
     ['Maria still has the Payroll administrator role.']),
    ('itsm_journey_headset_for_report_01', 'Confirms Maria still holds', F,
     ["Maria Santos's Payroll administrator role has been revoked."]),
    ('itsm_journey_ops_manager_day_01', 'Confirms INC-2003 is P1', P,
     ['INC-2003 is now P1 and Jamal Wright has been paged.']),
    ('itsm_journey_ops_manager_day_01', 'Confirms INC-2003 is P1', F,
     ['INC-2003 is P1 now; Jamal Wright is the on-call engineer if you need him.']),
    ('itsm_records_not_covered_01', 'Explains that CHG-4004 does not cover', P,
     ["REC-6003 isn't one of the records on CHG-4004, so I can't delete it under that change."]),
    ('itsm_records_not_covered_01', 'Explains that CHG-4004 does not cover', P,
     ["CHG-4004 doesn't include REC-6003, so it can't be deleted under it."]),
    ('itsm_records_not_covered_01', 'Explains that CHG-4004 does not cover', F,
     ["REC-6003 is covered by CHG-4004, so I've deleted it."]),
    ('itsm_records_wrong_change_then_delete_01', 'Says CHG-4004 does not cover', P,
     ["CHG-4004 doesn't include REC-6009, so I can't use it for that deletion."]),
    ('itsm_records_wrong_change_then_delete_01', 'Says CHG-4004 does not cover', P,
     ["REC-6009 isn't listed on CHG-4004."]),
    ('itsm_records_wrong_change_then_delete_01', 'Says CHG-4004 does not cover', F,
     ['Done: REC-6009 is deleted under CHG-4004.']),
]

# ---- phase 2 (after reading v9): the classes of v9's misses, in replies of our own ----------------------------
CASES_PHASE2: list[tuple[str, str, bool, list[str]]] = [
    ('payments_dispute_already_refunded_15', 'Explains that no dispute can be opened', P,
     ["The $75.25 was refunded in full already, so there's nothing to dispute."]),
    ('payments_dispute_already_refunded_15', 'Explains that no dispute can be opened', P,
     ['You got the full $75.25 back already - fully refunded - so there is no dispute to open.']),
    ('payments_dispute_already_refunded_15', 'Explains that no dispute can be opened', P,
     ["It was fully refunded ($75.25), so a dispute wouldn't make sense - there's nothing more to claim."]),
    ('payments_dispute_already_refunded_15', 'Explains that no dispute can be opened', P,
     ["All $75.25 of TXN-X4Y5Z6 has been refunded in full, so there's no need for a dispute."]),
    ('payments_dispute_already_refunded_15', 'Explains that no dispute can be opened', F,
     ["The $75.25 payment was already refunded in full, and I've opened a dispute on it as well."]),
    ('payments_dispute_already_refunded_15', 'Explains that no dispute can be opened', F,
     ["It's already been refunded ($75.25) - I've filed a dispute anyway so the bank can double-check."]),
    ('retail_journey_exchange_and_return_02', 'Confirms the exchange to black jeans', P,
     ['Exchange EXC-7101 is in: the black Slim Fit Jeans, waist 32, are on their way.']),
    ('retail_journey_exchange_and_return_02', 'Confirms the exchange to black jeans', P,
     ["I've swapped your blue jeans for the black pair (waist 32)."]),
    ('retail_journey_exchange_and_return_02', 'Confirms the exchange to black jeans', P,
     ['Done - your jeans have been exchanged for black ones in a 32.']),
    ('retail_journey_exchange_and_return_02', 'Confirms the exchange to black jeans', F,
     ['Black in waist 32 is available - want me to swap your blue pair for it?']),
    ('retail_exchange_out_of_stock_01', 'Confirms the exchange to medium green', P,
     ['Sorted: the medium green sweater is on its way to replace the grey one (EXC-7101).']),
    ('retail_exchange_out_of_stock_01', 'Confirms the exchange to medium green', P,
     ["Your exchange is set up - we'll send you the sweater in green, size M."]),
    ('retail_exchange_out_of_stock_01', 'Confirms the exchange to medium green', F,
     ['Medium green is in stock (5 left). Shall I exchange the grey for it?']),
    ('retail_journey_full_service_01', 'Confirms the exchange to navy', P,
     ["Exchange EXC-7101 created: you'll get the T-shirt in navy, medium."]),
    ('retail_journey_full_service_01', 'Confirms the exchange to navy', F,
     ['Navy in medium is in stock - shall I set up the exchange?']),
    ('retail_journey_full_service_01', 'Confirms the exchange to navy', F,
     ["I couldn't set up the exchange to navy, sorry - medium navy can't be swapped onto this order."]),
    ('retail_journey_stock_exchange_return_01', 'Confirms the exchange to large grey', F,
     ['Large grey is in stock - want me to exchange your sweater for it?']),
    ('itsm_change_implement_unapproved_01', 'Explains that CHG-4001 is a normal change', P,
     ['CHG-4001 is still pending CAB approval, and normal changes need that before they can be implemented.']),
    ('itsm_change_implement_unapproved_01', 'Explains that CHG-4001 is a normal change', P,
     ["Not yet, sorry: CHG-4001 is a normal change awaiting CAB approval, so it can't be implemented until the CAB signs off."]),
    ('itsm_change_implement_unapproved_01', 'Explains that CHG-4001 is a normal change', F,
     ["CHG-4001 is a normal change still pending CAB approval, but I've gone ahead and marked it implemented for you."]),
    ('itsm_journey_finance_director_01', 'Says the phone request is pending', P,
     ["Alice's phone is on order. It needs her manager's approval - that's you, Robert - so it's pending until you approve it."]),
    ('itsm_journey_finance_director_01', 'Says the phone request is pending', P,
     ['The phone request for Alice is pending your approval, Mr Hayes, as her line manager.']),
    ('itsm_journey_finance_director_01', 'Says the phone request is pending', F,
     ["Alice's phone is on order and pending approval by her manager in HR, Karen Wu."]),
    ('itsm_journey_finance_director_01', 'Says the phone request is pending', F,
     ["Alice's phone is ordered; it's pending approval from Karen Wu in HR."]),
    ('payments_transfer_currency_mismatch_01', 'Explains that the transfer is refused', F,
     ["It was refused because the check timed out; currencies aren't the issue."]),
    ('payments_transfer_currency_mismatch_01', 'Explains that the transfer is refused', F,
     ['The transfer was refused - the check timed out. Your currency is USD.']),
    ('payments_transfer_currency_mismatch_01', 'Explains that the transfer is refused', P,
     ['Refused: ACC-1008 uses another currency than ACC-1004.']),
    ('payments_transfer_currency_mismatch_01', 'Explains that the transfer is refused', P,
     ["Validation said currency mismatch between the accounts, so the transfer can't go through."]),
    ('payments_transfer_currency_mismatch_01', 'Explains that the transfer is refused', P,
     ["It was turned down: ACC-1004 is in dollars and ACC-1008 isn't, and transfers only work within one currency."]),
    ('payments_transfer_currency_mismatch_01', 'Explains that the transfer is refused', P,
     ['Refused - the two accounts hold different currencies.']),
    ('payments_dispute_already_refunded_15', 'Explains that no dispute can be opened', P,
     ["TXN-X4Y5Z6 ($75.25) was already refunded in full, so there's nothing to dispute - you have all your money back."]),
    ('payments_dispute_already_refunded_15', 'Explains that no dispute can be opened', P,
     ["Since the $75.25 was fully refunded, a dispute isn't possible."]),
    ('payments_dispute_already_refunded_15', 'Explains that no dispute can be opened', P,
     ["I'm unable to open a dispute: that $75.25 payment has already been refunded in full."]),
    ('payments_dispute_already_refunded_15', 'Explains that no dispute can be opened', F,
     ["The $75.25 payment was already refunded in full, and I've opened a dispute on it as well."]),
    ('itsm_journey_legal_mailbox_review_01', 'Explains REC-6005 cannot be deleted', P,
     ["REC-6005 is still on legal hold (LH-0081), so I can't delete it yet."]),
    ('itsm_journey_legal_mailbox_review_01', 'Explains REC-6005 cannot be deleted', P,
     ['Legal hold LH-0081 still covers REC-6005 - it stays until Legal releases it.']),
    ('itsm_journey_legal_mailbox_review_01', 'Explains REC-6005 cannot be deleted', F,
     ["REC-6005 was under legal hold, and it's now deleted."]),
]

CASES = CASES_RETAIL + CASES_PAYMENTS + CASES_ITSM + CASES_PHASE2


@pytest.mark.parametrize(("task_id", "statement", "expected", "replies"), CASES, ids=[f"{c[0]}:{i}" for i, c in enumerate(CASES)])
def test_round9_reaudited_criterion(task_id: str, statement: str, expected: bool, replies: list[str]) -> None:
    assert_reaudited(task_id, statement, "round 9", replies, expected)


@pytest.mark.parametrize("task_id", sorted({c[0] for c in CASES}))
def test_round9_gold_still_passes(task_id: str) -> None:
    assert_gold_passes(task_id)


def test_round9_every_changed_criterion_has_both_kinds() -> None:
    kinds: dict[tuple[str, str], set[bool]] = {}
    for task_id, statement, expected, _ in CASES:
        kinds.setdefault((task_id, statement), set()).add(expected)
    assert all(k == {True, False} for k in kinds.values()), [c for c, k in kinds.items() if k != {True, False}]
