"""Round 6 of the reply judge's words (branch r6-words): classes of wording, each with cases written for this
file (not taken from a calibration case), and must-fail counterparts next to them: a negated, a still-to-come,
a different value or a reversed order fails."""

from __future__ import annotations

import pytest

from contracts.schema import ReplyCriterion
from grader.text.evidence import EvidenceJudge
from grader.text.values import grouped_code


def stated(evidence: list[str | list[str]], reply: str | list[str]) -> bool:
    replies = [reply] if isinstance(reply, str) else reply
    out = EvidenceJudge().judge_sync([ReplyCriterion(criterion="The reply states it.", evidence=evidence)], replies)
    return out.criteria[0].passed


LOGGED = [["logged"]]
SCHEDULED = [["scheduled"]]
SHORT = [["insufficient", "not enough"]]
ALLOWED = [["would go through", "would be allowed", "passed"]]
IN_PROGRESS = [["in progress", "in_progress"]]
CANCELLED = [["cancelled"]]
SOLD_OUT = [["sold out", "no seats", "fully booked"]]
FULL = [["limit", "full"]]
WHOLE = [["as a whole", "whole booking", "entire booking"]]
NO_SEAT = [["no seat selection", "cannot select"]]
ONE_RECIPIENT = [["1 member", "one member", "1 person", "one person", "1 recipient", "one recipient"]]


# ---- a state said in other words (round6_families) ----------------------------------------------------------

@pytest.mark.parametrize(
    ("evidence", "reply"),
    [
        (LOGGED, "Noted in the CRM: you spoke with Dana Ruiz about renewal timing."),
        (LOGGED, "I've added the call to his record with a note about the pricing question."),
        (LOGGED, "The meeting is now on the timeline for ACC-22."),
        (LOGGED, "Captured: call with Tom Reyes, wants a quote by Friday."),
        (SCHEDULED, "The newsletter is locked in for Tuesday at 09:00."),
        (SCHEDULED, "Spring Sale is slated for 3 March at 10:00."),
        (SCHEDULED, "It's pencilled in for Friday morning."),
        (SHORT, "There are not enough funds in ACC-3 for the $300."),
        (SHORT, "Your balance is too low for that one."),
        (ALLOWED, "A $900 transfer to ACC-4 would clear without any problem."),
        (ALLOWED, "I checked: $250 from ACC-2 would pass the limits."),
        (ALLOWED, "That transfer would be permitted under your plan."),
        (IN_PROGRESS, "INC-77 is being actively worked by the network team."),
        (IN_PROGRESS, "Your ticket is being handled by Ravi right now."),
        (CANCELLED, "Done, I've withdrawn REQ-12 for you."),
        (CANCELLED, "REQ-12 has been marked as cancelled."),
        (SOLD_OUT, "The 18:40 AU500 is totally full, I'm afraid."),
        (SOLD_OUT, "That flight is booked solid in economy."),
        (FULL, "The seats on the Starter plan are all in use right now."),
        (FULL, "Every place is taken on that plan."),
        (WHOLE, "Sorry, I can only cancel it for everyone, not just for Mo."),
        (WHOLE, "A reservation can only be cancelled in its entirety."),
        (NO_SEAT, "Seat selection isn't included with a basic ticket."),
        (NO_SEAT, "On basic you can't pick a seat, sorry."),
        (ONE_RECIPIENT, "It'll reach exactly one inbox."),
        (ONE_RECIPIENT, "It goes to just one subscriber."),
    ],
)
def test_state_in_other_words_passes(evidence: list, reply: str) -> None:
    assert stated(evidence, reply)


@pytest.mark.parametrize(
    ("evidence", "reply"),
    [
        (LOGGED, "I haven't noted it in the CRM yet."),
        (LOGGED, "Nothing was added to her record."),
        (SCHEDULED, "It isn't locked in for any date yet; it's still a draft."),
        (SHORT, "You have more than enough to cover the $80."),
        (SHORT, "There's plenty to cover it: your balance is well above $300."),
        (ALLOWED, "That transfer wouldn't pass: it's above your daily limit."),
        (ALLOWED, "A $9,000 transfer would not clear the checks."),
        (IN_PROGRESS, "INC-77 isn't being worked yet; it's still in the queue."),
        (CANCELLED, "REQ-12 hasn't been withdrawn; it's still open."),
        (SOLD_OUT, "The evening flight is nearly full, but I can still get you on it."),
        (SOLD_OUT, "It isn't fully booked: there are 4 seats left."),
        (FULL, "Two of your three seats are free, so I've added Sam."),
        (WHOLE, "I've refunded you in full for Wei's ticket."),
        (NO_SEAT, "Basic tickets include seat selection, so I've held 14C."),
        (ONE_RECIPIENT, "It will land in 3 inboxes."),
        (ONE_RECIPIENT, "It will reach two subscribers."),
        (ONE_RECIPIENT, "It won't reach a single inbox: everyone opted out."),
    ],
)
def test_wrong_negated_or_other_state_fails(evidence: list, reply: str) -> None:
    assert not stated(evidence, reply)


