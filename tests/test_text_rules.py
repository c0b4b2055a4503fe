"""The evidence judge's sentence rules of issue 37 (items 3-4) and issue 41.5, one class per test, each with
cases that pass and cases that fail (`grader/text/`). Every case here failed or passed wrongly before the
rule it tests."""

from __future__ import annotations

from decimal import Decimal

import pytest

from contracts.schema import ReplyCriterion
from grader.text.evidence import EvidenceJudge
from grader.text.values import find_values


def verdict(criterion: str, evidence: list[str | list[str]], replies: list[str], absent: list[str] | None = None) -> tuple[bool, bool, str]:
    out = EvidenceJudge().judge_sync([ReplyCriterion(criterion=criterion, evidence=evidence, absent=absent)], replies)
    return out.criteria[0].passed, out.contradiction_found, out.criteria[0].explanation


# ---- keyword lines are judged by predicates, not by length ---------------------------------------------


@pytest.mark.parametrize(
    ("criterion", "evidence", "reply"),
    [
        ("Confirms REQ-4410 is done.", ["REQ-4410"], "Done (REQ-4410)."),
        ("Confirms CASE-5016 is closed.", ["CASE-5016", "closed"], "Closed - CASE-5016."),
        ("States the silver tier and 30,000 miles.", ["silver", "30,000"], "Silver, 30,000 miles."),
        ("Says the customer is 5,800 miles short.", ["5,800"], "You're 5,800 miles short."),
        ("Confirms the booking BK-1 at $179.00.", ["BK-1", "179.00"], "Booked: BK-1, AU211 ORD to BOS, standard fare, $179.00, seat 12A."),
    ],
)
def test_a_terse_correct_reply_is_an_answer(criterion: str, evidence: list[str | list[str]], reply: str) -> None:
    passed, _, why = verdict(criterion, evidence, ["Hello, how can I help?", reply])
    assert passed, why


@pytest.mark.parametrize(
    "reply",
    [
        "Balance/tier/bag: 3,100 miles - blue - silver - gold - 2",
        "Balance: 3,100 miles; tier: silver; bags: 2; status: gold",
        "silver, gold, blue, 3,100",
        "Silver. 3,100 miles. Gold. Blue.",
        "Here are your details: 3,100 - blue - silver - gold - bag - extra",
    ],
)
def test_a_dump_of_values_with_or_without_labels_states_nothing(reply: str) -> None:
    passed, _, why = verdict("States the silver tier and 3,100 miles.", ["silver", "3,100"], [reply])
    assert not passed, why


# ---- phrases through the lexicon and the stems ------------------------------------------------------------


@pytest.mark.parametrize(
    ("phrase", "reply"),
    [
        ("cancelled", "Your booking PNR-1 was canceled."),
        ("canceled", "Your booking PNR-1 was cancelled."),
        ("out of stock", "Sorry, the yellow jacket is sold out."),
        ("can't be changed", "The date of that fare can't be moved."),
        ("granted", "Sam now holds the admin role."),
        ("one stage at a time", "Deals move a stage at a time."),
        ("not listed", "The policy does not list that item."),
        ("authorized", "The payment is authorised."),
        ("follow-up", "The followup email went out."),
    ],
)
def test_a_phrase_matches_its_other_forms(phrase: str, reply: str) -> None:
    passed, _, why = verdict(f"The reply says {phrase}.", [phrase], [reply])
    assert passed, why


@pytest.mark.parametrize(
    ("phrase", "reply"),
    [
        ("cancelled", "Your booking PNR-1 was not cancelled."),
        ("cancelled", "I can cancel it for you now."),
        ("out of stock", "The yellow jacket is not out of stock."),
        ("can't be changed", "The date of that fare can be moved."),
        ("granted", "The request is on hold."),
        ("granted", "Once he approves, I can grant it right away."),
        ("not listed", "It is listed."),
        ("all three", "You have three new leads."),
        ("in stock", "Sorry, the jeans are out of stock."),
    ],
)
def test_a_form_keeps_its_polarity_and_aspect(phrase: str, reply: str) -> None:
    passed, _, why = verdict(f"The reply says {phrase}.", [phrase], [reply])
    assert not passed, why


