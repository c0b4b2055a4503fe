"""The consent rule, round 4: the classes of English the v1-v4 sets showed open, in words of our own (no
calibration case uses these sentences). Each class has sentences that must be granted and, next to them, the
declines, deferrals, questions back, other records and exclusions in the same words that must stay refused.

- a request said with a general English verb (an imperative: "find it and shut it", "pop a note on it", "hook
  the segment up", "DQ it"), or a causative ("get that sorted"), is a request;
- a want or a relayed request not opening the clause ("my boss wants the admin role taken away", "Priya would
  like the case closed") is a request; negated ("I don't want it cancelled") it refuses;
- a request for information ("can you tell me what I'd have left first?") and a negated modal question ("can't
  you do it for free?") ask back;
- an emoji ends a sentence ("sorted now 🎉 close it please");
- a sequencer and a colon list the next request without a verb ("Next: Paper Moon, $42.10, card");
- a request for several records, the call's among them, asks for each; a value after an exclusion ("anyone but
  TECH-205") is set aside; another priority level is another value;
- "that would be great" and its family answer yes, not after the customer's own question;
- "do both" picks every option; a labelled option ("a please") picks by its label.
"""

from __future__ import annotations

import pytest

from contracts.schema import ConsentCheck
from grader.consent import decide
from tests.consent_model import ask


def granted(check: ConsentCheck, turns: list[tuple[str, str]], call: dict) -> bool:
    return decide(ask(check, turns, call)).granted


CLOSE = ConsentCheck(tool="close_case", decision="the customer agreed to close the case", upfront=True)
CLOSE_CALL = {"case_id": "CASE-8802", "resolution": "Customer reports the fault is gone."}


@pytest.mark.parametrize(("turns", "expected"), [
    # an imperative in general words, after the agent offered to look up the right record
    ([("user", "Could you close CASE-8801, the modem's fine now."), ("assistant", "CASE-8801 isn't on your account. Shall I look up your own case?"),
      ("user", "Ah right. Yeah, dig out mine and shut it, the modem's been fine all week.")], True),
    pytest.param([("user", "Could you close CASE-8801, the modem's fine now."), ("assistant", "CASE-8801 isn't on your account. Shall I look up your own case?"),
      ("user", "Yes, locate mine and wrap it up please.")], True, marks=pytest.mark.xfail(strict=True, reason="open: 'wrap it up' after 'locate mine and' is not tied to the case")),
    ([("user", "Could you close CASE-8801, the modem's fine now."), ("assistant", "CASE-8801 isn't on your account. Shall I look up your own case?"),
      ("user", "Find mine but leave it open for now, I want to watch it another week.")], False),
    pytest.param([("user", "Could you close CASE-8801, the modem's fine now."), ("assistant", "CASE-8801 isn't on your account. Shall I look up your own case?"),
      ("user", "Find mine and let me think about whether to close it.")], False, marks=pytest.mark.xfail(strict=True, reason="open: a deferral joined by 'and' inside the clause")),
    # an emoji where a full stop goes
    ([("user", "My modem keeps dropping, CASE-8802."), ("assistant", "Try a power cycle: unplug it for 30 seconds."),
      ("user", "did that, stable for an hour now 🙂 shut CASE-8802 please")], True),
    ([("user", "My modem keeps dropping, CASE-8802."), ("assistant", "Try a power cycle: unplug it for 30 seconds."),
      ("user", "did that, stable for an hour now 🙂 don't close CASE-8802 yet though")], False),
    # a want, relayed or not opening the clause
    ([("user", "Hi, it's the office manager. Priya would like CASE-8802 closed, the fault cleared overnight.")], True),
    ([("user", "Hi, it's the office manager. Priya doesn't want CASE-8802 closed yet, it flickered again.")], False),
    # another record only: not this call
    ([("user", "Please shut CASE-8809, that one is sorted.")], False),
])
def test_requests_in_general_words(turns: list[tuple[str, str]], expected: bool) -> None:
    assert granted(CLOSE, turns, CLOSE_CALL) is expected


NOTE = ConsentCheck(tool="add_work_note", decision="the caller agreed to the work note", upfront=True)
NOTE_CALL = {"incident_id": "INC-4410", "note": "Caller reports VPN drops every 20 minutes."}


@pytest.mark.parametrize(("text", "expected"), [
    ("Service desk here. The VPN on INC-4410 now drops every 20 minutes - pop that on the ticket for me.", True),
    ("Desk. INC-4410: VPN dropping every 20 mins. Jot that down on the incident, cheers.", True),
    ("INC-4410's VPN drops every 20 minutes; can you log that on the incident?", True),
    ("INC-4410's VPN drops every 20 minutes. Don't put anything on the ticket yet, I'm still testing.", False),
    ("INC-4410's VPN drops every 20 minutes. Should I add that to the ticket myself?", False),
    ("Can you tell me what's already noted on INC-4410 first?", False),
])
def test_note_requests(text: str, expected: bool) -> None:
    assert granted(NOTE, [("user", text)], NOTE_CALL) is expected


