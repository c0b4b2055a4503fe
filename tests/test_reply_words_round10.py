"""Round 10 of the reply judge's words (branch r10-words): value forms and spellings a correct reply uses, and a
wrong statement corrected later. Cases written for this file (not taken from a calibration case), each class
with must-fail counterparts beside it."""

from __future__ import annotations

import pytest

from contracts.schema import ReplyCriterion
from grader.text.evidence import EvidenceJudge


def stated(evidence: list[str | list[str]], reply: str | list[str], absent: list[str] | None = None) -> bool:
    replies = [reply] if isinstance(reply, str) else reply
    out = EvidenceJudge().judge_sync([ReplyCriterion(criterion="The reply states it.", evidence=evidence, absent=absent)], replies)
    return out.criteria[0].passed


# a share said as a fraction or as "N in M" is a percentage (values.FRACTION_OF_RE, ONE_IN_N_RE)
@pytest.mark.parametrize(
    ("evidence", "reply", "want"),
    [
        (["25%"], "Roughly one in four people on the list opened it.", True),
        (["25%"], "A quarter of your subscribers opened the mail.", True),
        (["50%"], "Half of the recipients clicked through.", True),
        (["20%"], "1 in 5 customers redeemed the code.", True),
        (["75%"], "Three quarters of the invitees signed up.", True),
        (["10%"], "Two out of every twenty contacts bounced.", True),
        (["25%"], "One in five recipients opened it.", False),
        (["25%"], "We'll have it delivered 1 in 4 days.", False),
        (["25%"], "The engineer took a quarter of an hour.", False),
        (["25%"], "They rated us 1 out of 4.", False),
        (["33.3%"], "One in three opened it.", False),
        (["50%"], "Half of a day is gone.", False),
    ],
)
def test_shares_are_percentages(evidence: list[str], reply: str, want: bool) -> None:
    assert stated(evidence, reply) is want


# a decimal comma in a percentage; a dotted date is day first (values.DECIMAL_COMMA_PCT_RE, DOTTED_DATE_RE)
@pytest.mark.parametrize(
    ("evidence", "reply", "want"),
    [
        (["30.0%"], "Open rate: 30,0 %, a solid result.", True),
        (["4.5%"], "The click rate came to 4,5% this time.", True),
        (["2026-12-10"], "The send goes out on 10.12.2026 at ten.", True),
        (["2026-12-03"], "Your visit is booked for 03.12.26.", True),
        (["2026-12-10"], "The send goes out on 12.10.2026.", False),
        (["30.0%"], "Open rate: 3,0 % only.", False),
        (["2026-12-10"], "Version 10.12.2026.1 is installed.", False),
        (["1500%"], "ROI was 1,500%.", True),
    ],
)
def test_continental_layouts(evidence: list[str], reply: str, want: bool) -> None:
    assert stated(evidence, reply) is want


# dollars then cents said bare, before a verb or preposition (values._cents_after)
@pytest.mark.parametrize(
    ("evidence", "reply", "want"),
    [
        (["84.40"], "84 dollars 40 of the charge is still there.", True),
        (["129.99"], "A hundred and twenty-nine dollars ninety-nine is back on your card.", True),
        (["42.30"], "Forty-two dollars thirty was charged for roaming.", True),
        (["84.40"], "We ran it 84 dollars 40 times over.", False),
        (["84.40"], "84 dollars 50 of the charge is still there.", False),
    ],
)
def test_dollars_and_bare_cents(evidence: list[str], reply: str, want: bool) -> None:
    assert stated(evidence, reply) is want


# a day of the month in words after a preposition (values.DAY_WORD_BARE_RE)
@pytest.mark.parametrize(
    ("evidence", "reply", "want"),
    [
        (["December 7"], "The parcel should reach you on the seventh.", True),
        (["December 15"], "Please pay by the fifteenth.", True),
        (["2026-12-21"], "It stays open until the twenty-first.", True),
        (["December 7"], "Take the lift to the seventh floor.", False),
        (["December 7"], "This is the seventh time it failed.", False),
        (["December 7"], "It should arrive on the eighth.", False),
    ],
)
def test_day_in_words(evidence: list[str], reply: str, want: bool) -> None:
    assert stated(evidence, reply) is want


# a phrase written with hyphens (matching.HYPHEN_CHAIN)
@pytest.mark.parametrize(
    ("evidence", "reply", "want"),
    [
        (["out of stock"], "Size M in navy is out-of-stock right now.", True),
        (["up to date"], "Your billing details are up-to-date.", True),
        (["end of life"], "That router model is end-of-life.", True),
        (["out of stock"], "Size M in navy is not out-of-stock.", False),
        (["out of stock"], "Size M in navy is in-stock.", False),
        (["follow-up"], "I've sent the followup.", True),
    ],
)
def test_hyphenated_phrases(evidence: list[str], reply: str, want: bool) -> None:
    assert stated(evidence, reply) is want


# an absent phrase taken back by a later correction about the same fact (conflicts.absent_corrected)
CARD = ["PM-4421", "ending 4421"]


