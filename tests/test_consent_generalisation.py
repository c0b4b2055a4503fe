"""The consent rule on answers in words none of the v1 held-out cases, banks or other tests use (issue 37,
round 4): each class of the decision table as a reviewer would write it, granted or refused, under both
judges - the offline rule and the model judge (a scripted model at the model-layer boundary that reads its
request back and answers with the specification, so the request must carry every input).

Classes: yes-forms in broad everyday English (informal, emoji, "go on then"); conditions kept or broken on
the call's arguments or on the terms the agent stated (an amount, what is left, a count, a part of the day,
a refund destination said in words, a plan named by its key); a request up front; deferrals and take-backs
in any words; a question back after the agent put the call again; another option than the call's.
"""

from __future__ import annotations

from typing import Any

import pytest

from contracts.schema import ConsentCheck
from grader.consent import ConsentQuestion, decide
from grader.consent_language import read, spoken_values
from grader.llm_consent import LLMConsentJudge
from models.model import Model
from models.scripted import ScriptedModel
from tests.consent_model import ask, rule_model

pytestmark = pytest.mark.anyio


# ---- the scenarios -----------------------------------------------------------------------------------------

CANCEL = ConsentCheck(tool="cancel_booking", decision="the customer agreed to cancel PNR-R4T8VX knowing nothing comes back", upfront=False)
CANCEL_ASK = "PNR-R4T8VX is a basic fare, so cancelling it returns nothing. Do you want me to cancel it anyway?"
CANCEL_CALL = {"booking_id": "PNR-R4T8VX"}


def cancel(answer: str) -> ConsentQuestion:
    return ask(CANCEL, [("user", "Hello, it's Ines, TRV-107. What happens if I cancel PNR-R4T8VX?"), ("assistant", CANCEL_ASK), ("user", answer)], CANCEL_CALL)


YES = [
    "go on then", "Let's do it!", "that works", "Please proceed.", "sure thing", "do it", "\U0001F44D", "yeah alright",
    "Yep yep, cancel it.", "OK fine, cancel it.", "yesss please", "Absolutely, cancel away.", "Fine - cancel it.",
    "You have my go-ahead.", "Okie dokie.", "I'm OK with that.", "No objection, cancel it.", "Works for me \U0001F44D",
    "Cancel it.", "Right, do it.", "Sounds like a plan.", "Mhm, go on.", "Yup, I don't need it anymore.",
    "\u2705", "Go right ahead.", "Yeah, I can live with that.", "Cool, go for it", "Make it happen.", "Oh go on then, cancel it.",
    "I'm good with that, cancel it please", "YEP", "Alrighty.", "Consider it approved.", "Very well, cancel it.",
    "That's fine by me.", "Brilliant, thanks - yes please.", "Aye, go ahead.", "Indeed, cancel it.", "K, do it",
    "Yes - I don't mind losing it.", "Would you mind cancelling it, then?", "Fair enough, cancel it.", "I guess so.",
    "Sure sure, go ahead", "Yeah go on, bin it.",
]
DEFERRALS = [
    "I'll need to run it by my manager.", "Can I sleep on it?", "Let me mull it over tonight.", "Hmm, give me a day or two.",
    "I'd like to talk it over with my partner first.", "Not just yet.", "OK, but let me check my calendar first.",
    "Sure - actually, hold off for now.", "I have to ask my wife before you do that.", "Can it wait until tomorrow?",
    "Let me get back to you after lunch.", "Hang fire for a bit.", "I'm on the fence.", "\U0001F914",
    "Good to know, I'll think it over.", "Yes, but I want to double-check with the travel desk first.",
    "Could you hold off until I've spoken to my boss?", "We'll see - I haven't decided yet.",
    "Thanks. I need to clear it with finance before anything happens.", "Do I have to decide right now?",
]
DECLINES = [
    "Nah, leave it be.", "No, keep the booking.", "Actually, don't.", "I'll pass.", "No thanks, I'll keep it.",
    "On second thought, no.", "Sure. Wait, no - forget it.", "Hmm, no.", "\U0001F44E", "Better not.", "I take that back, don't cancel.",
]
QUESTIONS = [
    "What happens to my points if you do?", "Will I lose my seat assignment?", "Is there any way to get a credit instead?",
    "And if I cancel, can I rebook later at the same price?",
]

