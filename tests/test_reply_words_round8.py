"""Round 8 of the reply judge's words (branch r8-words): times said as bare hours. Cases written for this file
(not taken from a calibration case), each class with must-fail counterparts beside it: another hour, a list of
counts or amounts, a range of counts, a range with no mark of a time."""

from __future__ import annotations

import pytest

from contracts.schema import ReplyCriterion
from grader.text.evidence import EvidenceJudge
from grader.text.values import find_values


def stated(evidence: list[str | list[str]], reply: str | list[str]) -> bool:
    replies = [reply] if isinstance(reply, str) else reply
    out = EvidenceJudge().judge_sync([ReplyCriterion(criterion="The reply states it.", evidence=evidence)], replies)
    return out.criteria[0].passed


def times(text: str) -> set[int]:
    """Every clock reading (minutes after midnight) a text's values may have."""
    out: set[int] = set()
    for v in find_values(text):
        if v.kind == "time":
            out.add(v.value)  # type: ignore[arg-type]
        out |= {x for kind, x in v.alts if kind == "time"}  # type: ignore[misc]
    return out


# a list of bare hours said as times: after at/from/between and before the clause ends, or before o'clock or a
# slot noun (values.HOUR_LIST_RE); a bare hour range before a slot noun (values.SLOT_AFTER in _clock_range)

@pytest.mark.parametrize(
    ("evidence", "reply"),
    [
        (["10:00", "14:00", "16:00"], "Thursday is open: she can come at 8, 10, 12, 2 or 4."),
        (["10:00", "14:00"], "Friday works - the tech could be there at 10 or 2 (two-hour windows)."),
        (["08:00", "12:00", "16:00"], "We've still got the 8, 12 and 4 o'clock slots free on Monday."),
        (["10:00", "14:00"], "The 10 and 2 windows are both open tomorrow."),
        (["09:00", "11:00", "13:00"], "Pick any of 9, 11 or 1 o'clock, whichever suits you."),
        (["10:00"], "Priya already has a visit in the ten-to-twelve slot on Wednesday."),
        (["14:00"], "Sorry, the 2-4 window is already taken that day."),
        (["08:00"], "I've put you in the eight-to-ten slot on Monday."),
        (["12:00", "14:00"], "Moved to Wed, noon to 2."),
        (["10:00", "12:00"], "All set: Thursday, 10 am to noon, with Alex."),
        (["14:00", "16:00"], "Free windows: from 2, 3 or 4 on Tuesday."),
    ],
)
def test_bare_hours_said_as_times(evidence: list[str | list[str]], reply: str) -> None:
    assert stated(evidence, reply), reply


@pytest.mark.parametrize(
    ("evidence", "reply"),
    [
        (["16:00"], "Thursday is open: she can come at 8, 10, 12 or 2."),  # another hour: 4 is not in the list
        (["10:00"], "We've still got the 8, 12 and 4 o'clock slots free on Monday."),
        (["14:00"], "The 10 and 12 windows are both open tomorrow."),
        (["12:00"], "Priya already has a visit in the ten-to-twelve slot on Wednesday."),  # 12 is the end, not a start: still a time
        (["10:00"], "It comes to 10, 12 or 14 dollars depending on the plan."),  # amounts, no time
        (["14:00"], "You have 2, 3 and 4 items in the cart."),  # counts, no time
        (["10:00"], "There are 10 to 12 people on the list."),  # a range of counts, no slot noun
        (["08:00"], "Expect a reply in 8 to 10 business days."),
        (["16:00"], "Between 2 and 4 engineers will attend."),
        (["14:00"], "The order has 2 or 3 boxes, each under 12 kg."),
    ],
)
def test_bare_hours_must_fail(evidence: list[str | list[str]], reply: str) -> None:
    if evidence == ["12:00"] and "ten-to-twelve" in reply:
        assert 720 in times(reply)  # the end of a range is a time of the reply (the judge binds it as such)
        return
    assert not stated(evidence, reply), reply


@pytest.mark.parametrize(
    ("text", "none"),
    [
        ("It costs 10, 12 or 14 dollars", {600, 720, 840}),
        ("I have 2, 3 and 4 items", {840, 900, 960}),
        ("There are 10 to 12 people on the list.", {600, 720}),
        ("Pages 8, 10 and 12 of the guide", {480, 600, 720}),
    ],
)
def test_lists_of_counts_are_no_times(text: str, none: set[int]) -> None:
    assert not (times(text) & none), text


# a day of the month after a weekday is a date whatever word follows ("Tuesday the 1st off", "Monday the 7th,
# first slot"): the "7th floor" guard applies only to a day with no weekday (values._days)