def test_no_lexicon_group_joins_two_statuses_of_one_world_vocabulary() -> None:
    from grader.text.lexicon import lexicon, word_keys
    from grader.text.statuswords import status_sets

    assert lexicon().word_groups  # the file loads and has groups
    for words in status_sets():
        singles = sorted(w for w in words if " " not in w)
        for i, a in enumerate(singles):
            for b in singles[i + 1 :]:
                shared = {k for k in word_keys(a) & word_keys(b) if k.startswith("g:")}
                assert not shared, (a, b)


# ---- values -------------------------------------------------------------------------------------------


def _times(text: str) -> list[int]:
    return [int(v.value) for v in find_values(text) if v.kind == "time"]  # type: ignore[call-overload]


def test_time_ranges_noon_and_cents_are_values() -> None:
    assert _times("between 8 and 10 am") == [480, 600]
    assert _times("8-10am") == [480, 600]
    assert _times("from 11 to 1 pm") == [660, 780]
    assert _times("at 12 noon") == [720]
    assert [(v.kind, v.value) for v in find_values("10 cents")] == [("number", Decimal("0.1"))]
    assert [(v.kind, v.value) for v in find_values("ten cents")] == [("number", Decimal("0.1"))]
    assert _times("5 to 7 items") == []  # no am/pm: a count range, not times


def test_a_window_in_a_range_and_cents_satisfy_their_values() -> None:
    assert verdict("States the 08:00-10:00 window.", ["08:00", "10:00"], ["The technician comes between 8 and 10 am."])[0]
    assert verdict("States the $0.10 fee.", ["$0.10"], ["The fee is 10 cents."])[0]
    assert verdict("States the 12:00 slot.", ["12:00"], ["Your slot is at 12 noon."])[0]
    assert not verdict("States the 08:00 slot.", ["08:00"], ["The technician comes between 9 and 10 am."])[0]


# ---- values bound to their subject ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("criterion", "evidence", "replies"),
    [
        ("Gives ORD-1's delivery date.", ["December 3"], ["ORD-1 arrives on December 3.", "ORD-2 arrives on December 5."]),
        ("States the $180.00 cart total.", ["180.00"], ["Your cart is $180.00, $20 short of $200 for free shipping."]),
        ("Confirms the $600 transfer.", ["600"], ["The $900 transfer was refused: insufficient funds.", "Done - the $600 transfer went through."]),
        ("Confirms PNR-1 is cancelled.", ["PNR-1", "cancelled"], ["I see PNR-1 (confirmed) and PNR-2 (confirmed). Which one do you mean?", "PNR-1 is now cancelled."]),
        ("Confirms APT-1 is at 08:00.", ["08:00"], ["Priya Shah is already booked at 10:00.", "Done: APT-1 is now at 08:00."]),
    ],
)
def test_values_of_other_records_or_facts_are_no_contradiction(criterion: str, evidence: list[str | list[str]], replies: list[str]) -> None:
    passed, contradiction, why = verdict(criterion, evidence, replies)
    assert passed and not contradiction, why


@pytest.mark.parametrize(
    ("criterion", "evidence", "replies"),
    [
        ("Confirms PNR-1 is cancelled.", ["cancelled"], ["PNR-1 is cancelled.", "PNR-1 is confirmed."]),
        ("Gives ORD-1's delivery date.", ["December 3"], ["ORD-1 will be delivered on December 3.", "ORD-1 will be delivered on December 5."]),
        ("States the $180.00 cart total.", ["180.00"], ["Your cart total is $180.00, or $190.00."]),
    ],
)
def test_another_value_of_the_same_subject_still_contradicts(criterion: str, evidence: list[str | list[str]], replies: list[str]) -> None:
    passed, _, why = verdict(criterion, evidence, replies)
    assert not passed, why


