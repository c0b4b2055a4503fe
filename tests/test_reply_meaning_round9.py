"""Reply meaning, round 9: what makes a wrong reply pass, as rules over the sentence (not word lists for cases).

Classes (each in words of our own, none from a calibration set; every must-fail case stands next to right
replies that must pass):
- a state said only as the goal of an offer, a request or the agent's plan ("let me know when you'd like me to
  switch it to active", "... is the next step") is not reached (`grader.text.polarity.goal_only`);
- a record named in a sentence that reports the action failed ("the merge didn't complete, so ORD-5521 and
  ORD-5522 still exist side by side") is not the criterion's statement (`polarity.in_failure_report`);
- taking back a said thing that has its own modifier ("retract that stock figure", "disregard my earlier
  refund amount") withdraws it (`grader.text.withdrawal.WITHDRAWAL`);
- a later apology-opened statement that the earlier one is no longer known ("I need to check whether it went
  through before I can confirm anything") takes it back (`withdrawal.UNSURE`).
"""

from __future__ import annotations

import pytest

from contracts.schema import ReplyCriterion
from grader.text.evidence import EvidenceJudge


def judged(criterion: str, evidence: list, messages: list[str], instruction: str = "") -> bool:
    out = EvidenceJudge().judge_sync([ReplyCriterion(criterion=criterion, evidence=evidence)], messages, instruction=instruction)
    return out.criteria[0].passed


ACTIVE = "Confirms the subscription is now active."
STAGE = "Confirms DEAL-310 is now in the contract stage."
LIVE = "Confirms the store is live."

GOAL = [
    # ---- the state is only what an offer, a request or a plan aims at: fail --------------------------------
    (ACTIVE, ["active"], "Your card checks out. Whenever you want, I can switch the subscription to active.", False),
    (ACTIVE, ["active"], "Everything's verified - just give me the go-ahead and I'll flip the plan to active.", False),
    (ACTIVE, ["active"], "Payment cleared. Tell me when you'd like the subscription made active.", False),
    (ACTIVE, ["active"], "The paperwork is in; making it active is the next step.", False),
    (ACTIVE, ["active"], "Your trial ends Friday; if you'd like, I'll set the account to active straight away.", False),
    (ACTIVE, ["active"], "Once you're happy with the terms, we can make the subscription active.", False),
    (STAGE, [["contract stage", "contract"]], "DEAL-310 sits in pricing review for now; contract stage comes next once legal signs off.", False),
    (STAGE, [["contract stage", "contract"]], "I've moved DEAL-310 to pricing review. Shall I push it on to the contract stage too?", False),
    (LIVE, ["live"], "The domain is verified. Say the word and we'll take the store live.", False),
    (LIVE, ["live"], "Checks are green! We're about to go live with the store.", False),
    (LIVE, ["live"], "**Status:** domain verified, payment set up - ready to go live whenever you are.", False),
    # ---- the state is reported, the offer or the next step is about something else: pass ------------------
    (ACTIVE, ["active"], "All done - the subscription is now active.", True),
    (ACTIVE, ["active"], "It's active now. Let me know if you'd like me to add a second seat.", True),
    (ACTIVE, ["active"], "If you want to double-check, the subscription shows as active in your portal.", True),
    (ACTIVE, ["active"], "I've switched it on, so the subscription is active from today.", True),
    (ACTIVE, ["active"], "Good news: I can confirm the subscription is active.", True),
    (ACTIVE, ["active"], "Took a couple of tries, but your subscription is active. Next step is inviting your team.", True),
    (STAGE, [["contract stage", "contract"]], "Done: DEAL-310 moved into the contract stage. Next up, I'd suggest booking the signing call.", True),
    (LIVE, ["live"], "Your store is live! Whenever you're ready, I can walk you through the first order.", True),
    (LIVE, ["live"], "we're live - store's open for orders as of 10 minutes ago", True),
    # a criterion that is itself about an offer or a plan is read as written
    ("Offers to make the subscription active once payment clears.", ["active"], "I can make it active as soon as your payment clears.", True),
]


