"""Round 6, turns and polarity: a thing done said not to have gone through (`polarity._did_not_happen`), a done word in
a present clause of time or condition (`polarity._PENDING_CLAUSE`), and retractions in more forms
(`withdrawal`: "take that figure back", an apology-like opener with "after all", a correction that restates the
earlier statement's own value). Every rule that fails more replies has must-pass cases beside it. Cases in words of
our own, none from a calibration set."""

from __future__ import annotations

import pytest

from tests.reply_judge import passes

# ---- a thing done, said not to have gone through ---------------------------------------------------------------

SWAP = ("Confirms the exchange to the size 9 boots.", ["size 9"])
NOTE = ("Tells the caller the log files were attached to ticket TK-3310.", ["TK-3310"])
PLAN = ("Confirms the upgrade to the Growth plan.", ["Growth"])
TRANSFER = ("Confirms the $275 transfer.", ["275", ["completed", "transferred", "went through", "sent"]])
ADDRESS = ("Confirms the delivery address was changed to 14 Orchard Lane.", ["14 Orchard Lane"])

DID_NOT_HAPPEN_FAIL = [
    (SWAP, "Unfortunately I wasn't able to arrange the swap to size 9 - the system rejected it."),
    (SWAP, "Sorry, the exchange for the size 9 pair didn't go through on my end."),
    (SWAP, "I tried to switch you to the size 9 boots, but the request failed."),
    (NOTE, ["I've put the log files on TK-3310.", "Apologies - the upload didn't actually save, so TK-3310 is unchanged."]),
    (NOTE, "Heads up: the attachment to TK-3310 failed, the files were too large."),
    (NOTE, "TK-3310 hasn't been updated yet - the attachment never went through."),
    (PLAN, "I couldn't move you onto Growth today; the payment for it was declined."),
    (PLAN, "The switch to the Growth plan did not complete, so you are still on Basic."),
    (TRANSFER, ["Your $275 transfer is done!", "Correction - the $275 was only queued; it hasn't actually been sent. I'll confirm once it's processed."]),
    (ADDRESS, "I'm afraid the change to 14 Orchard Lane didn't stick - the order had already left the warehouse."),
    (ADDRESS, "We were unable to update the address to 14 Orchard Lane because the parcel is with the courier."),
]
DID_NOT_HAPPEN_PASS = [
    # the failure is of something else, and the thing itself is stated done
    (SWAP, "Your exchange to the size 9 boots is booked. The gift wrap request didn't go through, though."),
    (SWAP, "The first attempt failed, so I retried and the swap to size 9 went through."),
    (SWAP, "Done - you're swapped to size 9. I couldn't waive the return postage, sorry."),
    (NOTE, "The log files are now attached to TK-3310; the screenshot you mentioned didn't come through, could you resend it?"),
    (NOTE, "TK-3310 has your log files. No problem at all, and thanks for sending them."),
    (PLAN, "You're on Growth now. Not only is the upgrade live, but your new seats are already active."),
    (PLAN, "The upgrade to Growth is complete; the old invoice wasn't changed."),
    # another instance failed
    (TRANSFER, ["The $900 transfer was refused for insufficient funds.", "Done - the $275 transfer went through."]),
    (ADDRESS, "Updated: deliveries now go to 14 Orchard Lane. The old address hasn't been deleted from your address book."),
    # the criterion itself is about a failure
    (("Tells the customer the $40 payment was declined.", ["40", "declined"]), "Your $40 payment was declined by the bank."),
    (("Explains that the refund to card ending 4421 failed.", ["4421", "failed"]), "The refund to the card ending 4421 failed - the card is closed."),
]


@pytest.mark.parametrize(("case", "reply"), DID_NOT_HAPPEN_FAIL)
def test_a_thing_done_said_not_to_have_gone_through_fails(case, reply):
    assert not passes(*case, reply), reply


@pytest.mark.parametrize(("case", "reply"), DID_NOT_HAPPEN_PASS)
def test_another_failure_or_the_thing_stated_done_passes(case, reply):
    assert passes(*case, reply), reply


# ---- a done word in a present clause of time or condition ------------------------------------------------------

ACTIVATED = ("Confirms the SIM was activated.", ["SIM", "activated"])
APPROVED = ("Tells the customer the claim CLM-812 was approved.", ["CLM-812", "approved"])
POSTED = ("Confirms the payment was posted to the account.", ["payment", "posted"])

