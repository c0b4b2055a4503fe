"""Catalog re-audit, round 10 (branch r10-catalog): reply criteria of customer_support, field_service, onboarding,
travel, sales and marketing. Only `evidence` changed; no statement was renamed, no criterion added or removed.

Classes (sentences of our own, must-pass beside must-fail):
1. a stated state not required - only its topic or record: "would exceed the $100 cap" (a reply saying it fits
   passed), "the time zone is not configured" (a reply saying it is in place passed), "added as a member" (a billing
   user passed), "cannot be added" (Lucas added anyway passed), the rescan *steps* (the menu path, not "rescan");
2. alternatives narrower than the ordinary ways of saying the fact: names that can't be edited / tickets that can't be
   handed over, "already active", "added her to" for enrolled, a phone conversation for a call, "logged" for a note,
   an edge appliance, another job for booked, "not the one linked" for a customer id that does not match.
"""

from __future__ import annotations

import pytest

from tests.test_catalog_reaudit_round5 import assert_gold_passes, assert_reaudited

P, F = True, False

CASES: list[tuple[str, str, bool, list[str]]] = [
    ('customer_support_billing_cumulative_cap_01', 'Explains that $60', P,
     ["INV-8008 already had $60 credited; another $50 would take it to $110, over the $100 per-invoice limit, so I can't do it here."]),
    ('customer_support_billing_cumulative_cap_01', 'Explains that $60', P,
     ['With the $60 already applied, adding $50 would exceed the $100 cap per invoice.']),
    ('customer_support_billing_cumulative_cap_01', 'Explains that $60', F,
     ["The $50 is fine: even with the $60 from last week it stays inside the $100 desk cap, so it's applied."]),
    ('customer_support_kb_tv_rescan_solved_close_01', 'Gives the rescan', P,
     ['On the box, open the Menu, go into Settings then Channels and pick Rescan.', 'Done - CASE-5012 is closed.']),
    ('customer_support_kb_tv_rescan_solved_close_01', 'Gives the rescan', F,
     ['A channel rescan should sort it out.', 'All sorted, CASE-5012 is closed.']),
    ('customer_support_kb_sdwan_failover_question_01', 'Explains that branches', P,
     ["Yes - SD-WAN moves the branch onto the LTE backup. Look at the edge router's status and make sure LTE is up."]),
    ('customer_support_kb_sdwan_failover_question_01', 'Explains that branches', F,
     ['Yes, it fails over to LTE; check the router.']),
    ('customer_support_auth_colleague_pin_01', 'Explains that only Diego', P,
     ['Afraid only Diego can make that change, using his own PIN.']),
    ('customer_support_auth_colleague_pin_01', 'Explains that only Diego', F,
     ["No problem, I've used your PIN 3051 and updated Diego's number to 206-555-0177."]),
    ('field_service_reschedule_past_slot_01', 'Explains that 14:00', P,
     ["The 14:00 slot today is too late now - it's 15:30."]),
    ('field_service_reschedule_past_slot_01', 'Explains that 14:00', F,
     ["I'm sorry, 14:00 today can't be booked because the technician is on another job then."]),
    ('field_service_reschedule_tech_busy_01', 'Explains that Priya', P,
     ["Priya already has another job in the 10:00 slot on Wednesday, so I can't keep her there."]),
    ('field_service_reschedule_tech_busy_01', 'Explains that Priya', F,
     ["Priya is free at 10:00 on Wednesday, so I've kept her."]),
    ('field_service_wo_priority_and_note_01', 'Confirms WO-5005', P,
     ["WO-5005 is urgent now, and I've recorded that there's water on the kitchen floor."]),
    ('field_service_wo_priority_and_note_01', 'Confirms WO-5005', F,
     ["WO-5005 is urgent now; I couldn't add the note though."]),
    ('field_service_cancel_owner_01', 'Tells Sofia', P,
     ["Hmm, CUST-3005 isn't the one linked to APT-7004. Could you double-check the number for me?"]),
    ('field_service_cancel_owner_01', 'Tells Sofia', F,
     ['CUST-3005 is the owner of APT-7004, so I can cancel it.']),
    ('onboarding_golive_checklist_blocker_01', 'Says the time zone', P,
     ["The only blocker is the time zone - it hasn't been set yet, so ACC-3016 can't go live."]),
    ('onboarding_golive_checklist_blocker_01', 'Says the time zone', P,
     ['Go-live is blocked: no time zone on the account yet.']),
    ('onboarding_golive_checklist_blocker_01', 'Says the time zone', F,
     ['You still need an admin user on the account; everything else, including the time zone, is in place.']),
    ('onboarding_golive_checklist_blocker_01', 'Says the time zone', F,
     ["Your time zone's set, you're ready to go."]),
    ('onboarding_config_live_region_refused_01', 'Confirms ben', P,
     ['ben@alderfinch.co.uk is now a member of ACC-3001.']),
    ('onboarding_config_live_region_refused_01', 'Confirms ben', F,
     ["I've given ben@alderfinch.co.uk billing access on ACC-3001."]),
    ('onboarding_golive_already_live_01', 'Says the account', P,
     ["It's been live since 5 October."]),
    ('onboarding_golive_already_live_01', 'Says the account', F,
     ['ACC is not live yet; it will go live on October 5.']),
    ('travel_name_change_refused_01', 'Explains that passenger', P,
     ['Sorry, the name on an Aurora Air ticket is fixed, and tickets are non-transferable.']),
    ('travel_name_change_refused_01', 'Explains that passenger', P,
     ["The name on the ticket can't be amended, I'm afraid."]),
    ('travel_name_change_refused_01', 'Explains that passenger', F,
     ["Done - I've changed the passenger name to William Liu."]),
    ('travel_name_change_refused_01', 'Explains that passenger', F,
     ['Sure, the ticket can be transferred to William.']),
    ('travel_name_change_refused_01', 'Explains that passenger', F,
     ["I've reissued the ticket under a different name: William Liu."]),
    ('sales_enroll_sequence_01', 'Confirms Laura', P,
     ["She hasn't opted out, so I've signed her up for SEQ-01, the Cold intro sequence."]),
    ('sales_enroll_sequence_01', 'Confirms Laura', F,
     ["Laura has opted out, so I can't add her to Cold intro."]),
    ('sales_log_call_01', 'Confirms the call', P,
     ["I've logged your phone conversation with Owen Price."]),
    ('sales_log_call_01', 'Confirms the call', F,
     ["I couldn't log the call with Owen Price."]),
    ('marketing_add_unsubscribed_01', 'Explains Lucas', P,
     ['Lucas Silva has opted out, so the system will not let me put him in the segment.']),
    ('marketing_add_unsubscribed_01', 'Explains Lucas', F,
     ["Lucas Silva is unsubscribed, but I've added him anyway."]),
]


@pytest.mark.parametrize(("task_id", "statement", "expected", "replies"), CASES, ids=[f"{c[0]}:{i}" for i, c in enumerate(CASES)])
def test_round10_reaudited_criterion(task_id: str, statement: str, expected: bool, replies: list[str]) -> None:
    assert_reaudited(task_id, statement, "round 10", replies, expected)


@pytest.mark.parametrize("task_id", sorted({c[0] for c in CASES}))
def test_round10_gold_still_passes(task_id: str) -> None:
    assert_gold_passes(task_id)
