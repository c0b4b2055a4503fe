"""Round 7, turns and polarity: what a failure refers to (a back-reference, another part of the same record, a later
success of another item), a strong correction of something never said, a required thing said by its absence, a
requirement said with "just", an item said to make no difference, an offer of the confirmed thing by a pronoun or with
its consequence after it, an id slip corrected inside a sentence, and the state made by the agent against "already".
Every rule that fails more replies has must-pass cases beside it. Cases in words of our own, none from a calibration
set."""

from __future__ import annotations

import pytest

from tests.reply_judge import passes

# ---- a failure that names what failed by a back-reference ------------------------------------------------------

EMAIL = ("Confirms the contact email is now dana.fox@mailbox.org.", ["dana.fox@mailbox.org"])
SEATS = ("Confirms the seat change to 14C.", ["14C"])
LIMIT = ("Confirms the card limit was raised to $4,000.", ["4,000"])

BACK_REFERENCE_FAIL = [
    (EMAIL, ["Done - the email on file is now dana.fox@mailbox.org.", "Oh, apologies: the portal rejected that update, so the old address is still there."]),
    (EMAIL, ["Your contact email now reads dana.fox@mailbox.org.", "Sorry, I've just noticed the change didn't stick. It still shows dana.f@oldmail.com."]),
    (SEATS, ["You're in 14C now.", "Hmm, looks like that swap didn't go through - you're still in 22A, sorry."]),
    (SEATS, ["Seat moved to 14C!", "Unfortunately the airline system bounced the request; the seat map still has you in 30F."]),
    (LIMIT, ["Your limit has gone up to $4,000.", "Apologies - it didn't actually save, the limit is still $2,500."]),
    (LIMIT, ["The card limit is now $4,000.", "Sorry, my edit has been reverted by the risk team, so it's $2,500 again."]),
]
BACK_REFERENCE_PASS = [
    # the failed change is of another thing, named with its own complement
    (EMAIL, ["Done - the email on file is now dana.fox@mailbox.org.", "Sorry, the update to your phone number didn't save; I'll retry that one."]),
    (SEATS, ["You're in 14C now.", "Unfortunately the meal request for that flight was declined by the caterer."]),
    (LIMIT, ["Your limit has gone up to $4,000.", "Apologies, the $300 cash advance you asked about was declined, though."]),
    # the failure is followed by the thing done
    (SEATS, ["Sorry, my first attempt bounced, but I tried again and you're now in 14C."]),
]

# ---- a failure of another part of the same record ---------------------------------------------------------------

CANCEL = ("Confirms booking BK-2231 is cancelled.", ["BK-2231", ["cancelled", "canceled"]])
CLOSED = ("Confirms ticket INC-4410 is closed.", ["INC-4410", "closed"])

OTHER_PART_PASS = [
    (CANCEL, "BK-2231 is cancelled. Unfortunately the refund for BK-2231 hasn't been issued yet; it needs a manager."),
    (CANCEL, ["BK-2231 has been cancelled.", "Sorry - the voucher for BK-2231 didn't go through, I'll send it by hand."]),
    (CLOSED, ["INC-4410 is closed now.", "Apologies, the survey email on INC-4410 failed to send."]),
    (CLOSED, "INC-4410 is closed. Sadly, INC-4410's satisfaction survey bounced."),
]
OTHER_PART_FAIL = [
    # the record itself, or the action in other words
    (CANCEL, ["BK-2231 is cancelled.", "Sorry, the cancellation of BK-2231 didn't actually go through."]),
    (CANCEL, ["BK-2231 is cancelled.", "Unfortunately that didn't go through - BK-2231 is still active."]),
    (CLOSED, ["INC-4410 is closed now.", "Apologies, the closure didn't save; INC-4410 is still open."]),
    (CLOSED, ["INC-4410 is closed now.", "Oops - INC-4410 didn't close, the system errored out."]),
]

# ---- a later success of another item ----------------------------------------------------------------------------

BOTH = ("Confirms HubSpot and Jira are connected.", ["HubSpot", "Jira"])

OTHER_ITEM_FAIL = [
    (BOTH, ["HubSpot and Jira are both hooked up.", "Sorry, I have to correct that: the Jira link never completed. HubSpot is connected; I'll retry Jira shortly."]),
    (BOTH, "HubSpot is linked, but I couldn't connect Jira - it failed the auth step. I'll have another go at Jira later."),
]
OTHER_ITEM_PASS = [
    (BOTH, "The Jira link failed on my first try, so I redid it - Jira is connected now, and HubSpot is too."),
    (BOTH, "HubSpot and Jira are both connected. The Slack link didn't complete, though."),
]


