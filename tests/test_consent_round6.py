"""The consent rule, round 6: classes of English the blind v6 set showed, in sentences of our own (no calibration case
uses them), each with its must-fail counterparts beside it.

- a general choice verb on a word pointing back at a single proposal ("go with that one", "use mine then", "I'll take
  it") takes the proposal up; a word pointing away ("the other one"), a negation, a question or a choice among several
  options does not;
- a pick by rank among the values the agent listed ("the earliest one", "whichever is soonest", "the earliest after
  noon") is checked on the call's value;
- the speaker's own plan to do something first ("let me ring my bank first", "I'll have to run it past finance first")
  puts the decision off when nothing else in the answer decides; after a yes or a request it does not;
- a modal question whose subject is a gerund ("would cancelling it stop ...?") or a negated modal question split by a
  dash ("can't you split it - half now, half later?") asks back;
- a request that picks another listed option by its words ("cancel the one with the lamps") asks for that option.
"""

from __future__ import annotations

import pytest

from contracts.schema import ConsentCheck
from grader.consent import decide
from tests.consent_model import ask


def granted(check: ConsentCheck, turns: list[tuple[str, str]], call: dict) -> bool:
    return decide(ask(check, turns, call)).granted


# --- a choice verb on a word pointing back ------------------------------------------------------------------------

ARTICLE = ConsentCheck(tool="attach_article", decision="the customer agreed to attach the current article", upfront=False)
ARTICLE_CALL = {"case_id": "CASE-7710", "article_id": "KB-3107"}


def _article(answer: str, offer: str = "KB-3101 is retired. The current guide is KB-3107, 'Resetting your modem'. Shall I link KB-3107 to CASE-7710 instead?") -> list[tuple[str, str]]:
    return [("user", "Can you link KB-3101 to my case CASE-7710?"), ("assistant", offer), ("user", answer)]


@pytest.mark.parametrize(("answer", "expected"), [
    ("Fine, go with that one.", True),
    ("cool, use that", True),
    ("Right you are, go for the same one then.", True),
    ("Use that one please.", True),
    ("yep, we'll run with that", True),
    ("Sure thing - pick that one.", True),
    ("Lovely, let's do that.", True),
    ("No, don't use that one.", False),
    ("Use the other one.", False),
    ("Hmm, go with a different one.", False),
    ("Go with that one? Does it cover fibre lines?", False),
    ("Let me read it first, then I'll decide.", False),
    ("Nah, leave it.", False),
])
def test_a_choice_verb_on_a_pointing_word_takes_the_proposal_up(answer: str, expected: bool) -> None:
    assert granted(ARTICLE, _article(answer), ARTICLE_CALL) is expected


@pytest.mark.parametrize("answer", ["Use that one.", "ok, go with that one", "Sure, take it."])
def test_a_pointing_word_after_a_choice_of_several_picks_nothing(answer: str) -> None:
    offer = "KB-3101 is retired. I could link KB-3107 or KB-3110 to CASE-7710. Which one would you like?"
    assert granted(ARTICLE, _article(answer, offer), ARTICLE_CALL) is False


FLIGHT = ConsentCheck(tool="book_flight", decision="the customer agreed to pay with the card on their own profile", upfront=False)
FLIGHT_CALL = {"traveller_id": "TRV-300", "flight_id": "AU100-1201", "fare_class": "basic", "passengers": ["Ada Lin"], "payment_method_id": "PM-2200"}


def _flight(offer: str, answer: str) -> list[tuple[str, str]]:
    return [("user", "Ada Lin, TRV-300. Book AU100 on the 1st, basic, on my brother's card PM-9015."), ("assistant", offer), ("user", answer)]


@pytest.mark.parametrize(("offer", "answer", "expected"), [
    ("I can only charge a card on your own profile, and PM-9015 isn't on it. Your Visa PM-2200 is. Shall I use that one for AU100-1201?", "fine, use mine then", True),
    ("I can only charge a card on your own profile, and PM-9015 isn't on it. Your Visa PM-2200 is. Shall I use that one for AU100-1201?", "ugh ok, go with my own", True),
    ("I can only charge a card on your own profile, and PM-9015 isn't on it. Your Visa PM-2200 is. Shall I use that one for AU100-1201?", "No, use my brother's.", False),
    ("I can't charge PM-9015. Shall I put AU100-1201 on the company card PM-2200?", "ok, use mine then", False),
])
def test_mine_points_back_only_at_a_proposal_said_to_be_yours(offer: str, answer: str, expected: bool) -> None:
    assert granted(FLIGHT, _flight(offer, answer), FLIGHT_CALL) is expected


# --- a pick by rank ------------------------------------------------------------------------------------------------

RESCHEDULE = ConsentCheck(tool="reschedule_appointment", decision="the customer chose a window the agent listed", upfront=False)


def _reschedule(answer: str) -> list[tuple[str, str]]:
    return [("user", "Can APT-8100 move to 11:00 on Friday?"),
            ("assistant", "11:00 on Friday is taken. Friday 4 December has 09:00, 13:00 and 15:30 free."), ("user", answer)]


def _at(time: str) -> dict:
    return {"appointment_id": "APT-8100", "date": "2026-12-04", "start_time": time}


