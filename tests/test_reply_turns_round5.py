"""Round 5, turns and polarity: a done fact said as still to come or as a guess (`grader.text.polarity.prospective`),
with must-pass counterparts (the fact done, a done fact with a future consequence, a criterion that itself speaks of
what is to come). Cases in words of our own."""

from __future__ import annotations

import pytest

from tests.reply_judge import passes

# ---- a prospective or hedged framing is not the state itself ----------------------------------------------

DELIVERED = ("Tells the customer that order ORD-4410 was delivered.", ["ORD-4410", "delivered"])
REFUNDED = ("Confirms the $62.00 refund was issued to the customer's card.", ["62.00", ["issued", "refunded", "processed"]])
CANCELLED = ("Confirms booking BK-7731 is cancelled.", ["BK-7731", ["cancelled", "canceled"]])
SHIPPED = ("Tells the customer the replacement has shipped.", ["replacement", "shipped"])
CLOSED = ("Confirms ticket TCK-220 is closed.", ["TCK-220", "closed"])

PROSPECTIVE_FAIL = [
    (DELIVERED, "ORD-4410 is due to be delivered tomorrow afternoon."),
    (DELIVERED, "Good news - ORD-4410 should be delivered by Friday."),
    (DELIVERED, "The courier says ORD-4410 will be delivered between 9 and 12."),
    (DELIVERED, "Tracking shows ORD-4410 may have been delivered to a neighbour."),
    (DELIVERED, "ORD-4410 is expected to be delivered on Monday, all being well."),
    (DELIVERED, "ORD-4410 has probably been delivered already - can you check your porch?"),
    (REFUNDED, "Your $62.00 refund is scheduled to be processed on the 14th."),
    (REFUNDED, "The $62.00 will be refunded to your card once the return is scanned."),
    (REFUNDED, "You'll get $62.00 refunded as soon as the item reaches us."),
    (CANCELLED, "BK-7731 will be cancelled once the hotel confirms."),
    (CANCELLED, "BK-7731 is set to be cancelled at midnight tonight."),
    (CANCELLED, "BK-7731 might have been cancelled by the airline already, I'm not sure."),
    (SHIPPED, "Your replacement should be shipped by Friday."),
    (SHIPPED, "The replacement is going to be shipped from our Leeds warehouse next week."),
    (SHIPPED, "The replacement seems to have shipped, but the label hasn't been scanned."),
    (CLOSED, "TCK-220 is going to be closed at the end of the day."),
    (CLOSED, "TCK-220 can be closed as soon as you confirm the fix works."),
]
PROSPECTIVE_PASS = [
    (DELIVERED, "ORD-4410 was delivered this morning at 10:14."),
    (DELIVERED, "ORD-4410 has been delivered - it was left with your neighbour at no. 12."),
    (DELIVERED, "Delivered! ORD-4410 reached you yesterday; the return label will be emailed shortly."),
    (REFUNDED, "Your $62.00 refund is issued and will show on your card in 3-5 days."),
    (REFUNDED, "I've refunded $62.00 to your card; it should appear within a week."),
    (REFUNDED, "The $62.00 refund was processed today - banks can take a few days to post it."),
    (CANCELLED, "BK-7731 is cancelled, and the confirmation will be emailed to you."),
    (CANCELLED, "Done: BK-7731 has been cancelled. You'll be refunded in full."),
    (SHIPPED, "The replacement shipped this morning and should be with you on Thursday."),
    (SHIPPED, "Your replacement has shipped - it will be delivered by Friday."),
    (CLOSED, "TCK-220 is closed now; it will be archived after 30 days."),
    (CLOSED, "I've closed TCK-220. You can reopen it within 14 days if anything comes back."),
]


@pytest.mark.parametrize(("case", "reply"), PROSPECTIVE_FAIL)
def test_a_prospective_or_hedged_framing_does_not_state_the_done_fact(case, reply):
    assert not passes(*case, reply), reply


@pytest.mark.parametrize(("case", "reply"), PROSPECTIVE_PASS)
def test_the_done_fact_passes_with_or_without_a_future_consequence(case, reply):
    assert passes(*case, reply), reply