@pytest.mark.parametrize(("case", "reply"), BACK_REFERENCE_FAIL + OTHER_PART_FAIL + OTHER_ITEM_FAIL)
def test_a_failure_of_the_thing_fails(case, reply):
    assert not passes(*case, reply), reply


@pytest.mark.parametrize(("case", "reply"), BACK_REFERENCE_PASS + OTHER_PART_PASS + OTHER_ITEM_PASS)
def test_a_failure_of_something_else_passes(case, reply):
    assert passes(*case, reply), reply


# ---- a strong correction of something never said ----------------------------------------------------------------

HOTEL = ("Confirms the stay at the Harbour Inn is booked for 3 June.", ["Harbour Inn", ["3 June", "June 3"]])
NEVER_SAID_PASS = [
    (HOTEL, ["Your stay at the Harbour Inn is booked for 3 June.", "Correction: your confirmation code arrives by email within the hour."]),
    (HOTEL, "The Harbour Inn is booked for 3 June. To correct the record, breakfast is served from seven."),
    (HOTEL, ["All set - Harbour Inn, 3 June, booked.", "Update: parking can be reserved at reception."]),
]
NEVER_SAID_FAIL = [
    # the correction bears on the statement: a denial, a back-reference, a shared word, a value of its kind
    (HOTEL, ["Your stay at the Harbour Inn is booked for 3 June.", "Correction: the booking hasn't been confirmed by the hotel yet."]),
    (HOTEL, ["The Harbour Inn is booked for 3 June.", "My mistake - that was only a hold, which has lapsed."]),
    (HOTEL, ["The Harbour Inn is booked for 3 June.", "I misspoke: the stay is pencilled in, awaiting payment."]),
    (HOTEL, ["The Harbour Inn is booked for 3 June.", "Correction: it's the Quayside Lodge, on 4 June."]),
]


@pytest.mark.parametrize(("case", "reply"), NEVER_SAID_PASS)
def test_a_correction_of_something_never_said_passes(case, reply):
    assert passes(*case, reply), reply


@pytest.mark.parametrize(("case", "reply"), NEVER_SAID_FAIL)
def test_a_correction_bearing_on_the_statement_fails(case, reply):
    assert not passes(*case, reply), reply


# ---- a required thing said by its absence -----------------------------------------------------------------------

PAYSLIP = ("Explains that the loan review cannot start until a recent payslip is on file.", ["payslip", ["cannot start", "can't start", "can't begin", "on hold", "until"]])
MISSING = ("Says the signed lease is missing.", ["signed lease"])
REGION = ("Tells the customer the billing region must be set before the first invoice.", ["billing region", ["before", "first invoice"]])

ABSENCE_PASS = [
    (PAYSLIP, "The loan review can't start yet - we still have no payslip on file, and one is needed first."),
    (PAYSLIP, "I'm afraid the review is on hold until we get a payslip: we haven't received a recent payslip from you."),
    (PAYSLIP, "Your recent payslip isn't on file yet, so the review can't start."),
    (MISSING, "We've got the ID, but there's no signed lease on the account."),
    (MISSING, "Nearly done! The only gap: the signed lease hasn't been uploaded."),
    (REGION, "There's no billing region on the account yet, and it has to be set before the first invoice goes out."),
]
ABSENCE_FAIL = [
    # a need or a use denied, not a presence
    (REGION, "You don't need a billing region before the first invoice - it's optional."),
    (PAYSLIP, "The loan review can't start yet; you don't need to send a payslip for it though."),
    (MISSING, "No need for the signed lease, the landlord's letter covers it."),
    # the criterion does not speak of absence: a negated mention stays negated
    (("Confirms the signed lease was received.", ["signed lease"]), "We haven't received your signed lease yet."),
    (("Confirms the billing region is set to EU.", ["billing region", "EU"]), "There's no billing region set, EU or otherwise."),
]


@pytest.mark.parametrize(("case", "reply"), ABSENCE_PASS)
def test_a_required_thing_said_by_its_absence_passes(case, reply):
    assert passes(*case, reply), reply


@pytest.mark.parametrize(("case", "reply"), ABSENCE_FAIL)
def test_a_need_denied_or_a_presence_criterion_fails(case, reply):
    assert not passes(*case, reply), reply


# ---- a denied predicate stated with a requirement of procedure beside it ------------------------------------------

EXPORT = ("Explains that the Basic plan does not include data export.", ["Basic", "export"])

JUST_NEEDS_FAIL = [
    (EXPORT, "Data export comes with Basic as well - it just needs switching on in settings."),
    (EXPORT, "Export is included on Basic; it only has to be enabled by an admin. Let me check why it isn't showing."),
    (EXPORT, "Basic includes export, so that's not it - it simply needs a refresh token before I can turn it on."),
]
JUST_NEEDS_PASS = [
    (EXPORT, "Export isn't part of Basic - it's only on Pro and above."),
    (EXPORT, "Basic doesn't come with data export; you'd just need to move up to Pro for it."),
    (EXPORT, "Data export is only included from Pro up, so Basic doesn't get it."),
]

