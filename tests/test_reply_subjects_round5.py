"""Subjects and values, round 5: a count or amount stated as another role of its account than the criterion's
(held / came in / went out), and a match's object read as the nearest record after it (not every record the
clause names), counted from the match's end. Cases in words of their own (none from a calibration set); each
must-fail case stands next to right replies that must pass (several records each with its own value, the
value in another form, the right role said in other words)."""

from __future__ import annotations

import pytest

from tests.reply_judge import passes

CASES = [
    # ---- a count of an account under another role (held / in / out) ---------------------------------------
    ("States the 2,400 points earned on this order.", ["2,400"], "All paid - you're now sitting on 2,400 points in total.", False),
    ("States the 2,400 points earned on this order.", ["2,400"], "All paid - you earned 2,400 points on this one, taking you to 9,900 in total.", True),
    ("States the 2,400 points earned on this order.", ["2,400"], "That order added 2.4k points to your account.", True),
    ("States the 12,000 miles remaining after the redemption.", ["12,000"], "That redemption used 12,000 miles.", False),
    ("States the 12,000 miles remaining after the redemption.", ["12,000"], "The redemption used 3,000 miles, so you've got 12,000 miles remaining.", True),
    ("States the 12,000 miles remaining after the redemption.", ["12,000"], "You've 12,000 left on the account.", True),
    ("Gives the new points balance of 8,150.", ["8,150"], "Great news, 8,150 points have been credited to you today.", False),
    ("Gives the new points balance of 8,150.", ["8,150"], "8,150 points is your new balance.", True),
    ("Gives the new points balance of 8,150.", ["8,150"], "I've credited 650 points, bringing your balance to 8,150.", True),
    ("States the 25,000-mile cost of the upgrade.", ["25,000"], "Once it's done you'll still have 25,000 miles left.", False),
    ("States the 25,000-mile cost of the upgrade.", ["25,000"], "The upgrade costs 25,000 miles; you'd have 4,000 left afterwards.", True),
    ("Confirms 300 points were awarded for the survey.", ["300"], "Thanks for the survey! Your balance is 300 points.", False),
    ("Confirms 300 points were awarded for the survey.", ["300"], "I've added 300 points for the survey - your balance is now 1,300.", True),
    ("States the 640 points redeemed for the voucher.", ["640"], "You've 640 points remaining on the card, mate.", False),
    ("States the 640 points redeemed for the voucher.", ["640"], "I've redeemed 640 points for the voucher; 2,000 remain.", True),
    # several facts, each with its own value and role
    ("States the 2,400 points earned and the 9,900 balance.", ["2,400", "9,900"], "Points earned: 2,400. Points balance: 9,900.", True),
    ("States the 2,400 points earned and the 9,900 balance.", ["2,400", "9,900"], "You earned 2,400 points and now have 9,900.", True),
    ("States the 2,400 points earned and the 9,900 balance.", ["2,400", "9,900"], "You earned 9,900 points and now have 2,400.", False),
    # a noun that is no verb: "store credit" is held, not credited
    ("Tells the customer the store credit balance is $40.00.", ["40.00"], "You've got $40 in store credit.", True),
    ("Tells the customer the store credit balance is $40.00.", ["40.00"], "There's forty dollars of store credit on your account.", True),
    # no account in the criterion: a total or a charge is no role ("total" of a price)
    ("Confirms the total of $120.00 was charged.", ["120.00"], "You were charged $120.00 in total.", True),
    # ---- the object of a match: the nearest record after it ---------------------------------------------
    ("Confirms the $55.00 refund of the duplicate charge PAY-312.", ["PAY-312", "55.00"],
     "I've refunded $55.00 on PAY-309 and left PAY-312 as it was.", False),
    ("Confirms the $55.00 refund of the duplicate charge PAY-312.", ["PAY-312", "55.00"],
     "I've refunded $55.00 on PAY-312 and left PAY-309 as it was.", True),
    ("Confirms the $55.00 refund of the duplicate charge PAY-312.", ["PAY-312", "55.00"],
     "PAY-312 (the duplicate) is refunded: $55.00 is on its way back.", True),
    # a movement's source and target are one group: both are its object
    ("Confirms $300.00 moved from ACC-41 to ACC-42.", ["300.00"], "Done - $300.00 went from ACC-41 into your savings ACC-42.", True),
    # a long match: the distance to its object counts from its end
    ("Confirms the Spring sale banner BNR-22 is attached to CMP-801.", [["BNR-22", "Spring sale banner"]],
     "All set: the Spring sale banner BNR-22 is now showing on Autumn Clearance (CMP-802).", False),
    ("Confirms the Spring sale banner BNR-22 is attached to CMP-801.", [["BNR-22", "Spring sale banner"]],
     "All set: the Spring sale banner BNR-22 is now showing on the Easter Weekend campaign (CMP-801).", True),
    ("Confirms the Spring sale banner BNR-22 is attached to CMP-801.", [["BNR-22", "Spring sale banner"]],
     "CMP-801 now carries the Spring sale banner.", True),
]


@pytest.mark.parametrize(("criterion", "evidence", "reply", "expected"), CASES)
def test_round5_subjects(criterion: str, evidence: list, reply: str, expected: bool) -> None:
    assert passes(criterion, evidence, reply) is expected
