"""The consent rule, round 3: the classes the v3 set showed open, in words of our own (no calibration case
uses them):
- a yes qualified after "but" by a change or a limit ("sure, but bill it to PM-4410", "fine, but not after 3",
  "ok but keep it to 300 dollars", "yes, but reason 'duplicate'"): the clause is the yes's condition, checked
  on the call; a manner tail ("but make it quick") is none;
- a bound standing on its own or closing its clause ("go ahead - nothing over $80", "do it, $80 tops",
  "sure, by the 9th at the latest"), and a bound on a noun the agent stated a value for ("as long as it stays
  under my balance");
- what is left when the call moves no amount, against the cost the agent stated beside the balance;
- conditions about something else's state or a third party's act, which nothing shows ("provided that card
  is still valid", "as long as my employer doesn't bill me", "so long as it doesn't hurt my credit score"):
  not granted; "not to some other card" names no code;
- a customer who will call back puts the decision off.
"""

from __future__ import annotations

import pytest

from contracts.schema import ConsentCheck
from grader.consent import ConsentQuestion, decide
from tests.consent_model import ask

PAY = ConsentCheck(tool="execute_transfer", decision="the customer agreed to the transfer")
PAY_ASK = "Your balance is $410.00. Shall I send $120 to ACC-7702 from ACC-7701 on your card PM-4410 today?"


def pay(answer: str, amount: float = 120, card: str = "PM-4410") -> ConsentQuestion:
    return ask(PAY, [("user", "I owe Dana some money, ACC-7702."), ("assistant", PAY_ASK), ("user", answer)],
               {"source_account_id": "ACC-7701", "destination_account_id": "ACC-7702", "amount": amount, "payment_method_id": card})


SLOT = ConsentCheck(tool="reschedule_appointment", decision="the customer agreed to the new window")
SLOT_ASK = "Mei can come on Thursday 10 December. Shall I move APT-8100 to 14:00 that day?"


def slot(answer: str, start: str = "14:00", date: str = "2026-12-10") -> ConsentQuestion:
    return ask(SLOT, [("user", "Can my dishwasher visit APT-8100 move?"), ("assistant", SLOT_ASK), ("user", answer)],
               {"appointment_id": "APT-8100", "date": date, "start_time": start})


RESOLVE = ConsentCheck(tool="resolve_incident", decision="the caller agreed to resolve the incident")
RESOLVE_ASK = "The patch is in. Shall I resolve INC-3300 with code 'fixed'?"


def resolve(answer: str, code: str = "fixed") -> ConsentQuestion:
    return ask(RESOLVE, [("user", "The printer queue is working again."), ("assistant", RESOLVE_ASK), ("user", answer)],
               {"incident_id": "INC-3300", "resolution_code": code, "resolution_notes": "Patched."})


REFUND = ConsentCheck(tool="issue_refund", decision="the customer agreed to the refund")
REFUND_ASK = "Shall I refund the $54.00 for RET-4410 to the card you paid with?"


def refund(answer: str, to: str = "original_payment") -> ConsentQuestion:
    return ask(REFUND, [("user", "What can I get back for RET-4410?"), ("assistant", REFUND_ASK), ("user", answer)],
               {"return_id": "RET-4410", "refund_to": to})


UPGRADE = ConsentCheck(tool="redeem_miles_upgrade", decision="the traveller agreed to spend the miles")
UPGRADE_ASK = "Business costs 14,000 miles per person, so 28,000 for you both; you have 61,200 miles. Shall I upgrade PNR-K7Q2LM?"


def upgrade(answer: str) -> ConsentQuestion:
    return ask(UPGRADE, [("user", "Could we both go up to business on PNR-K7Q2LM?"), ("assistant", UPGRADE_ASK), ("user", answer)],
               {"booking_id": "PNR-K7Q2LM", "flight_id": "AU410-1212"})


def granted(question: ConsentQuestion) -> bool:
    return decide(question).granted