# ---- an item said to make no difference ------------------------------------------------------------------------

RESTART = ("Suggests restarting the router before a technician visit.", [["restart", "restarting", "reboot"]])
EXCEPTION = ("States the late fee is $25 unless autopay is on.", ["25", "autopay"])

NO_EFFECT_FAIL = [
    (RESTART, "Restarting the router won't help here, so I've booked a technician for Thursday."),
    (RESTART, "A reboot wouldn't make any difference with this fault; an engineer is on the way."),
    (EXCEPTION, "The late fee is $25, and autopay doesn't change that."),
    (EXCEPTION, "It's a flat $25 late fee - turning on autopay makes no difference to it."),
]
NO_EFFECT_PASS = [
    (RESTART, "Before we send anyone, try restarting the router - a new cable won't help, but a restart often does."),
    (RESTART, "Please restart the router first. If that doesn't help, I'll book a technician."),
    (EXCEPTION, "The late fee is $25, though autopay customers are exempt from it."),
    (EXCEPTION, "You'd pay a $25 late fee unless autopay is switched on; paying by cheque won't change that."),
]


@pytest.mark.parametrize(("case", "reply"), JUST_NEEDS_FAIL + NO_EFFECT_FAIL)
def test_the_predicate_turned_fails(case, reply):
    assert not passes(*case, reply), reply


@pytest.mark.parametrize(("case", "reply"), JUST_NEEDS_PASS + NO_EFFECT_PASS)
def test_the_predicate_kept_passes(case, reply):
    assert passes(*case, reply), reply


# ---- the confirmed thing only offered: by a pronoun, or with its consequence after the offer ----------------------

ASSIGN = ("Confirms Priya Nair is assigned.", [["Priya Nair", "TECH-220"], ["assigned", "assign*", "your technician"]])
RETURN = ("Confirms the return of the lamp with a $45.00 refund.", ["45.00"])

OFFER_FAIL = [
    (ASSIGN, "Priya Nair (TECH-220) covers boilers and has Friday at 9:00 open. Shall I book her in?"),
    (ASSIGN, "Good news - Priya Nair is free that morning and has the right skills. Want me to put her on it?"),
    (RETURN, "The lamp is within its window. Would you like me to start the return? That would be $45.00 back to your card."),
    (RETURN, "Shall I raise a return for the lamp? You'd get $45.00 refunded to the original card."),
]
OFFER_PASS = [
    (ASSIGN, "Priya Nair (TECH-220) is assigned for Friday at 9:00. Shall I text her the gate code?"),
    (ASSIGN, "Priya Nair is now your technician for Friday. Want me to remind her the day before?"),
    (RETURN, "I've started the return for the lamp. Want me to email the label? That'd be the quickest way to get your $45.00 back."),
    (RETURN, "Return created for the lamp, and $45.00 is on its way back to your card. Anything else?"),
]


@pytest.mark.parametrize(("case", "reply"), OFFER_FAIL)
def test_the_confirmed_thing_only_offered_fails(case, reply):
    assert not passes(*case, reply), reply


@pytest.mark.parametrize(("case", "reply"), OFFER_PASS)
def test_a_thing_done_then_an_offer_passes(case, reply):
    assert passes(*case, reply), reply


# ---- an id slip corrected inside its sentence --------------------------------------------------------------------

JOB = ("Tells the customer the visit is on job JOB-4401.", ["JOB-4401"])
JOB_OLD = ("Tells the customer the visit is on job JOB-4410.", ["JOB-4410"])

SLIP_PASS = [
    (JOB, "Your visit is logged on JOB-4410 - sorry, I mean JOB-4401, the boiler job."),
    (JOB, "The engineer will come out under JOB-4410, er, make that JOB-4401."),
    (JOB, "Please quote job JOB-4410 - or rather JOB-4401 - if you call back about the visit."),
]
SLIP_FAIL = [
    (JOB_OLD, "Your visit is logged on JOB-4410 - sorry, I mean JOB-4401, the boiler job."),
    (JOB_OLD, "The engineer will come out under JOB-4410, er, make that JOB-4401."),
]

# ---- a state said to hold already, made so by the agent -------------------------------------------------------

ALREADY = ("Explains ticket INC-7781 is already at priority P2 with the network team.", ["P2", ["network team"]])