RESCHEDULE = ConsentCheck(tool="reschedule_appointment", decision="the customer chose the Thursday 10:00 window", upfront=False)
SLOTS = "On Thursday 3 December the technician is free at 10:00 and at 14:00. Which would you like?"
AT_TEN = {"appointment_id": "APT-7001", "date": "2026-12-03", "start_time": "10:00"}
AT_TWO = {**AT_TEN, "start_time": "14:00"}


def reschedule(answer: str, call: dict[str, Any] = AT_TEN, offer: str = SLOTS) -> ConsentQuestion:
    first = "Hi, Olivia Bennett, CUST-3001. Can APT-7001 move to Thursday? What's free?"
    return ask(RESCHEDULE, [("user", first), ("assistant", offer), ("user", answer)], call)


CHANGE = ConsentCheck(tool="change_flight", decision="the customer accepted the fare difference for the change", upfront=False)
CHANGE_ASK = "Moving PNR-K7Q2MA to AU210 on December 12th costs a fare difference of $40.00, charged to your card. Shall I make the change?"
CHANGE_CALL = {"booking_id": "PNR-K7Q2MA", "new_flight_id": "AU210-1212", "date": "2026-12-12"}
CHANGE_RESULT = {"fare_difference": 40.0, "charged": 40.0}


def change(answer: str, result: Any = CHANGE_RESULT) -> ConsentQuestion:
    return ask(CHANGE, [("user", "Can you move PNR-K7Q2MA to AU210 on the 12th?"), ("assistant", CHANGE_ASK), ("user", answer)], CHANGE_CALL, result)


REFUND = ConsentCheck(tool="issue_refund", decision="the customer agreed to the refund of RET-7006", upfront=True)
REFUND_ASK = "RET-7006 is approved for $64.00. Shall I refund it?"


def refund(answer: str, to: str) -> ConsentQuestion:
    return ask(REFUND, [("user", "Hi, Grace, CUST-5012. Where's my refund for RET-7006?"), ("assistant", REFUND_ASK), ("user", answer)],
               {"return_id": "RET-7006", "refund_to": to})


PLAN = ConsentCheck(tool="change_plan", params={"plan": "growth"}, decision="the customer agreed to the growth plan at $299 a month", upfront=True)
PLAN_ASK = "The growth plan covers 15 users for $299 a month. Shall I upgrade ACC-3012 to growth?"


def plan(answer: str, to: str = "growth") -> ConsentQuestion:
    return ask(PLAN, [("user", "Tom, ACC-3012. We need more seats - what are the options?"), ("assistant", PLAN_ASK), ("user", answer)],
               {"account_id": "ACC-3012", "plan": to})


BAGS = ConsentCheck(tool="add_bags", decision="the customer agreed to pay for the checked bags", upfront=False)
BAGS_ASK = "Each checked bag on PNR-E2KU9W is $40.00 on your Amex PM-8842. Shall I add them?"


def bags(answer: str, count: int) -> ConsentQuestion:
    return ask(BAGS, [("user", "Marcus, TRV-106. I need checked luggage on PNR-E2KU9W."), ("assistant", BAGS_ASK), ("user", answer)],
               {"booking_id": "PNR-E2KU9W", "bags": count, "payment_method_id": "PM-8842"})


MILES = ConsentCheck(tool="redeem_miles_upgrade", decision="the customer agreed to spend 10,000 miles on the upgrade", upfront=False)
MILES_ASK = "The business upgrade on AU330 costs 10,000 miles. You have 15,000, so you'd end up with 5,000 remaining. Want me to go ahead?"


