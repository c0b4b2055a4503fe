"""Sentences that take a fact back, deny it, ask it or only list it (round 2 of the sentence rules), on cases
written for this file in other words than the calibration sets': each must-fail form next to a right reply in
similar words that must pass."""

from __future__ import annotations

import pytest

from grader.text.units import negated_after, split_question, unit_is_list
from tests.reply_judge import passes


# ---- take-backs: a later statement that undoes an earlier one, whatever its marker ----------------------------

TAKE_BACKS = [
    # (criterion, evidence, messages, expected)
    ("Confirms the warranty claim WC-31 is approved.", ["WC-31", "approved"],
     ["WC-31 is approved.", "Oh no, I misstated that - the approval never went through, WC-31 is still under review."], False),
    ("Confirms the spare key was mailed.", ["mailed"],
     ["The spare key was mailed this morning.", "Whoops, I jumped the gun: the mailing hasn't been processed and it's still at the desk."], False),
    ("Confirms the seat upgrade to 4C.", ["4C", "upgrade"],
     ["Your upgrade to seat 4C is done.", "Sorry about that - the upgrade did not go through, you're still in 19F."], False),
    ("Confirms the subscription is paused.", ["paused"],
     ["Your subscription is paused until March.", "My bad, I got that wrong. The pause request failed, so billing continues as normal."], False),
    ("Confirms the parcel locker PL-88 is reserved.", ["PL-88", "reserved"],
     ["PL-88 is reserved for you.", "Hang on - that reservation was declined by the locker system. PL-88 is still free for anyone."], False),
    ("Confirms the balance is $812.40.", ["812.40"],
     ["Your balance is $812.40.", "Please disregard those numbers; the ledger hadn't refreshed yet."], False),
    ("Confirms the $19.99 charge was reversed.", ["19.99", "reversed"],
     ["I've reversed the $19.99 charge.", "Let me correct myself: the reversal never completed, so the $19.99 still stands."], False),
    ("Confirms the firmware update was scheduled.", ["scheduled"],
     ["The firmware update is scheduled for Sunday night.", "Apologies, I need to walk that back - nothing has been scheduled yet."], False),
    ("Confirms TKT-550 is closed.", ["TKT-550", "closed"],
     ["TKT-550 is closed now.", "That closure didn't save, unfortunately - TKT-550 is still open."], False),
    ("Explains the loan limit cannot be raised by chat.", [["cannot be raised", "can't be raised"]],
     ["Your loan limit can't be raised over chat.", "Actually, since you've been with us for years, I can raise it now."], False),
    ("Explains no late-fee waiver is possible.", [["no waiver", "can't waive", "cannot waive"]],
     ["I'm afraid I can't waive the late fee, but it's a one-time exception I'm happy to make: waived."], False),
    # right replies with the same markers and words
    ("Confirms the subscription is paused.", ["paused"],
     ["Sorry for the wait! Your subscription is paused until March."], True),
    ("Confirms the seat upgrade to 4C.", ["4C", "upgrade"],
     ["The first attempt didn't go through.", "Sorry for the hiccup - I retried and your upgrade to seat 4C is done."], True),
    ("Confirms the $60.00 transfer to ACC-71 was made.", ["60.00", "ACC-71"],
     ["Done: $60.00 was transferred to ACC-71.", "I'm sorry, the second transfer of $900.00 couldn't be made: the bank refused it. Nothing else has been sent."], True),
    ("Lists the customer's two bookings.", ["BK-301", "BK-302"],
     ["You have two bookings: BK-301 (spa, confirmed) and BK-302 (dinner, confirmed). Sorry, but I can't show your partner's bookings."], True),
    ("Confirms the balance is $812.40.", ["812.40"],
     ["Your balance was $790.00.", "Sorry, my mistake: your balance is $812.40 after today's deposit."], True),
    ("Says the return label was emailed.", ["emailed"],
     ["I've emailed the return label. Unfortunately the courier can't collect from your address, so please drop it at a store."], True),
    ("Explains no late-fee waiver is possible.", [["no waiver", "can't waive", "cannot waive"]],
     ["I can't waive the late fee. Actually, I can set up a payment plan instead if that helps."], True),
]


