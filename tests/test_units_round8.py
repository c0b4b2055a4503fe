"""Round 8 (r8-units): what is a keyword list and what is a terse statement. Each class has sentences that
must pass and sentences in the same words that must fail (a dump of the values without labels or verbs).
Cases written for this round, in words of their own, not the calibration sets'."""

from __future__ import annotations

import pytest

from contracts.schema import ReplyCriterion
from grader.text.evidence import EvidenceJudge


def passes(criterion: str, evidence: list[str | list[str]], reply: str) -> tuple[bool, str]:
    out = EvidenceJudge().judge_sync([ReplyCriterion(criterion=criterion, evidence=evidence)], [reply])
    return out.criteria[0].passed, out.criteria[0].explanation


# ---- values of one kind under a state label ---------------------------------------------------------------

SLOT = ("Says the 13:00 slot is open.", ["13:00"])


@pytest.mark.parametrize(
    "reply",
    [
        "Available: 10:30, 13:00 and 16:45.",
        "Free slots Thursday: 08:15, 13:00, 17:30.",
        "Still open: 9:45, 13:00, 15:15.",
        "**Open:** 11:00, 13:00 and 16:00",
        "Vacant today: 10:00, 13:00, 14:30.",
    ],
)
def test_values_under_a_state_label_are_stated(reply: str) -> None:
    word = next(w for w in ("available", "free", "open", "vacant") if w in reply.lower())
    ok, why = passes(f"Says the 13:00 slot is {word}.", ["13:00"], reply)
    assert ok, why


@pytest.mark.parametrize(
    "reply",
    [
        "10:30, 13:00, 16:45, 18:00.",
        "Times: 10:30, 13:00, 16:45 - BK-7 - $40.00.",
        "Open/closed/held: 10:30, 13:00, 16:45",
        "APT-7001: 10:30, 13:00, 16:45.",
        "Not available: 10:30, 13:00 and 16:45.",
    ],
)
def test_values_under_no_state_label_stay_a_dump(reply: str) -> None:
    ok, why = passes(*SLOT, reply)
    assert not ok, why


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("In stock right now: sizes 7, 9 and 12.", True),
        ("On hold: ORD-4411, ORD-4412 and ORD-4413.", True),
        ("Amounts: $55.00, $42.30, $97.30.", False),
        ("INV-8004: $55.00, $42.30, $97.30.", False),
    ],
)
def test_state_label_against_noun_label(reply: str, expected: bool) -> None:
    if "size" in reply:
        ok, why = passes("Says size 9 is in stock.", ["9"], reply)
    elif "ORD" in reply:
        ok, why = passes("Says ORD-4412 is on hold.", ["ORD-4412"], reply)
    else:
        ok, why = passes("Gives the $97.30 total.", ["97.30"], reply)
    assert ok is expected, why


# ---- a relation verb between ids and their amounts ----------------------------------------------------------

BAL = ("Gives ACC-3101's balance of $905.40.", ["905.40"])


@pytest.mark.parametrize(
    "reply",
    [
        "ACC-3101 and ACC-3102 hold $905.40 and $77.00.",
        "ACC-3101 holds $905.40; ACC-3102 holds $77.00.",
        "ACC-3101 sits at $905.40, ACC-3102 at $77.00.",
        "Your ACC-3101 shows $905.40.",
        "ACC-3101 comes to $905.40 after the fee.",
    ],
)
def test_a_relation_verb_makes_a_clause(reply: str) -> None:
    ok, why = passes(*BAL, reply)
    assert ok, why


@pytest.mark.parametrize(
    "reply",
    [
        "ACC-3101, ACC-3102, $905.40, $77.00, $12.00.",
        "ACC-3101 - ACC-3102 - hold - $905.40 - $77.00",
        "hold, $905.40, $77.00, $12.00",
        "ACC-3101 and ACC-3102 don't hold $905.40.",
        "ACC-3101 and ACC-3102 hold $77.00 and $12.00.",
    ],
)
def test_a_relation_verb_needs_a_subject_and_an_amount(reply: str) -> None:
    ok, why = passes(*BAL, reply)
    assert not ok, why


# ---- a rate's slash is one value -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("Starter (39 USD/month) and Scale (149 USD/month).", True),
        ("Team (12 USD/user) and Scale (149 USD/month)", True),
        ("Scale: 149 USD/month, billed yearly.", True),
        ("149, 39, 12, USD/month, starter, scale", False),
        ("USD/month: 39 / 149 / 12 / 8", False),
    ],
)
def test_a_rate_slash_does_not_split_a_record(reply: str, expected: bool) -> None:
    ok, why = passes("Gives the Scale plan at 149 USD per month.", ["149"], reply)
    assert ok is expected, why


# ---- a noun phrase and its state inside a record line --------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("Findings: outage logged on 2026-11-02; modem check clean.", True),
        ("Notes: visit done 3 Dec; modem check clean.", True),
        ("Summary: router swapped; modem check came back clean.", True),
        ("modem check; clean; 2026-11-02; router; swapped", False),
        ("Findings: outage logged on 2026-11-02; modem check not clean.", False),
    ],
)
def test_a_noun_phrase_and_its_state_is_a_clause(reply: str, expected: bool) -> None:
    ok, why = passes("Says the modem check was clean.", ["modem check", ["clean", "passed"]], reply)
    assert ok is expected, why