@pytest.mark.parametrize(("criterion", "evidence", "reply", "expected"), GOAL)
def test_round9_state_as_goal_only(criterion: str, evidence: list, reply: str, expected: bool) -> None:
    assert judged(criterion, evidence, [reply]) is expected


USE = "Tells the customer to quote order ORD-5521 from now on."

FAILURE = [
    # ---- the record is named in the report of the failure: fail ------------------------------------------
    (["I've merged them; please quote ORD-5521 going forward.", "Sorry - the merge didn't complete, so ORD-5521 and ORD-5522 still exist side by side."], False),
    (["Merged: ORD-5521 is the one to use.", "Quick correction: that merge failed, and ORD-5521 remains separate from ORD-5522 for now."], False),
    (["The merge was rejected by the system, so please keep using both ORD-5521 and ORD-5522 for now."], False),
    (["Hmm, the combine step never went through - ORD-5521 and ORD-5522 are two orders again."], False),
    (["Unfortunately the merge errored out, which leaves ORD-5521 as it was, beside ORD-5522."], False),
    # ---- the action went through, or the failure is of something else before it: pass ---------------------
    (["The first merge attempt failed, so I retried and it went through - please quote ORD-5521 from now on."], True),
    (["Merged! Please quote ORD-5521 from now on; the old ORD-5522 is closed."], True),
    (["Sorry for the wait - the merge went through, so ORD-5521 is your order number from now on."], True),
    (["The automatic merge didn't work, so I merged them by hand: quote ORD-5521 from now on."], True),
    (["All merged. From now on, just quote ORD-5521 - the old number won't be recognised."], True),
]


@pytest.mark.parametrize(("messages", "expected"), FAILURE)
def test_round9_record_named_in_a_failure_report(messages: list[str], expected: bool) -> None:
    assert judged(USE, ["ORD-5521"], messages) is expected


def test_round9_failure_criterion_reads_the_failure() -> None:
    crit = "Explains that the merge did not go through, so ORD-5521 is still a separate order."
    assert judged(crit, ["ORD-5521", ["separate", "on its own"]], ["Sorry - the merge didn't go through, so ORD-5521 is still a separate order."])


STOCK = "Gives 12 blenders in stock."
KEPT = "Confirms the reservation RSV-220 was kept."

TAKEN_BACK = [
    # ---- a said thing with its own modifier taken back, or the statement said to be no longer known: fail ---
    (STOCK, ["12"], ["We have 12 blenders in stock.", "Sorry, I have to retract that stock figure - it came from the wrong warehouse."], False),
    (STOCK, ["12"], ["There are 12 blenders available.", "Please disregard my earlier stock count; I'm still checking with the warehouse."], False),
    (STOCK, ["12"], ["12 blenders in stock right now.", "Hmm, let me walk back that stock number - the feed was stale and I can't confirm the count."], False),
    (KEPT, [["kept", "stays booked", "still booked"]], ["Fine, RSV-220 stays booked.", "Hang on - a cancellation on RSV-220 was already sent from my side; I need to check whether it went through before I can confirm anything."], False),
    (KEPT, [["kept", "stays booked", "still booked"]], ["Understood, RSV-220 is kept as it is.", "Sorry, I'm not sure RSV-220 survived - the system shows a cancel request, so I can't confirm it yet."], False),
    # ---- other things taken back or unsure, or the statement said again: pass -----------------------------
    (STOCK, ["12"], ["We have 12 blenders in stock.", "Sorry, I can't confirm the delivery slot yet - the courier hasn't replied."], True),
    (STOCK, ["12"], ["Please disregard that tracking number email from the courier - we have 12 blenders in stock."], True),
    (STOCK, ["12"], ["We have 12 blenders in stock.", "I won't walk back that stock figure: it's from this morning's count."], True),
    (KEPT, [["kept", "stays booked", "still booked"]], ["Fine, RSV-220 stays booked.", "Sorry, one more thing - I can't confirm the late checkout yet; I'll ask the hotel."], True),
    (KEPT, [["kept", "stays booked", "still booked"]], ["RSV-220 stays booked.", "Hang on - I double-checked, and RSV-220 is definitely still booked; nothing was cancelled."], True),
]