@pytest.mark.parametrize(
    ("reply", "want"),
    [
        (["The $40.00 went on your Visa PM-4421.", "Correction: the $40.00 was charged to the Amex PM-9015."], True),
        (["The $40.00 went on your Visa PM-4421.", "Sorry - the $40.00 is on the Amex, not the Visa."], True),
        (["I put the $40.00 on the Visa PM-4421. I misspoke: the $40.00 is on the Amex."], True),
        (["The $40.00 went on your Visa PM-4421.", "Sorry for the wait! Anything else?"], False),
        (["The $40.00 went on your Visa PM-4421.", "Correction: your locator is K7Q2MA."], False),
        (["The $40.00 went on your Visa PM-4421.", "Correction: the $40.00 went on PM-4421 yesterday, not today."], False),
        (["The $40.00 went on your Visa PM-4421.", "Sorry, one more thing: your seat is 12A."], False),
    ],
)
def test_absent_phrase_corrected(reply: list[str], want: bool) -> None:
    assert stated([], reply, absent=CARD) is want


def judged(criterion: str, evidence: list[str | list[str]], reply: str | list[str]) -> bool:
    replies = [reply] if isinstance(reply, str) else reply
    return EvidenceJudge().judge_sync([ReplyCriterion(criterion=criterion, evidence=evidence)], replies).criteria[0].passed


# a level under its label (values.LEVEL_RE): "Priority: 2", "**Severity:** 1"
@pytest.mark.parametrize(
    ("evidence", "reply", "want"),
    [
        (["P2"], "Ticket INC-1:\n- **Priority:** 2\n- **Owner:** Sam Diaz", True),
        (["Sev1"], "Severity: 1. Owner paged.", True),
        (["P2"], "Priority: 3.", False),
        (["P2"], "Priority: 2 tickets are still open in the queue.", False),
        (["P1"], "Priority 1 is kept for business outages.", True),
    ],
)
def test_level_under_its_label(evidence: list[str], reply: str, want: bool) -> None:
    assert stated(evidence, reply) is want


# "no" opening a prepositional noun phrase in the criterion denies its noun, not the word before
# (units.negated_in_criterion, _determiner_no): terse replies state the un-negated word
C_DISQ = "Confirms LEAD-2040 is disqualified for no budget."


@pytest.mark.parametrize(
    ("reply", "want"),
    [
        ("LEAD-2040 disqualified. Reason: no budget.", True),
        ("LEAD-2040 → disqualified (no budget).", True),
        ("Done, LEAD-2040 is disqualified because there's no budget.", True),
        ("LEAD-2040 is not disqualified; they found budget.", False),
        ("I couldn't disqualify LEAD-2040 - it has budget.", False),
        ("LEAD-2040 is qualified, no budget issue.", False),
    ],
)
def test_no_scopes_over_its_noun(reply: str, want: bool) -> None:
    assert judged(C_DISQ, ["disqualified", "budget"], reply) is want


# a name written in lower case is still the criterion's name (conflicts._nearest_owner)
C_SENT = "Confirms the Renewal reminder email was sent to Kai Brennan."


@pytest.mark.parametrize(
    ("reply", "want"),
    [
        ('Email "renewal reminder" has been sent to kai brennan @ Lumen Labs.', True),
        ('The "renewal reminder" e-mail has been sent to kai brennan at Lumen Labs.', True),
        ("renewal reminder sent to kai brennan @ Lumen Labs.", True),
        ("The Renewal reminder went out - sent to Kai Brennan at Lumen Labs.", True),
        ("The Renewal reminder was not sent to Kai Brennan.", False),
        ("The Renewal reminder was sent to Liam Ortiz at Lumen Labs.", False),
        ("The renewal reminder was sent to Liam Ortiz.", False),
    ],
)
def test_lower_case_names(reply: str, want: bool) -> None:
    assert judged(C_SENT, ["sent", "Renewal reminder"], reply) is want


# several records: a month labelling a figure is no date (values.MDY_RE); each figure bound to the word that tells
# it apart ("the March conversion rate 12.5% and the April one 9.0%": binding.value_labels, rival_thing_label,
# mislabelled's label colons)
C_MONTHS = "Gives the March conversion rate 12.5% and the April one 9.0%, and says March did better."
EV_MONTHS: list[str | list[str]] = [["12.5%"], ["9.0%", "9%"], "March"]


@pytest.mark.parametrize(
    ("reply", "want"),
    [
        ("Conversion: March 12.5% vs April 9.0%. March wins.", True),
        ("Mar: 12.5% conv, Apr: 9.0% - March came out ahead.", True),
        ("March 12.5%, April 9% - so March did better.", True),
        ("Conversion: March 9.0% vs April 12.5%. March wins.", False),
        ("Mar: 9.0% conv, Apr: 12.5% - March came out ahead.", False),
        ("Conversion: April 12.5% vs March 9.0%. March wins.", False),
    ],
)
def test_month_labelled_figures(reply: str, want: bool) -> None:
    assert judged(C_MONTHS, EV_MONTHS, reply) is want


def test_month_then_day_is_still_a_date() -> None:
    assert stated(["2026-10-06"], "It goes out on October 6, 2026.")
    assert stated(["2026-11-04"], "Due Nov 4th.")
    assert not stated(["2026-10-06"], "October 6.5% open rate.")