DQ = ConsentCheck(tool="disqualify_lead", decision="the rep agreed to disqualify the lead", upfront=True)
DQ_CALL = {"lead_id": "LEAD-2204", "reason": "no_budget"}


@pytest.mark.parametrize(("answer", "expected"), [
    ("Fine. They've got no money this year anyway, so just DQ it - no budget.", True),
    pytest.param("ok then, bin it, reason no budget", True, marks=pytest.mark.xfail(strict=True, reason="open: 'bin it' read as another code")),
    ("Hmm, don't DQ it yet, I'll ask them about next quarter.", False),
    ("Can't you qualify it anyway if I vouch for them?", False),
])
def test_disqualify_in_informal_words(answer: str, expected: bool) -> None:
    turns = [("user", "Can you qualify LEAD-2204, Dana at Harbour Ltd?"), ("assistant", "LEAD-2204 scores 41, under the 60 needed to qualify it."),
             ("user", answer)]
    assert granted(DQ, turns, DQ_CALL) is expected


REVOKE = ConsentCheck(tool="revoke_access", decision="the desk agreed to revoke the role", upfront=True)
REVOKE_CALL = {"user_id": "USR-3307", "role_id": "ROLE-BILLING-ADMIN", "reason": "Moved to another team."}


@pytest.mark.parametrize(("text", "expected"), [
    ("Desk here. Her manager wants the billing admin role taken off USR-3307 - ROLE-BILLING-ADMIN - she's switched teams.", True),
    ("Tom from IT. Legal needs ROLE-BILLING-ADMIN removed from USR-3307 today.", True),
    ("Tom from IT. Legal does not want ROLE-BILLING-ADMIN removed from USR-3307 until the audit ends.", False),
    ("Tom from IT. I'd like to know who has ROLE-BILLING-ADMIN on USR-3307.", False),
])
def test_wants_and_relayed_requests(text: str, expected: bool) -> None:
    assert granted(REVOKE, [("user", text)], REVOKE_CALL) is expected


PAYMENT = ConsentCheck(tool="process_payment", decision="the customer agreed to the payment", upfront=True, params={"amount": 42.1})
PAYMENT_CALL = {"account_id": "ACC-5510", "amount": 42.1, "method": "card", "merchant": "Paper Moon"}


@pytest.mark.parametrize(("text", "expected"), [
    ("Thanks for the first one. Next: Paper Moon, $42.10, card again please.", True),
    ("Cheers. Next up: Paper Moon - $42.10 - on the card.", True),
    ("Thanks. Next: Paper Moon, $24.10, card.", False),
    ("Thanks. Next: hold off on Paper Moon ($42.10) for now, I'll decide later.", False),
])
def test_sequenced_requests(text: str, expected: bool) -> None:
    assert granted(PAYMENT, [("user", text)], PAYMENT_CALL) is expected


SHIP = ConsentCheck(tool="update_shipping_address", decision="the customer agreed to the new address", upfront=True, params={"order_id": "ORD-6120"})
SHIP_CALL = {"order_id": "ORD-6120", "street": "14 Elm Close", "city": "Leeds", "postal_code": "LS6 2AB"}


@pytest.mark.parametrize(("text", "expected"), [
    pytest.param("Hi, Priya, CUST-2201. ORD-6120 is still processing, yes? Please send it to 14 Elm Close, Leeds LS6 2AB instead.", True, marks=pytest.mark.xfail(strict=True, reason="open: a UK postcode is no value the rule reads")),
    ("Priya, CUST-2201. ORD-6120 - redirect it to 14 Elm Close, Leeds LS6 2AB, I've moved.", True),
    ("Priya, CUST-2201. ORD-6120 - please don't send it to 14 Elm Close, Leeds LS6 2AB, that was a typo.", False),
    ("Priya, CUST-2201. Could ORD-6121 go to 14 Elm Close, Leeds LS6 2AB?", False),
])
def test_address_requests(text: str, expected: bool) -> None:
    assert granted(SHIP, [("user", text)], SHIP_CALL) is expected


REGISTER = ConsentCheck(tool="register_document", decision="the customer agreed to register the upload", upfront=True)
REGISTER_CALL = {"account_id": "ACC-7701", "upload_reference": "UPL-9901"}


