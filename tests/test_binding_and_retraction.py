"""The evidence judge's binding, reversal, terse-line and negation/question rules (round 2), on cases written
in other words than the calibration sets': each must-fail kind next to a right reply that must pass."""

from __future__ import annotations

import pytest

from grader.text.binding import clauses, subjects
from grader.text.units import terse_statement
from tests.reply_judge import passes


# ---- binding: a word or value counts only for the subject the criterion states it of -------------------

BINDING = [
    # (criterion, evidence, reply, expected)
    ("Confirms INV-3302 was voided.", ["INV-3302", "voided"], "INV-3301 has been voided; INV-3302 is untouched.", False),
    ("Confirms INV-3302 was voided.", ["INV-3302", "voided"], "I've voided INV-3302 as asked; INV-3301 is untouched.", True),
    ("Confirms TKT-410 is escalated and TKT-411 is closed.", ["TKT-410", "escalated", "TKT-411", "closed"],
     "TKT-411 is escalated, and TKT-410 is closed.", False),
    ("Confirms TKT-410 is escalated and TKT-411 is closed.", ["TKT-410", "escalated", "TKT-411", "closed"],
     "TKT-410 is escalated and TKT-411 is closed.", True),
    ("Confirms Hannah Berg is registered for the workshop.", ["Hannah", "registered"],
     "Marcus Lee is registered for the workshop; Hannah is on the waitlist.", False),
    ("Confirms Hannah Berg is registered for the workshop.", ["Hannah", "registered"], "I've registered Hannah for the workshop.", True),
    ("Confirms Hannah Berg is registered for the workshop.", ["Hannah", "registered"], "Hannah Berg is registered for Thursday's workshop.", True),
    ("Reports that ORD-7701 and ORD-7702 were dispatched.", ["ORD-7701", "ORD-7702", "dispatched"],
     "I dispatched ORD-7701 and ORD-7705; ORD-7702 is waiting for stock.", False),
    ("Reports that ORD-7701 and ORD-7702 were dispatched.", ["ORD-7701", "ORD-7702", "dispatched"],
     "ORD-7701 and ORD-7702 were dispatched this morning.", True),
    ("States the $85 deposit and the $420 rent.", ["85", "420"], "Deposit $420, rent $85.", False),
    ("States the $85 deposit and the $420 rent.", ["85", "420"], "The deposit is $420 and the rent is $85.", False),
    ("States the $85 deposit and the $420 rent.", ["85", "420"], "The deposit is $85 and the rent is $420.", True),
    ("States the $85 deposit and the $420 rent.", ["85", "420"], "Deposit $85, rent $420.", True),
    ("Gives the bounce rate 2.5% and the reply rate 9.0%.", [["2.5%"], ["9.0%"]],
     "The campaign had a 9.0% bounce rate and a 2.5% reply rate.", False),
    ("Gives the bounce rate 2.5% and the reply rate 9.0%.", [["2.5%"], ["9.0%"]],
     "The campaign had a 2.5% bounce rate and a 9.0% reply rate.", True),
    ("States the contact email ana@example.org on file.", ["ana@example.org"],
     "ana@example.org is the address we would use for a new account; I can't open yours yet.", False),
    ("States the contact email ana@example.org on file.", ["ana@example.org"], "The email on your file is ana@example.org.", True),
    ("Says the $60 credit went to ACC-2201.", ["60", "ACC-2201"], "The $60 credit went to ACC-2209; ACC-2201 has nothing new.", False),
    ("Says the $60 credit went to ACC-2201.", ["60", "ACC-2201"], "I moved $60 from ACC-2209 to ACC-2201 as a credit.", True),
    # the right subject with a look-alike elsewhere in the sentence still passes
    ("Confirms the boiler service (VIS-52) was called off.", [["VIS-52", "boiler"], "called off"],
     "VIS-52 (boiler service) is called off; your chimney sweep VIS-51 stays on Monday.", True),
    ("Confirms the boiler service (VIS-52) was called off.", [["VIS-52", "boiler"], "called off"],
     "Called off the boiler service, VIS-52. VIS-51 is unchanged.", True),
    ("Explains Rosa Diaz is opted out and cannot be added.", ["Rosa", "opted out"],
     "Ben Ode is fine to add, but Rosa Diaz is opted out, so I can't add her.", True),
    ("Reports 88 visits, 22 sign-ups and a 25% sign-up rate.", ["88", "22", "25%"], ["Of 88 visits, 22 signed up: a 25% sign-up rate."][0], True),
]


@pytest.mark.parametrize(("criterion", "evidence", "reply", "expected"), BINDING)
def test_binding(criterion: str, evidence: list, reply: str, expected: bool) -> None:
    assert passes(criterion, evidence, [reply]) is expected


def test_clauses_part_two_statements_never_a_list_of_subjects() -> None:
    text = "CHG-1 is approved and implemented and INC-2 is resolved"
    assert [text[s:e].strip() for s, e in clauses(text)] == ["CHG-1 is approved and implemented", "INC-2 is resolved"]
    text = "LEAD-1 and LEAD-2 are now qualified"
    assert len(clauses(text)) == 1


def test_subjects_ids_names_months() -> None:
    found = {(s.kind, s.key) for s in subjects("Done: Priya Natarajan moved APT-12 to the November slot.")}
    assert ("name", "priya natarajan") in found and ("id:APT", "APT-12") in found and ("month", "november") in found
    assert not any(s.kind == "name" and s.key == "done" for s in subjects("Done: APT-12 moved."))


# ---- reversals: a statement taken back --------------------------------------------------------------------

