"""The value-aware offline evidence judge (issue 23): one test per rule of `grader.text.evidence`, each failing
without its rule."""

from __future__ import annotations

import pytest

from contracts.schema import ReplyCriterion
from grader.grade import validate_judgement
from grader.text.evidence import EvidenceJudge
from grader.text.values import find_values, phrase_value


def judge(criterion: str, evidence: list, replies: list[str], absent: list[str] | None = None, others: list[ReplyCriterion] | None = None):  # noqa: ANN001
    criteria = [ReplyCriterion(criterion=criterion, evidence=evidence, absent=absent), *(others or [])]
    output = EvidenceJudge().judge_sync(criteria, replies)
    validate_judgement(output, len(criteria), replies)
    return output.criteria[0], output


# ---- rule 1: values in any written form ----------------------------------------------------------


@pytest.mark.parametrize(
    ("phrase", "reply"),
    [
        ("1450.00", "The refund of $1,450 is on its way."),
        ("$1,450", "We refunded 1450.00 to your card."),
        ("1450.00", "We refunded 1,450 dollars to your card."),
        ("2026-12-15", "Your visit is booked for December 15, 2026."),
        ("2026-12-15", "Your visit is booked for 15 December 2026."),
        ("2026-12-15", "Your visit is booked for Tuesday, Dec 15th."),
        ("December 15", "Your visit is booked for 2026-12-15."),
        ("2026-11-29", "The appointment is at 2026-11-29T10:15 as planned."),
        ("13:00", "The technician arrives at 1 pm."),
        ("13:00", "The technician arrives at 1:00 PM."),
        ("1 pm", "The technician arrives at 13:00."),
        ("CASE-5016", "I have updated case-5016 for you."),
        ("31.1", "The conversion rate was 31.1% of clicks."),
    ],
)
def test_a_value_matches_in_any_common_written_form(phrase: str, reply: str) -> None:
    verdict, _ = judge("States the value the customer asked for.", [phrase], [reply])
    assert verdict.passed, verdict.explanation


@pytest.mark.parametrize(
    ("phrase", "reply"),
    [
        ("50", "The fee is $150."),
        ("50", "The fee is $50.75."),
        ("2026-12-15", "Your visit is booked for December 15, 2027."),
        ("2026-12-15", "Your visit is booked for December 16."),
        ("10:00", "The technician arrives at 10 pm."),
        ("4%", "There are 4 open tickets here."),
        ("5016", "I have updated CASE-5016 for you."),
    ],
)
def test_another_value_of_the_same_kind_does_not_match(phrase: str, reply: str) -> None:
    verdict, _ = judge("States the value the customer asked for.", [phrase], [reply])
    assert not verdict.passed


def test_values_are_recognised_with_kinds() -> None:
    kinds = [(v.kind, v.value) for v in find_values("On 2026-11-29T10:15 we charged $1,450.00 on CASE-77 (4.0%).")]
    assert [k for k, _ in kinds] == ["date", "time", "number", "id", "percent"]
    assert phrase_value("30 days") is None and phrase_value("CASE-") is None and phrase_value("$40") is not None


@pytest.mark.parametrize(
    ("phrase", "reply"),
    [
        ("3", "The APAC segment has three members."),
        ("25", "Twenty-five customers opened the email."),
        ("12", "You have Twelve open tickets."),
        ("3 items", "There are three items in your cart."),
        ("3 tickets", "You have 3 open tickets."),
        ("1 member", "The Healthcare segment has one subscribed member."),
        ("one member", "The Healthcare segment has 1 member."),
        ("30 days", "Items can be returned within thirty days of delivery."),
        ("30 days", "Items have a 30-day return window."),
        ("1", "The starter plan allows only one."),
    ],
)
def test_a_count_matches_in_digits_or_words_with_its_noun(phrase: str, reply: str) -> None:
    verdict, _ = judge("States the count the customer asked for.", [phrase], [reply])
    assert verdict.passed, verdict.explanation


