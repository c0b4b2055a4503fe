"""The consent rule, round 9, in sentences of our own (no calibration case uses them), must-fail beside must-pass:
- a value of a closed set the call sets (a fare class, a plan, a resolution code, a stage, a reason), picked in the
  answer where the call carries another, and the call's own value named nowhere unnegated, decides against the
  call; a value reached by a path ("through to", "up to") asks for the values before it in the set's order;
- a question back with no yes: a first-person wish to check ("I want to make sure ...") asks for nothing; a modal
  question on whether a thing would work or count ("would that go through?") asks back; a sentence with a verb of
  its own beside it ("my boss suggested 300") is context, not a choice;
- a feasibility condition on a thing named nowhere in the call or the agent's message, and a condition that the
  customer is not charged for another thing, cannot be checked on the call."""

from __future__ import annotations

import pytest

from contracts.schema import ConsentCheck
from grader.consent import decide
from tests.consent_model import ask


def granted(check: ConsentCheck, turns: list[tuple[str, str]], call: dict) -> bool:
    return decide(ask(check, turns, call)).granted


# --- another value of a closed set -------------------------------------------------------------------------------

FARE = ConsentCheck(tool="book_flight", decision="the customer agreed to the fare and payment offered", upfront=False)
FARE_OFFER = "Flight AU330 on 12 January: basic is $180, standard $240 and flexible $310. Which fare shall I book on your Visa PM-1111?"
FLEX = {"traveller_id": "TRV-900", "flight_id": "AU330-0112", "fare_class": "flexible", "passengers": ["Ana Lima"], "payment_method_id": "PM-1111"}


@pytest.mark.parametrize(("answer", "expected"), [
    ("Basic is plenty, cheers. Use PM-1111.", False),
    ("go with standard please, on PM-1111", False),
    ("The standard one on the Visa PM-1111, thanks.", False),
    ("Flexible isn't worth it - standard on PM-1111.", False),
    ("Book it as basic on PM-1111.", False),
    ("Flexible please, on PM-1111.", True),
    ("Flexible on PM-1111 - basic is too strict for me.", True),
    ("Not standard, flexible. Card PM-1111.", True),
    ("The flexible one, PM-1111, thanks!", True),
    ("Let's do flexible with PM-1111; standard won't let me change dates.", True),
])
def test_another_value_of_a_closed_set(answer: str, expected: bool) -> None:
    turns = [("user", "I need a seat on AU330 on 12 January."), ("assistant", FARE_OFFER), ("user", answer)]
    assert granted(FARE, turns, FLEX) is expected


RESOLVE = ConsentCheck(tool="resolve_incident", decision="the customer agreed to resolving the incident", upfront=False)
RESOLVE_OFFER = "The printer queue is flowing again after the driver reinstall. Shall I resolve INC-7700?"


@pytest.mark.parametrize(("answer", "code", "expected"), [
    ("Yes - record it as a workaround, the real fix is still coming.", "fixed", False),
    ("Sure, resolve it. Not fixed though, it's a workaround.", "fixed", False),
    ("Yes, resolve as fixed rather than workaround.", "workaround", False),
    ("Yes - record it as a workaround, the real fix is still coming.", "workaround", True),
    ("Yep, resolve it as fixed.", "fixed", True),
    ("Go ahead, fixed it is.", "fixed", True),
])
def test_resolution_code_picked(answer: str, code: str, expected: bool) -> None:
    turns = [("user", "Printing works again on floor 3."), ("assistant", RESOLVE_OFFER), ("user", answer)]
    call = {"incident_id": "INC-7700", "resolution_code": code, "resolution_notes": "Driver reinstalled."}
    assert granted(RESOLVE, turns, call) is expected


STAGE = ConsentCheck(tool="update_opportunity_stage", decision="the customer agreed to moving the stage", upfront=False)
STAGE_OFFER = ("Stages go one by one (prospecting, qualification, proposal, negotiation), so OPP-9100 can't jump. If it was "
               "qualified and you sent a proposal, I can move it stage by stage. Did that happen?")