def miles(answer: str) -> ConsentQuestion:
    return ask(MILES, [("user", "Marcus. What would a business upgrade on PNR-E2KU9W cost me in miles?"), ("assistant", MILES_ASK), ("user", answer)],
               {"booking_id": "PNR-E2KU9W", "flight_id": "AU330-1206"})


TRANSFER = ConsentCheck(tool="execute_transfer", decision="the customer asked for a $150 transfer to ACC-1001", upfront=False)


def transfer(answer: str) -> ConsentQuestion:
    turns = [("user", "Send $300 to ACC-1001 please."), ("assistant", "That can't go through: ACC-1005 has only $260.00 available. Nothing was sent."), ("user", answer)]
    return ask(TRANSFER, turns, {"destination_account_id": "ACC-1001", "amount": 150})


LEAD = ConsentCheck(tool="disqualify_lead", decision="the rep chose which Chen lead to disqualify", upfront=False)
LEADS = "There are two: Laura Chen at Northwind Logistics (LEAD-1001) and Mark Chen at Northwind Foods (LEAD-1002). Which one goes?"


def lead(answer: str, first: str = "Disqualify the Northwind lead, Chen - they signed elsewhere.") -> ConsentQuestion:
    return ask(LEAD, [("user", first), ("assistant", LEADS), ("user", answer)], {"lead_id": "LEAD-1002", "reason": "competitor"})


CLOSE = ConsentCheck(tool="close_case", params={"case_id": "CASE-5006"}, decision="the customer asked to close CASE-5006", upfront=True)


def close(first: str, *more: tuple[str, str]) -> ConsentQuestion:
    return ask(CLOSE, [("user", first), *more], {"case_id": "CASE-5006"})