@pytest.mark.parametrize(
    ("phrase", "reply"),
    [
        ("3", "The APAC segment has four members."),
        ("3 items", "There are 3 in your cart."),  # the count without its noun
        ("3 items", "There are three boxes in your cart."),
        ("3 items", "There are 4 items in your cart."),
        ("1", "The one you booked is confirmed."),  # a pronoun, not a count
        ("1", "One of them is confirmed."),
        ("1", "I booked the one-way fare."),
        ("12", "About a dozen tickets are open."),  # approximate words are no counts
    ],
)
def test_a_wrong_count_or_a_count_without_its_noun_does_not_match(phrase: str, reply: str) -> None:
    verdict, _ = judge("States the count the customer asked for.", [phrase], [reply])
    assert not verdict.passed, verdict.explanation


def test_number_words_are_values_only_where_they_count() -> None:
    assert [(v.text, int(v.value)) for v in find_values("three tickets, ninety nine points, zero fees and only one.")] == [  # type: ignore[call-overload]
        ("three", 3), ("ninety nine", 99), ("zero", 0), ("one", 1)]
    assert find_values("No one needs the one-way fare; someone picked one of them, the one you chose.") == []


# ---- rule 2: wrong values, contradictions, corrections ---------------------------------------------

BALANCE = "States the balance of ACC-1005 as $640.20."


def test_a_wrong_value_for_the_same_fact_fails_even_if_the_right_one_appears() -> None:
    verdict, output = judge(BALANCE, ["640.20"], ["Hello.", "Your balance is $604.20. The statement shows a balance of $640.20."])
    assert not verdict.passed and "604.20" in verdict.explanation and output.contradiction_found


def test_a_later_correction_that_ends_on_the_right_value_passes() -> None:
    verdict, output = judge(BALANCE, ["640.20"], ["Your balance is $604.20.", "Sorry, I misread it: your balance is $640.20."])
    assert verdict.passed and not output.contradiction_found
    assert "last statement" in verdict.explanation


def test_a_correction_back_to_the_wrong_value_fails() -> None:
    verdict, output = judge(BALANCE, ["640.20"], ["Your balance is $640.20.", "Correction: your balance is $604.20."])
    assert not verdict.passed and output.contradiction_found


@pytest.mark.parametrize(
    "messages",
    [
        ["Your balance is $640.20. Actually, it is $604.20."],
        ["Your balance is $640.20.", "Sorry - that was $604.20."],
        ["Your balance is $640.20.", "Correction: it's $604.20."],
    ],
)
def test_a_correction_without_a_label_of_its_own_restates_the_fact(messages: list[str]) -> None:
    """A sentence a correction cue opens, with a value and no label of its own, takes back the fact just
    stated (a lead engineer's held-out case: "Actually, it was $60.00" after the right $50.00 passed)."""
    verdict, output = judge(BALANCE, ["640.20"], messages)
    assert not verdict.passed and output.contradiction_found, verdict.explanation


def test_a_labelled_value_after_a_correction_cue_is_its_own_fact_and_a_correction_to_the_right_value_passes() -> None:
    verdict, _ = judge(BALANCE, ["640.20"], ["Your balance is $640.20. Actually, your pending charges come to $36.00."])
    assert verdict.passed, verdict.explanation
    verdict, _ = judge(BALANCE, ["640.20"], ["Your balance is $604.20.", "Sorry, I misread: it is $640.20."])
    assert verdict.passed, verdict.explanation


def test_values_of_other_facts_and_prior_values_are_not_contradictions() -> None:
    other = ReplyCriterion(criterion="Confirms the $50 transfer was completed.", evidence=["50"])
    verdict, output = judge(BALANCE, ["640.20"], ["Your balance was $690.20 before the $50 transfer; your balance is now $640.20."], others=[other])
    assert verdict.passed and not output.contradiction_found
    verdict, _ = judge("States the growth plan price of $299 per month.", ["299"], ["The growth plan is $299 per month and the enterprise plan $1,200 per month."])
    assert verdict.passed


REFUND = "Gives the $45.00 refund amount."


