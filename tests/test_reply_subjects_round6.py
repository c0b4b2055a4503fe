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


LABELS = [
    # ---- a value labelled with the thing another clause of the criterion is about ---------------------------
    ("States the $64 dinner refund and that the spa booking is kept.", ["$64"], "The spa refund comes to $64, and your dinner booking stays.", False),
    ("States the $64 dinner refund and that the spa booking is kept.", ["$64"], "You'll get $120 back for the dinner and $64 for the spa.", False),
    ("States the $64 dinner refund and that the spa booking is kept.", ["$64"], "The dinner refund is $64; the spa booking is kept as it is.", True),
    ("States the $64 dinner refund and that the spa booking is kept.", ["$64"], "Spa's untouched, and $64 is coming back to you for the dinner.", True),
    ("States the $64 dinner refund and that the spa booking is kept.", ["$64"], "Dinner refund: $64. Spa booking: kept.", True),
    ("States the $64 dinner refund and that the spa booking is kept.", ["$64"], "Refunded $64 - that's the dinner. Your spa slot is still on.", True),
    ("States the $64 dinner refund and that the spa booking is kept.", ["$64"], "I've refunded the $64 dinner refund, spa stays booked.", True),
    ("States the 2,000-point bonus and that the tier stays Silver.", ["2,000"], "Your tier bonus is 2,000 points.", True),
]


@pytest.mark.parametrize(("criterion", "evidence", "reply", "expected"), LABELS)
def test_round6_rival_thing_label(criterion: str, evidence: list, reply: str, expected: bool) -> None:
    assert passes(criterion, evidence, reply) is expected


DATES = [
    ("Says the heating failed on 2026-10-04 and that the boiler service was done.", ["2026-10-04"],
     "The boiler service was carried out on 4 October; the notes don't say when the heating failed.", False),
    ("Says the heating failed on 2026-10-04 and that the boiler service was done.", ["2026-10-04"],
     "Your heating failed on 4 October and the boiler service has since been done.", True),
    ("Says the heating failed on 2026-10-04 and that the boiler service was done.", ["2026-10-04"],
     "Heating failure: 2026-10-04. Boiler service: done.", True),
]


@pytest.mark.parametrize(("criterion", "evidence", "reply", "expected"), DATES)
def test_round6_rival_thing_date(criterion: str, evidence: list, reply: str, expected: bool) -> None:
    assert passes(criterion, evidence, reply) is expected


HEADINGS = [
    # ---- a record heading joined by a dash ----------------------------------------------------------------
    ("Lists the Elm Court single room's $95.00 and the Riverside Lodge double room's $140.00.", [["95.00", "$95"], ["140.00", "$140"]],
     "Per night: Elm Court — double $140; Riverside Lodge — single $95.", False),
    ("Lists the Elm Court single room's $95.00 and the Riverside Lodge double room's $140.00.", [["95.00", "$95"], ["140.00", "$140"]],
     "Per night: Elm Court — single $95; Riverside Lodge — double $140.", True),
    ("Lists the Elm Court single room's $95.00 and the Riverside Lodge double room's $140.00.", [["95.00", "$95"], ["140.00", "$140"]],
     "Elm Court - single room $95, double $120. Riverside Lodge - double room $140.", True),
    ("Lists the Elm Court single room's $95.00 and the Riverside Lodge double room's $140.00.", [["95.00", "$95"], ["140.00", "$140"]],
     "Elm Court: single $95. Riverside Lodge: double $140.", True),
    ("Lists the Elm Court single room's $95.00 and the Riverside Lodge double room's $140.00.", [["95.00", "$95"], ["140.00", "$140"]],
     "Elm Court: double $140. Riverside Lodge: single $95.", False),
    ("Lists the Elm Court single room's $95.00 and the Riverside Lodge double room's $140.00.", [["95.00", "$95"], ["140.00", "$140"]],
     "The single at Elm Court is $95 a night - the Riverside Lodge double is $140.", True),
]


@pytest.mark.parametrize(("criterion", "evidence", "reply", "expected"), HEADINGS)
def test_round6_dash_heading(criterion: str, evidence: list, reply: str, expected: bool) -> None:
    assert passes(criterion, evidence, reply) is expected