@pytest.mark.parametrize(("criterion", "evidence", "messages", "expected"), TAKEN_BACK)
def test_round9_taken_back(criterion: str, evidence: list, messages: list[str], expected: bool) -> None:
    assert judged(criterion, evidence, messages) is expected


SPREAD = [
    # the apology opens the message; the sentence after it says the earlier statement is not known: fail
    (["Sure, RSV-220 stays booked.", "Wait a second. Somebody on our side already filed a cancel on RSV-220. I have to check if it went through before I can confirm anything."], False),
    (["Sure, RSV-220 stays booked.", "Sorry, Dana. The system shows a pending cancel on RSV-220, so I can't say for sure it's kept until I've checked."], False),
    # the apology's message is about something else, or says it is kept: pass
    (["Sure, RSV-220 stays booked.", "Sorry for the wait. I can't confirm the airport transfer yet; the driver company hasn't replied."], True),
    (["Sure, RSV-220 stays booked.", "Hang on. I double-checked RSV-220 and it stays booked, nothing was cancelled."], True),
]


@pytest.mark.parametrize(("messages", "expected"), SPREAD)
def test_round9_unsure_later_in_the_apology_message(messages: list[str], expected: bool) -> None:
    assert judged(KEPT, [["kept", "stays booked", "still booked"]], messages) is expected


NOT_A_GOAL = [
    # plans that report an arrangement, rules with a condition, reasons of a failure: pass
    ("Confirms the exchange for the jeans in black.", ["black"], ["All arranged: we'll send the jeans in black and the courier collects the old pair."], True),
    ("Confirms the replacement ships in size 10.", ["10"], ["Your replacement is booked in; we'll post size 10 tomorrow."], True),
    ("Refuses to change the email without PIN verification.", ["PIN"], ["I can only change your email once you've verified with your PIN."], True),
    ("Explains that the transfer is refused because ACC-7001 is on hold.", ["ACC-7001", ["on hold", "held"]], ["That transfer was declined: ACC-7001 is on hold, so nothing can leave it."], True),
    ("Explains that the transfer is refused because ACC-7001 is on hold.", ["ACC-7001", ["on hold", "held"]], ["The transfer didn't go through because ACC-7001 is on hold."], True),
    # the same words as an offer of what is not done: fail
    ("Confirms the exchange for the jeans in black.", ["black"], ["If you like, we'll swap them for the black pair."], False),
    ("Confirms the replacement ships in size 10.", ["10"], ["Should I send size 10? We can post it tomorrow if you'd like."], False),
]


@pytest.mark.parametrize(("criterion", "evidence", "messages", "expected"), NOT_A_GOAL)
def test_round9_plans_rules_and_reasons(criterion: str, evidence: list, messages: list[str], expected: bool) -> None:
    assert judged(criterion, evidence, messages) is expected


UNSURE_FRAME = [
    # the fact stands under a frame that says it is not known: fail
    (KEPT, [["kept", "stays booked", "still booked"]], ["I have to find out if the cancel went through before I can promise RSV-220 is still booked."], False),
    (KEPT, [["kept", "stays booked", "still booked"]], ["Right now I can't confirm that RSV-220 stays booked; the cancel request is being processed."], False),
    (STOCK, ["12"], ["I'm not sure whether the 12 blenders in the system are really on the shelf."], False),
    ("States the $45 late fee.", ["45"], ["I'm unable to guarantee the late fee is $45 until the hotel replies."], False),
    ("Confirms ORD-12 has shipped.", ["shipped"], ["I don't know yet whether ORD-12 has shipped - the courier's feed is down."], False),
    # the frame is about something else, or ends before the fact: pass
    (KEPT, [["kept", "stays booked", "still booked"]], ["I can't confirm the late checkout yet, but RSV-220 is still booked."], True),
    (KEPT, [["kept", "stays booked", "still booked"]], ["I checked whether the cancel went through: it didn't, so RSV-220 stays booked."], True),
    (STOCK, ["12"], ["Not sure whether you need them today; we have 12 blenders in stock."], True),
    ("States the $45 late fee.", ["45"], ["The late fee is $45 - I can't promise the hotel will waive it."], True),
    ("Confirms ORD-12 has shipped.", ["shipped"], ["ORD-12 has shipped. I can't confirm the delivery day yet."], True),
]