@pytest.mark.parametrize(
    "reply",
    [
        "Your refund of $45.00 and $54.00 has been credited.",
        "Your refund of $45.00 (or $54.00) has been credited.",
        "Your refund of $45.00, sorry, $54.00 has been credited.",
        "Your refund of $45.00 has been credited; we refunded $54.00 to your card.",
    ],
)
def test_a_wrong_value_stated_with_the_right_one_in_one_sentence_fails(reply: str) -> None:
    verdict, output = judge(REFUND, ["45.00"], [reply])
    assert not verdict.passed and "54.00" in verdict.explanation and output.contradiction_found


@pytest.mark.parametrize(
    "reply",
    [
        "Your refunds of $45.00 and $54.00 have been credited.",  # a plural label enumerates
        "Both refunds, $45.00 and $54.00, have been credited.",
        "Your refund of $45.00 has been credited, so your balance is now $154.00.",  # another time
        "Of your $99.00 order total, $45.00 is refunded to your card.",  # a total and a part
        "We refunded $45.00 and charged a $5.00 restocking fee.",  # another label
        "A refund of $45.00 was issued on 2026-12-01, and another refund of $54.00 on 2026-12-02.",
        "Your refund of $54.00, sorry, $45.00 has been credited.",  # corrected, ends on the right value
    ],
)
def test_several_values_of_several_facts_in_one_sentence_pass(reply: str) -> None:
    verdict, output = judge(REFUND, ["45.00"], [reply])
    assert verdict.passed and not output.contradiction_found, verdict.explanation


SEGMENT = "Confirms the APAC audience segment (3 members) is now Winter Promo's audience."


def test_another_count_of_the_same_thing_contradicts_a_count() -> None:
    verdict, output = judge(SEGMENT, ["3", "APAC"], ["The APAC audience segment has 3 members.", "Correction: the APAC audience segment has four members."])
    assert not verdict.passed and output.contradiction_found
    verdict, _ = judge(SEGMENT, ["3", "APAC"], ["The APAC audience segment has 3 or 4 members."])
    assert not verdict.passed
    verdict, _ = judge(SEGMENT, ["3", "APAC"], ["The APAC audience segment has 3 members, 2 of them opted in."])
    assert verdict.passed, verdict.explanation  # another count (of opted-in members) is another fact


def test_a_time_word_the_criterion_names_the_fact_with_is_part_of_its_label() -> None:
    """"remaining" places a value at another time, except when the criterion asks for the remaining balance."""
    criterion = "Confirms the $200 transfer and the remaining balance of $22.50."
    verdict, output = judge(criterion, ["200", "22.50"], ["Your $200 transfer is done.", "Your remaining balance is $22.50.", "Your remaining balance is $42.50."])
    assert not verdict.passed and output.contradiction_found
    verdict, _ = judge(BALANCE, ["640.20"], ["Your balance is $640.20, and $600.00 remaining after the pending payment."])
    assert verdict.passed, verdict.explanation


def test_was_after_a_value_is_its_verb_not_a_prior_value() -> None:
    criterion = "Confirms the $318.60 refund was credited to ACC-1004."
    verdict, output = judge(criterion, ["318.60"], ["The $318.60 refund is on its way.", "Done: a refund of $381.60 was credited to ACC-1004."])
    assert not verdict.passed and output.contradiction_found
    verdict, _ = judge(BALANCE, ["640.20"], ["Your balance was $690.20 this morning; your balance is $640.20."])
    assert verdict.passed, verdict.explanation  # "was" before a value still places it at another time


def test_a_record_id_inside_a_label_does_not_cut_it() -> None:
    criterion = "Confirms the $200 transfer to ACC-1001 and the remaining balance of $22.50."
    replies = ["$200.00 went to ACC-1001 and your remaining balance is $20.50.", "For your records: the remaining balance on ACC-1002 is $22.50."]
    verdict, output = judge(criterion, ["200", "ACC-1001", "22.50"], replies)
    assert not verdict.passed and output.contradiction_found and "20.50" in verdict.explanation