PENDING_FAIL = [
    (ACTIVATED, "I'll text you the moment the SIM is activated."),
    (ACTIVATED, "Once your SIM has been activated you can make calls straight away."),
    (ACTIVATED, "Your SIM works as soon as it's activated, usually within the hour."),
    (APPROVED, "If CLM-812 is approved, the money reaches you within 3 days."),
    (APPROVED, "We'll email you when CLM-812 gets approved."),
    (POSTED, "You'll see it in your history after the payment is posted."),
]
PENDING_PASS = [
    (ACTIVATED, "Your SIM was activated at 09:40 - you can make calls now."),
    (ACTIVATED, "The SIM is activated; once you restart the phone it will pick up the signal."),
    (ACTIVATED, "I checked when it was activated: the SIM went live, activated this morning."),
    (APPROVED, "CLM-812 was approved today, and the money reaches you when the bank clears it."),
    (APPROVED, "Good news: CLM-812 is approved. If you have questions, reply here."),
    (POSTED, "The payment was posted to your account this morning."),
    # a criterion that itself speaks of a condition is stated by the rule that governs it
    (("Explains that the SIM cannot be used until it is activated.", ["activated"]), "The SIM won't connect until it's activated."),
]


@pytest.mark.parametrize(("case", "reply"), PENDING_FAIL)
def test_a_done_word_in_a_present_clause_of_time_or_condition_is_not_stated(case, reply):
    assert not passes(*case, reply), reply


@pytest.mark.parametrize(("case", "reply"), PENDING_PASS)
def test_the_done_word_stated_or_in_a_past_clause_passes(case, reply):
    assert passes(*case, reply), reply


# ---- retractions in more forms -----------------------------------------------------------------------------------

FEE = ("Tells the customer the setup fee is $85.", ["85"])
SEATS = ("Tells the customer she cannot be moved to the 07:15 ferry, which is full.", [["full", "no space", "sold out", "no room"]])
CREDIT = ("Explains that the 48-hour window has passed, so the $310 becomes a voucher.", ["48", "voucher", "310"])

RETRACTED_FAIL = [
    (FEE, ["The setup fee is $85.", "Hang on, I have to take that number back - it came off last year's list."]),
    (FEE, ["The setup fee is $85.", "Sorry, let me pull that quote back, I need to double-check it with billing."]),
    (SEATS, ["The 07:15 ferry is full, unfortunately.", "Hold on - a cabin just freed up, so I can put you on the 07:15 after all."]),
    (SEATS, ["The 07:15 is full, I'm afraid.", "Sorry! Turns out I can make an exception and add you to the 07:15."]),
    (CREDIT, ["Your 48 hours are up, so the $310 becomes a voucher.", "Correction, I misread the date. You're still inside the window, so the $310 comes back to your card."]),
    (CREDIT, ["The 48-hour window has passed, so the $310 becomes a voucher.", "My mistake - you're still within it, so you get all $310 back as cash."]),
]
RETRACTED_PASS = [
    (FEE, ["The setup fee is $85.", "I'll take the signed form back to the office today."]),
    (FEE, ["The setup fee is $85.", "Sorry for the wait - the fee is $85 after all, nothing changes."]),
    (SEATS, ["The 07:15 ferry is full.", "Sorry, it's full after all - I checked again and there's no space."]),
    (SEATS, ["The 07:15 is full, sorry.", "Hang on - I can't make an exception, but the 09:30 has room."]),
    (CREDIT, ["The 48-hour window has passed, so the $310 becomes a voucher.", "Sorry, to be clear: the voucher is worth the full $310 and never expires."]),
]


@pytest.mark.parametrize(("case", "messages"), RETRACTED_FAIL)
def test_a_retraction_in_other_words_takes_the_statement_back(case, messages):
    assert not passes(*case, messages), messages


@pytest.mark.parametrize(("case", "messages"), RETRACTED_PASS)
def test_a_restatement_or_another_correction_keeps_the_statement(case, messages):
    assert passes(*case, messages), messages


CANCELLED = ("Tells the customer the request is still open, then confirms REQ-77 is cancelled.", ["REQ-77", "cancelled"])
BOOKING = ("Confirms booking BK-12 is cancelled.", ["BK-12", "cancelled"])
SECOND_PART_PASS = [
    (CANCELLED, ["REQ-77 is still open and hasn't been fulfilled.", "No problem, I've cancelled REQ-77 for you."]),
    (CANCELLED, ["Not yet - REQ-77 hasn't shipped.", "No worries, REQ-77 is now cancelled."]),
    (BOOKING, "BK-12 is cancelled. The refund for BK-12 didn't go through yet, so I'll retry it tonight."),
    (BOOKING, "BK-12 is cancelled; the voucher for BK-12 hasn't been emailed yet."),
]