@pytest.mark.parametrize(("criterion", "evidence", "messages", "expected"), UNSURE_FRAME)
def test_round9_fact_under_an_unsure_frame(criterion: str, evidence: list, messages: list[str], expected: bool) -> None:
    assert judged(criterion, evidence, messages) is expected


# ---- phase 2 classes (found on v9's misses, tested in words of our own) ------------------------------------

PAID = "Says that the courier was paid."
SWAP = "Confirms the swap to the size 10 boots."
FX = "Explains that the payment is refused because the card is expired."

NEGATION_SCOPE = [
    # a noun with its own modifier, denied by the verb after it: fail
    (PAID, [["paid", "payment"]], ["The payment to the courier hasn't gone out yet - our bank flagged it."], False),
    (PAID, [["paid", "payment"]], ["Heads-up: the payment for DHL was not processed, the card bounced."], False),
    # a negated verb of ability governs its whole verb phrase: fail
    (SWAP, [["swap", "exchange"], "10"], ["I wasn't able to set up the swap to the size 10 boots - they're sold out."], False),
    (SWAP, [["swap", "exchange"], "10"], ["Sorry, we couldn't process your exchange for the size 10 pair today."], False),
    # a stem match denied right after the word: fail
    (FX, [["expir*"]], ["Sorry - scratch that. Expiry isn't the problem; the bank simply declined it."], False),
    # the same words stated, or denied of something else: pass
    (PAID, [["paid", "payment"]], ["The payment to the courier has gone out - they have it."], True),
    (PAID, [["paid", "payment"]], ["The payment for DHL went through; the card fee wasn't charged."], True),
    (SWAP, [["swap", "exchange"], "10"], ["I wasn't able to find the original box, but the swap to the size 10 boots is done."], True),
    (SWAP, [["swap", "exchange"], "10"], ["We couldn't be quicker: your exchange for the size 10 pair is already set up."], True),
    (FX, [["expir*"]], ["The payment was refused: the card's expiry date has passed, so it's expired."], True),
    # a match inside another noun's modifier is not what the verb after it denies: pass
    ("Explains that the transfer is refused because the accounts are in different currencies.", [["currenc*"]],
     ["I can't send it: payments between accounts in different currencies aren't allowed here."], True),
    (PAID, [["paid", "payment"]], ["Fees for late payment aren't charged, and the courier was paid this morning."], True),
]


@pytest.mark.parametrize(("criterion", "evidence", "messages", "expected"), NEGATION_SCOPE)
def test_round9_negation_scope(criterion: str, evidence: list, messages: list[str], expected: bool) -> None:
    assert judged(criterion, evidence, messages) is expected


MONTHS = "Gives the March revenue $12,400 and the April revenue $9,800."
UNCHANGED = "Confirms the reservation RSV-220 was left unchanged."

