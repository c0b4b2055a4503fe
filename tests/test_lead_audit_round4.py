"""The lead's own audit sentences after round 4 (issue 37), in words no calibration set uses: a deferral that
leaves the decision to the customer, a transaction verb on "it" answering a proposal, an answer that sets
aside a term of the decision, and an offer made as a statement. Each class with its counterparts."""

from __future__ import annotations

import pytest

from contracts.schema import ConsentCheck
from grader.consent import decide
from tests.consent_model import ask
from tests.reply_judge import passes

CHECK = ConsentCheck(tool="issue_refund", decision="refund $45.00 for ORD-9001 to the original card", proposal=["refund"], upfront=False)
PROPOSAL = "I can refund $45.00 for ORD-9001 to your original card. Shall I go ahead?"
CALL = {"order_id": "ORD-9001", "amount": 45.0}


def granted(answer: str) -> bool:
    return decide(ask(CHECK, [("user", "I want my money back for ORD-9001."), ("assistant", PROPOSAL), ("user", answer)], CALL)).granted


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # the decision left to the customer, later
        ("Send me the details first and I'll decide.", False),
        ("Email the breakdown over, then I'll make up my mind.", False),
        ("I haven't decided yet, to be honest.", False),
        ("Right, go ahead - I've decided.", True),
        # a transaction verb on "it" answers the proposal
        ("Please just process it, I trust you.", True),
        ("Yes, put it through.", True),
        ("Get it done, thanks.", True),
        ("No, don't process it.", False),
        ("Process it later, not now.", False),
        # a term of the decision set aside
        ("Refund it to my gift card, not the original card.", False),
        ("Rather than the card, can it go to PayPal?", False),
        ("Yes, not a problem at all.", True),
        ("Sure - rather than waiting, just refund it now.", True),
    ],
)
def test_consent_audit(answer: str, expected: bool) -> None:
    assert granted(answer) is expected


REFUND = ("States that the refund of $45.00 was issued to the original card.", ["45.00", ["refund", "refunded"], ["original card", "card it was paid with"]])


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("I could refund $45.00 to your original card if you like.", False),
        ("If you'd like, I can refund $45.00 to your original card.", False),
        ("Say the word and I'll refund $45.00 to your original card.", False),
        ("I've refunded $45.00 to your original card, and I can email you a receipt if you like.", True),
        ("The $45.00 refund to your original card is done - I can also send a receipt if you want.", True),
        ("Your $45.00 refund went back to the original card. If you'd like, I can send the receipt too.", True),
    ],
)
def test_an_offer_made_as_a_statement_is_asked_not_stated(reply: str, expected: bool) -> None:
    assert passes(*REFUND, reply) is expected


def test_a_prospective_framing_is_not_the_state() -> None:
    assert not passes("Tells the customer that order ORD-9001 was delivered on 20 November.", ["ORD-9001", "delivered", "2026-11-20"],
                      "ORD-9001 is due to be delivered on 20 November.")