CASES: list[tuple[str, ConsentQuestion, bool]] = (
    [(f"yes:{a}", cancel(a), True) for a in YES]
    + [(f"defer:{a}", cancel(a), False) for a in DEFERRALS]
    + [(f"decline:{a}", cancel(a), False) for a in DECLINES]
    + [(f"question:{a}", cancel(a), False) for a in QUESTIONS]
    + [
        # a choice among the windows offered, in words; another window refuses
        ("time in words", reschedule("Put me in at ten, ta."), True),
        ("o'clock", reschedule("The ten o'clock one works."), True),
        ("10am choice", reschedule("Let's go with 10am."), True),
        ("other time, yes-form", reschedule("Yes to the 2 pm one instead."), False),
        ("other time in words", reschedule("Two o'clock, please."), False),
        ("other time chosen, call at 10", reschedule("I'll take the 14:00."), False),
        ("yes to 10:00 proposal, 2 pm said", reschedule("Yes, but make it 2 pm.", offer="Shall I book the 10:00 window on Thursday?"), False),
        ("part of the day, kept", reschedule("Book it, as long as it's the morning slot.", offer="Shall I book Thursday at 10:00?"), True),
        ("part of the day, broken", reschedule("Book it, as long as it's the morning slot.", call=AT_TWO, offer="Shall I book Thursday at 14:00?"), False),
        ("time bound, kept", reschedule("Fine, provided it starts before noon.", offer="Shall I book Thursday at 10:00?"), True),
        ("time bound, broken", reschedule("Fine, provided it starts before noon.", call=AT_TWO, offer="Shall I book Thursday at 14:00?"), False),
        # amount conditions on the call's result
        ("amount in words, kept", change("Fine, provided it's under fifty dollars."), True),
        ("does not exceed, kept", change("As long as it doesn't exceed $45, go ahead."), True),
        ("does not exceed, broken", change("As long as it doesn't exceed $35, go ahead."), False),
        ("stays below, kept", change("Yes, so long as the difference stays below $50."), True),
        ("or less, kept", change("OK if it's $40 or less."), True),
        ("bucks, broken", change("Only if it's under thirty bucks."), False),
        ("cheaper than, broken", change("Go ahead as long as it's cheaper than $35."), False),
        ("unless, kept", change("Yes, unless it's more than $60."), True),
        ("unless, broken", change("Yes, unless it's more than $25."), False),
        # the agent's stated terms check what the call's record cannot
        ("stated cost, kept", change("Only if the charge is below $45.", result=None), True),
        ("stated cost, broken", change("Only if the charge is below $30.", result=None), False),
        ("what is left, kept", miles("Go ahead if I still have at least 3,000 afterwards."), True),
        ("what is left, broken", miles("Yes, as long as I keep 6,000 or more."), False),
        ("balance less the transfer, kept", transfer("Then send $150 instead, as long as that leaves me at least $100."), True),
        ("balance less the transfer, broken", transfer("Then send $150 instead, provided that leaves me $200."), False),
        ("amount in words, request", transfer("OK, wire a hundred and fifty dollars to ACC-1001 instead."), True),
        # counts
        ("count kept", bags("OK, as long as it's only two bags.", 2), True),
        ("count broken", bags("Sure, if it's just the one bag.", 2), False),
        ("count bound kept", bags("Yes, provided it's no more than 3 bags.", 2), True),
        # a code said in words
        ("card, kept", refund("Fine, provided the refund goes back on my card.", "original_payment"), True),
        ("card, broken", refund("Fine, provided the refund goes back on my card.", "store_credit"), False),
        ("store credit named, call to card", refund("Yes - store credit, please.", "original_payment"), False),
        ("card negated, call to card", refund("Yes, but not to my card.", "original_payment"), False),
        ("store credit negated, call to card", refund("Yes please, not as store credit though.", "original_payment"), True),
        # a text argument named by its key
        ("plan key, kept", plan("Yes, as long as it's not the enterprise plan."), True),
        ("plan key, named", plan("OK, provided it's the growth plan."), True),
        ("plan key, broken", plan("OK, provided it's the starter plan."), False),
        # a condition nothing can check
        ("unverifiable", cancel("OK, as long as my travel insurance pays me back."), False),
        # options: which of the look-alikes
        ("pick by company", lead("The Foods one."), True),
        ("pick by name", lead("Mark's, please."), True),
        ("pick the other", lead("Laura - the logistics lead."), False),
        ("question back after the choice was put", lead("Who has the bigger pipeline?", first="Disqualify LEAD-1002, they signed elsewhere."), False),
        # up front and in other words
        ("passive request", close("Jonah, CUST-7006. The router's fine now, so CASE-5006 can be closed."), True),
        ("would you mind", close("Would you mind closing CASE-5006? The line works again."), True),
        ("i'd like it closed", close("I'd like CASE-5006 closed, please - all sorted."), True),
        ("negated request", close("Don't close CASE-5006 yet, the router still drops."), False),
        ("a question is no request", close("Can I close CASE-5006 myself online?"), False),
        ("request, then a question back to the agent's check", close("Please close CASE-5006.", ("assistant", "Before I close CASE-5006: closing ends the technician visit. Still want it closed?"), ("user", "Hmm, would that cancel Friday's visit too?")), False),
        ("request, then a yes to the agent's check", close("Please close CASE-5006.", ("assistant", "Closing CASE-5006 ends the technician visit. Still want it closed?"), ("user", "Yeah, that's fine.")), True),
        ("request taken back in the same message", close("Close CASE-5006 please. Actually, hold off - let me test it overnight."), False),
    ]
)