@pytest.mark.parametrize(
    ("criterion", "phrase", "replies"),
    [
        ("Confirms the exchange to size 11.", "11", ["Yes: size 10 and size 11 of the Everyday Sneakers are both in stock."]),
        ("Says size 10 is available.", "10", ["The Everyday Sneakers ($75.00) are in stock in sizes 8, 10 and 11."]),
        ("Confirms the exchange to size 10.", "10", ["ORD-9009 (Everyday Sneakers, size 9) is delivered.", "Done: the exchange is for size 10."]),
    ],
)
def test_a_number_that_names_rather_than_counts_is_no_contradiction(criterion: str, phrase: str, replies: list[str]) -> None:
    """Found by the gold replies of retail: "size 10" and "size 9" name sizes, they count nothing."""
    verdict, output = judge(criterion, [phrase], replies)
    assert verdict.passed and not output.contradiction_found, verdict.explanation


def test_a_self_correction_may_repeat_the_counted_noun_and_a_next_visit_is_another_fact() -> None:
    verdict, _ = judge("States 867 miles credited.", ["867"], ["I credited 867 miles, sorry, 876 miles for AU512."])
    assert not verdict.passed
    verdict, _ = judge("Confirms the visit on 2026-12-15.", ["2026-12-15"], ["Your visit is on 2026-12-15; the follow-up visit is on 2026-12-22."])
    assert verdict.passed, verdict.explanation


def test_a_self_correction_to_a_value_the_task_names_elsewhere_is_still_wrong() -> None:
    """"$22.50, or rather $42.50": the refund amount the customer named, given as the balance."""
    criterion = "Confirms the $200 transfer and the remaining balance of $22.50."
    reply = "Done: $200.00 went to ACC-1001, and your remaining balance is $22.50, or rather $42.50."
    output = EvidenceJudge().judge_sync([ReplyCriterion(criterion=criterion, evidence=["200", "22.50"])], [reply], instruction="Refund my $42.50 order.")
    assert not output.criteria[0].passed and output.contradiction_found
    verdict, _ = judge("Confirms APT-7003 is now at 08:00.", ["08:00"], ["Done: APT-7003 is now on Wednesday 2 December at 08:00, sorry, 16:00."])
    assert not verdict.passed  # a self-correction ties the values to one fact even without a label


def test_a_later_right_value_without_a_correction_does_not_outweigh_a_wrong_one() -> None:
    verdict, output = judge(BALANCE, ["640.20"], ["Your balance is $604.20.", "For reference, the statement line shows a balance of $640.20."])
    assert not verdict.passed and output.contradiction_found
    verdict, _ = judge(BALANCE, ["640.20"], ["Your balance is $604.20. Sorry, I misread it: your balance is $640.20."])
    assert verdict.passed, verdict.explanation  # corrected in the same message, ending on the right value


STATUS = "Tells the customer that ORD-9006 is cancelled."


def test_another_status_of_the_same_record_is_a_contradiction() -> None:
    verdict, output = judge(STATUS, ["cancelled"], ["Order ORD-9006 is Shipped. Your order ORD-9006 is cancelled."])
    assert not verdict.passed and output.contradiction_found and "another status" in verdict.explanation
    corrected, output = judge(STATUS, ["cancelled"], ["Order ORD-9006 is Shipped.", "Sorry, my mistake: ORD-9006 is cancelled."])
    assert corrected.passed and not output.contradiction_found
    other_record, _ = judge(STATUS, ["cancelled"], ["ORD-9007 has Shipped.", "ORD-9006 is cancelled."])
    assert other_record.passed


def test_status_vocabularies_come_from_the_worlds_types() -> None:
    from grader.text.statuswords import rivals

    assert {"shipped", "delivered", "processing"} <= rivals("Cancelled") and "in progress" in rivals("resolved")
    assert rivals("frozen") == frozenset()


# ---- rule 3: negation ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        "I did NOT say it was refunded.",
        "The order was never refunded.",
        "I'm unable to confirm it was refunded.",
        "It has not been refunded yet.",
    ],
)
def test_a_negated_mention_is_not_a_match(reply: str) -> None:
    verdict, _ = judge("Confirms the order was refunded.", ["refunded"], [reply])
    assert not verdict.passed and "negated" in verdict.explanation


def test_a_negative_evidence_phrase_and_a_negative_criterion_still_match() -> None:
    assert judge("Says the PIN does not match.", [["does not match"]], ["I'm sorry, that PIN does not match our records."])[0].passed
    verdict, _ = judge("Explains that Mei does not have the HVAC skill.", [["hvac"]], ["Mei isn't trained for hvac work."])
    assert verdict.passed


