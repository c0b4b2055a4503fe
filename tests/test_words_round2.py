"""Round 2 of the words and value forms (branch r8-words): classes of wording, each with cases written for
this file (not taken from a calibration case), and the must-fail guards next to them: a wrong, negated or
still-to-come status in other words fails."""

from __future__ import annotations

from decimal import Decimal

import pytest

from contracts.schema import ReplyCriterion
from grader.text.evidence import EvidenceJudge
from grader.text.lexicon import phrase_forms
from grader.text.values import durations, find_values, id_mentions


def stated(evidence: list[str | list[str]], reply: str | list[str]) -> bool:
    replies = [reply] if isinstance(reply, str) else reply
    out = EvidenceJudge().judge_sync([ReplyCriterion(criterion="The reply states it.", evidence=[evidence])], replies)
    return out.criteria[0].passed


# ---- concepts in other words (more_families) ----------------------------------------------------------


@pytest.mark.parametrize(
    ("evidence", "reply"),
    [
        (["limit"], "Your plan caps outgoing payments at $1,000 a day."),
        (["limit"], "There is a ceiling of 10 seats on this tier."),
        (["full"], "Every seat on the plan is in use right now."),
        (["full"], "The account has maxed out its seats."),
        (["mismatch"], "The surname doesn't match our records."),
        (["pending"], "The manager's approval is still outstanding."),
        (["pending"], "Sign-off from finance hasn't come through yet."),
        (["passed"], "Your identity check has come back clear."),
        (["passed"], "ACC-9 is now verified."),
        (["ready"], "The workspace is good to go whenever you say."),
        (["granted"], "Ana now has the reporting role."),
        (["granted"], "The admin role is yours from today."),
        (["added"], "I've put Ben Ortiz (SUB-1) into the VIP segment."),
        (["enrolled"], "Ben is in the Spring nurture sequence now."),
        (["busy"], "Omar already has a job booked at 9 on Friday."),
        (["frozen"], "ACC-4 has a freeze on it, so no payments can leave."),
        (["already credited"], "Those miles were credited earlier in the month."),
        (["already awarded"], "The bonus points were previously awarded."),
        (["already awarded"], "That purchase already earned its points."),
        (["refunded"], "The $12 difference is going back to your card."),
        (["cannot change the name"], "We can't swap the traveller's name on this ticket."),
        (["can't"], "I'm not able to reopen it for you."),
        (["can't cancel"], "It has left the depot, so it's too late for me to cancel it."),
        (["cannot be implemented"], "The change can't be marked implemented yet."),
        (["can't reserve"], "I'm not able to reserve that seat."),
        (["no refund"], "Cancelling won't give you any refund."),
        (["names cannot be changed"], "Names on a booking can't be amended."),
        (["Wednesday"], "Moved to Wed, 9 to 11."),
        (["came back clean"], "The scan has come back clean."),
    ],
)
def test_a_concept_in_other_words_is_stated(evidence: list[str], reply: str) -> None:
    assert stated(evidence, reply), (evidence, reply)


@pytest.mark.parametrize(
    ("evidence", "reply"),
    [
        (["limit"], "You're allowed to send that amount."),
        (["mismatch"], "The surname matches our records."),
        (["pending"], "The manager's approval came through this morning."),
        (["passed"], "ACC-9 is not verified yet."),
        (["granted"], "Ana doesn't have the reporting role."),
        (["granted"], "Ana will have the reporting role once it's approved."),
        (["granted"], "Ana still needs approval before she has the role."),
        (["added"], "I can put Ben into the VIP segment if you like."),
        (["busy"], "Omar is free at 9 on Friday."),
        (["frozen"], "The freeze was lifted and payments can leave again."),
        (["already credited"], "Those miles will be credited later this week."),
        (["refunded"], "Nothing is going back to your card."),
        (["cannot change the name"], "I've swapped the traveller's name on this ticket."),
        (["can't cancel"], "It's not too late: I can cancel it now."),
        (["no refund"], "Cancelling gives you a full refund."),
        (["Wednesday"], "Moved to Thu, 9 to 11."),
        (["cancelled"], "I've removed the discount code."),
        (["delivered"], "The courier will hand it over on Friday."),
    ],
)
def test_a_wrong_negated_or_future_status_in_other_words_fails(evidence: list[str], reply: str) -> None:
    assert not stated(evidence, reply), (evidence, reply)