@pytest.mark.parametrize(("turns", "expected"), [
    ([("user", "My driving licence is UPL-9901 and the gas bill is UPL-9902 - could you register both and start the checks?")], True),
    ([("user", "Please register UPL-9902, the gas bill.")], False),
    ([("user", "Please register UPL-9902 - not UPL-9901, that scan is blurry.")], False),
    ([("user", "I'd like a starter account."),
      ("assistant", "ACC-7701 is open. Shall I register your licence (UPL-9901) and gas bill (UPL-9902) and run verification?"),
      ("user", "Yep, all of them, go for it.")], True),
    ([("user", "I'd like a starter account."),
      ("assistant", "ACC-7701 is open. Shall I register your licence (UPL-9901) and gas bill (UPL-9902) and run verification?"),
      ("user", "Hang on, I'll dig out a better copy of both first.")], False),
    ([("user", "Register UPL-9955."),
      ("assistant", "UPL-9955 belongs to someone else. I can (a) register UPL-9901, already in your portal, or (b) wait while you upload a new scan. Which?"),
      ("user", "a please")], True),
    ([("user", "Register UPL-9955."),
      ("assistant", "UPL-9955 belongs to someone else. I can (a) register UPL-9901, already in your portal, or (b) wait while you upload a new scan. Which?"),
      ("user", "b - I'll upload a fresh one tonight")], False),
])
def test_several_records_and_labelled_options(turns: list[tuple[str, str]], expected: bool) -> None:
    assert granted(REGISTER, turns, REGISTER_CALL) is expected


ASSIGN = ConsentCheck(tool="assign_technician", decision="the dispatcher agreed to the technician", upfront=True)


@pytest.mark.parametrize(("text", "tech", "expected"), [
    ("Then give it to any north-side plumber who's free, except Leo Marsh (TECH-205) - the client had words with him.", "TECH-205", False),
    ("Then give it to any north-side plumber who's free, anyone but TECH-205.", "TECH-205", False),
    ("Then give it to Ada Novak, TECH-206, she's north side.", "TECH-206", True),
    ("Then give it to Ada Novak, TECH-206, she's north side.", "TECH-205", False),  # round 5: a later request for another chosen id replaces the earlier one
])
def test_exclusions(text: str, tech: str, expected: bool) -> None:
    turns = [("user", "Dispatch here. Put Sam Reid on APT-3300."), ("assistant", "Sam Reid isn't qualified for the boiler job on APT-3300."), ("user", text)]
    assert granted(ASSIGN, turns, {"appointment_id": "APT-3300", "technician_id": tech}) is expected


PRIORITY = ConsentCheck(tool="set_priority", decision="the customer agreed to the priority", upfront=True, params={"case_id": "CASE-8802"})


@pytest.mark.parametrize(("text", "level", "expected"), [
    ("CASE-8802: the whole office is offline. Make it P1 please.", "P1", True),
    ("CASE-8802: the whole office is offline. Make it P1 please, nothing lower.", "P2", False),
    ("CASE-8802: the whole office is offline. Bump it to priority 1.", "P3", False),
])
def test_other_level(text: str, level: str, expected: bool) -> None:
    assert granted(PRIORITY, [("user", text)], {"case_id": "CASE-8802", "priority": level}) is expected


NOTE_ASK = "The laptop order is in, pending approval. Would you like the order number added to INC-4410?"


@pytest.mark.parametrize(("answer", "expected"), [
    ("That would be brilliant, ta.", True),
    ("Oh that'd be a big help, thanks!", True),
    ("It would be lovely, yes.", True),
    pytest.param("It would be good to know the order number first.", False, marks=pytest.mark.xfail(strict=True, reason="open: a statement sharing the proposal's words reads as a choice")),
    ("Is there no way to skip the approval? That would be great.", False),
    ("That would be great, but let me check with my manager first.", False),
    ("That would be great - actually, no, leave the ticket alone.", False),
])
def test_would_be_great_family(answer: str, expected: bool) -> None:
    turns = [("user", "Can you order me a standard laptop?"), ("assistant", NOTE_ASK), ("user", answer)]
    assert granted(NOTE, turns, NOTE_CALL) is expected


TRANSFER = ConsentCheck(tool="execute_transfer", decision="the customer agreed to the transfer", upfront=True, params={"amount": 700})


@pytest.mark.parametrize(("answer", "expected"), [
    ("Yes, send the $700.", True),
    ("Um, could you let me know what I'd have left after that first?", False),
    ("Can you show me my last three transfers before I decide?", False),
    ("Couldn't you send the whole 900 instead?", False),
])
def test_information_requests_ask_back(answer: str, expected: bool) -> None:
    turns = [("user", "I want to pay Sam back, ACC-4402."), ("assistant", "Would you like me to send $700 from ACC-4401 to ACC-4402 now?"), ("user", answer)]
    assert granted(TRANSFER, turns, {"source_account_id": "ACC-4401", "destination_account_id": "ACC-4402", "amount": 700}) is expected
