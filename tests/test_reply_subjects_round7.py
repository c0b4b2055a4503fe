"""Subjects and values, round 7: two predicates swapped between the two subjects the criterion states them of;
a value read off a pair of lists (records / values) against another record; a record filed "as" another kind
than the criterion gives it. Cases in words of their own (none from a calibration set); each must-fail case
stands next to right replies that must pass (each subject with its own predicate, either order, label: value
lines, a predicate restated, lists in the right order, a kind said in other words that share one)."""

from __future__ import annotations

import pytest

from tests.reply_judge import passes

CARD = "Confirms the old Mastercard is removed and the new Amex card added."
TIER = "Confirms the premium tier is cancelled and the basic tier activated."
PHONE = "Confirms the office line is deleted and the mobile number kept."

CROSSED = [
    # ---- two predicates swapped between their subjects: fail ----------------------------------------------
    (CARD, ["removed", "added"], "The Amex card is removed and the old Mastercard has been added.", False),
    (CARD, ["removed", "added"], "Done! Your Mastercard is now on the account, and the Amex card was taken off.", False),
    (CARD, ["removed", "added"], "Mastercard: added. Amex card: removed.", False),
    (CARD, ["removed", "added"], "I've removed the new Amex card and added back the old Mastercard for you.", False),
    (TIER, ["cancelled", "activated"], "Right, so the basic tier's been cancelled and premium tier activated.", False),
    (TIER, ["cancelled", "activated"], "- **Basic tier**: cancelled\n- **Premium tier**: activated", False),
    (PHONE, ["deleted", "kept"], "The mobile number is deleted and the office line kept.", False),
    # ---- each subject with its own predicate: pass ---------------------------------------------------------
    (CARD, ["removed", "added"], "The old Mastercard is removed and the new Amex card is added.", True),
    (CARD, ["removed", "added"], "The Mastercard has been removed, and your Amex card is added.", True),
    (CARD, ["removed", "added"], "Amex card added, Mastercard removed - all sorted.", True),
    (CARD, ["removed", "added"], "Mastercard: removed. Amex card: added.", True),
    (CARD, ["removed", "added"], "Your Amex card has been added now that the old Mastercard is removed.", True),
    (CARD, ["removed", "added"], "The old card has been removed, and the new one added.", True),
    (TIER, ["cancelled", "activated"], "Premium tier cancelled; basic tier activated from today.", True),
    (TIER, ["cancelled", "activated"], "Basic tier activated, and premium tier cancelled as you asked.", True),
    (TIER, ["cancelled", "activated"], "Your premium tier is now cancelled, and I've activated the basic tier.", True),
    (PHONE, ["deleted", "kept"], "I've deleted the office line and kept your mobile number.", True),
    (PHONE, ["deleted", "kept"], "Office line deleted. Mobile number kept, as requested.", True),
]


@pytest.mark.parametrize(("criterion", "evidence", "reply", "expected"), CROSSED)
def test_round7_crossed_roles(criterion: str, evidence: list, reply: str, expected: bool) -> None:
    assert passes(criterion, evidence, reply) is expected


DUE = "Gives the due date of INV-3301."
AMOUNT = "Gives the balance of ACC-2040."

PAIRED = [
    # ---- a value against another record in a pair of lists: fail --------------------------------------------
    (DUE, ["2026-12-14"], "INV-3301 and INV-3302 are due on December 20 and December 14.", False),
    (DUE, ["2026-12-14"], "Your invoices INV-3302, INV-3301 fall due Dec 14 and Dec 20.", False),
    (DUE, ["2026-12-14"], "I found both invoices (INV-3301 and INV-3302). Due dates: 20 Dec and 14 Dec.", False),
    (DUE, ["2026-12-14"], "INV-3301 and INV-3302 are due on 20/12 and 14/12, respectively.", False),
    (AMOUNT, ["1,820.00"], "Your accounts ACC-2040 and ACC-2041 have balances of $640.00 and $1,820.00.", False),
    (AMOUNT, ["1,820.00"], "The accounts ACC-2041 and ACC-2040 have balances of $640.00 and $1,820.00 respectively.", True),
    # ---- the right pairing, or each value beside its record: pass --------------------------------------------
    (DUE, ["2026-12-14"], "INV-3301 and INV-3302 are due on December 14 and December 20.", True),
    (DUE, ["2026-12-14"], "INV-3302 and INV-3301 fall due on 20 Dec and 14 Dec respectively.", True),
    (DUE, ["2026-12-14"], "INV-3301 is due December 14, and INV-3302 on December 20.", True),
    (DUE, ["2026-12-14"], "INV-3301 and INV-3302 are both open; INV-3301 is due 14 December.", True),
    (DUE, ["2026-12-14"], "Looked at INV-3301 and INV-3302. INV-3301 is due Dec 14, the other Dec 20.", True),
    (AMOUNT, ["1,820.00"], "Your accounts ACC-2040 and ACC-2041 have balances of $1,820.00 and $640.00.", True),
    (AMOUNT, ["1,820.00"], "ACC-2040 has $1,820.00 in it and ACC-2041 has $640.00.", True),
]


@pytest.mark.parametrize(("criterion", "evidence", "reply", "expected"), PAIRED)
def test_round7_paired_lists(criterion: str, evidence: list, reply: str, expected: bool) -> None:
    assert passes(criterion, evidence, reply) is expected


LICENCE = "Confirms the driving licence DOC-4410 was accepted."
SAVINGS = "Confirms the transfer went into the savings account ACC-2290."

KINDS = [
    # ---- a record filed as another kind: fail ---------------------------------------------------------------
    (LICENCE, ["DOC-4410", "accepted"], "DOC-4410 was accepted as your utility bill.", False),
    (LICENCE, ["DOC-4410", "accepted"], "I've accepted DOC-4410 as a passport scan, so you're all set.", False),
    (LICENCE, ["DOC-4410", "accepted"], "Good news: DOC-4410 is now on file as the bank statement.", False),
    (SAVINGS, ["ACC-2290"], "The money went into ACC-2290, set up as your current account.", False),
    (SAVINGS, ["ACC-2290"], "Transferred - it landed in ACC-2290, listed as your joint checking.", False),
    # ---- the kind said in its own or shared words, or no kind: pass -----------------------------------------
    (LICENCE, ["DOC-4410", "accepted"], "DOC-4410 was accepted as your driving licence.", True),
    (LICENCE, ["DOC-4410", "accepted"], "I've accepted DOC-4410 as your licence.", True),
    (LICENCE, ["DOC-4410", "accepted"], "DOC-4410 has been accepted as requested.", True),
    (LICENCE, ["DOC-4410", "accepted"], "Your licence (DOC-4410) is accepted; the old bill stays as your proof of address.", True),
    (LICENCE, ["DOC-4410", "accepted"], "DOC-4410 is accepted, with the expiry date recorded as the review date.", True),
    (SAVINGS, ["ACC-2290"], "The transfer went into ACC-2290, your savings account.", True),
    (SAVINGS, ["ACC-2290"], "I used ACC-2290 as the savings account for it.", True),
    (SAVINGS, ["ACC-2290"], "It's in ACC-2290 now, as your savings.", True),
]


@pytest.mark.parametrize(("criterion", "evidence", "reply", "expected"), KINDS)
def test_round7_other_kind(criterion: str, evidence: list, reply: str, expected: bool) -> None:
    assert passes(criterion, evidence, reply) is expected