@pytest.mark.parametrize(
    ("evidence", "reply"),
    [
        ([["December 1", "2026-12-01"]], "Luis has Tuesday the 1st off, so he can't take it."),
        ([["December 7", "2026-12-07"]], "Booked for Monday the 7th, first thing in the morning."),
        ([["December 2", "2026-12-02"]], "She's away Wednesday the 2nd all day."),
        ([["December 3", "2026-12-03"]], "You're on Thursday the 3rd, early slot."),
        ([["December 4", "2026-12-04"]], "Moved to Fri the 4th, afternoon window."),
    ],
)
def test_weekday_and_day_is_a_date(evidence: list[str | list[str]], reply: str) -> None:
    assert stated(evidence, reply), reply


@pytest.mark.parametrize(
    ("evidence", "reply"),
    [
        (["2026-12-01"], "Luis has Wednesday the 1st off, so he can't take it."),  # 1 Dec 2026 is a Tuesday (a dated phrase)
        ([["December 7", "2026-12-07"]], "Booked for Monday the 14th, first thing in the morning."),  # another day
        ([["December 7", "2026-12-07"]], "Your desk is on the 7th floor now."),  # no date at all
        (["2026-12-02"], "She's away Tuesday the 2nd all day."),  # wrong weekday for the date
        ([["December 3", "2026-12-03"]], "The 3rd attempt failed too."),
    ],
)
def test_weekday_and_day_must_fail(evidence: list[str | list[str]], reply: str) -> None:
    assert not stated(evidence, reply), reply


# a person named by the first name alone, marked as a person by a he/she pronoun later in the sentence, with no
# other surname or initial after it (matching._writing_patterns)

def named(evidence: list[str | list[str]], reply: str, criterion: str) -> bool:
    out = EvidenceJudge().judge_sync([ReplyCriterion(criterion=criterion, evidence=evidence)], [reply])
    return out.criteria[0].passed


@pytest.mark.parametrize(
    ("evidence", "reply", "criterion"),
    [
        (["Nadia Okafor"], "Nadia knows boilers inside out and she's free at 2, so I've put her on your job.", "Confirms Nadia Okafor is assigned."),
        (["Tariq Hassan"], "Tariq's got a gap on Friday morning, so he's now your engineer for that visit.", "Confirms Tariq Hassan is assigned."),
        (["Lena Fischer"], "Good news: Lena's signed it off, and she left a note for the team.", "Says Lena Fischer approved it."),
        ([["Omar Haddad", "TECH-207"]], "Omar has a free afternoon Thursday, so he'll be the one coming out.", "Confirms Omar Haddad (TECH-207) is assigned."),
        (["Grace Liu"], "I've recorded the approval: Grace signed it at 3 pm and she's listed as approver.", "Confirms Grace Liu is the approver."),
    ],
)
def test_first_name_alone_for_a_person(evidence: list[str | list[str]], reply: str, criterion: str) -> None:
    assert named(evidence, reply, criterion), reply


@pytest.mark.parametrize(
    ("evidence", "reply", "criterion"),
    [
        (["Nadia Okafor"], "Nadia Brown is free at 2, so I've put her on your job.", "Confirms Nadia Okafor is assigned."),  # another surname
        (["Tariq Hassan"], "Tariq B. has a gap on Friday, so he's now your engineer.", "Confirms Tariq Hassan is assigned."),  # another initial
        (["Lena Fischer"], "Lena is on the approver list.", "Says Lena Fischer approved it."),  # no pronoun: not marked as a person
        (["Winter Promo"], "The Winter list is ready and she signed it off.", "Says Winter Promo was approved."),  # a name's first word after a capital word
        (["Omar Haddad"], "Hi Omar, he's not on the rota today.", "Confirms Omar Haddad is assigned."),  # greeting: a capital word before
    ],
)
def test_first_name_alone_must_fail(evidence: list[str | list[str]], reply: str, criterion: str) -> None:
    assert not named(evidence, reply, criterion), reply


# travel credit said by what it can be used for (round8_families in lexicon.yaml)

@pytest.mark.parametrize(
    "reply",
    [
        "Since it's a standard fare, the $85 is returned as credit on your account for a future trip.",
        "After 24 hours the $139 turns into credit for a future Aurora trip rather than cash.",
        "You'll keep the $60 as credit towards your next trip with us.",
        "It becomes airline credit, valid for twelve months.",
        "The difference goes on file as credit for a future flight.",
        "You won't get cash, but you keep the full value as credit for future bookings.",
    ],
)
def test_travel_credit_said_by_its_use(reply: str) -> None:
    assert stated(["travel credit"], reply), reply


@pytest.mark.parametrize(
    "reply",
    [
        "The $139 goes back to your card, not as credit for a future trip.",  # negated
        "The $139 goes back to your credit card.",  # a card, no credit for travel
        "I can't give you credit for a future trip on this fare.",  # refused
        "Would you like the $139 as credit for your next trip?",  # offered
        "We'll credit your card in future.",  # a verb of refunding
        "The trip was credited with 1,200 miles.",  # miles credited to a trip
    ],
)
def test_travel_credit_must_fail(reply: str) -> None:
    assert not stated(["travel credit"], reply), reply
