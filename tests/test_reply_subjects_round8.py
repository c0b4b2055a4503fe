"""Subjects and values, round 8: a fact said of another person's record. The customer (the instruction's
"You are ...") asks about their own record; a reply whose clause has a third person's record as its subject
("Dev's wallet holds 900 points") states the value of that person, not the customer's. Cases in words of their
own (none from a calibration set); each must-fail case stands next to right replies that must pass (the other
person's record as an object, in another clause, after the value, the customer's own name, a person the
criterion names, no customer name known)."""

from __future__ import annotations

import pytest

from contracts.schema import ReplyCriterion
from grader.text.evidence import EvidenceJudge

ME = ("You are Hannah Brooks, account ACC-2201. You want to send $600 to your landlord Dev Patel's account "
      "ACC-2290, and then learn your balance and your points.")
BAL = "Reports the remaining balance of $1,480.00."
PTS = "Tells the customer they now have 2,150 reward points."
FROZEN = "Explains that the transfer from ACC-2201 is refused because the account is on hold."

THIRD = [
    # ---- another person's record as the clause's subject: fail --------------------------------------------
    (BAL, ["1480"], "Dev's account now sits at $1,480.00.", False),
    (BAL, ["1480"], "Quick update - Dev Patel's checking account ACC-2290 shows a balance of $1,480.00.", False),
    (BAL, ["1480"], "So Dev's balance is $1,480 after the transfer.", False),
    (BAL, ["1480"], "ACC-2290, Dev's account, now holds $1,480.00.", False),
    (PTS, ["2150"], "Dev's loyalty wallet has 2,150 reward points on it.", False),
    (PTS, ["2150"], "Right, Mr Patel's wallet is showing 2,150 points.", False),
    (FROZEN, [["on hold", "held"]], "The transfer bounced because ACC-2290, Dev's account, is on hold.", False),
    (FROZEN, [["on hold", "held"]], "It was refused: Dev Patel's account is on hold.", False),
    # ---- the customer's own record, or the other person's only as an object or elsewhere: pass ------------
    (BAL, ["1480"], "Your account now sits at $1,480.00.", True),
    (BAL, ["1480"], "I sent $600 to Dev's account, so your balance is $1,480.00.", True),
    (BAL, ["1480"], "The $600 went to Dev Patel's account ACC-2290; you have $1,480.00 left.", True),
    (BAL, ["1480"], "Hannah's account now shows $1,480.00.", True),
    (BAL, ["1480"], "Done - $600 paid into Dev's account. Remaining balance on ACC-2201: $1,480.00.", True),
    (BAL, ["1480"], "After Dev's payment cleared, your balance came to $1,480.00.", True),
    (BAL, ["1480"], "Today's balance on your account is $1,480.00.", True),
    (PTS, ["2150"], "You've got 2,150 reward points now, and Dev's account received the $600.", True),
    (PTS, ["2150"], "Ms Brooks's profile shows 2,150 reward points.", True),
    (FROZEN, [["on hold", "held"]], "I couldn't send it to Dev's account because ACC-2201 is on hold.", True),
    (FROZEN, [["on hold", "held"]], "The transfer was refused because your account is on hold.", True),
    # ---- a record about a person, which the customer works on for them (not theirs to hold): pass ----------
    (PTS, ["2150"], "Dev's referral request went in, and you now have 2,150 reward points.", True),
    (BAL, ["1480"], "Dev's booking is paid, and your account now sits at $1,480.00.", True),
]

NAMED = "Confirms Dev Patel's account received the $600."


@pytest.mark.parametrize(("criterion", "evidence", "reply", "expected"), THIRD)
def test_round8_third_party_holder(criterion: str, evidence: list, reply: str, expected: bool) -> None:
    out = EvidenceJudge().judge_sync([ReplyCriterion(criterion=criterion, evidence=evidence)], [reply], instruction=ME)
    assert out.criteria[0].passed is expected, out.criteria[0].explanation


@pytest.mark.parametrize("reply", ["Dev's account received the $600.", "Dev Patel's account ACC-2290 got $600 from you."])
def test_round8_person_the_criterion_names(reply: str) -> None:
    out = EvidenceJudge().judge_sync([ReplyCriterion(criterion=NAMED, evidence=["600"])], [reply], instruction=ME)
    assert out.criteria[0].passed is True, out.criteria[0].explanation


def test_round8_no_customer_name_known() -> None:
    """Without the instruction's name the holder might be the customer: the match is kept."""
    out = EvidenceJudge().judge_sync([ReplyCriterion(criterion=BAL, evidence=["1480"])], ["Dev's account now sits at $1,480.00."])
    assert out.criteria[0].passed is True