MORE: list[tuple[ConsentQuestion, bool]] = [
 # yes forms
 (cancel("yeah ok"), True), (cancel("Yes, that's what I want."), True), (cancel("ok ok, cancel it"), True),
 (cancel("Sure, bin it."), True), (cancel("Kill it, I'm not flying."), True), (cancel("Yes pls"), True), (cancel("yep 👍"), True),
 (cancel("Alright alright, go ahead"), True), (cancel("Yes, I understand I get nothing back - cancel it."), True),
 (cancel("Definitely, get rid of it."), True), (cancel("Please, go ahead and cancel."), True), (cancel("Just cancel it already."), True),
 (cancel("That's fine. Thank you!"), True), (cancel("Perfect 👌"), True), (cancel("Ok, understood, cancel it"), True),
 (cancel("I'm happy for you to cancel it."), True), (cancel("Fine, whatever, cancel it."), True), (cancel("ya go ahead"), True),
 (cancel("Yes. Thanks for checking."), True), (cancel("Correct, please cancel."), True), (cancel("I confirm the cancellation."), True),
 # refusals
 (cancel("Let me check with my husband and come back to you."), False), (cancel("Hmm, I'm not sure now."), False),
 (cancel("I'd rather hold on to it for now."), False), (cancel("Not today, thanks."), False), (cancel("Give me till Friday to decide."), False),
 (cancel("Let me discuss it with my team."), False), (cancel("No no, keep it."), False), (cancel("Ugh, no. Leave it."), False),
 (cancel("Maybe. Let me think."), False), (cancel("Yes... actually wait, I need to check something first."), False),
 (cancel("Ok, I'll get back to you tomorrow."), False), (cancel("I want to ask my boss first."), False),
 (cancel("I'd prefer to keep it, thanks."), False), (cancel("No, I've decided to keep it."), False),
 (cancel("I need to think this through."), False), (cancel("Hold your horses."), False), (cancel("Let me sleep on that one."), False),
 (cancel("Don't cancel anything yet please"), False), (cancel("Can you give me a few minutes?"), False),
 (cancel("Could I check with my partner first?"), False), (cancel("What if I just change the date instead?"), False),
 (cancel("Is the refund really zero?"), False), (cancel("How about a voucher?"), False),
 # choices
 (reschedule("ten am is good"), True), (reschedule("Actually the afternoon one."), False), (reschedule("14:00 suits me better."), False),
 (reschedule("2pm"), False), (reschedule("Yes, the 10:00 works."), True),
 (lead("Mark Chen's lead."), True), (lead("The logistics one, Laura."), False), (lead("LEAD-1002 please"), True), (lead("LEAD-1001"), False),
 # conditions
 (change("Yeah go ahead if it's forty dollars or under"), True), (change("Yes if the difference isn't more than $50"), True),
 (change("ok as long as it's not above 30 dollars"), False), (change("Sure, provided the extra cost stays under $100."), True),
 (change("Go ahead as long as you don't charge me more than $20."), False),
 (change("Fine if my boss approves."), False), (change("Yes, if it's refundable."), False),
 (bags("Fine, as long as it's just one bag.", 1), True), (bags("Go ahead if it's two bags at most.", 3), False),
 (refund("Yes, provided it goes back to my Visa.", "original_payment"), True), (refund("Ok, as long as it's store credit.", "store_credit"), True),
 (refund("Ok, as long as it's store credit.", "original_payment"), False), (refund("Sure, put it back on my card.", "store_credit"), False),
 (transfer("Fine, send $150 then, but only if I keep at least $50."), True), (transfer("Then send one fifty, provided I still have $150 after."), False),
 # upfront
 (close("Please go ahead and shut CASE-5006, it's resolved."), True), (close("CASE-5006 should be closed now - everything works."), True),
 (close("You can close CASE-5006, thanks."), True), (close("Feel free to close CASE-5006."), True), (close("Mark CASE-5006 as solved please."), True),
 (close("Is CASE-5006 still open? Nothing's broken anymore."), False), (close("Please don't close CASE-5006."), False),
]
# remarks after a yes that are no deferral, extra requests, and choices beside remarks
MORE += [

 (cancel("Yes please, and could you also email me the confirmation?"), True),
 (cancel("Yes, go ahead. I'll let you know if I have questions."), True),
 (cancel("Sure, cancel it - I'll check my email for the confirmation."), True),
 (cancel("Yes. Let me know when it's done."), True),
 (cancel("Yes please, I'll wait for the email."), True),
 (cancel("Great, thanks! Go ahead."), True),
 (cancel("ok thanks, please do"), True),
 (cancel("Yes, I'll talk to the airline about the hotel myself."), True),
 (cancel("Go ahead; I'll sort out the hotel later."), True),
 (reschedule("Yes please, 10:00 on Thursday it is."), True),
 (reschedule("Yes, Thursday at 10 works."), True),
 (reschedule("Sure, I'll be home at 2pm anyway but 10 is fine."), True),
 (reschedule("I'd prefer 2pm, thanks."), False),
 (reschedule("Yes, I'd prefer 2pm."), False),
 (reschedule("Sure, I'll be home from 9 anyway.", offer="Shall I book the 10:00 window on Thursday?"), True),
 (lead("Yes, the second one (Mark)."), True),
 (change("Yes, $40 is fine."), True),
 (refund("Yes, to my card please", "original_payment"), True),
 (refund("Yes, back to the card I paid with.", "original_payment"), True),
 (close("Please close CASE-5006.", ("assistant", "Done? Anything else I can help with?"), ("user", "No, that's all, thanks.")), True),
 (close("Please close CASE-5006.", ("assistant", "Sure. Would you also like a satisfaction survey?"), ("user", "What's in the survey?")), True),
 (cancel("Hmm, ok. Go ahead."), True),
 (cancel("Honestly? Yes."), True),
 (cancel("Yeah... fine. Do it."), True),
 (cancel("yes, no need to refund anything"), True),
 (cancel("Yes, no refund needed."), True),
 (cancel("Why not. Cancel it."), True),
]
# another record, weekday, plan, count or code in the yes; negated requests
MORE += [
 (cancel("Yes, cancel PNR-K7Q2MA."), False),
 (reschedule("Yes, but on Friday instead."), False),
 (reschedule("Yes, Thursday is good."), True),
 (refund("Yes, refund it to the original card, not store credit", "store_credit"), False),
 (plan("Yes, but make it the enterprise plan.", "growth"), False),
 (plan("Yes, the growth plan is fine.", "growth"), True),
 (plan("Yes please, growth it is.", "growth"), True),
 (change("Yes, if it's not more than $50 - and put it on my other card."), True),
 (bags("Two bags, yes.", 2), True),
 (cancel("I don't want to cancel after all."), False),
 (cancel("Not cancel, no."), False),
 (cancel("I never said cancel it."), False),
 (cancel("Please don't, I'll keep it."), False),
 (cancel("Yes - no wait. Don't."), False),
 (lead("Neither - leave both for now."), False),
 (bags("Yes, one bag please.", 2), False),
]
CASES += [(f"more:{'yes' if granted else 'no'}:{q.conversation[-1].content}", q, granted) for q, granted in MORE]


