"""Round 4, turns and shapes: the criterion's predicate said the other way round (`grader.text.polarity`),
retractions and corrections across messages, questions in declarative form. Cases in words of our own,
each class with must-fail sentences and must-pass counterparts in the same words."""

from __future__ import annotations

import pytest

from tests.reply_judge import passes

# ---- an affirmed predicate denied ("Confirms X is assigned" / "I couldn't assign her") ----------------------

ASSIGNED = ("Confirms Priya Nair is assigned to the job.", ["Priya"])
ASSIGNED_FAIL = [
    "Priya Nair is booked solid on Friday, so I wasn't able to assign her.",
    "Heads up: Priya's calendar is full, and I couldn't get her assigned to the visit.",
    "I tried Priya Nair, but she can't be assigned - she's on leave that week.",
    "Priya Nair? Not assigned, sorry - she's off sick.",
]
ASSIGNED_PASS = [
    "Priya Nair is assigned to the job now.",
    "Done - Priya's assigned. I couldn't assign Tom as well, he's off that day.",
    "Priya Nair has been assigned; no other technician was needed.",
    "No problem at all - Priya Nair is assigned to the visit.",
    "I couldn't reach the depot by phone, but Priya Nair is assigned and will be there at 9.",
]

PAID = ("States the invoice is paid in full.", ["invoice"])
PAID_FAIL = ["The invoice hasn't been paid yet - there's $80 still owing.", "Your invoice isn't paid; it's overdue since the 3rd."]
PAID_PASS = ["Your invoice is paid in full - nothing further is owed.", "The invoice was paid on the 3rd, so no late fee applies."]

MEETS = ("Says the applicant meets the minimum credit score.", ["applicant", "credit score"])
MEETS_FAIL = ["The applicant's credit score is 640, which doesn't really meet our minimum.", "Your credit score is close, but the applicant does not yet meet the bar."]
MEETS_PASS = ["The applicant's credit score of 710 meets the minimum.", "The applicant meets the minimum credit score, no need for a co-signer."]


@pytest.mark.parametrize("reply", ASSIGNED_FAIL + PAID_FAIL + MEETS_FAIL)
def test_affirmed_predicate_denied_fails(reply):
    for crit, ev in (ASSIGNED, PAID, MEETS):
        if any(w.lower() in reply.lower() for w in ev):
            assert not passes(crit, ev, reply), reply


@pytest.mark.parametrize("reply", ASSIGNED_PASS + PAID_PASS + MEETS_PASS)
def test_affirmed_predicate_stated_passes(reply):
    for crit, ev in (ASSIGNED, PAID, MEETS):
        if any(w.lower() in reply.lower() for w in ev):
            assert passes(crit, ev, reply), reply


# ---- a denied predicate affirmed ("does not include" / "is included") ----------------------------------------

INCLUDE = ("Explains that the Basic tier does not include API access.", ["Basic", "API"])
INCLUDE_FAIL = [
    "API access is included with Basic, you just need to generate a key in settings.",
    "Good news: the Basic tier includes API access - I can't switch it on from here, though.",
    "API access comes included on every tier, Basic too.",
]
INCLUDE_PASS = [
    "API access isn't part of the Basic tier; it's included from Pro upwards.",
    "The Basic tier doesn't include API access - API access is included in Pro.",
    "Sorry, Basic has no API access. It's only on Pro and Enterprise.",
    "API access is only included on Pro, not on Basic.",
]

COVER = ("Says the warranty does not cover the cracked screen.", ["warranty", "screen"])
COVER_FAIL = ["The cracked screen is covered under your warranty, so the repair is free.", "Your warranty covers the screen, so we'll fix it at no cost."]
COVER_PASS = [
    "The warranty won't cover the cracked screen - accidental damage is excluded.",
    "Screen damage from a drop isn't something the warranty covers; the battery fault is covered, though.",
    "I'm afraid the warranty only covers manufacturing faults, not a cracked screen.",
]