# Take-backs whose reversing sentence restates the fact's word in another form and denies it ("the approval
# never went through", "that reservation was declined"): stem and lexicon matches are denied by the verb
# after them as exact matches are (grader.text.matching.stem_matches).


@pytest.mark.parametrize(("criterion", "evidence", "messages", "expected"), TAKE_BACKS)
def test_take_backs(criterion: str, evidence: list, messages: list[str], expected: bool) -> None:
    assert passes(criterion, evidence, messages) is expected


def test_taking_an_item_back_is_no_take_back() -> None:
    criterion, evidence = "Explains the opened headphones are final sale.", [["final sale", "final-sale"]]
    assert passes(criterion, evidence, ["The headphones were a final-sale item, so I can't take them back once opened."])
    assert passes(criterion, evidence, ["Those headphones are final sale; the store won't take that back."])


def test_a_negated_verb_of_taking_back_takes_nothing_back() -> None:
    """"so I can't delete it" names the record the customer asked to delete, not what was said: the statement
    before it stands (a record kept under a legal hold failed as if taken back)."""
    criterion, evidence = "Explains REC-6005 cannot be deleted because it is under legal hold.", ["REC-6005", "legal hold"]
    assert passes(criterion, evidence, ["REC-6005 is still under legal hold, so I can't delete it."])
    assert passes(criterion, evidence, ["REC-6005 is still under legal hold, so I cannot delete it."])
    assert passes(criterion, evidence, ["REC-6005 is under a legal hold; I won't ignore that."])
    assert not passes(criterion, evidence, ["REC-6005 is under legal hold. Actually, please disregard that."])
    assert not passes(criterion, evidence, ["REC-6005 is under legal hold - scratch that."])


# ---- denials: the clause that governs the fact says it did not happen ---------------------------------------

DENIALS = [
    ("Says the note was added to TKT-90.", ["TKT-90"],
     ["I logged a fresh ticket for it instead of adding the note to TKT-90."], False),
    ("Says the note was added to TKT-90.", ["TKT-90"],
     ["I added the note to TKT-90 rather than logging a fresh ticket."], True),
    ("Confirms the migration completed.", ["migration"],
     ["The migration step didn't actually finish overnight."], False),
    ("Confirms the migration completed.", ["migration"], ["The migration finished overnight."], True),
    ("Says the invite was sent.", ["invite", "sent"], ["The invite hasn't been sent yet - it's in your outbox."], False),
    ("Says no exception can be made for the expired voucher.", [["no exception", "expired"]],
     ["The voucher expired last week; usually that's final, but I can request a one-off exception for you."], False),
    ("Says no exception can be made for the expired voucher.", [["no exception", "expired"]],
     ["The voucher expired last week, and no exception is possible."], True),
]


@pytest.mark.parametrize(("criterion", "evidence", "messages", "expected"), DENIALS)
def test_denials(criterion: str, evidence: list, messages: list[str], expected: bool) -> None:
    assert passes(criterion, evidence, messages) is expected


def test_a_negated_verb_after_the_phrase_denies_it() -> None:
    assert negated_after(" step didn't complete, so")
    assert negated_after(" hasn't been sent")
    assert negated_after(" never went through")
    assert not negated_after(" and the refund hasn't been issued")
    assert not negated_after(" won't arrive until friday")


# ---- questions in any form ----------------------------------------------------------------------------------

