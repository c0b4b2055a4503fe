"""Subjects and false passes, round 3: replies that state the right value or word of the wrong thing (a subject
the reply sets aside, a record moved the other way, another date, another period, a range's end), a negative
criterion stated positively, a figure said to be provisional.
Cases in words of their own (none from a calibration set); each must-fail case stands next to a right reply
that must pass."""

from __future__ import annotations

import pytest

from tests.reply_judge import passes


CASES = [
    # a colon's clause is about what the clause before it names
    ("Confirms the note about the router in the basement was added to INC-2205.", ["basement"],
     "I've put the note on INC-2204: router in the basement, side gate unlocked.", False),
    ("Confirms the note about the router in the basement was added to INC-2205.", ["basement"],
     "I've put the note on INC-2205: router in the basement, side gate unlocked.", True),
    # an object after a thousands comma is still reached ("$2,500.00 moved from ACC-2002")
    ("Confirms the $2,500 payment from ACC-2001 with its transfer id.", ["2500", "XFER-"],
     "Sent - $2,500.00 moved from your checking ACC-2002 to ACC-2003 (ref XFER-77QQ1A).", False),
    ("Confirms the $2,500 payment from ACC-2001 with its transfer id.", ["2500", "XFER-"],
     "Sent - $2,500.00 moved from your checking ACC-2001 to ACC-2003 (ref XFER-77QQ1A).", True),
    # a record stated as the target when the criterion has it as the source (and the other way round)
    ("Shows the $310.00 transfer XFER-AB12CD from ACC-2001 to ACC-2009.", ["XFER-AB12CD", "310"],
     "XFER-AB12CD brought $310.00 into ACC-2001 from ACC-2009.", False),
    ("Shows the $310.00 transfer XFER-AB12CD from ACC-2001 to ACC-2009.", ["XFER-AB12CD", "310"],
     "XFER-AB12CD: $310.00 sent out of ACC-2001 to ACC-2009.", True),
    # the criterion's subject set aside as left as it was, the match said of another plain-noun thing
    ("Confirms the kettle return with a $35.00 refund.", ["35.00"],
     "The toaster return is booked with a $35.00 refund; the kettle stays with you, it was a clearance item.", False),
    ("Confirms the kettle return with a $35.00 refund.", ["35.00"],
     "Your kettle return is booked with a $35.00 refund; the toaster stays with you.", True),
    ("Confirms the kettle return with a $35.00 refund.", ["35.00"],
     "The kettle return is booked and $35.00 comes back to your card. Nothing else on the order changes.", True),
    ("Gives 12 in stock for the small navy one.", ["12"],
     "There are 12 of the extra-large red left; the small navy I'll have to check separately.", False),
    ("Gives 12 in stock for the small navy one.", ["12"],
     "The small navy has 12 left; the extra-large red stays sold out.", True),
    ("Confirms the boiler work order WO-8801 is now high priority.", [["WO-8801", "boiler"], "high"],
     "Your dishwasher job is now high priority. The boiler order WO-8801 is untouched.", False),
    ("Confirms the boiler work order WO-8801 is now high priority.", [["WO-8801", "boiler"], "high"],
     "The boiler order WO-8801 is now high priority; the dishwasher job is untouched.", True),
    # a named person set aside while the match is said of the caller
    ("Confirms Priya Nair's new seat 7C.", ["7C"],
     "All set, you're in 7C now; Priya keeps her aisle seat.", False),
    ("Confirms Priya Nair's new seat 7C.", ["7C"],
     "Priya Nair is now in 7C; your own seat stays as it is.", True),
    # a negative criterion stated positively
    ("Explains that the billing currency cannot change after the first invoice.", ["currency", "invoice"],
     "Switching the currency is fine even after the first invoice; I'll sort it now.", False),
    ("Explains that the billing currency cannot change after the first invoice.", ["currency", "invoice"],
     "Once the first invoice is issued, the billing currency is locked.", True),
    ("Explains that the billing currency cannot change after the first invoice.", ["currency", "invoice"],
     "After the first invoice the currency stays what it is, I'm afraid.", True),
    ("Makes clear that a gift card does not help while the wallet is suspended.", [["gift card", "any method"]],
     "A gift card would get around that, as it's a separate balance. Shall I apply one?", False),
    ("Makes clear that a gift card does not help while the wallet is suspended.", [["gift card", "any method"]],
     "A gift card won't get around the suspension either.", True),
    # a criterion that opens a fact at a time is not met by that time as a range's end
    ("Confirms the visit is now on Friday at 14:00 (until 16:00).", ["14:00"],
     "Moved: your visit is on Friday, 12:00-14:00.", False),
    ("Confirms the visit is now on Friday at 14:00 (until 16:00).", ["14:00"],
     "Moved: your visit is on Friday, 14:00-16:00.", True),
    # money per another period is another fact
    ("Tells the customer the pro plan costs $49 per month.", ["49"],
     "The pro plan is $49 a year.", False),
    ("Tells the customer the pro plan costs $49 per month.", ["49"],
     "The pro plan comes to $49/month.", True),
    ("Tells the customer the pro plan costs $49 per month.", ["49"],
     "Pro is $49, billed monthly.", True),
    # a match placed on another date than the criterion's
    ("Explains that Dana Wright is on leave on 8 December.", [["leave", "off"]],
     "Dana Wright is on leave on 9 December, so she can't take the job.", False),
    ("Explains that Dana Wright is on leave on 8 December.", [["leave", "off"]],
     "Dana Wright is on leave on Tuesday 8 December.", True),
    ("Explains that Dana Wright is on leave on 8 December.", [["leave", "off"]],
     "Dana Wright is on leave that day, so she can't take the job.", True),
    # a figure said afterwards to be provisional is taken back
    ("Confirms the segment has 14 contacts.", ["14"],
     ["The segment has 14 contacts.", "Wait - that number was based on the draft list. I'll confirm the final count shortly."], False),
    ("Confirms the segment has 14 contacts.", ["14"],
     ["The segment has 14 contacts.", "It's saved, so you can use it in the campaign."], True),
    ("Confirms the segment has 14 contacts.", ["14"],
     ["The segment has 14 contacts.", "Mind you, that's only an estimate until it refreshes."], False),
]


@pytest.mark.parametrize(("criterion", "evidence", "messages", "expected"), CASES)
def test_round3_subjects(criterion: str, evidence: list, messages: list[str] | str, expected: bool) -> None:
    assert passes(criterion, evidence, messages) is expected