def test_absent_phrases_are_negation_aware() -> None:
    ok, _ = judge("Says no access was granted yet.", ["pending"], ["Your request is pending; nothing has been granted."], absent=["granted"])
    assert ok.passed
    bad, _ = judge("Says no access was granted yet.", ["pending"], ["Your request is pending and access is granted."], absent=["granted"])
    assert not bad.passed


# ---- rule 4: keyword lists -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "replies",
    [
        ["frozen, refunded, P1, tier 2, pending, 640.20, closed, billing, cancelled, 129.99"],
        ["frozen\nrefunded\nP1\ntier 2\npending\n640.20"],
        ["frozen", "refunded", "P1", "tier 2", "640.20"],
    ],
)
def test_a_keyword_list_carries_no_fact(replies: list[str]) -> None:
    verdict, _ = judge("States the balance as $640.20.", ["640.20"], replies)
    assert not verdict.passed and "keyword list" in verdict.explanation


def test_a_dense_but_grammatical_sentence_still_carries_facts() -> None:
    reply = "Per person: basic $109.00, standard $169.00, flexible $239.00. I haven't booked anything."
    assert judge("States the three fares.", ["109.00", "169.00", "239.00"], [reply])[0].passed


# ---- rule 5: every verdict says what matched where -----------------------------------------------


def test_a_verdict_quotes_and_explains_what_matched_where() -> None:
    verdict, _ = judge("Confirms the $350 transfer and its id.", ["350", "XFER-"], ["Hello.", "Done: $350 moved. The transfer id is XFER-9."])
    assert verdict.passed and verdict.quote == "Done: $350 moved."
    assert "'350' as number '$350' in message 2" in verdict.explanation and "'XFER-' in message 2" in verdict.explanation


# ---- the attack of issue 23 ----------------------------------------------------------------------


def test_one_reply_of_every_evidence_phrase_of_a_domain_passes_no_task() -> None:
    """Before: such a reply passed the reply criteria of all 427 tasks that have them. Four forms: a comma
    list, one per line, inside a sentence, and one phrase per message. Tasks whose only reply criteria are
    conditions with nothing to state ("If the replies say how it was paid, it is a bank transfer": `absent`
    only) are met by silence, so a dump cannot be worse there; every task that asks for a statement counts."""
    from collections import defaultdict

    from contracts.catalog import load_catalog

    catalog = load_catalog()
    phrases: dict[str, list[str]] = defaultdict(list)
    for task in catalog.values():
        for c in task.contract.reply_criteria or []:
            for item in c.evidence:
                for p in [item] if isinstance(item, str) else item:
                    if p not in phrases[task.domain]:
                        phrases[task.domain].append(p)
    judge_ = EvidenceJudge()
    passed: dict[str, int] = {}
    counted: dict[str, int] = {}
    for domain, ps in phrases.items():
        forms = [[", ".join(ps)], ["\n".join(ps)], ["Here is everything I did for you: " + ", ".join(ps) + "."], ps]
        tasks = [t for t in catalog.values() if t.domain == domain and any(c.evidence for c in t.contract.reply_criteria or [])]
        counted[domain] = len(tasks)
        passed[domain] = sum(
            all(c.passed for c in judge_.judge_sync(t.contract.reply_criteria, form).criteria) for t in tasks for form in forms  # type: ignore[arg-type]
        )
    assert len(passed) == 9 and not any(passed.values()), passed
    assert sum(counted.values()) > 450, counted


def test_a_written_date_or_a_thousands_comma_does_not_make_a_sentence_a_keyword_list() -> None:
    """Found by the reply_reworded battery: "December 15, 2026" and "$1,450" add commas, not items."""
    from grader.text.units import list_items, unit_is_list

    reworded = "Booked: BK-1, AU211 ORD to BOS on December 15, 2026, standard fare, 179.00 dollars on PM-8842, seat 12A."
    assert len(list_items(reworded)) == 6  # a `label:` colon separates too (issue 37: label-value lists are lists)
    assert not unit_is_list(reworded, ("179.00",))
    assert unit_is_list("1340, done, confirmed")
