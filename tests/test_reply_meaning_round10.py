"""Round 10 (r10-meaning): structured replies that bind each value to its label or record must not be read as
keyword dumps, and real dumps in the same shapes must still fail. Sentences written for these tests, not
taken from the calibration sets."""

from __future__ import annotations

import pytest

from contracts.schema import ReplyCriterion
from grader.text.evidence import EvidenceJudge


def verdict(criterion: str, evidence: list, replies: list[str]) -> bool:
    output = EvidenceJudge().judge_sync([ReplyCriterion(criterion=criterion, evidence=evidence)], replies)
    return output.criteria[0].passed


# ---- a team name joined by "&" is one name, not two listed words --------------------------------------

OWNER = ("States that the ticket is owned by Dana Whitfield.", ["Dana Whitfield"])


@pytest.mark.parametrize(
    "reply",
    [
        "Ticket summary:\n- **Status:** open\n- **Owner:** Dana Whitfield, Sales & Marketing",
        "- Owner: Dana Whitfield, Facilities & Estates\n- Raised: yesterday",
        "**Assigned to:** Dana Whitfield, Billing & Collections",
        "Owner: Dana Whitfield, Research & Development.",
    ],
)
def test_a_person_and_their_ampersand_team_under_one_label_is_a_record(reply: str) -> None:
    assert verdict(*OWNER, [reply])


@pytest.mark.parametrize(
    "reply",
    [
        "Owner: Dana Whitfield, Omar Haddad, Sales & Marketing",
        "Dana Whitfield, Omar Haddad, Priya Nair, Sales & Marketing, open, closed",
    ],
)
def test_several_people_under_one_label_still_compete(reply: str) -> None:
    assert not verdict(*OWNER, [reply])


# ---- several record ids under a plural noun label enumerate records ------------------------------------

BOTH_CASES = ("Lists both of the customer's cases.", ["CASE-7101", "CASE-7102"])


@pytest.mark.parametrize(
    "reply",
    [
        "Balance: $20.00. Cases: CASE-7101 (billing query) and CASE-7102 (router swap, closed).",
        "Your cases: CASE-7101, CASE-7102.",
        "Open tickets on your profile - none. Cases: CASE-7101 (resolved) & CASE-7102 (waiting on parts)",
        "Here you go. Both cases: CASE-7101 and CASE-7102 (the second is the newer one).",
    ],
)
def test_ids_under_a_plural_noun_label_list_their_records(reply: str) -> None:
    assert verdict(*BOTH_CASES, [reply])


@pytest.mark.parametrize(
    "reply",
    [
        "Cases: CASE-7101, closed, CASE-7102, open, $20.00",
        "CASE-7101, CASE-7102, refunded, closed, pending, escalated",
        "Cases: CASE-7101. I was wrong, CASE-7102 isn't yours.",
    ],
)
def test_ids_mixed_with_loose_values_stay_a_list(reply: str) -> None:
    assert not verdict(*BOTH_CASES, [reply])


def test_a_listed_status_is_not_bound_by_the_record_enumeration() -> None:
    # the enumeration makes the ids stated; it never states a status that is only one of several loose words
    assert not verdict("Says CASE-7102 is closed.", ["CASE-7102", "closed"], ["Cases: CASE-7101, CASE-7102, open, closed, pending"])