@pytest.mark.parametrize(("answer", "time", "expected"), [
    ("OK, the earliest one then.", "09:00", True),
    ("I'll take whichever is soonest.", "09:00", True),
    ("Fine - put me in the first available.", "09:00", True),
    ("Give me the latest one, please.", "15:30", True),
    ("The earliest slot after noon, please.", "13:00", True),
    ("OK, the earliest one then.", "13:00", False),
    ("Give me the latest one, please.", "09:00", False),
    ("The earliest slot after noon, please.", "09:00", False),
    ("Not the earliest one, I'm never up by then.", "09:00", False),
])
def test_a_pick_by_rank_is_checked_on_the_call(answer: str, time: str, expected: bool) -> None:
    assert granted(RESCHEDULE, _reschedule(answer), _at(time)) is expected


# --- the speaker's own plan first ------------------------------------------------------------------------------------

REFUND = ConsentCheck(tool="issue_refund", decision="the customer agreed to the refund to the card", upfront=False)
REFUND_CALL = {"return_id": "RET-4400", "refund_to": "original_payment"}


def _refund(answer: str) -> list[tuple[str, str]]:
    return [("user", "Hi, CUST-4400. Where's my refund for RET-4400?"),
            ("assistant", "RET-4400 has been received. Shall I refund the $80.00 to your Visa ending 1234?"), ("user", answer)]


@pytest.mark.parametrize(("answer", "expected"), [
    ("Let me ring the bank first.", False),
    ("I'll have to run it past my partner first.", False),
    ("We need to sort the budget out beforehand.", False),
    ("Hmm, I'll have to check my statement first. Speak soon.", False),
    ("I must dig out the receipt first, sorry.", False),
    ("Go ahead. I'll have a word with my partner first.", True),
    ("Yes please - I'll look out for it first thing tomorrow.", True),
    ("Yes, refund it. Let me know once it's done.", True),
])
def test_a_plan_of_the_speakers_own_first_puts_the_decision_off(answer: str, expected: bool) -> None:
    assert granted(REFUND, _refund(answer), REFUND_CALL) is expected


# --- questions back -------------------------------------------------------------------------------------------------

CANCEL = ConsentCheck(tool="cancel_order", decision="the customer agreed to cancel the order", upfront=False)


def _cancel(answer: str) -> list[tuple[str, str]]:
    return [("user", "Hi, CUST-1100. Is ORD-1101 still processing?"),
            ("assistant", "Yes, ORD-1101 (garden hose) is still processing. Shall I cancel ORD-1101?"), ("user", answer)]


@pytest.mark.parametrize(("answer", "expected"), [
    ("Would cancelling it stop my other delivery too?", False),
    ("Could moving it instead cost me more?", False),
    ("Will cancelling it refund the shipping as well?", False),
    ("Hmm, can't you hold it - just until Friday?", False),
    ("Couldn't you pause it - maybe for a week?", False),
    ("Could you cancel it please?", True),
    ("Would you go ahead and cancel it?", True),
    ("Can you do that now?", True),
])
def test_a_gerund_or_negated_modal_question_asks_back(answer: str, expected: bool) -> None:
    assert granted(CANCEL, _cancel(answer), {"order_id": "ORD-1101", "reason": "no longer needed"}) is expected


# --- a request picking another listed option by its words --------------------------------------------------------------

def _two(answer: str) -> list[tuple[str, str]]:
    return [("user", "CUST-1200 here. Which orders are open?"),
            ("assistant", "ORD-1201 (garden hose) and ORD-1202 (two lamps and a rug), both processing. Would you like me to cancel one?"),
            ("user", answer)]


@pytest.mark.parametrize(("answer", "expected"), [
    ("Yes, cancel the one with the lamps.", False),
    ("Please cancel the rug order.", False),
    ("yep - bin the lamps and rug one", False),
    ("Yes, cancel the hose one.", True),
    ("Cancel the garden hose order please.", True),
    ("Cancel ORD-1201 please.", True),
])
def test_a_request_picking_another_option_by_its_words(answer: str, expected: bool) -> None:
    assert granted(CANCEL, _two(answer), {"order_id": "ORD-1201", "reason": "no longer needed"}) is expected


# --- a choice left to the agent -------------------------------------------------------------------------------------

ASSIGN = ConsentCheck(tool="assign_technician", decision="after hearing the technician is off, the dispatcher left the choice of a free one to the agent", upfront=False)
ASSIGN_CALL = {"appointment_id": "APT-9100", "technician_id": "TECH-203"}


def _assign(answer: str) -> list[tuple[str, str]]:
    return [("user", "Dispatch here. TECH-205 onto APT-9100 please."),
            ("assistant", "TECH-205 is off on Monday 7 December, so he can't take APT-9100."), ("user", answer)]


@pytest.mark.parametrize(("answer", "expected"), [
    ("Fine, whoever's free at 9, put them on it.", True),
    ("Just give it to whichever electrician is available.", True),
    ("Assign anyone who's free then.", True),
    ("Ugh. Any other sparky who's around at 9 - sort it.", True),
    ("Anyone but TECH-203 - put them on it.", False),
    ("Who else is free at 9?", False),
    ("Don't just stick anyone on it, I'll call you back.", False),
    ("Whoever's free - actually, hold off, let me ring the customer first.", False),
    ("Whoever's free is fine, but put TECH-207 on it.", False),
])
def test_a_choice_left_to_the_agent_decides_the_value(answer: str, expected: bool) -> None:
    assert granted(ASSIGN, _assign(answer), ASSIGN_CALL) is expected


def test_a_choice_left_to_the_agent_needs_the_record_asked_about() -> None:
    turns = [("user", "Who's on shift Monday?"), ("assistant", "TECH-203 and TECH-207 are on shift on Monday 7 December."),
             ("user", "Whoever's free, put them on it.")]
    assert granted(ASSIGN, turns, ASSIGN_CALL) is False