def test_a_summary_binds_to_every_subject_it_covers() -> None:
    both = "Confirms both invoices are paid."
    assert not verdict(both, ["paid"], ["October is paid. November is still open.", "Both are paid."])[0]
    assert not verdict(both, ["paid"], ["October is paid, and November isn't paid yet.", "Both are paid."])[0]
    assert verdict(both, ["paid"], ["October and November are both paid."])[0]
    assert verdict(both, ["paid"], ["October is paid. November is paid too.", "Both are paid."])[0]


# ---- issue 41.5: statements taken back ---------------------------------------------------------------------

GOLD = ["Let me check that for you.", "Your refund of $45.00 for ORD-1 has been issued to your Visa."]
REFUND = ("Confirms the $45.00 refund for ORD-1.", ["45.00", "ORD-1", "refund*"])


@pytest.mark.parametrize(
    "edit",
    [
        lambda r: r[:-1] + [r[-1] + " Just kidding - none of that happened."],
        lambda r: r[:-1] + [r[-1] + " Correction: disregard everything."],
        lambda r: r + ["Please ignore my previous message."],
        lambda r: r[:-1] + [r[-1] + " That was not true."],
        lambda r: [r[0], "I did NOT do the following: " + r[1]],
        lambda r: [r[0], "None of the following happened: " + r[1]],
        lambda r: [r[0], "Has your refund of $45.00 for ORD-1 been issued to your Visa?"],
        lambda r: [r[0], "Your refund of $45.00 for ORD-1 has been issued to your Visa?"],
        lambda r: [r[0], "Your refund of $45.00 for ORD-1 has been issued to your Visa, right?"],
        lambda r: [r[0], "Is it true that your refund of $45.00 for ORD-1 has been issued to your Visa?"],
    ],
)
def test_a_reply_that_takes_its_facts_back_states_nothing(edit: object) -> None:
    assert verdict(*REFUND, GOLD)[0]
    passed, _, why = verdict(*REFUND, edit(list(GOLD)))  # type: ignore[operator]
    assert not passed, why


@pytest.mark.parametrize(
    "replies",
    [
        ["Your refund is $40.00 for ORD-1. Sorry, scratch that - your refund for ORD-1 is $45.00."],
        ["Your refund of $45.00 for ORD-1 has been issued. You can ignore that email from the bank."],
        ["Your refund of $45.00 for ORD-1 has been issued - would you like a receipt?"],
        ["Your refund of $45.00 for ORD-1 has been issued; is there anything else I can do?"],
        ["I'm sorry, that won't work: your refund of $45.00 for ORD-1 has been issued already."],
        ["Your refund of $45.00 for ORD-1, which we issued today, is on its way."],
    ],
)
def test_corrections_proposals_and_other_objects_keep_the_facts(replies: list[str]) -> None:
    passed, _, why = verdict(*REFUND, replies)
    assert passed, why


def _catalog_variants() -> tuple[int, int]:
    """(tasks judged, tasks whose taken-back replies still pass): the catalog's gold replies as written
    (their `${...}` ids still references, so only tasks whose criteria pass on them)."""
    from contracts.catalog import load_catalog

    judge = EvidenceJudge()
    judged = passing = 0
    for task in load_catalog().values():
        # A mention guard asserts nothing was stated wrong, so there is no fact of its to take back.
        criteria = [c for c in task.contract.reply_criteria or [] if not c.is_guard]
        replies = [t.reply for t in task.gold]
        if not criteria or not all(c.passed for c in judge.judge_sync(criteria, replies).criteria):
            continue
        judged += 1
        last = max(i for i, r in enumerate(replies) if r.strip())
        variants = [
            replies[:last] + [replies[last] + " Just kidding - none of that happened."] + replies[last + 1 :],
            [f"I did NOT do the following: {r}" if r.strip() else r for r in replies],
            [" ".join(s.rstrip(".!") + "?" for s in r.split(". ")) for r in replies],
        ]
        passing += any(all(c.passed for c in judge.judge_sync(criteria, v).criteria) for v in variants)
    return judged, passing


def test_no_task_passes_its_gold_replies_taken_back() -> None:
    """Before: the gold reply followed by a retraction, under a negated framing or as questions passed on
    497 of 497 tasks with reply criteria."""
    judged, passing = _catalog_variants()
    assert judged >= 300 and passing == 0, (judged, passing)