@pytest.mark.parametrize(("case", "messages"), SECOND_PART_PASS)
def test_another_part_not_yet_done_or_a_courtesy_keeps_the_thing_done(case, messages):
    assert passes(*case, messages), messages


# ---- a state the criterion says with "is", denied; a contrast the criterion rules out, done ----------------------

LIVE = ("Confirms the identity check passed and the store is live.", ["passed", "live"])
OPEN = ("Confirms the warranty claim WC-81 is open.", ["WC-81"])
EXISTING = ("Says the note was added to the existing ticket TK-610 rather than a new ticket.", ["TK-610"])
CREDIT_NOT_CASH = ("Explains the $80 goes back as store credit instead of a cash refund.", ["80", "store credit"])

STATE_FAIL = [
    (LIVE, "The identity check passed, but the store isn't live yet - I'll switch it live when you say so."),
    (LIVE, "Good news, the identity check passed! The store is not live at the moment; it will go live tomorrow."),
    (OPEN, "WC-81 isn't open any more - I can reopen it if you like."),
    (EXISTING, "I've created a new ticket for this, separate from TK-610."),
    (EXISTING, "Logged as a new ticket; TK-610 stays as it was."),
    (CREDIT_NOT_CASH, "The $80 will come back as store credit, and I can also issue a cash refund on top."),
]
STATE_PASS = [
    (LIVE, "The identity check passed and the store is live - it wasn't live until this morning."),
    (LIVE, "Identity check: passed. Your store is live now; no changes are pending."),
    (OPEN, "WC-81 is open. It's not closed, and nothing else is needed from you."),
    (EXISTING, "I've added the note to TK-610 rather than opening a new ticket."),
    (EXISTING, "Your note is on TK-610 now - no new ticket was needed."),
    (EXISTING, "Added to TK-610. Not only is it on file, but the engineer has already seen it."),
    (CREDIT_NOT_CASH, "The $80 goes back as store credit - a cash refund isn't possible for this order."),
    (CREDIT_NOT_CASH, "You'll get the $80 as store credit rather than a cash refund, no problem."),
]


@pytest.mark.parametrize(("case", "reply"), STATE_FAIL)
def test_a_state_denied_or_a_ruled_out_alternative_done_fails(case, reply):
    assert not passes(*case, reply), reply


@pytest.mark.parametrize(("case", "reply"), STATE_PASS)
def test_the_state_affirmed_or_the_alternative_ruled_out_passes(case, reply):
    assert passes(*case, reply), reply


# ---- the confirmed thing only offered -------------------------------------------------------------------------

GREEN = ("Confirms the exchange to the green jacket.", ["green"])
SUITE = ("Confirms the upgrade to the harbour suite.", ["harbour suite"])

OFFER_FAIL = [
    (GREEN, "The green one is available in medium. Shall I swap your grey jacket for the green?"),
    (GREEN, "Green is in stock in your size - want me to switch the order to green?"),
    (SUITE, "The harbour suite is free on those dates. Would you like me to move you into the harbour suite?"),
    (SUITE, "Good news, there's a harbour suite open. Should I upgrade you to the harbour suite?"),
]
OFFER_PASS = [
    (GREEN, "Done - I've swapped your jacket for the green one. Shall I email you the return label?"),
    (GREEN, "Your exchange to the green jacket is confirmed. Want me to send the green one to your office instead?"),
    (GREEN, "The exchange to green is booked. Would you like me to check the green one ships today?"),
    (SUITE, "You're upgraded to the harbour suite. Would you like me to tell the front desk about the harbour suite?"),
    (SUITE, "I've moved you into the harbour suite. Shall I share the harbour suite's floor plan?"),
]


@pytest.mark.parametrize(("case", "reply"), OFFER_FAIL)
def test_the_confirmed_thing_only_offered_fails(case, reply):
    assert not passes(*case, reply), reply


@pytest.mark.parametrize(("case", "reply"), OFFER_PASS)
def test_done_then_another_offer_passes(case, reply):
    assert passes(*case, reply), reply


# ---- an id corrected alone: the rest of the statement stands -------------------------------------------------------

ASSIGNED = ("Confirms Dana Wu (ENG-31) is assigned to job JOB-504.", [["Dana Wu", "ENG-31"], "JOB-504"])
HOLD = ("Explains FILE-12 is under a retention hold for matter MT-209 and cannot be purged.", ["retention hold", "MT-209"])