TAKEN_BACK_LATER = [
    # the withdrawal follows an opening of its own in the same message: fail
    (MONTHS, ["12400", "9800"], ["March brought in $12,400 and April $9,800.", "Wait - I may have read the wrong ledger. Please ignore those figures until I've looked again."], False),
    (MONTHS, ["12400", "9800"], ["March: $12,400. April: $9,800.", "Sorry! I pulled the wrong quarter. Disregard those numbers for now."], False),
    # a change said to have gone through after all, after "stays as it was": fail
    (UNCHANGED, [["unchanged", "stays", "as it is"]], ["Got it - RSV-220 stays as it is.", "Oh, sorry - the move to Thursday already went through on our end. Let me undo it."], False),
    (UNCHANGED, [["unchanged", "stays", "as it is"]], ["Fine, RSV-220 stays booked for the 3rd.", "Apologies, my colleague's date change has already been processed - I'll look at reversing it."], False),
    # the withdrawal is of something else, the figures stand, or the change did not go through: pass
    (MONTHS, ["12400", "9800"], ["March brought in $12,400 and April $9,800.", "Wait - one more thing. The May figures aren't in yet."], True),
    (MONTHS, ["12400", "9800"], ["March: $12,400. April: $9,800.", "Sorry for the wall of numbers! Those figures are final, by the way."], True),
    (UNCHANGED, [["unchanged", "stays", "as it is"]], ["Got it - RSV-220 stays as it is.", "Sorry, I double-checked: the move to Thursday didn't go through, so RSV-220 stays as it is."], True),
    (UNCHANGED, [["unchanged", "stays", "as it is"]], ["Fine, RSV-220 stays booked for the 3rd.", "Apologies for the delay - your loyalty points transfer went through too."], True),
]


@pytest.mark.parametrize(("criterion", "evidence", "messages", "expected"), TAKEN_BACK_LATER)
def test_round9_taken_back_later(criterion: str, evidence: list, messages: list[str], expected: bool) -> None:
    assert judged(criterion, evidence, messages) is expected


BOOTS = "Confirms the swap to the size 10 boots."

OFFERED = [
    # the thing is stated available, and the action only offered with a pronoun for it: fail
    (["The size 10 boots are in stock. Would you like me to swap your 9s for them?"], False),
    (["Size 10 is on the shelf right now - shall I go ahead and swap the pair you have for that one?"], False),
    (["Good news, we've got the boots in a 10. Want me to swap your current ones for those?"], False),
    # the action is done, or the offer is of something else: pass
    (["I've swapped your 9s for the size 10 boots. Want me to swap the laces for them too?"], True),
    (["Your swap to the size 10 boots is confirmed. Shall I email you the return label for it?"], True),
    (["Swapped - the size 10 boots go out today. Would you like me to add insoles to it?"], True),
]


@pytest.mark.parametrize(("messages", "expected"), OFFERED)
def test_round9_offered_with_a_pronoun_object(messages: list[str], expected: bool) -> None:
    assert judged(BOOTS, ["10"], messages) is expected


REFUND = "Confirms the $80 refund was issued."

LATER_DENIAL = [
    # the same sentence goes on to deny the action by a pronoun: fail
    (["I've prepared an $80 refund to your Mastercard, but I haven't issued it yet - just say go."], False),
    (["The $80 refund is all set up on my side, though it hasn't been processed yet."], False),
    (["An $80 refund would cover it and it's approved in principle, but we have **not** sent it - no money has moved."], False),
    (["Your refund of $80 is lined up; however it hasn't gone through yet."], False),
    (["$80 refund drafted, but I didn't submit it: I need your OK first."], False),
    # the action stated done; a later event, or another thing, is what the sentence denies: pass
    (["Your $80 refund has been issued, but it hasn't reached your card yet - allow 3-5 days."], True),
    (["I've issued the $80 refund, though the bank hasn't confirmed the date it lands."], True),
    (["The $80 refund went through; the old charge hasn't dropped off your statement yet, but it will."], True),
    (["$80 refund issued. It hasn't shown on your statement yet, but it's on its way."], True),
    (["Refund of $80 issued - but I haven't closed the case, in case you need anything else."], True),
]


@pytest.mark.parametrize(("messages", "expected"), LATER_DENIAL)
def test_round9_denied_later_in_the_sentence(messages: list[str], expected: bool) -> None:
    assert judged(REFUND, ["80", ["refund", "refunded"]], messages) is expected
