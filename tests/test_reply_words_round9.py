"""Round 9 of the reply judge's words (branch r9-words). Cases written for this file (not taken from a
calibration case), each class with must-fail counterparts beside it (a negation, an offer, the opposite
status, another value): a status said with other verbs (`round9_families` in grader/text/lexicon.yaml), a
time unit written short (values._ABBREVIATED_UNIT), a booking locator written without its prefix
(values._LOCATOR)."""

from __future__ import annotations

import pytest

from contracts.schema import ReplyCriterion
from grader.text.evidence import EvidenceJudge
from grader.text.values import durations


def stated(evidence: list[str | list[str]], reply: str | list[str]) -> bool:
    replies = [reply] if isinstance(reply, str) else reply
    out = EvidenceJudge().judge_sync([ReplyCriterion(criterion="The reply states it.", evidence=evidence)], replies)
    return out.criteria[0].passed


PASS = [
    # an activity recorded, said by writing it down and where it sits
    (["logged"], "Made a note of the call on Tom's contact."),
    (["logged"], "The meeting is documented on his record now."),
    (["logged"], "Jotted down your call with Ana - she wants pricing by Friday."),
    (["logged"], "Your chat with Li is now in his history."),
    (["logged"], "I've saved it to the CRM: demo requested for next week."),
    # waiting on someone's decision
    (["pending"], "It's sitting in your queue, Robert - nothing happens until you approve."),
    (["pending"], "The access request hasn't been signed off, so the role isn't on yet."),
    (["pending"], "Approval is still open with the CAB."),
    (["pending"], "There's no sign-off yet from Dana."),
    (["pending"], "The laptop order is waiting on you to approve it."),
    # a limit said by the most one may do
    (["limit"], "That's more than the most your account can send in one day."),
    (["limit"], "You can move no more than $2,500 in a single day."),
    (["limit"], "$7,000 is above the maximum for one day's transfers."),
    (["limit"], "It goes over your daily allowance of $5,000."),
    # money short, said by what the balance holds or covers
    (["insufficient"], "Your savings account doesn't hold enough to pay $640."),
    (["insufficient"], "The balance won't cover it, so I stopped the transfer."),
    (["insufficient"], "There's too little in ACC-2201 to cover the rent."),
    (["insufficient"], "It was declined for non-sufficient funds."),
    (["insufficient"], "You're short by $42, so it couldn't go through."),
    # cannot be changed, said by the other verbs of editing or by "fixed once issued"
    (["names cannot be changed"], "Sorry - passenger names can't be swapped on our tickets."),
    (["names cannot be changed"], "Traveller names aren't editable after booking."),
    (["name cannot be changed"], "The name is fixed once the ticket is issued."),
    (["names cannot be changed"], "Names on a ticket cannot be updated, I'm afraid."),
    # no exception, said by the idioms of rules that do not bend
    (["no exception"], "I'm sorry, I can't bend the rules here."),
    (["no exception"], "My hands are tied on this one - only compliance can clear it."),
    (["no exception"], "That requirement is non-negotiable."),
    (["no exception"], "There's no leeway on sanctions checks."),
    (["no exception"], "The hold can't be overridden by the support team."),
    # an activity added to a record
    (["logged"], "I've added a call activity to Ben's contact with the notes."),
    # a place between two others
    (["halfway"], "Put the booster midway between the hub and the back bedroom."),
    (["halfway"], "Best spot is in the middle between the router and the dead zone."),
    (["halfway"], "Place it at the midpoint of the hallway."),
]

FAIL = [
    (["logged"], "I can make a note of the call if you like."),  # an offer
    (["logged"], "I haven't documented the call yet."),  # negated
    (["logged"], "Want me to jot down the call?"),  # a question
    (["logged"], "I didn't make a note of it - the CRM was down."),
    (["pending"], "The request has been signed off."),  # the opposite status
    (["pending"], "Dana approved it this morning."),
    (["pending"], "It's no longer waiting on you - Dana signed it off."),
    (["limit"], "Your transfer went through."),  # no limit said
    (["insufficient"], "ACC-1005 holds enough to cover it."),  # the opposite
    (["insufficient"], "The balance will cover it."),
    (["insufficient"], "Good news: the balance easily covers the $900."),
    (["names cannot be changed"], "Passenger names can be swapped for a fee."),  # the opposite
    (["names cannot be changed"], "I've updated the name on the ticket."),
    (["no exception"], "I can bend the rules on this one."),
    (["no exception"], "Compliance can override the hold if you ask them."),
    (["logged"], "I can add a call activity to Ben's contact if you want."),
    (["halfway"], "Put the booster right next to the router."),
    (["halfway"], "Don't put it in the middle of the house; keep it by the router."),
]


@pytest.mark.parametrize(("evidence", "reply"), PASS)
def test_status_said_with_other_words(evidence: list[str | list[str]], reply: str) -> None:
    assert stated(evidence, reply), reply


@pytest.mark.parametrize(("evidence", "reply"), FAIL)
def test_status_words_must_fail(evidence: list[str | list[str]], reply: str) -> None:
    assert not stated(evidence, reply), reply


# a time unit written short: "24h", "48hrs", "30min"; never a clock time "16h10"

@pytest.mark.parametrize(
    ("evidence", "reply"),
    [
        (["24 hours"], "Cancel within 24h and it's a full refund."),
        (["24 hours"], "The free window is 24hrs from booking."),
        (["48 hours"], "Expect the engineer to call within 48 h."),
        (["30 minutes"], "He'll be with you in about 30min."),
        (["2 hours"], "The job took 2hrs in the end."),
    ],
)
def test_short_time_units(evidence: list[str | list[str]], reply: str) -> None:
    assert stated(evidence, reply), reply


@pytest.mark.parametrize(
    ("evidence", "reply"),
    [
        (["24 hours"], "Cancel within 48h and it's a full refund."),  # another span
        (["24 hours"], "The free window is 12hrs from booking."),
        (["30 minutes"], "He'll be with you in about 45min."),
        (["2 hours"], "The job took 2 days."),
    ],
)
def test_short_time_units_must_fail(evidence: list[str | list[str]], reply: str) -> None:
    assert not stated(evidence, reply), reply


def test_clock_time_is_no_duration() -> None:
    assert durations("We'll be there at 16h10.") == []


# a booking locator said without its prefix (letters and digits mixed, 5+ characters)

@pytest.mark.parametrize(
    ("evidence", "reply", "expected"),
    [
        (["PNR-Q7X2KD"], "Your booking Q7X2KD is confirmed.", True),
        (["PNR-Q7X2KD"], "Reference q7x2kd - keep it handy.", True),
        (["PNR-Q7X2KD", "cancelled"], "Q7X2KD is cancelled.", True),
        (["PNR-Q7X2KD"], "Your booking Q7X2KE is confirmed.", False),  # one character off
        (["PNR-Q7X2KD"], "Your booking AQ7X2KD is confirmed.", False),  # part of a longer code
        (["PNR-Q7X2KD"], "Your booking ABC-Q7X2KD is confirmed.", False),  # another prefix
        (["ORD-4410"], "Your order 4410 shipped.", True),  # a numeric id keeps its rule: a word for the prefix
        (["ORD-4410"], "You have 4410 points.", False),
    ],
)
def test_locator_without_prefix(evidence: list[str | list[str]], reply: str, expected: bool) -> None:
    assert stated(evidence, reply) is expected, reply