def test_already_has_the_other_order() -> None:
    forms = phrase_forms("already refunded")
    assert "refunded earlier" in forms and "previously refunded" in forms


# ---- ids, codes, acronyms -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "reply", "found"),
    [
        ("WO-7781", "The note is on work order 7781.", True),
        ("INC-3310", "Incident 3310 is now with the network team.", True),
        ("INC-3310", "INC 3310 is now with the network team.", True),
        ("REQ-4120", "Request #4120 has been fulfilled.", True),
        ("CHG-5002", "Change 5002 is approved.", True),
        ("DSP-1201", "Dispute #1201 is still open.", True),
        ("REQ-4120", "Order 4120 has been fulfilled.", False),  # another kind of record
        ("INC-3310", "Incident 33105 is open.", False),  # other digits
        ("INC-3310", "Ticket 3310 is open.", False),
    ],
)
def test_an_id_written_another_way(target: str, reply: str, found: bool) -> None:
    assert bool(id_mentions(target, reply)) is found
    assert stated([target], reply) is found


def test_codes_and_acronyms() -> None:
    assert stated(["14C"], "You're in seat 14-C now.")
    assert not stated(["14C"], "You're in seat 14-D now.")
    assert not stated(["12A"], "The slot starts at 12 a.m.")
    assert stated(["CAB"], "Only a Change Advisory Board member can sign it off.")
    assert stated(["service level agreement"], "That's outside our SLA.")
    assert not stated(["CAB"], "It can always be changed later.")


# ---- value forms ------------------------------------------------------------------------------------------


def test_space_grouped_thousands_and_day_first_dates() -> None:
    assert [(v.kind, v.value) for v in find_values("a balance of 12 750 points")] == [("number", Decimal(12750))]
    assert stated(["12,750"], "You now have 12 750 points.")
    assert not stated(["12,750"], "You now have 12 705 points.")
    assert stated(["2026-11-28"], "It was dropped off on 28/11/2026.")
    assert [(v.kind, v.value) for v in find_values("open 24/7")] == [("number", 24), ("number", 7)]
    assert stated(["2026-12-09"], "Due 9/12.") is False  # an ambiguous date stays month first: September 12


def test_a_level_list_and_a_list_of_values() -> None:
    assert stated(["P1 or P2"], "Only priority 1 or 2 cases go to tier 2.")
    assert stated(["P2 or P3"], "It takes P2/P3 tickets.")
    assert not stated(["P1 or P2"], "Only priority 1 for 2 hours.")
    assert not stated(["P1 or P2"], "Only priority 2 or 3 cases go to tier 2.")
    assert stated(["6% or 4%"], "Rates were 6% and 4%.")


def test_durations_in_other_units_and_words() -> None:
    assert durations("wait a quarter of an hour")[0][0] == 900
    assert stated(["30 seconds"], "Hold the button for half a minute.")
    assert stated(["90 minutes"], "It takes an hour and a half.")
    assert stated(["2 hours"], "Allow 120 minutes.")
    assert not stated(["30 seconds"], "Hold the button for a minute.")
    assert not stated(["30 seconds"], "Don't hold it for half a minute.")


def test_a_phrasal_verb_split_by_its_object_stays_in_one_clause() -> None:
    assert stated(["taken off"], "I've taken Dana Whitfield (USR-9) off the account.")
    assert not stated(["signed off"], "Robert signed the form, and then sent it off to the board.")