# ---- a value written another way (other writings) -------------------------------------------------------------

@pytest.mark.parametrize(
    ("evidence", "reply", "expected"),
    [
        # a long code written in groups
        (["1Z999AA10123456784"], "Tracking: 1Z 999 AA1 0123 456 784", True),
        (["1Z999AA10123456784"], "Tracking code: 1Z-999-AA1-0123-456-784.", True),
        (["1Z999AA10123456784"], "Tracking: 1Z 999 AA1 0123 456 785", False),
        (["1Z999AA10123456784"], "Tracking: 1Z 999 AA1 0123 456 7845", False),
        (["TRK4455667788"], "Tracking number TRK 4455 6677 88.", True),
        (["TRK4455667788"], "Tracking number TRK 4455 6677 89.", False),
        # a carrier's code and flight number apart
        (["AU330"], "You're booked on AU 330 at 07:45.", True),
        (["AU330"], "You're booked on AU-330 at 07:45.", True),
        (["AU330"], "You're booked on AU 3301.", False),
        (["AU330"], "You're booked on NZ 330.", False),
        # a keypad code in words
        (["*86"], "Dial star-eight-six, then press four.", True),
        (["*86"], "Dial star 86 and follow the prompts.", True),
        (["#31"], "Key in hash three one first.", True),
        (["*86"], "Dial star eight seven and follow the prompts.", False),
        (["*86"], "Dial star-eight-six-two.", False),
        # a menu path in words, in order
        (["Settings > Billing > Invoices"], "Go to **Settings** → **Billing**, then open Invoices.", True),
        (["Network > Addresses"], "In the portal open Network and then Addresses.", True),
        (["Settings > Billing > Invoices"], "Go to Billing, then Settings, then Invoices.", False),
        (["Settings > Billing"], "Open Settings. Billing is on the next screen.", False),
        # a letter grade
        (["grade B", "B grade"], "Sixty-one in total, which puts it at a B.", True),
        (["grade B", "B grade"], "LEAD-4 comes out at 72, so it's rated B.", True),
        (["grade B", "B grade"], "That makes it a C, I'm afraid.", False),
        (["grade B", "B grade"], "Score 61: a B+ this quarter.", False),
        (["grade B", "B grade"], "Plan B is to call them again.", False),
    ],
)
def test_value_written_another_way(evidence: list, reply: str, expected: bool) -> None:
    assert stated([evidence], reply) is expected


def test_grouped_code_only_for_long_codes() -> None:
    assert grouped_code("AB12") is None  # short: a seat, a unit, a flight
    assert grouped_code("ABCDEFGHIJ") is None  # no digit: a word
    pattern = grouped_code("1Z999AA10123456784")
    assert pattern is not None and pattern.search("code 1z 999 aa1 0123 456 784 today")


# ---- someone else's records: opening them for the asker is showing them -----------------------------------------

REFUSE_SHOW = [["can't share", "cannot share", "can't show", "cannot show"]]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("I'm not able to open her orders for you, I'm afraid; she has to verify herself.", True),
        ("Sorry, I can't go into his account on your behalf.", True),
        ("I've opened her orders: there are two.", False),
        ("Here you go, I can open her orders: ORD-1 and ORD-2.", False),
    ],
)
def test_refusing_to_open_anothers_records(reply: str, expected: bool) -> None:
    assert stated(REFUSE_SHOW, reply) is expected


# ---- a terse line of records, each named with its one state word ----------------------------------------------

def test_named_records_with_their_states_are_a_terse_statement() -> None:
    evidence = [["revoked"], ["granted"]]
    assert stated(evidence, "Ravi Patel: ROLE-SALES-ADMIN revoked, ROLE-SALES-VIEW granted.")
    assert not stated(evidence, "Ravi Patel: ROLE-SALES-ADMIN revoked, ROLE-SALES-VIEW kept.")


def test_a_named_state_is_its_records_own_kind() -> None:
    from grader.text.units import _item_kind

    assert _item_kind("ROLE-SALES-ADMIN revoked") != _item_kind("ROLE-SALES-VIEW granted")
    assert _item_kind("ROLE-SALES-ADMIN revoked") == _item_kind("ROLE-SALES-ADMIN cancelled")
    assert _item_kind("revoked") == _item_kind("granted")  # bare state words still compete
