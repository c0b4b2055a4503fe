"""The consent rule, round 7: a condition counts as kept only when what the call does, or what the agent stated in
the conversation about exactly the thing the call acts on, satisfies it; it stays unverifiable when nothing shown
settles it (another person's sign-off) and is broken when the call or the agent's statement contradicts it. In
sentences of our own (no calibration case uses them), must-fail sentences beside each class."""

from __future__ import annotations

import pytest

from contracts.schema import ConsentCheck
from grader.consent import decide
from tests.consent_model import ask


def granted(check: ConsentCheck, turns: list[tuple[str, str]], call: dict) -> bool:
    return decide(ask(check, turns, call)).granted


# --- the agent stated the fact the condition asks for, of exactly the call's thing --------------------------------

FLIGHT = ConsentCheck(tool="book_flight", decision="the customer agreed to book the flight offered", upfront=False)
FLIGHT_CALL = {"traveller_id": "TRV-550", "flight_id": "BX903-0312", "fare_class": "standard", "payment_method_id": "PM-6001"}
FLIGHT_OFFER = ("The 07:10 BX903 in standard is $212.00; the 13:45 BX905 standard is $248.00. "
                "Shall I book BX903 standard on your Visa PM-6001?")


@pytest.mark.parametrize(("answer", "expected"), [
    ("If that's the $212 fare, go ahead.", True),
    ("yep, provided it's the 212 dollar one", True),
    ("Book it, as long as that's the 07:10 one this time.", True),
    ("Go on then, so long as it's the BX903 one.", True),
    ("If that's the $248 fare, go ahead.", False),                 # the agent said $248 of the other flight
    ("yes, provided it's the 248 dollar one", False),
    ("Book it, as long as it's the BX905 one.", False),
    ("Book it if my boss has signed off on the trip.", False),     # another person's approval: nothing shows it
    ("OK, as long as finance has approved the travel budget.", False),
])
def test_a_condition_the_agent_stated_of_the_calls_option(answer: str, expected: bool) -> None:
    turns = [("user", "I need a flight to Lyon on 12 March."), ("assistant", FLIGHT_OFFER), ("user", answer)]
    assert granted(FLIGHT, turns, FLIGHT_CALL) is expected


TEMPLATE = ConsentCheck(tool="attach_template", decision="the customer agreed to attach the template offered", upfront=False)
TEMPLATE_CALL = {"campaign_id": "CMP-7301", "template_id": "TPL-912"}
TEMPLATE_OFFER = "TPL-912 'Spring launch' is a newsletter-style email template and suits CMP-7301. Attach it?"


@pytest.mark.parametrize(("answer", "expected"), [
    ("Sure, as long as it's the spring launch one again.", True),
    ("fine - if it's a newsletter one this time", True),
    ("Yes, provided the copy team has okayed the wording.", False),
    ("Yes, so long as our brand lead has given the green light.", False),
])
def test_a_condition_restating_the_proposal(answer: str, expected: bool) -> None:
    turns = [("user", "Which template works for CMP-7301?"), ("assistant", TEMPLATE_OFFER), ("user", answer)]
    assert granted(TEMPLATE, turns, TEMPLATE_CALL) is expected


# --- a condition restricting the call to its own record, or ruling another out -------------------------------------

CANCEL = ConsentCheck(tool="cancel_booking", decision="the customer agreed to cancel the flight booking", upfront=False)
CANCEL_CALL = {"booking_id": "PNR-H4XT7Q", "reason": "trip off"}
CANCEL_OFFER = "PNR-H4XT7Q is refundable: $310.00 back to your card. Your hotel stay STAY-5120 is separate. Cancel the flight?"