ID_CORRECTED_PASS = [
    (ASSIGNED, ["Dana Wu (ENG-31) now has job JOB-540.", "Sorry, typo - I meant JOB-504, the boiler service on Friday."]),
    (ASSIGNED, ["Dana Wu (ENG-31) is assigned to JOB-540.", "Correction: that should read JOB-504."]),
    (HOLD, ["FILE-12 can't be purged: it's under a retention hold for matter MT-290.", "Correction to the above - the matter is MT-209. It still can't be purged."]),
]
ID_CORRECTED_FAIL = [
    # the corrected id is the criterion's wrong one
    (ASSIGNED, ["Dana Wu (ENG-31) is assigned to JOB-504.", "Sorry, typo - I meant JOB-540."]),
    (HOLD, ["FILE-12 is under a retention hold for matter MT-209.", "Correction: the matter is MT-290."]),
    # the correction denies more than the id: the statement is taken back
    (ASSIGNED, ["Dana Wu (ENG-31) is assigned to JOB-540.", "Correction: JOB-504 is not assigned to anyone yet."]),
    (ASSIGNED, ["Dana Wu (ENG-31) is assigned to JOB-504.", "Sorry - I meant that Dana isn't free; the assignment didn't go through."]),
]


@pytest.mark.parametrize(("case", "messages"), ID_CORRECTED_PASS)
def test_an_id_corrected_alone_keeps_the_rest_of_the_statement(case, messages):
    assert passes(*case, messages), messages


@pytest.mark.parametrize(("case", "messages"), ID_CORRECTED_FAIL)
def test_a_wrong_id_or_a_broader_correction_fails(case, messages):
    assert not passes(*case, messages), messages


# ---- possession denied; "doesn't need to" as a negation of the verb after it -------------------------------------

NO_CERT = ("Explains that Omar Reyes does not have the gas safety certificate required for JOB-88.", [["certificate", "gas safety", "certified"]])
STAYS = ("Says the claim stays with the specialist team, which will settle it.", [["specialist team", "specialists"]])

POSSESSION_FAIL = [
    (NO_CERT, "Omar Reyes does have the gas safety certificate, but he's booked solid, so I can't put him on JOB-88."),
    (NO_CERT, "Omar has a gas safety certificate on file; I just can't reach him to confirm JOB-88."),
    (STAYS, "The claim doesn't need to stay with the specialist team - I'll settle it myself today."),
    (STAYS, "Your claim isn't going to stay with the specialist team; we'll handle it at the front desk."),
]
POSSESSION_PASS = [
    (NO_CERT, "Omar Reyes doesn't have the gas safety certificate JOB-88 needs, so I can't assign him."),
    (NO_CERT, "Omar has plumbing and carpentry on his profile, but no gas safety certificate - so not JOB-88."),
    (NO_CERT, "Omar isn't gas safety certified, and JOB-88 requires it. He has been notified."),
    (STAYS, "The claim stays with the specialist team, and they'll settle it - you don't need to do anything."),
    (STAYS, "It remains with the specialist team. No need to call us again; they will settle it."),
]


@pytest.mark.parametrize(("case", "reply"), POSSESSION_FAIL)
def test_possession_or_a_stay_said_the_other_way_round_fails(case, reply):
    assert not passes(*case, reply), reply


@pytest.mark.parametrize(("case", "reply"), POSSESSION_PASS)
def test_possession_denied_or_a_stay_affirmed_passes(case, reply):
    assert passes(*case, reply), reply


# ---- a correction naming what it corrects by the word it takes back ----------------------------------------------

REFUNDED = ("Tells the customer that ORD-3301 was refunded.", ["ORD-3301", "refunded"])

REFERENCE_FAIL = [
    (REFUNDED, ["ORD-3301 shows as refunded.", "Apologies, I misread - the refunded line belongs to another order. ORD-3301 is still awaiting the refund."]),
    (REFUNDED, ["I can see ORD-3301 was refunded.", "Correction: that refunded payment was for your previous purchase; ORD-3301 hasn't been refunded yet."]),
]
REFERENCE_PASS = [
    (REFUNDED, ["ORD-3301 and ORD-3302 were both refunded.", "Correction: the refunded one is ORD-3301 only; ORD-3302 is still pending."]),
    (REFUNDED, ["ORD-3301 shipped on Monday.", "Correction: ORD-3301 was refunded, not shipped."]),
]


@pytest.mark.parametrize(("case", "messages"), REFERENCE_FAIL)
def test_a_correction_naming_what_it_takes_back_states_nothing(case, messages):
    assert not passes(*case, messages), messages


@pytest.mark.parametrize(("case", "messages"), REFERENCE_PASS)
def test_a_correction_that_restates_the_fact_passes(case, messages):
    assert passes(*case, messages), messages
