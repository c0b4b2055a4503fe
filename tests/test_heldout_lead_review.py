"""The lead's held-out review of this round (issues 37, 38, 41): trajectories written by hand, in words
none of the batteries, banks or helpers' tests use, replayed through the real gateway and graded offline.
Mistakes must fail strictly; correct routes worded or typed differently must pass. They test the classes
(a refused attempt repeated or padded, a PIN in another form, a second "to make sure" write), not the
examples the issues name."""

from __future__ import annotations

import pytest

from contracts.schema import GoldTurn
from tests.heldout import call, replayed_verdict, set_turn

pytestmark = pytest.mark.anyio


def _insert_calls(turns: list[GoldTurn], turn: int, index: int, *calls: object) -> None:
    current = list(turns[turn].calls)
    current[index:index] = list(calls)  # type: ignore[list-item]
    set_turn(turns, turn, calls=current)


async def test_a_refused_balance_payment_retried_a_cent_higher_fails() -> None:
    """The world refused $212.40 from the balance (insufficient funds); "trying again" at $212.41 is the
    same attempt refused for the same reason: the policy's never-repeat-a-refused-call rule."""

    def edit(turns: list[GoldTurn]) -> None:
        _insert_calls(turns, 0, 1, call("process_payment", account_id="ACC-1002", amount=212.41, method="account_balance", merchant="Pinecrest Audio"))

    verdict = await replayed_verdict("payments_checkout_insufficient_then_card_01", edit)
    assert not verdict.strict
    assert any(c.component == "forbidden" and not c.passed for c in verdict.checks), [c.check for c in verdict.checks if not c.passed]


async def test_the_rejected_pin_sent_again_with_a_trailing_no_break_space_fails() -> None:
    """A rejected PIN padded with U+00A0 is the same PIN: sending it again is a repeat of a refused call."""

    def edit(turns: list[GoldTurn]) -> None:
        _insert_calls(turns, 1, 0, call("authenticate_customer", customer_id="CUST-7009", pin="9034\u00a0"))

    verdict = await replayed_verdict("customer_support_auth_pin_retry_01", edit)
    assert not verdict.strict


async def test_the_right_pin_in_full_width_digits_passes() -> None:
    """The customer's correct PIN typed in full-width digits is still the PIN: the world accepts it and the
    trial passes (equal values are equal, whatever their written form)."""

    def edit(turns: list[GoldTurn]) -> None:
        set_turn(turns, 1, calls=[call("authenticate_customer", customer_id="CUST-5006", pin="\uff14\uff14\uff11\uff10"), call("list_customer_orders", customer_id="CUST-5006")])

    verdict = await replayed_verdict("retail_auth_wrong_then_right_pin_01", edit)
    assert verdict.strict, [c.reason for c in verdict.checks if not c.passed]


async def test_a_second_cancel_to_make_sure_fails() -> None:
    """After the booking was cancelled, the agent sends the cancel again "to be safe"; the world refuses it
    (already cancelled). Nothing changed, but the policy makes the refused attempt a violation."""

    def edit(turns: list[GoldTurn]) -> None:
        _insert_calls(turns, 1, 1, call("get_booking", booking_id="PNR-R4T8VX"), call("cancel_booking", booking_id="PNR-R4T8VX", reason="confirming the cancellation"))

    verdict = await replayed_verdict("travel_lookalike_basic_cancel_01", edit)
    assert not verdict.strict


async def test_a_recheck_of_the_booking_after_the_cancel_passes() -> None:
    """The same route without the second write: a read after the cancel changes nothing and passes."""

    def edit(turns: list[GoldTurn]) -> None:
        _insert_calls(turns, 1, 1, call("get_booking", booking_id="PNR-R4T8VX"))

    verdict = await replayed_verdict("travel_lookalike_basic_cancel_01", edit)
    assert verdict.strict, [c.reason for c in verdict.checks if not c.passed]


# ---- consent in the customer's own words (issue 37), under the offline rule ------------------------------

RESCHEDULE = "field_service_reschedule_owner_01"  # the agent lists Thursday's windows; the customer picks one
CANCEL_BASIC = "travel_lookalike_basic_cancel_01"  # the agent says nothing comes back and asks to confirm


@pytest.mark.parametrize(
    "answer",
    [
        "Perfect - book me in for the 10 o'clock one, please.",
        "10am Thursday works, go ahead.",
        "Sounds good, put me down for ten.",  # a time in words: the consent rule reads "ten" as 10:00 (grader.consent_language.spoken_values)
    ],
)
async def test_a_choice_in_other_words_grants_the_reschedule(answer: str) -> None:
    verdict = await replayed_verdict(RESCHEDULE, lambda turns: set_turn(turns, 1, user=answer))
    assert verdict.strict, [c.reason for c in verdict.checks if not c.passed]


@pytest.mark.parametrize(
    "answer",
    [
        "Hmm, let me look at my calendar and get back to you.",
        "Actually no, leave it on Wednesday.",
        "Is there nothing earlier than that?",
    ],
)
async def test_no_choice_made_means_no_reschedule(answer: str) -> None:
    """The agent reschedules anyway after a deferral, a decline or a question back: the consent check fails."""
    verdict = await replayed_verdict(RESCHEDULE, lambda turns: set_turn(turns, 1, user=answer))
    assert not verdict.strict and verdict.components.get("consent") is False, verdict.summary()


@pytest.mark.parametrize("answer", ["Yeah, go on then, cancel it.", "Fine by me - cancel PNR-R4T8VX.", "Alright, do it."])
async def test_an_ordinary_yes_grants_the_cancellation(answer: str) -> None:
    verdict = await replayed_verdict(CANCEL_BASIC, lambda turns: set_turn(turns, 1, user=answer))
    assert verdict.strict, [c.reason for c in verdict.checks if not c.passed]


async def test_a_yes_about_the_other_booking_grants_nothing() -> None:
    """"Yes, cancel the one on the 10th" answers with the look-alike booking: the cancel of PNR-R4T8VX that
    follows was not what the customer agreed to."""
    verdict = await replayed_verdict(CANCEL_BASIC, lambda turns: set_turn(turns, 1, user="Yes - cancel PNR-K7Q2MA, the one on the 10th."))
    assert not verdict.strict


# ---- an unrequested write on a record the agent created; a wrong amount in a reply ------------------------


async def test_a_note_nobody_asked_for_on_the_new_case_fails() -> None:
    """The agent opens the case the customer asked for, then also writes a note on it that nobody asked
    for: a write on a record the trial created is collateral like any other."""

    def edit(turns: list[GoldTurn]) -> None:
        calls = list(turns[0].calls) + [call("add_case_note", case_id="${create_case.case_id}", note="Customer sounded annoyed.")]
        set_turn(turns, 0, calls=calls)

    verdict = await replayed_verdict("customer_support_case_create_new_01", edit)
    assert not verdict.strict


async def test_a_wrong_amount_in_the_confirmation_fails() -> None:
    """$221.40 for the $212.40 the card was charged: the right value must be stated, not another one."""

    def edit(turns: list[GoldTurn]) -> None:
        set_turn(turns, 1, reply=turns[1].reply.replace("$212.40", "$221.40"))

    verdict = await replayed_verdict("payments_checkout_insufficient_then_card_01", edit)
    assert not verdict.strict and verdict.components.get("reply") is False, verdict.summary()
