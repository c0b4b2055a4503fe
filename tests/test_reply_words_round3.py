"""Round 3 of the reply words and value forms (branch r3-words): each class with cases written for this file
(other words than the calibration sets'), and the must-fail guards beside them: a wrong, negated or
opposite statement in the new words still fails."""

from __future__ import annotations

from decimal import Decimal

import pytest

from contracts.schema import ReplyCriterion
from grader.text.evidence import EvidenceJudge
from grader.text.values import find_values


def stated(evidence: list[str | list[str]] | str, reply: str | list[str]) -> bool:
    replies = [reply] if isinstance(reply, str) else reply
    item = evidence if isinstance(evidence, str) else list(evidence)
    out = EvidenceJudge().judge_sync([ReplyCriterion(criterion="The reply states it.", evidence=[item])], replies)
    return out.criteria[0].passed


# ---- families (round3_families in lexicon.yaml) -------------------------------------------------------


@pytest.mark.parametrize(
    ("evidence", "reply"),
    [
        (["another company", "different company"], "That file came from a different business altogether, so I can't link it to yours."),
        (["another company", "different company"], "DOC-88 belongs to a separate legal entity, so it stays off your application."),
        (["another company", "different company"], "The upload is not one of yours: it was sent in by another firm."),
        (["not on your account", "not your order"], "ORD-77 was placed by another customer, so I can't start a return for you."),
        (["not on your account", "not your order"], "ORD-77 isn't linked to your account, I'm afraid."),
        (["cannot be changed", "can't be changed"], "Saver tickets can't be amended once they're issued."),
        (["cannot be changed", "can't be changed"], "Changes aren't permitted on this fare class."),
        (["cannot be changed", "can't be changed"], "Once bought, the fare is set in stone."),
        (["can't be cancelled", "cannot cancel"], "It's past the point of cancelling: the parcel left this morning."),
        (["can't be cancelled", "cannot cancel"], "It's too late to stop that order now."),
        ("shipped", "Your parcel is in the carrier's hands as of this morning."),
        ("shipped", "It was handed off to the courier yesterday."),
        ("received", "We've scanned in the boots at our warehouse."),
        ("received", "RET-12 is marked as received on our side."),
        (["original payment method"], "The money goes back the way you paid for it."),
        (["original payment method"], "It returns to the account it was paid from."),
        (["owner", "only the customer"], "That booking can only be cancelled by the person named on it."),
        (["owner", "only the customer"], "Only he can move it, since it's in his name."),
        (["requester", "requested it yourself"], "You submitted it yourself, so a second approver has to sign it off."),
        (["unchanged", "not changed"], "Your reservation is left as is; nothing has changed."),
        (["unchanged"], "The trip stays the same as before."),
        (["not cancelled"], "Your table for Friday is still going ahead as planned."),
        (["not cancelled"], "The visit remains booked for Monday."),
        (["already credited"], "The points were previously credited to your account."),
    ],
)
def test_families_state_the_concept(evidence: list[str] | str, reply: str) -> None:
    assert stated(evidence, reply)


@pytest.mark.parametrize(
    ("evidence", "reply"),
    [
        (["another company", "different company"], "That file is one of yours, so I've linked it."),
        (["not on your account", "not your order"], "That order is on your account, so I've started the return."),
        (["cannot be changed", "can't be changed"], "Saver tickets can be amended for a $75 fee."),
        (["can't be cancelled", "cannot cancel"], "It's not too late to stop that order; I've cancelled it."),
        ("shipped", "It hasn't been handed off to the courier yet."),
        ("received", "Our warehouse hasn't scanned in the boots yet."),
        ("received", "The boots aren't marked as received yet."),
        (["owner", "only the customer"], "Anyone on the account can move it."),
        (["requester", "requested it yourself"], "Tom raised it, so you're free to approve it."),
        (["unchanged"], "I've changed it: it's no longer as it was."),
        (["not cancelled"], "The visit is no longer going ahead; I've cancelled it."),
        (["not cancelled"], "The visit isn't still booked — it was cancelled."),
    ],
)
def test_families_keep_wrong_and_negated_failing(evidence: list[str] | str, reply: str) -> None:
    assert not stated(evidence, reply)


# ---- "no" before a noun's modifiers ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("evidence", "reply", "expected"),
    [
        ("no changes", "There are no name or date changes on this ticket.", True),
        ("no changes", "Basic means no seat changes.", True),
        ("no fee", "There's no rebooking fee on a flexible fare.", True),
        ("no refund", "You'd get no cash refund, only a voucher.", True),
        ("no changes", "No problem, changes are free on this fare.", False),
        ("no changes", "There is no fee for changes.", False),
        ("no changes", "There's no charge: changes are included.", False),
        ("no fee", "There's no issue, but a change fee of $75 applies.", False),
    ],
)
def test_no_denies_a_noun_across_its_modifiers(evidence: str, reply: str, expected: bool) -> None:
    assert stated(evidence, reply) is expected


# ---- a phrasal verb whose object holds a value -------------------------------------------------------------


def test_a_value_inside_a_phrasal_verbs_object_ends_no_clause() -> None:
    assert stated(["already refunded"], "The shop already paid the $12.40 back to you.")
    assert stated(["already refunded"], "They already gave you the 30.00 dollars back.")
    assert not stated(["already refunded"], "They haven't given the $12.40 back yet.")


# ---- value forms -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("Roughly 7 in every 100 recipients clicked.", "percent", Decimal(7)),
        ("Twelve out of every hundred readers opened it.", "percent", Decimal(12)),
        ("About 3 per 100 bounced.", "percent", Decimal(3)),
        ("The total comes to 84 dollars 15.", "number", Decimal("84.15")),
        ("That's sixty dollars forty, all in.", "number", Decimal("60.40")),
    ],
)
def test_value_reader_reads_new_forms(text: str, kind: str, value: Decimal) -> None:
    assert any(v.kind == kind and v.value == value for v in find_values(text)), find_values(text)


@pytest.mark.parametrize(
    "text",
    [
        "She scored 61 out of 100 on the test.",  # a score, not a rate
        "Your balance is 84 dollars 15 minutes after the refund.",  # a count of minutes
        "It's 84 dollars, 15 of which is tax.",
    ],
)
def test_value_reader_keeps_other_readings(text: str) -> None:
    values = find_values(text)
    assert not any(v.kind == "percent" for v in values)
    assert not any(v.value == Decimal("84.15") for v in values)


@pytest.mark.parametrize(
    ("evidence", "reply", "expected"),
    [
        ("7%", "Roughly 7 in every 100 recipients clicked through.", True),
        ("8%", "Roughly 7 in every 100 recipients clicked through.", False),
        ("84.15", "Your new balance is 84 dollars 15.", True),
        ("84.50", "Your new balance is 84 dollars 15.", False),
        ("2 members", "Segment saved. Members: 2.", True),
        ("2 members", "Segment saved. Member count: 2.", True),
        ("2 members", "Segment saved. Members: 3.", False),
        ("2 seats", "Segment saved. Members: 2.", False),
        ("Europe/Paris_Office", "The default is Europe/Paris Office now.", True),
        ("America/New_York", "Time zone set to America/New York.", True),
        ("America/New_York", "Time zone set to America/Chicago.", False),
        ("America/New_York", "The time zone is not America/New York.", False),
    ],
)
def test_value_forms_in_replies(evidence: str, reply: str, expected: bool) -> None:
    assert stated(evidence, reply) is expected
