"""Subjects and values, round 4: replies that state the criterion's word or value of the right thing but say the
opposite of it (not to be had, left as it was, a negated verb, the bare word of an un-word), count one mention
for two items, drop a question word the item is about, or put a value under another fact's label.
Cases in words of their own (none from a calibration set); each must-fail case stands next to right replies
that must pass (several records each with its own state, the value in another form, the criterion's own
negative)."""

from __future__ import annotations

import pytest

from tests.reply_judge import passes

CASES = [
    # ---- the criterion's subject is said to be not to be had -------------------------------------------
    ("Says the 42 mm strap is in stock.", ["42 mm"], "The 42 mm strap is sold out at the moment, sorry!", False),
    ("Says the 42 mm strap is in stock.", ["42 mm"], "Good news: the 42 mm strap is in stock and ships tomorrow.", True),
    ("Says the 42 mm strap is in stock.", ["42 mm"], "Good news: the 42 mm strap is in stock; the 38 mm one is sold out.", True),
    ("Tells the customer that size 7 is available and size 6 is not.", ["7"], "Size 7 is out of stock, but size 6 is available.", False),
    ("Tells the customer that size 7 is available and size 6 is not.", ["7"], "Size 7 is available, but size 6 is out of stock.", True),
    ("Tells the customer that size 7 is available and size 6 is not.", ["7"], "Size 6 has gone, I'm afraid - size 7 is still available though.", True),
    ("Says the charcoal colour is available in a large.", ["charcoal"], "In a large, the charcoal is currently unavailable; olive is fine.", False),
    ("Says the charcoal colour is available in a large.", ["charcoal"], "In a large, the charcoal's available - olive is unavailable.", True),
    ("Says the teal mug is sold out.", ["teal", ["sold out", "out of stock"]], "The teal mug is sold out right now.", True),
    ("Says the teal mug is sold out.", ["teal", ["sold out", "out of stock"]], "Afraid the teal one is out of stock.", True),
    # ---- the change left the criterion's record as it was ---------------------------------------------
    ("Confirms ROLE-FIN-EDIT is removed from Dana Cole.", ["ROLE-FIN-EDIT", "removed"],
     "Dana Cole's read-only role is removed; her ROLE-FIN-EDIT stays in place.", False),
    ("Confirms ROLE-FIN-EDIT is removed from Dana Cole.", ["ROLE-FIN-EDIT", "removed"],
     "ROLE-FIN-EDIT has been removed from Dana Cole; her read-only role stays.", True),
    ("Confirms ROLE-FIN-EDIT is removed from Dana Cole.", ["ROLE-FIN-EDIT", "removed"],
     "Dana Cole's ROLE-FIN-EDIT was removed just now; nothing else changed.", True),
    ("Confirms the ticket TKT-310 stays open.", ["TKT-310", "open"], "TKT-310 stays open until the vendor replies.", True),
    # ---- a negated verb of the criterion's own, or of having ------------------------------------------
    ("Confirms HubSpot and Zendesk are linked.", ["HubSpot", "Zendesk"], "HubSpot is linked. Zendesk couldn't be linked - the token expired.", False),
    ("Confirms HubSpot and Zendesk are linked.", ["HubSpot", "Zendesk"], "HubSpot and Zendesk are both linked now.", True),
    ("Confirms HubSpot and Zendesk are linked.", ["HubSpot", "Zendesk"], "HubSpot is linked, and Zendesk's linked too. The Jira one couldn't be linked.", True),
    ("Says the pro tier includes audit logs.", ["pro", "audit logs"], "Audit logs come with the premium tier; pro doesn't have them.", False),
    ("Says the pro tier includes audit logs.", ["pro", "audit logs"], "Yes - the pro tier includes audit logs; basic doesn't have them.", True),
    ("Explains the refund request RR-88 is handled by the payments desk.", ["payments", "RR-88"],
     "RR-88 is with the returns desk; the payments team has nothing to do with it.", False),
    ("Explains the refund request RR-88 is handled by the payments desk.", ["payments", "RR-88"],
     "RR-88 is handled by the payments desk - they'll decide it.", True),
    ("Explains the PIN did not match, so nothing can be changed.", [["did not match", "doesn't match"]],
     "That PIN doesn't match our records, so I can't change anything.", True),
    # ---- the bare word of the criterion's un-word -----------------------------------------------------
    ("Names the two unshipped orders.", ["ORD-51", "ORD-52"], "ORD-51 is still being packed. ORD-52 was shipped on Monday.", False),
    ("Names the two unshipped orders.", ["ORD-51", "ORD-52"], "ORD-51 and ORD-52 haven't shipped yet.", True),
    ("Names the two unshipped orders.", ["ORD-51", "ORD-52"], "Still waiting to go out: ORD-51 (packing) and ORD-52 (awaiting stock).", True),
    ("Names the two unpaid invoices.", ["INV-7", "INV-9"], "INV-7 is overdue; INV-9 was paid last week.", False),
    ("Names the two unpaid invoices.", ["INV-7", "INV-9"], "INV-7 and INV-9 are both still open.", True),
    # ---- one mention counted for two items -----------------------------------------------------------
    ("States the plan Premier Fibre and the premier support level.", ["Premier Fibre", "premier"],
     "You're on Premier Fibre with the basic support level.", False),
    ("States the plan Premier Fibre and the premier support level.", ["Premier Fibre", "premier"],
     "You're on Premier Fibre, and your support level is premier too.", True),
    ("States the plan Premier Fibre and the premier support level.", ["Premier Fibre", "premier"],
     "Plan: Premier Fibre. Support level: Premier.", True),
    # the containing phrase adds only grammar (a quantity, a negation): one mention states both (lead)
    ("Says there are no cabins left on that sailing.", ["cabins", ["no cabins", "none left"]],
     "I'm afraid there are no cabins left on that sailing.", True),
    ("Says there are no cabins left on that sailing.", ["cabins", ["no cabins", "none left"]],
     "I'm afraid there are no rooms left on that sailing.", False),
    # ---- a question word the item is about -----------------------------------------------------------
    ("Asks which Patel the caller is before changing anything.", [["which Patel", "which account"]],
     "All done, Mr. Patel - your address is updated.", False),
    ("Asks which Patel the caller is before changing anything.", [["which Patel", "which account"]],
     "We have two account holders named Patel, so first I need to know which Patel I'm speaking with.", True),
    ("Asks which Patel the caller is before changing anything.", [["which Patel", "which account"]],
     "There are two Patels on file, so I'll need to confirm which account is yours before I change anything.", True),
    # ---- money under the other direction's label -----------------------------------------------------
    ("States the $215 train refund.", [["$215", "215.00"]], "Cancelling the train would cost a $215.00 penalty; the hotel is refundable.", False),
    ("States the $215 train refund.", [["$215", "215.00"]], "The train cancels with a $215.00 refund to your card.", True),
    ("States the $215 train refund.", [["$215", "215.00"]], "You'll get $215 back for the train - there's no fee.", True),
    ("Explains the $60 change fee.", ["60"], "Changing it carries a $60 fee.", True),
    ("Explains the $60 change fee.", ["60"], "You'd be refunded $60 for the change.", False),
    # ---- a rate of another kind ----------------------------------------------------------------------
    ("Gives the Spring Promo conversion rate of 2.5%.", [["2.5%"]], "The Spring Promo had a bounce rate of 2.5%.", False),
    ("Gives the Spring Promo conversion rate of 2.5%.", [["2.5%"]], "The Spring Promo had a conversion rate of 2.5%.", True),
    ("Gives the Spring Promo conversion rate of 2.5%.", [["2.5%"]], "Spring Promo converted at 2.5%, with a 40% open rate.", True),
    ("Gives the Spring Promo conversion rate of 2.5%.", [["2.5%"]], "Spring Promo: 2.5% conversion rate.", True),
]


@pytest.mark.parametrize(("criterion", "evidence", "messages", "expected"), CASES)
def test_subjects_round4(criterion: str, evidence: list, messages: str, expected: bool) -> None:
    assert passes(criterion, evidence, messages) is expected