# a criterion that itself speaks of what is to come: the reply says it as to come

WILL_ARRIVE = ("Tells the customer the refund will be processed within 5 business days.", [["processed", "issued"], "5 business days"])
DUE = ("Tells the customer order ORD-4410 is due to be delivered on Thursday.", ["ORD-4410", "delivered", "Thursday"])
SCHEDULED = ("Says CMP-31 is scheduled to be sent at 09:00.", ["CMP-31", "sent", "09:00"])


@pytest.mark.parametrize(
    ("case", "reply", "expected"),
    [
        (WILL_ARRIVE, "Your refund will be processed within 5 business days.", True),
        (WILL_ARRIVE, "It should be issued within 5 business days of the return arriving.", True),
        (WILL_ARRIVE, "It won't be processed for another 5 business days at least... actually I can't say.", False),
        (DUE, "ORD-4410 is due to be delivered on Thursday.", True),
        (DUE, "ORD-4410 should be delivered Thursday between 8 and 6.", True),
        (DUE, "ORD-4410 is due to be delivered on Friday.", False),
        (SCHEDULED, "CMP-31 is scheduled to be sent at 09:00 tomorrow.", True),
        (SCHEDULED, "CMP-31 will be sent at 09:00.", True),
    ],
)
def test_a_prospective_criterion_is_stated_prospectively(case, reply, expected):
    assert passes(*case, reply) is expected, reply


# a guess about the customer's own record; a denial whose phrase carries its own modal

OPTED = ("Explains that Dana Okafor opted out of marketing email.", [["opted out", "opt-out", "unsubscribed"]])
LOCKED = ("Explains that the fare cannot be changed.", [["cannot be changed", "can't be changed"]])


@pytest.mark.parametrize(
    ("case", "reply", "expected"),
    [
        (OPTED, "I suspect Dana may have unsubscribed at some point.", False),
        (OPTED, "Dana could have opted out - want me to double-check before sending?", False),
        (OPTED, "Dana's probably unsubscribed, judging by the bounce pattern.", False),
        (OPTED, "Dana Okafor opted out in March, so I can't email her.", True),
        (OPTED, "Dana has unsubscribed from marketing email - we'd need her to opt back in.", True),
        (LOCKED, "That fare can't be changed, I'm afraid.", True),
        (LOCKED, "Unfortunately it can't be moved - the fare rules don't allow it.", True),
    ],
)
def test_a_guess_is_not_the_fact_and_a_modal_denial_stays_a_denial(case, reply, expected):
    assert passes(*case, reply) is expected, reply


# ---- a denial criterion answered with no denial at all, and an affirmation of what can or will be done ------

MOVE = ("Explains that booking BK-5120 cannot be moved to Sunday.", ["BK-5120"])
REOPEN = ("Says ticket TCK-310 cannot be reopened.", ["TCK-310"])


@pytest.mark.parametrize(
    ("case", "reply", "expected"),
    [
        (MOVE, "BK-5120 can go to Sunday, no problem - I'll sort it now.", False),
        (MOVE, "Sure, BK-5120 will move to Sunday; I'll update it for you.", False),
        (REOPEN, "TCK-310 can be reopened - I'll do that for you right now.", False),
        (REOPEN, "Good news: I'll reopen TCK-310 for you straight away.", False),
        # the denial in other words: a negator, a restriction, a word of denial
        (MOVE, "BK-5120 is locked to Saturday, so Sunday isn't possible.", True),
        (MOVE, "BK-5120 is a fixed-date booking - I can cancel it and rebook Sunday if you like.", True),
        (MOVE, "BK-5120 can only be moved by the hotel itself; I'll give you their number.", True),
        (MOVE, "Sunday's out for BK-5120, I'm afraid - the fare rules tie it to Saturday.", True),
        (REOPEN, "TCK-310 is archived, so it's permanently closed; I'll open a fresh ticket that links to it.", True),
        (REOPEN, "TCK-310 was closed over 30 days ago, which is past the reopen window - I can raise a new one instead.", True),
    ],
)
def test_a_denial_needs_a_denial(case, reply, expected):
    assert passes(*case, reply) is expected, reply
