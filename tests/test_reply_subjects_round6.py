"""Subjects and values, round 6: a count said of another thing than the one the criterion counts; a flight or
train code (letters and digits, no hyphen) as a record of its own; a name set beside another id of its record's
prefix. Cases in words of their own (none from a calibration set); each must-fail case stands next to right
replies that must pass (several things each with its own count, the count restated, a label: value list)."""

from __future__ import annotations

import pytest

from tests.reply_judge import passes

COUNTS = [
    # ---- a count of another thing ---------------------------------------------------------------------------
    ("Gives 14 desk lamps in stock.", ["14"], "We've got 14 floor lamps on the shelf; the desk lamp is out.", False),
    ("Gives 14 desk lamps in stock.", ["14"], "Desk lamps are sold out, sorry, but there are 14 of the floor lamps left.", False),
    ("Gives 14 desk lamps in stock.", ["14"], "The floor lamp has 14 in stock. I'd have to look into the desk lamp.", False),
    ("Gives 14 desk lamps in stock.", ["14"], "Our warehouse shows 14 desk lamps available.", True),
    ("Gives 14 desk lamps in stock.", ["14"], "The desk lamp: 14 in stock. The floor lamp is gone.", True),
    ("Gives 14 desk lamps in stock.", ["14"], "We have fourteen of the desk lamps ready to ship, and the floor lamp is back-ordered.", True),
    ("Gives 14 desk lamps in stock.", ["14"], "The desk lamp's $35 and there are 14 of them left.", True),
    ("Gives 14 desk lamps in stock.", ["14"], "Yep, 14 LED desk lamps in stock right now.", True),
    ("Gives 14 desk lamps in stock.", ["14"], "Desk lamp stock: 14 units.", True),
    ("Gives 3 in stock for large navy.", ["3"], "There are 3 of the large black on hand; large navy has run out.", False),
    ("Gives 3 in stock for large navy.", ["3"], "Large black has 3 left - I'd need to check large navy for you.", False),
    ("Gives 3 in stock for large navy.", ["3"], "Good news, we have 3 in large navy.", True),
    ("Gives 3 in stock for large navy.", ["3"], "Large navy has 3 left, large black has 7.", True),
    ("Gives 3 in stock for large navy.", ["3"], "Large navy: 3 in stock; medium navy: 0.", True),
    ("Gives 3 in stock for large navy.", ["3"], "We've got 3 of the large navy, mate.", True),
    # people are counted with many words: never a rival thing
    ("Confirms the table for 4 guests.", ["4"], "Your table for 4 people is booked; I've noted your guests' allergies.", True),
]


@pytest.mark.parametrize(("criterion", "evidence", "reply", "expected"), COUNTS)
def test_round6_counted_other(criterion: str, evidence: list, reply: str, expected: bool) -> None:
    assert passes(criterion, evidence, reply) is expected


RECORDS = [
    # ---- a flight code is a record of its own ---------------------------------------------------------------
    ("Tells the customer the 09:15 BX402 train is cancelled.", [["cancelled", "called off"]],
     "BX406 has been cancelled this morning, but BX402 is running on time.", False),
    ("Tells the customer the 09:15 BX402 train is cancelled.", [["cancelled", "called off"]],
     "Bad news: BX402 has been cancelled. BX406 is running on time.", True),
    ("Tells the customer the 09:15 BX402 train is cancelled.", [["cancelled", "called off"]],
     "Your 09:15 train's been called off, I'm afraid - BX406 later on is still running.", True),
    ("Tells the customer the 09:15 BX402 train is cancelled.", [["cancelled", "called off"]],
     "- BX402: cancelled\n- BX406: on time", True),
    ("Tells the customer the 09:15 BX402 train is cancelled.", [["cancelled", "called off"]],
     "- BX402: on time\n- BX406: cancelled", False),
    # ---- a name set beside another id of its kind ----------------------------------------------------------
    ("Confirms the Harbor Labs renewal (DEAL-207) is marked won.", [["DEAL-207", "Harbor Labs"], "won"],
     "Done - DEAL-205, Harbor Labs renewal, is now marked won.", False),
    ("Confirms the Harbor Labs renewal (DEAL-207) is marked won.", [["DEAL-207", "Harbor Labs"], "won"],
     "The Harbor Labs renewal (DEAL-205) is marked won.", False),
    ("Confirms the Harbor Labs renewal (DEAL-207) is marked won.", [["DEAL-207", "Harbor Labs"], "won"],
     "Done - DEAL-207, Harbor Labs renewal, is now marked won.", True),
    ("Confirms the Harbor Labs renewal (DEAL-207) is marked won.", [["DEAL-207", "Harbor Labs"], "won"],
     "Harbor Labs renewal is marked won; DEAL-205 (their expansion) is unchanged.", True),
    ("Confirms the Harbor Labs renewal (DEAL-207) is marked won.", [["DEAL-207", "Harbor Labs"], "won"],
     "Marked the Harbor Labs renewal as won, rather than DEAL-205.", True),
    ("Confirms the Harbor Labs renewal (DEAL-207) is marked won.", [["DEAL-207", "Harbor Labs"], "won"],
     "Harbor Labs renewal: won.", True),
]


@pytest.mark.parametrize(("criterion", "evidence", "reply", "expected"), RECORDS)
def test_round6_records(criterion: str, evidence: list, reply: str, expected: bool) -> None:
    assert passes(criterion, evidence, reply) is expected
