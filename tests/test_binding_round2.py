"""Binding, round 2: what a fact is stated about (pronouns, continued clauses, appositions, predicates said of
a rival subject, lists of values paired with lists of labels). Cases in words of their own; each must-fail
case stands next to a right reply that must pass."""

from __future__ import annotations

import pytest

from grader.text.binding import binding, value_labels
from tests.reply_judge import passes


CASES = [
    # a pronoun in the criterion refers back to the last subject: "it" is SHP-212
    ("Says SHP-212 was held back because it is missing a customs form.", ["SHP-212", "customs form"],
     "SHP-212 went out today. SHP-214 is held, as it's missing a customs form.", False),
    ("Says SHP-212 was held back because it is missing a customs form.", ["SHP-212", "customs form"],
     "SHP-212 is held back: it's missing a customs form.", True),
    # a clause continued by "and" is about the subject of the clause before it
    ("Confirms BK-330 is cancelled with a $64.50 refund.", ["BK-330", "64.50"],
     "I've cancelled BK-331 and $64.50 is on its way back to you. BK-330 was already used, so it stays.", False),
    ("Confirms BK-330 is cancelled with a $64.50 refund.", ["BK-330", "64.50"],
     "I've cancelled BK-330 and $64.50 is on its way back to you.", True),
    # a later clause that refers back with a pronoun carries the object
    ("Confirms Nadia Frost (AGT-12) is put on ticket TKT-901.", [["Nadia Frost", "AGT-12"]],
     "Nadia Frost (AGT-12) has capacity today, so I've put her on TKT-905.", False),
    ("Confirms Nadia Frost (AGT-12) is put on ticket TKT-901.", [["Nadia Frost", "AGT-12"]],
     "Nadia Frost (AGT-12) has capacity today, so I've put her on TKT-901.", True),
    # an item the criterion does not word is about the criterion's one subject
    ("Gives the renewal date of SUBS-77.", [["2027-01-15", "January 15"]],
     "SUBS-76 renews on January 15 and SUBS-77 on February 2.", False),
    ("Gives the renewal date of SUBS-77.", [["2027-01-15", "January 15"]],
     "SUBS-76 renews on February 2 and SUBS-77 on January 15.", True),
    # an apposition after the match names its object
    ("Says the duty manager Ingrid Holm was called.", ["Ingrid Holm", "called"],
     "I've called the duty manager, Tomas Berg. Ingrid Holm is on leave this week.", False),
    ("Says the duty manager Ingrid Holm was called.", ["Ingrid Holm", "called"],
     "I've called the duty manager, Ingrid Holm.", True),
    # what the criterion says of a subject item, said of another subject of its kind
    ("States that DEV-88 is owned by the platform team and assigned to Petra Lind.", ["DEV-88", "Petra Lind"],
     "DEV-88 sits with the platform team and is assigned to Oscar Vey; Petra Lind reviews it.", False),
    ("States that DEV-88 is owned by the platform team and assigned to Petra Lind.", ["DEV-88", "Petra Lind"],
     "DEV-88 sits with the platform team and is assigned to Petra Lind; Oscar Vey reviews it.", True),
    ("Tells the customer to quote RMA-4410 from now on.", ["RMA-4410"],
     "RMA-4410 was folded into RMA-4412, so please quote RMA-4412 from now on.", False),
    ("Tells the customer to quote RMA-4410 from now on.", ["RMA-4410"],
     "RMA-4412 was folded into RMA-4410, so please quote RMA-4410 from now on.", True),
    ("Says the signed lease is missing (the photo ID is on file).", ["signed lease"],
     "Your signed lease is on file, but the photo ID is still missing.", False),
    ("Says the signed lease is missing (the photo ID is on file).", ["signed lease"],
     "Your photo ID is on file, but the signed lease is still missing.", True),
    # a predicate the criterion states negated is not the item's predicate
    ("Explains Jonas Weil is on hold and cannot be enrolled.", ["Jonas", "on hold"],
     "Jonas Weil is on hold, so he can't be enrolled. I enrolled Mira Dahl instead.", True),
    # the predicate said of both the item and a rival: the item has it
    ("Confirms PKG-51 and PKG-52 were shipped.", ["PKG-51", "PKG-52"],
     "I shipped PKG-51 and PKG-52 this morning; PKG-50 was shipped last week.", True),
    # values paired in order with a list of labels
    ("States the small, medium and large prices of $12, $15 and $19.", [["$12"], ["$15"], ["$19"]],
     "The cups are $12 for medium, $15 for large and $19 for small.", False),
    ("States the small, medium and large prices of $12, $15 and $19.", [["$12"], ["$15"], ["$19"]],
     "The cups are $12 for small, $15 for medium and $19 for large.", True),
    # values that each carry a label are no label-less list
    ("States that ACC-77 has 4,150 reward points and a balance of $8,020.00.", ["4150", "8020"],
     "ACC-77 has a balance of $4,150.00 and 8,020 reward points.", False),
    ("States that ACC-77 has 4,150 reward points and a balance of $8,020.00.", ["4150", "8020"],
     "ACC-77 has a balance of $8,020.00 and 4,150 reward points.", True),
]


@pytest.mark.parametrize(("criterion", "evidence", "reply", "expected"), CASES)
def test_binding_round2(criterion: str, evidence: list, reply: str, expected: bool) -> None:
    assert passes(criterion, evidence, reply) is expected


def test_pronoun_binds_to_previous_clause() -> None:
    b = binding("Says SHP-212 was held back because it is missing a customs form.", ("customs form",))
    assert b is not None and [x.key for x in b.bound] == ["SHP-212"]


def test_unworded_item_binds_to_single_subject() -> None:
    b = binding("Gives the renewal date of SUBS-77.", ("2027-01-15",))
    assert b is not None and [x.key for x in b.bound] == ["SUBS-77"]


def test_parallel_labels() -> None:
    labels = value_labels("States the small, medium and large prices of $12, $15 and $19.", (("$12",), ("$15",), ("$19",)))
    assert all(labels) and len({frozenset(x) for x in labels}) == 3  # type: ignore[arg-type]