UNLOCK = ("Explains that the card cannot be unfrozen by chat support.", [["unfreez*", "unfrozen", "unlock"]])
UNLOCK_FAIL = ["Sure thing - I can unfreeze the card for you straight away."]
UNLOCK_PASS = ["I can't unfreeze the card over chat - the fraud team has to do it by phone.", "Cards can only be unfrozen by the fraud team, not here in chat."]


@pytest.mark.parametrize("reply", INCLUDE_FAIL + COVER_FAIL + UNLOCK_FAIL)
def test_denied_predicate_affirmed_fails(reply):
    crit, ev = INCLUDE if reply in INCLUDE_FAIL else COVER if reply in COVER_FAIL else UNLOCK
    assert not passes(crit, ev, reply), reply


@pytest.mark.parametrize("reply", INCLUDE_PASS + COVER_PASS + UNLOCK_PASS)
def test_denied_predicate_denied_passes(reply):
    crit, ev = INCLUDE if reply in INCLUDE_PASS else COVER if reply in COVER_PASS else UNLOCK
    assert passes(crit, ev, reply), reply


# ---- "no X" in the criterion, "there are X" in the reply (a negation carried by a quantifier) --------------

NO_ROOMS = ("Tells the customer there are no suites left on those dates.", ["suites", ["no suites", "sold out", "all taken", "none left"]])


@pytest.mark.parametrize("reply", ["Great news, we still have two suites free on those dates.", "There's plenty of suites on those dates - shall I hold one?"])
def test_no_left_answered_with_some_left_fails(reply):
    assert not passes(*NO_ROOMS, reply)


@pytest.mark.parametrize("reply", ["Sorry, the suites are all taken on those dates.", "There are no suites left for those nights.", "Suites are sold out for the 4th to the 6th."])
def test_no_left_stated_passes(reply):
    assert passes(*NO_ROOMS, reply)


# ---- a retraction or an undoing in a later message ------------------------------------------------------------

REFUND = ("States the $85 refund to the original card.", ["85", ["refund", "refunded"]])


@pytest.mark.parametrize("messages", [
    ["Your $85 has been refunded to the card you paid with.", "Hang on - I was a bit hasty there. The refund hasn't gone through yet; it's queued for review."],
    ["Refund of $85 is on its way to your card.", "Sorry, I need to correct myself: the $85 went out as account credit, not back to your card."],
    ["$85 refunded to your Mastercard.", "I got ahead of myself, apologies - that refund hasn't completed."],
])
def test_withdrawn_in_a_later_message_fails(messages):
    assert not passes(*REFUND, messages)


@pytest.mark.parametrize("messages", [
    ["Your $85 has been refunded to the card you paid with.", "Sorry, one more thing - it can take 3-5 days to show on your statement."],
    ["Your $85 has been refunded to the original card.", "Hang on, I forgot to mention: the $12 delivery fee was not refundable."],
    ["I was too quick to promise a date earlier.", "Your $85 has been refunded to the original card."],
])
def test_not_withdrawn_passes(messages):
    assert passes(*REFUND, messages)


# ---- a statement handed back to the customer ("..., do you know?") ----------------------------------------------

LIMIT = ("Explains that the $900 withdrawal is over the daily cash limit.", ["900", "limit"])


@pytest.mark.parametrize("reply", [
    "Would $900 be above your daily cash limit, do you know?",
    "Is $900 over the limit on your account? Can you check?",
    "$900 might be past your daily limit - any idea?",
])
def test_handed_back_fails(reply):
    assert not passes(*LIMIT, reply)


@pytest.mark.parametrize("reply", [
    "The $900 withdrawal is over your daily cash limit. Do you know roughly when you'll need the cash?",
    "$900 goes over the daily limit, so it was declined - could you check whether a smaller amount works for you?",
])
def test_stated_then_asked_passes(reply):
    assert passes(*LIMIT, reply)


@pytest.mark.parametrize("reply", ["Closed as lost - reason: budget.", "All done, it's marked lost over budget."])
def test_a_reason_noun_the_criterion_denies_with_no_is_an_item(reply):
    # "for no budget": the item "budget" is the reason's word, stated either way round
    assert passes("Confirms the deal is closed as lost for no budget.", ["lost", "budget"], reply)