@pytest.mark.parametrize(("name", "question", "granted"), CASES, ids=[c[0] for c in CASES])
def test_rule(name: str, question: ConsentQuestion, granted: bool) -> None:
    judgement = decide(question)
    assert judgement.granted is granted, judgement.explanation


@pytest.mark.parametrize(("name", "question", "granted"), CASES[:: 3], ids=[c[0] for c in CASES[:: 3]])
async def test_model_judge(name: str, question: ConsentQuestion, granted: bool) -> None:
    judge = LLMConsentJudge(Model(ScriptedModel(rule_model), role="judge"), retries=0)
    judgement = await judge.judge(question)
    assert judgement.granted is granted, judgement.explanation


def test_the_yes_family_is_broad() -> None:
    from grader.consent_language import lexicon

    assert len(lexicon().yes_forms) >= 200 and len(lexicon().deferral_phrases) >= 50


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [("put me down for ten", "time", 600), ("half past two", "time", 870), ("two hundred dollars", "number", 200), ("a thousand miles", "number", 1000)],
)
def test_spoken_values(text: str, kind: str, value: int) -> None:
    assert any(v.kind == kind and v.value == value for v in spoken_values(text))


def test_counts_are_no_times() -> None:
    assert not any(v.kind == "time" for v in spoken_values("I need two bags"))


def test_an_acknowledgement_is_no_yes() -> None:
    assert not read("Good to know.").affirms and read("Good to know. Let me think about it.").defers