QUESTIONS = [
    ("Confirms the locker PL-88 is reserved.", ["PL-88"],
     ["PL-88 looks free at the moment. Shall I reserve PL-88 for you?"], False),
    ("Confirms the $75 deposit was refunded.", ["75", "refunded"],
     ["Your $75 deposit can be returned. Do you want me to refund the $75 now?"], False),
    ("Confirms the table booking for 19:30.", ["19:30"],
     ["There's a table free at 19:30. Want me to book it?"], False),
    ("Says the Berlin office had the higher attendance.", ["Berlin"],
     ["Berlin logged 212 visits and Lisbon 180. Would you like me to check which had the higher attendance?"], False),
    ("Says the gym pass expired on 2026-11-30.", ["2026-11-30"],
     ["Your pass shows an end date of 30 November - has it really expired, or was it extended?"], False),
    ("Says the gym pass expired on 2026-11-30.", ["2026-11-30"],
     ["Your gym pass expired on November 30 - does that sound right?"], False),
    ("Says the gym pass expired on 2026-11-30.", ["2026-11-30"],
     ["Could you confirm whether your pass expired on November 30."], False),
    # statements with a question that asks something else
    ("Confirms the table booking for 19:30.", ["19:30"],
     ["Your table is booked for 19:30. Want me to book a taxi as well?"], True),
    ("Confirms the $75 deposit was refunded.", ["75", "refunded"],
     ["I've refunded the $75 deposit. Would you like me to refund the cleaning fee too?"], True),
    ("Says the gym pass expired on 2026-11-30.", ["2026-11-30"],
     ["Your gym pass expired on November 30 - would you like to renew it?"], True),
]


@pytest.mark.parametrize(("criterion", "evidence", "messages", "expected"), QUESTIONS)
def test_questions(criterion: str, evidence: list, messages: list[str], expected: bool) -> None:
    assert passes(criterion, evidence, messages) is expected


def test_split_question_forms() -> None:
    assert split_question("Your parcel left the depot - is that correct?") == ("", "Your parcel left the depot - is that correct?")
    assert split_question("Please verify that the card ends in 4411.")[0] == ""
    statement, question = split_question("Your refund is $20 - anything else I can do?")
    assert statement == "Your refund is $20" and question


# ---- dumps: values nothing tells apart, however punctuated ----------------------------------------------------

DUMPS = [
    ("States the points balance 4,210 and the tier Gold.", ["4210", "Gold"], ["ACC-22: 4,210 / 900 / 12 / Gold"], False),
    ("States the points balance 4,210 and the tier Gold.", ["4210", "Gold"], ["Points: 4,210. Tier: Gold."], True),
    ("Confirms the new address and phone.", ["12 Elm Road", "555-0142"],
     ["Saved: CUST-88, 7731, 12 Elm Road, 555-0142, 555-0199."], False),
    ("Confirms the new address and phone.", ["12 Elm Road", "555-0142"],
     ["Saved: address 12 Elm Road, phone 555-0142."], True),
    ("Gives the Q3 win rate 22% from 50 deals.", ["22%", "50"], ["Q3 Pipeline Review Summary - deals - closed - 50 / 11 / 22% / 8%"], False),
    ("Gives the Q3 win rate 22% from 50 deals.", ["22%", "50"], ["Q3 closed 11 of 50 deals, a 22% win rate."], True),
    ("Names the morning slots.", ["08:00", "10:00"], ["Open slots on Tuesday: 08:00, 10:00, 12:00, 14:00."], True),
]


@pytest.mark.parametrize(("criterion", "evidence", "messages", "expected"), DUMPS)
def test_dumps(criterion: str, evidence: list, messages: list[str], expected: bool) -> None:
    assert passes(criterion, evidence, messages) is expected


def test_head_lists() -> None:
    assert unit_is_list("Pulled from the system: SHP-1, SHP-2, TRK-77, TRK-78, 2026-12-09.")
    assert not unit_is_list("Your account has one overseas line: Roaming - Spain, 18.20 dollars.")
    assert not unit_is_list("Corrected: Spring Sale - 7.5%, Summer Sale - 3.1%, Autumn Sale - 2.0%, Winter Sale - 1.2%.")
