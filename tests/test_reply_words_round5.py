"""Round 5 of the reply words (branch r5-words): a correction keeps its last statement (a value set aside by a
contrast, a window's end, a per-unit amount, a breakdown of a total, a swapped id re-bound by a correction, a
criterion's pro-form label) and an arrow read as "is now". Cases written for this file, in other words than
the calibration sets', each class with its must-fail guards beside it (the wrong value kept, negated, or
corrected the wrong way still fails)."""

from __future__ import annotations

import pytest

from contracts.schema import ReplyCriterion
from grader.text.evidence import EvidenceJudge


def judged(criterion: str, evidence: list[str | list[str]], replies: list[str]) -> bool:
    out = EvidenceJudge().judge_sync([ReplyCriterion(criterion=criterion, evidence=evidence)], replies)
    return out.criteria[0].passed


# ---- a value set aside by a contrast is no rival statement of the fact ----------------------------------

REFUND = ("Confirms the refund of $86.40 to the card.", ["86.40"])


@pytest.mark.parametrize(
    ("replies", "expected"),
    [
        (["The refund to your card is $68.40.", "Sorry, I flipped two digits: it's $86.40, not $68.40."], True),
        (["Refund issued to your card: $86.40 rather than the $68.40 I quoted earlier. Apologies!"], True),
        (["My mistake on the figure. The card refund is $86.40 — not $84.60 as I wrote."], True),
        (["Refunded to your card: $80.00.", "Correction: the refund to your card is $86.40 instead of $80.00."], True),
        (["Oops, ignore my last line - the refund to your card is $86.40, not $8.64."], True),
        # must fail: the right value is the one set aside, or the wrong value is the last word
        (["Sorry, I mixed those up: the refund to your card is $68.40, not $86.40."], False),
        (["The refund to your card is $86.40.", "Correction: it's $68.40 rather than $86.40."], False),
        (["The refund to your card is $86.40.", "Actually, I misread it - the refund is $68.40."], False),
        pytest.param(["The card refund is $86.40 or maybe $68.40, I'm not sure which."], False,
                     marks=pytest.mark.xfail(strict=True, reason="left: a hedged alternative ('or maybe') is not read as a rival (before round 5 too)")),
        (["The refund to your card is $86.40... sorry, no, it's $68.40."], False),
    ],
)
def test_value_set_aside_by_contrast(replies: list[str], expected: bool) -> None:
    assert judged(REFUND[0], list(REFUND[1]), replies) is expected


# ---- a window's end, a per-unit amount, a breakdown of a total: other facts ----------------------------

VISIT = ("Confirms the visit is now on Friday at 09:00.", ["09:00", "Friday"])
TOTAL = ("Quotes the $150 total for the upgrade.", [["150.00", "$150"]])


@pytest.mark.parametrize(
    ("criterion", "evidence", "replies", "expected"),
    [
        (*VISIT, ["Sorry, typo above: the visit is Friday at 09:00, until 11:00."], True),
        (*VISIT, ["Your visit has moved to Friday at 09:00 (ending at 11:00)."], True),
        (*VISIT, ["Rebooked: Friday, 09:00 through 11:00 with the same engineer."], True),
        (*TOTAL, ["The upgrade comes to $150 for the three of you ($50 per person)."], True),
        (*TOTAL, ["That's $50 a head, so $150 for the upgrade in total."], True),
        (*TOTAL, ["Total for the upgrade: $150 ($110 for the seats and $40 for the lounge pass)."], True),
        # must fail: the window moved to the wrong start, a different total, parts that are not the total's
        (*VISIT, ["Your visit has moved to Friday at 09:00.", "Sorry, correction: it's Friday at 11:00."], False),
        (*VISIT, ["Your visit is now Friday at 09:00 - sorry, I mean Friday at 13:00."], False),
        (*TOTAL, ["The upgrade total is $150, sorry, $180 ($60 per person)."], False),
        (*TOTAL, ["The upgrade total is $150.", "Correction: the total is $165 ($110 for the seats and $55 for the lounge)."], False),
    ],
)
def test_other_facts_beside_the_right_value(criterion: str, evidence: list[str | list[str]], replies: list[str], expected: bool) -> None:
    assert judged(criterion, evidence, replies) is expected


# ---- a correction re-binds a fact said of the wrong id ---------------------------------------------------

DOC = ("Reports that the lease (DOC-4417) was registered.", ["DOC-4417", "registered"])


@pytest.mark.parametrize(
    ("replies", "expected"),
    [
        (["I've registered DOC-4471 as your lease.", "Typo, sorry - that's DOC-4417, not DOC-4471. It's registered."], True),
        (["DOC-4714 is registered as your lease.", "Correction: the lease I registered is DOC-4417."], True),
        (["I registered DOC-4471 for you.", "Apologies, I mean DOC-4417 — that's the one now registered."], True),
        # must fail: no correction, the correction keeps the wrong id, or negates the right one
        (["I've registered DOC-4471 as your lease."], False),
        (["I've registered DOC-4471 as your lease.", "Sorry, to be precise: DOC-4417 isn't registered, DOC-4471 is."], False),
        (["I've registered DOC-4471 as your lease.", "Sorry, just to confirm: it's DOC-4471."], False),
    ],
)
def test_correction_rebinds_the_subject(replies: list[str], expected: bool) -> None:
    assert judged(DOC[0], list(DOC[1]), replies) is expected


# ---- a criterion's pro-form label ("the March one") shares the head noun ---------------------------------

RATES = ("Gives the February open rate 31% and the March one 27%.", [["31%", "31.0%"], ["27%", "27.0%"]])


@pytest.mark.parametrize(
    ("replies", "expected"),
    [
        (["February's open rate was 32%.", "Sorry, misread it: February's open rate was 31%, and March's open rate was 27%."], True),
        (["Open rate — February: 31%. March: 27%."], True),
        (["February: 31%.", "Correction on March: its open rate was 27%, not 24%."], True),
        # must fail: the rates swapped, or March's rate wrong
        (["February: 27% open rate. March: 31% open rate."], False),
        (["February: 31%. March: 24%."], False),
    ],
)
def test_pro_form_label(replies: list[str], expected: bool) -> None:
    assert judged(RATES[0], list(RATES[1]), replies) is expected


# ---- an arrow reads as "is now" -------------------------------------------------------------------------

URGENT = ("Confirms ticket TKT-310 is now urgent.", ["TKT-310", "urgent"])


@pytest.mark.parametrize(
    ("replies", "expected"),
    [
        (["TKT-310 (boiler) → urgent. Hope it's warm again soon!"], True),
        (["TKT-310 -> urgent. Nothing else touched."], True),
        (["Priority on TKT-310: normal ⇒ urgent."], True),
        (["TKT-310 → now urgent. Your other ticket is unchanged."], True),
        # must fail: a keyword dump, the arrow pointing elsewhere, negated
        (["TKT-310, urgent, normal, low."], False),
        (["TKT-310 → normal. Not urgent after all."], False),
        pytest.param(["urgent → normal for TKT-310."], False,
                     marks=pytest.mark.xfail(strict=True, reason="left: a status before an arrow is the old state (matched before round 5 too)")),
        (["TKT-310, boiler, urgent.", "Thanks."], False),
    ],
)
def test_arrow_statement(replies: list[str], expected: bool) -> None:
    assert judged(URGENT[0], list(URGENT[1]), replies) is expected