@pytest.mark.parametrize(("answer", "expected"), [
    ("Yes - provided it's only the flight.", True),
    ("go ahead, as long as you cancel H4XT7Q only", True),
    ("Cancel it, so long as it's the flight and not the hotel.", True),
    ("ok, as long as it's just the booking with PNR-H4XT7Q", True),
    ("go ahead, as long as you cancel K2PL9M only", False),         # another booking than the call's
    ("Cancel it, so long as it's the hotel and not the flight.", False),
])
def test_a_condition_on_which_record_the_call_touches(answer: str, expected: bool) -> None:
    turns = [("user", "I have to call off the Denver trip."), ("assistant", CANCEL_OFFER), ("user", answer)]
    assert granted(CANCEL, turns, CANCEL_CALL) is expected


REFUND = ConsentCheck(tool="issue_refund", decision="the customer agreed to the refund destination", upfront=False)
REFUND_OFFER = "Your return RET-8810 is in. Shall I refund the $62.00 as store credit?"


@pytest.mark.parametrize(("answer", "to", "expected"), [
    ("Yes, if it lands as store credit rather than on my card.", "store_credit", True),
    ("Yes, as long as it's shop credit instead of going back to PayPal.", "store_credit", True),
    ("Yes, if it lands as store credit rather than on my card.", "original_payment", False),
    ("Yes, if it goes back to my card rather than store credit.", "store_credit", False),
])
def test_a_condition_ruling_another_value_out(answer: str, to: str, expected: bool) -> None:
    turns = [("user", "Where is my refund?"), ("assistant", REFUND_OFFER), ("user", answer)]
    assert granted(REFUND, turns, {"return_id": "RET-8810", "refund_to": to}) is expected


# --- a condition that a thing stays as it is -------------------------------------------------------------------

ASSIGN = ConsentCheck(tool="assign_technician", decision="the customer agreed to the technician offered", upfront=False)
ASSIGN_OFFER = "Dana Ruiz (TECH-210) is off that day. Shall I assign Marco Lind (TECH-214) instead?"
RESCHEDULE = ConsentCheck(tool="reschedule_appointment", decision="the customer agreed to the new time", upfront=False)


@pytest.mark.parametrize(("answer", "expected"), [
    ("Yes, as long as it's Marco and the visit time doesn't change.", True),
    ("Fine, provided the date stays the same.", True),
    ("ok if it's Marco and the slot remains the same", True),
    ("Yes, as long as it's Dana and the visit time doesn't change.", False),  # Dana is not the call's technician
])
def test_an_unchanged_thing_the_call_does_not_set(answer: str, expected: bool) -> None:
    turns = [("user", "Who's coming Thursday?"), ("assistant", ASSIGN_OFFER), ("user", answer)]
    assert granted(ASSIGN, turns, {"appointment_id": "APT-8120", "technician_id": "TECH-214"}) is expected


@pytest.mark.parametrize("answer", ["Yes, as long as the start time doesn't change.", "OK, provided the time stays the same."])
def test_an_unchanged_thing_the_call_sets_is_broken(answer: str) -> None:
    turns = [("user", "Can we move APT-8120?"), ("assistant", "Friday 2 May has 13:00 free. Move APT-8120 there?"), ("user", answer)]
    call = {"appointment_id": "APT-8120", "customer_id": "CUST-4410", "date": "2026-05-02", "start_time": "13:00"}
    assert granted(RESCHEDULE, turns, call) is False


# --- a time zone by its common name ---------------------------------------------------------------------------

SETTINGS = ConsentCheck(tool="update_settings", decision="the customer agreed to the time zone", upfront=False)


@pytest.mark.parametrize(("answer", "zone", "expected"), [
    ("Yes, as long as that's Eastern time.", "America/New_York", True),
    ("sure, if that's pacific", "America/Los_Angeles", True),
    ("Yes, as long as that's Eastern time.", "America/Chicago", False),
    ("sure, if that's pacific", "America/Denver", False),
])
def test_a_time_zone_named_in_words(answer: str, zone: str, expected: bool) -> None:
    turns = [("user", "Set our time zone please."), ("assistant", f"Shall I set ACC-4410 to {zone}?"), ("user", answer)]
    assert granted(SETTINGS, turns, {"account_id": "ACC-4410", "timezone": zone}) is expected