RUNS = [
    # ---- a bare run of values that never says which is which ---------------------------------------------
    ("States the deposit of $300.00 and the balance due of $1,150.00.", ["300.00", "1150.00"],
     "Booking BK-77: $300.00, $1,150.00, $1,450.00.", False),
    ("States the deposit of $300.00 and the balance due of $1,150.00.", ["300.00", "1150.00"],
     "Numbers on file: 1,450.00 / 300.00 / 1,150.00", False),
    ("States the deposit of $300.00 and the balance due of $1,150.00.", ["300.00", "1150.00"],
     "Deposit $300.00, balance due $1,150.00, total $1,450.00.", True),
    ("States the deposit of $300.00 and the balance due of $1,150.00.", ["300.00", "1150.00"],
     "Your deposit, balance due and total are $300.00, $1,150.00 and $1,450.00.", True),
    ("States the deposit of $300.00 and the balance due of $1,150.00.", ["300.00", "1150.00"],
     "You paid a $300.00 deposit; the balance due is $1,150.00.", True),
    ("States the deposit of $300.00 and the balance due of $1,150.00.", ["300.00", "1150.00"],
     "Your deposit was $300.00 and $1,150.00 is still due.", True),
    # the criterion lists its values itself: a run is the right answer
    ("Lists the open slots 09:00, 11:00 and 15:00.", [["09:00"], ["11:00"], ["15:00"]], "The open slots are 09:00, 11:00 and 15:00.", True),
    ("Lists the open slots 09:00, 11:00 and 15:00.", [["09:00"], ["11:00"], ["15:00"]], "We can do 09:00, 11:00 or 15:00 on Friday.", True),
]


@pytest.mark.parametrize(("criterion", "evidence", "reply", "expected"), RUNS)
def test_round6_unlabelled_run(criterion: str, evidence: list, reply: str, expected: bool) -> None:
    assert passes(criterion, evidence, reply) is expected


SCOPES = [
    # ---- money of the other scope: a total said per head, a per-head amount said as a total --------------
    ("Quotes the $60 total upgrade cost.", [["60.00", "$60"]], "Upgrading would be $60 per traveller - want me to go ahead?", False),
    ("Quotes the $60 total upgrade cost.", [["60.00", "$60"]], "The upgrade is $60 each.", False),
    ("Quotes the $60 total upgrade cost.", [["60.00", "$60"]], "The upgrade comes to $60 in total, so $30 per traveller.", True),
    ("Quotes the $60 total upgrade cost.", [["60.00", "$60"]], "It's $60 for the upgrade, all in.", True),
    ("Quotes the $60 total upgrade cost.", [["60.00", "$60"]], "Upgrade cost: $60.", True),
    ("States the $18 per-bag fee.", [["18.00", "$18"]], "Bags are $18 each.", True),
    ("States the $18 per-bag fee.", [["18.00", "$18"]], "Your bags come to $18 in total.", False),
    ("States the $18 per-bag fee.", [["18.00", "$18"]], "That's $18 per bag, $36 in total for two.", True),
]


@pytest.mark.parametrize(("criterion", "evidence", "reply", "expected"), SCOPES)
def test_round6_per_head(criterion: str, evidence: list, reply: str, expected: bool) -> None:
    assert passes(criterion, evidence, reply) is expected


EACH = [
    ("States the March and April bills each total $88.00 and both are settled.", ["88"], "March and April: $88 each, both settled.", True),
    ("States the March and April bills each total $88.00 and both are settled.", ["88"], "Each bill totals $88.00 and both are settled.", True),
    ("States the March and April bills each total $88.00 and both are settled.", ["88"], "The two bills come to $88.00 in total, both settled.", False),
]


@pytest.mark.parametrize(("criterion", "evidence", "reply", "expected"), EACH)
def test_round6_each(criterion: str, evidence: list, reply: str, expected: bool) -> None:
    assert passes(criterion, evidence, reply) is expected


EACH_AND_TOTAL = [
    ("Quotes the $60 total upgrade cost.", [["60.00", "$60"]], "It's $30 each - $60 altogether.", True),
    ("Quotes the $60 total upgrade cost.", [["60.00", "$60"]], "$30 apiece, so 60 dollars for the pair of you.", True),
]


@pytest.mark.parametrize(("criterion", "evidence", "reply", "expected"), EACH_AND_TOTAL)
def test_round6_each_and_total(criterion: str, evidence: list, reply: str, expected: bool) -> None:
    assert passes(criterion, evidence, reply) is expected


EACH_BEFORE = [
    ("Quotes the $60 total upgrade cost.", [["60.00", "$60"]], "Two upgrades at $30.00 each come to $60.00 altogether.", True),
    ("Quotes the $60 total upgrade cost.", [["60.00", "$60"]], "Two upgrades at $30 each, $60 in total.", True),
]


@pytest.mark.parametrize(("criterion", "evidence", "reply", "expected"), EACH_BEFORE)
def test_round6_each_of_the_value_before(criterion: str, evidence: list, reply: str, expected: bool) -> None:
    assert passes(criterion, evidence, reply) is expected


TOTAL_VERB = [
    ("States the March and April bills each total $88.00 and both are settled.", ["88"], "Both bills total $88.00: March and April, and both are settled.", True),
    ("States the March and April bills each total $88.00 and both are settled.", ["88"], "Together the two bills come to $88.00 altogether; both are settled.", False),
]


@pytest.mark.parametrize(("criterion", "evidence", "reply", "expected"), TOTAL_VERB)
def test_round6_total_as_a_verb(criterion: str, evidence: list, reply: str, expected: bool) -> None:
    assert passes(criterion, evidence, reply) is expected