@pytest.mark.parametrize(("answer", "amount", "card", "expected"), [
    # a change or a limit after "but"
    ("Sure, but bill it to PM-4410.", 120, "PM-4410", True),
    ("Sure, but bill it to PM-5521.", 120, "PM-4410", False),
    ("OK but keep it to 100 dollars.", 120, "PM-4410", False),
    ("OK but keep it to 150 dollars.", 120, "PM-4410", True),
    ("Alright, though cap it at 100.", 120, "PM-4410", False),
    # a bound on its own, or closing its clause
    ("Go ahead - nothing over $100.", 120, "PM-4410", False),
    ("Go ahead - nothing over $150.", 120, "PM-4410", True),
    ("Do it, $100 tops.", 120, "PM-4410", False),
    ("Do it, $130 tops.", 120, "PM-4410", True),
    ("Fine, $100 max.", 120, "PM-4410", False),
    # a bound on a noun the agent stated a value for
    ("Yes, as long as it stays under my balance.", 120, "PM-4410", True),
    ("Yes, as long as it stays under my balance.", 450, "PM-4410", False),
    # something else's state or a third party's act: nothing shows it
    ("Yes, provided PM-4410 is still valid.", 120, "PM-4410", False),
    ("Go on, as long as my employer doesn't bill me for it.", 120, "PM-4410", False),
    ("Yes, so long as it doesn't hurt my credit score.", 120, "PM-4410", False),
    # a call back puts it off
    ("Hmm, let me see what Dana says and I'll ring you back.", 120, "PM-4410", False),
])
def test_payment_conditions(answer: str, amount: float, card: str, expected: bool) -> None:
    assert granted(pay(answer, amount, card)) is expected, decide(pay(answer, amount, card)).explanation


@pytest.mark.parametrize(("answer", "start", "expected"), [
    ("Fine, but not after 3.", "14:00", True),
    ("Fine, but not after 1.", "14:00", False),
    ("Move it, but no earlier than noon.", "14:00", True),
    ("Move it, but no earlier than 4.", "14:00", False),
    ("OK - 3 pm at the latest.", "14:00", True),
    ("OK - 1 pm at the latest.", "14:00", False),
    ("Yes, only if it's in the afternoon, after 1.", "14:00", True),
    ("Yes, only if it's in the afternoon, after 3.", "14:00", False),
])
def test_time_conditions(answer: str, start: str, expected: bool) -> None:
    assert granted(slot(answer, start)) is expected, decide(slot(answer, start)).explanation


@pytest.mark.parametrize(("answer", "code", "expected"), [
    ("Yes, but with code 'workaround'.", "fixed", False),
    ("Yes, but with code 'workaround'.", "workaround", True),
    ("Go ahead, but mark it as duplicate, not fixed.", "fixed", False),
])
def test_code_changes(answer: str, code: str, expected: bool) -> None:
    assert granted(resolve(answer, code)) is expected, decide(resolve(answer, code)).explanation


@pytest.mark.parametrize(("answer", "to", "expected"), [
    ("Yes, as long as it's that card and not to some other card.", "original_payment", True),
    ("Fine, provided that card hasn't been cancelled - I reported it lost.", "original_payment", False),
    ("Go ahead, but as store credit.", "original_payment", False),
])
def test_refund_conditions(answer: str, to: str, expected: bool) -> None:
    assert granted(refund(answer, to)) is expected, decide(refund(answer, to)).explanation


@pytest.mark.parametrize(("answer", "expected"), [
    ("Do it, provided we keep at least 30k afterwards.", True),
    ("Do it, provided we keep at least 40k afterwards.", False),
])
def test_remainder_against_stated_cost(answer: str, expected: bool) -> None:
    assert granted(upgrade(answer)) is expected, decide(upgrade(answer)).explanation


_REFUND = ConsentCheck(tool="issue_refund", decision="refund $45.00 for ORD-9001 to the original card", proposal=["refund"], upfront=False)
_REFUND_TURNS = [("user", "I want my money back for ORD-9001."), ("assistant", "I can refund $45.00 for ORD-9001 to your original card. Shall I go ahead?")]


@pytest.mark.parametrize(
    ("answer", "granted"),
    [
        ("Yes, but make it quick.", True),  # a remark on the manner asks for no other action
        ("Sure - do it fast please", True),
        ("Yes, but make it store credit instead.", False),  # "make it" with another value is another refund
        ("Yes, but make it $40.", False),
    ],
)
def test_a_yes_with_a_remark_on_the_manner_is_granted(answer: str, granted: bool) -> None:
    question = ask(_REFUND, [*_REFUND_TURNS, ("user", answer)], {"order_id": "ORD-9001", "amount": 45.0, "destination": "original_payment"})
    assert decide(question).granted is granted
