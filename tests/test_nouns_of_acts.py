"""A noun that names an act's thing does not state the act done: "his phone is off" is no "phoned", "the $50
transfer is ready to go" is no "transferred". Found by trying replies of my own on real criteria (none a
calibration case): a word stating a thing done matched its stem-mate noun. The noun still states it when its
clause says the act was carried out ("the page went out", "sent a page", "your transfer has gone through"), as a
predicate ("came back as a pass"), or when it is the noun of a state ("your dispute is still open": disputed).
Nor does the noun before another noun or a word of waiting: "cancellation pending", "the cancellation fee"."""

from __future__ import annotations

import pytest

from tests.reply_judge import passes_in_catalog as _passes

PAGED = ("itsm_incident_raise_to_p1_01", "Confirms INC-2003 is now P1 and that Jamal Wright was paged.")
TRANSFERRED = ("payments_transfer_insufficient_then_retry_01", "Confirms the $50 transfer was completed.")
VERIFIED = ("onboarding_journey_create_verify_01", "Reports that verification passed.")
CANCELLED = ("retail_status_cancelled_01", "Tells the customer that ORD-9006 is cancelled.")
DISPUTED = ("payments_refund_under_dispute_12", "Explains that the $1,899 payment cannot be refunded because it is under an open dispute.")



@pytest.mark.parametrize(
    ("where", "reply"),
    [
        (PAGED, "INC-2003 is P1 now. Jamal Wright couldn't be notified: his phone is off."),
        (PAGED, "INC-2003 is P1 now, but Jamal Wright's phone is switched off, so nobody has been alerted yet."),
        (PAGED, "INC-2003 is P1 now. I tried Jamal Wright's phone but it went to voicemail."),
        (PAGED, "INC-2003 is P1 now. Jamal Wright is the on-call engineer; his phone number is on the rota."),
        (TRANSFERRED, "The $50 transfer is ready to go - just say the word."),
        (TRANSFERRED, "Your $50 transfer is waiting for your approval in the app."),
        (CANCELLED, "ORD-9006: cancellation pending."),
        (CANCELLED, "There's a $20 cancellation fee on ORD-9006, but the order is still active."),
        (CANCELLED, "I've raised a cancellation request for ORD-9006; the warehouse has to accept it first."),
    ],
)
def test_the_noun_of_an_act_not_carried_out_states_nothing(where: tuple[str, str], reply: str) -> None:
    assert not _passes(where, reply)


@pytest.mark.parametrize(
    ("where", "reply"),
    [
        (PAGED, "INC-2003 is P1 now; the page went out to Jamal Wright."),
        (PAGED, "INC-2003 is P1 now; I sent a page to Jamal Wright."),
        (PAGED, "INC-2003 is P1 now; I've sent out a page to Jamal Wright, who is on call."),
        (PAGED, "INC-2003 is P1 now and Jamal Wright has been phoned."),
        (PAGED, "INC-2003 is P1 now and Jamal Wright was notified by phone."),
        (TRANSFERRED, "Your $50 transfer has gone through."),
        (TRANSFERRED, "I've made the $50 transfer from checking to savings."),
        (TRANSFERRED, "The $50 transfer is complete."),
        (VERIFIED, "Both documents are registered, and verification came back as a pass."),
        (DISPUTED, "Because your dispute on the $1,899 payment is still open, I can't refund it."),
        (CANCELLED, "ORD-9006 - cancellation confirmed."),
        (CANCELLED, "Cancellation of ORD-9006 is complete."),
    ],
)
def test_the_noun_of_an_act_carried_out_or_of_a_state_still_states_it(where: tuple[str, str], reply: str) -> None:
    assert _passes(where, reply)