ALREADY_FAIL = [
    (ALREADY, "INC-7781 was sitting at P4, so I've raised it to P2 and moved it to the network team."),
    (ALREADY, "It was still with the service desk - we've just transferred INC-7781 to the network team at P2."),
]
ALREADY_PASS = [
    (ALREADY, "INC-7781 is already P2 with the network team, so I've added your note to it."),
    (ALREADY, "No change needed: INC-7781 has been at P2 with the network team since Monday - I've flagged your update to them."),
    (ALREADY, "INC-7781 is already at P2 with the network team; I've sent them your screenshots."),
]


@pytest.mark.parametrize(("case", "reply"), SLIP_FAIL + ALREADY_FAIL)
def test_a_slip_or_a_state_made_so_fails(case, reply):
    assert not passes(*case, reply), reply


@pytest.mark.parametrize(("case", "reply"), SLIP_PASS + ALREADY_PASS)
def test_a_slip_corrected_or_a_state_held_passes(case, reply):
    assert passes(*case, reply), reply


# ---- a statement part that is itself asked ------------------------------------------------------------------------

ASKED_FAIL = [
    (MISSING, "Have you sent us the signed lease yet, and if so, what's the upload reference?"),
    (("Confirms the meter reading of 4412 was recorded.", ["4412"]), "Did you submit 4412 as the reading, or would you like me to log it now?"),
]
ASKED_PASS = [
    (MISSING, "The signed lease is missing - could you upload it today?"),
    (("Confirms the meter reading of 4412 was recorded.", ["4412"]), "I've recorded 4412 as your reading - would you like a copy by email?"),
    # a "but" before a state, not a failure: the statement stands
    (("Says REQ-880 was approved by Omar Haddad and is still open.", ["Omar Haddad", ["approved", "signed off"], "open"]),
     "Omar Haddad has signed off REQ-880, but it hasn't been delivered yet - the request is still open."),
]


@pytest.mark.parametrize(("case", "reply"), ASKED_FAIL)
def test_an_asked_statement_fails(case, reply):
    assert not passes(*case, reply), reply


@pytest.mark.parametrize(("case", "reply"), ASKED_PASS)
def test_a_statement_then_a_question_passes(case, reply):
    assert passes(*case, reply), reply


# ---- one of the criterion's denials stated, another undone by the agent --------------------------------------------

CODE = ("Tells the customer the security code did not match, so the address cannot be updated.", [["did not match", "didn't match", "doesn't match", "not match"]])

UNDONE_FAIL = [
    (CODE, "That security code didn't match our records. Since it's only an address, I've gone ahead and updated it to 9 Mill Road anyway."),
    (CODE, "The security code doesn't match, but we've updated it for you - the new address is live."),
]
UNDONE_PASS = [
    (CODE, "That security code didn't match, so I can't update the address. I've updated nothing on the account."),
    (CODE, "The security code doesn't match, so the address can't be updated yet. I've noted the attempt on your file."),
    (CODE, "That code didn't match what we hold, so your address stays as it is; I've logged a note of the call."),
]


@pytest.mark.parametrize(("case", "reply"), UNDONE_FAIL)
def test_another_denial_undone_by_the_agent_fails(case, reply):
    assert not passes(*case, reply), reply


@pytest.mark.parametrize(("case", "reply"), UNDONE_PASS)
def test_both_denials_kept_passes(case, reply):
    assert passes(*case, reply), reply


# ---- the opposite state in its own word ------------------------------------------------------------------------------

KEEP_OPEN = ("Confirms visit V-310 is cancelled and that the repair request stays open for a later booking.", ["cancelled", ["open", "rebook"]])
ENABLED = ("Confirms two-factor login is enabled for Ruth.", ["Ruth", ["two-factor", "2FA"]])

ANTONYM_FAIL = [
    (KEEP_OPEN, "V-310 is cancelled, and I've closed the repair request with it; you'd have to open a new one to rebook."),
    (KEEP_OPEN, ["Visit V-310 has been cancelled.", "I've also shut the repair request, so it can't be reused."]),
    (ENABLED, "Ruth's two-factor login is disabled now, as requested."),
]
ANTONYM_PASS = [
    (KEEP_OPEN, "V-310 is cancelled and the repair request stays open, so you can rebook later; I've closed the old reminder though."),
    (KEEP_OPEN, "Visit V-310 is closed out and cancelled; the repair request is still open for a rebooking."),
    (ENABLED, "Two-factor login is enabled for Ruth. The old SMS fallback is disabled, as the policy asks."),
]


@pytest.mark.parametrize(("case", "reply"), ANTONYM_FAIL)
def test_the_opposite_state_in_its_own_word_fails(case, reply):
    assert not passes(*case, reply), reply


@pytest.mark.parametrize(("case", "reply"), ANTONYM_PASS)
def test_the_state_kept_passes(case, reply):
    assert passes(*case, reply), reply