RETRACTION = [
    ("Confirms the claim WC-88 is approved.", ["approved"],
     ["The warranty claim WC-88 is approved. On second thought, it still needs a manager's sign-off."], False),
    ("Explains refunds are not possible after 30 days.", ["30 days"],
     ["Refunds after 30 days aren't possible. Oh well, I've pushed the refund through regardless."], False),
    ("Explains only the account owner can cancel the plan.", ["account owner"],
     ["Only the account owner can cancel the plan. That said, since you asked nicely, I'll make an exception and cancel it."], False),
    ("Explains the voucher cannot be reissued.", [["cannot be reissued", "can't be reissued"]],
     ["The voucher can't be reissued - never mind, I've reissued it anyway."], False),
    ("Confirms the booking is held.", ["held"], ["Your booking is held until noon.", "Come to think of it, the hold lapsed an hour ago."], False),
    ("Explains the loyalty points were already credited.", [["already credited"]],
     ["The points were already credited. Actually, I've credited them once more just in case."], False),
    # right replies with the same markers
    ("Confirms the parcel shipped.", ["shipped"], ["Your parcel has shipped. Actually, it should arrive on Friday."], True),
    ("States the balance of $45.", ["45"], ["The balance is $40. Correction: it is $45."], True),
    ("Explains only the account owner can cancel the plan.", ["account owner"],
     ["Only the account owner can cancel the plan. But I can send her a link to do it herself."], True),
]


@pytest.mark.parametrize(("criterion", "evidence", "messages", "expected"), RETRACTION)
def test_reversal(criterion: str, evidence: list, messages: list[str], expected: bool) -> None:
    assert passes(criterion, evidence, messages) is expected


# ---- terse lines: a statement when each value is told apart by kind or label --------------------------------

TERSE = [
    ("States INC-9 is severity S1, pending, and owned by Omar Haddad.", ["S1", "pending", "Omar Haddad"], ["S1, pending, Omar Haddad."], True),
    ("Names the Alpine Jacket as the top seller with 212 units.", ["Alpine Jacket", "212"], ["Top seller: Alpine Jacket, 212 units."], True),
    ("States $120.00 on the Visa and $35.50 on the Mastercard.", ["120.00", "35.50"], ["Visa: $120.00. Mastercard: $35.50."], True),
    ("Confirms Zoom and Jira are linked.", ["Zoom", "Jira"], ["Zoom: linked. Jira: linked."], True),
    ("Lists the two refunds.", ["12.00", "30.00"], ["Boots, $12.00, Dec 4; Scarf, $30.00, Dec 6."], True),
    # dumps stay dumps
    ("States the $12.00 refund.", ["12.00"], ["Refund/fee/credit: $12.00 - $30.00 - $0.00 - pending"], False),
    ("Confirms 212 units shipped.", ["212", "shipped"], ["212, shipped, delivered"], False),
    ("Names the Alpine Jacket as the top seller with 212 units.", ["Alpine Jacket", "212"], ["Alpine Jacket, 212, 180, Trail Boots"], False),
    ("States the $12.00 refund.", ["12.00"], ["Summary: $12.00 - $30.00 - refund - credit"], False),
]


@pytest.mark.parametrize(("criterion", "evidence", "messages", "expected"), TERSE)
def test_terse_lines(criterion: str, evidence: list, messages: list[str], expected: bool) -> None:
    assert passes(criterion, evidence, messages) is expected


def test_terse_statement_kinds() -> None:
    assert terse_statement("P7, escalated, Ines Ortega.")
    assert not terse_statement("escalated, done, confirmed")
    assert not terse_statement("Owed/fee: $10.00 - $4.00")


# ---- negation and questions in other words ---------------------------------------------------------------

NEGATION = [
    ("Says the large size is available in red.", ["red"], ["The large size in red isn't available at the moment."], False),
    ("Says the large size is available in red.", ["red"], ["The large size is available in red."], True),
    ("Says the photos were attached to TKT-410.", ["TKT-410"], ["I see TKT-410. Would you like me to attach the photos to it?"], False),
    ("Says the photos were attached to TKT-410.", ["TKT-410"], ["I've attached the photos to TKT-410. Shall I attach the invoice too?"], True),
    ("Says the blender is in stock.", ["in stock"], ["I can check whether the blender is in stock."], False),
    ("Explains that Leo Park does not hold the forklift licence.", [["licence", "forklift"]],
     ["Leo Park holds the forklift licence and is free on Monday."], False),
    ("Explains that Leo Park does not hold the forklift licence.", [["licence", "forklift"]],
     ["Leo Park doesn't hold the forklift licence, so he can't take the shift."], True),
    ("Explains that Leo Park does not hold the forklift licence.", [["licence", "forklift"]],
     ["Leo Park lacks a forklift licence."], True),
]


@pytest.mark.parametrize(("criterion", "evidence", "messages", "expected"), NEGATION)
def test_negation_and_questions(criterion: str, evidence: list, messages: list[str], expected: bool) -> None:
    assert passes(criterion, evidence, messages) is expected


def test_a_summary_is_contradicted_by_a_rival_status_in_any_sentence() -> None:
    criterion, evidence = "States both bills are settled at $90.00 each and both are paid.", ["90.00", "paid"]
    assert not passes(criterion, evidence, ["Both bills are $90.00. March (INV-31) is paid; April (INV-32) is still open. So both are paid."])
    assert passes(criterion, evidence, ["Both bills are $90.00. March (INV-31) is paid and so is April (INV-32): both are paid."])