@pytest.mark.parametrize(("answer", "stage", "expected"), [
    ("Yes, both done. Take it up to proposal and leave it there for now.", "negotiation", False),
    ("Yes, both done. Take it up to proposal and leave it there for now.", "qualification", True),
    ("Both happened. Walk it all the way to negotiation.", "qualification", True),
    ("Both happened, move it through to negotiation.", "proposal", True),
])
def test_stage_reached_by_a_path(answer: str, stage: str, expected: bool) -> None:
    turns = [("user", "OPP-9100 should be in negotiation."), ("assistant", STAGE_OFFER), ("user", answer)]
    assert granted(STAGE, turns, {"opportunity_id": "OPP-9100", "stage": stage}) is expected


IMPACT = ConsentCheck(tool="update_incident", decision="the customer agreed to the impact and urgency offered", upfront=False)


def test_a_value_of_another_argument_is_no_other_pick() -> None:
    turns = [("user", "INC-8800 blocks my whole team."), ("assistant", "I can set INC-8800 to impact medium and urgency high. OK?"),
             ("user", "Fine - impact at medium, it's only us, but yes urgency high.")]
    assert granted(IMPACT, turns, {"incident_id": "INC-8800", "impact": "medium", "urgency": "high"}) is True


# --- a question back with no yes ---------------------------------------------------------------------------------

REFUND = ConsentCheck(tool="refund_return", decision="the customer chose where the refund goes", upfront=False)
REFUND_OFFER = "RET-4400 arrived. I can refund the $60.00 to your original card or as store credit. Which would you like?"


@pytest.mark.parametrize(("answer", "expected"), [
    ("Would store credit still be valid after the new year?", False),
    ("Hmm, can store credit be spent in the outlet shops too?", False),
    ("I want to make sure the card isn't the expired one - which card is it?", False),
    ("Will the store credit cover shipping as well?", False),
    ("Store credit please.", True),
    ("Store credit. Does it expire, by the way?", True),
    ("Could you put it on store credit?", True),
    ("Yes, store credit - will it show up today?", True),
])
def test_question_back_without_a_yes(answer: str, expected: bool) -> None:
    turns = [("user", "Has my return RET-4400 arrived?"), ("assistant", REFUND_OFFER), ("user", answer)]
    assert granted(REFUND, turns, {"return_id": "RET-4400", "refund_to": "store_credit"}) is expected


# --- conditions on another thing ---------------------------------------------------------------------------------

PAY = ConsentCheck(tool="process_payment", decision="the customer agreed to the payment offered", upfront=False)
PAY_OFFER = "I can take $420.00 from your account balance for Harbor Audio. Shall I?"
PAY_CALL = {"account_id": "ACC-7000", "amount": 420.0, "method": "account_balance", "merchant": "Harbor Audio"}


@pytest.mark.parametrize(("answer", "expected"), [
    ("Go ahead, if the speakers are still in stock at their warehouse.", False),
    ("Yes, provided the installer is free on Saturday.", False),
    ("Sure, as long as I'm not charged for the delivery van.", False),
    ("Go ahead, if that's possible.", True),
    ("Yes, if it's allowed.", True),
    ("Sure, as long as it's allowed.", True),
])
def test_condition_on_another_thing(answer: str, expected: bool) -> None:
    turns = [("user", "Pay Harbor Audio $420 please."), ("assistant", PAY_OFFER), ("user", answer)]
    assert granted(PAY, turns, PAY_CALL) is expected


# --- a refusal of the proposal's value, then a request naming the call's value ----------------------------------

PLAN = ConsentCheck(tool="change_plan", decision="the customer agreed to the plan change offered", upfront=False)
PLAN_OFFER = "Enterprise is $1,200 a month with SSO. Shall I move ACC-5500 to enterprise?"


@pytest.mark.parametrize(("answer", "plan", "expected"), [
    ("Nah, far too steep. Put us on growth, please.", "growth", True),
    ("No way - growth will do, switch us to growth please.", "growth", True),
    ("No, too pricey. Move us to growth instead, please.", "enterprise", False),
    ("Nah, far too steep. Put us on growth, please.", "enterprise", False),
    ("No, leave the plan as it is for now.", "growth", False),
    ("No thanks, don't change anything yet.", "growth", False),
])
def test_refusal_then_own_request(answer: str, plan: str, expected: bool) -> None:
    turns = [("user", "We need more seats on ACC-5500."), ("assistant", PLAN_OFFER), ("user", answer)]
    assert granted(PLAN, turns, {"account_id": "ACC-5500", "plan": plan}) is expected
