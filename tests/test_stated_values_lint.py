"""The catalog lint on reply criteria (round 4, r4-evidence): every value a criterion's statement names
must be required by its evidence, or be declared in `context_values` with a reason. Otherwise a reply
stating a wrong value of that very fact passes ("the 20A breaker on circuit 9 was replaced")."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from contracts.catalog import load_catalog
from contracts.graph import load_graph
from contracts.schema import ContextValues, ReplyCriterion
from grader.text.evidence import EvidenceJudge
from harness.validate import stated_value_problems, unrequired_values, validate_task
from servers.registry import environment_class


def _criterion(statement: str, evidence: list[Any], context: list[dict[str, Any]] | None = None) -> ReplyCriterion:
    return ReplyCriterion.model_validate({"criterion": statement, "evidence": evidence, **({"context_values": context} if context else {})})


# ---- a flagged value ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("statement", "evidence", "flagged"),
    [
        ("States that the 20A breaker on circuit 7 was replaced.", ["replaced", ["20A", "breaker"]], ["20", "7"]),
        ("Explains that the 16:30 slot has already gone.", [["gone", "taken"]], ["16:30"]),
        ("Says the parcel left the depot on 2026-11-14.", ["left the depot"], ["2026-11-14"]),
        ("Explains that the $312.40 refund is over the $250 limit.", ["250", "limit"], ["$312.40"]),
        ("Confirms the ticket is now Sev2.", ["ticket"], ["Sev2"]),
        ("Gives the discount of 15% on the renewal.", ["discount"], ["15%"]),
    ],
)
def test_a_value_the_evidence_does_not_require_is_flagged(statement: str, evidence: list[Any], flagged: list[str]) -> None:
    problems = unrequired_values(_criterion(statement, evidence))
    assert len(problems) == len(flagged), problems
    for text, problem in zip(flagged, problems, strict=True):
        assert repr(text) in problem and "context_values" in problem


def test_a_value_only_one_alternative_names_is_not_required() -> None:
    """An item is any one of its phrases: "breaker" alone satisfies it, so "20A" is not required."""
    assert unrequired_values(_criterion("Says the 20A breaker was swapped.", [["20A", "breaker"]]))
    assert not unrequired_values(_criterion("Says the 20A breaker was swapped.", [["20A", "20 amp 20A"]]))


# ---- a required value, in the same or another form the judge reads as the same -------------------


@pytest.mark.parametrize(
    ("statement", "evidence"),
    [
        ("States that the 20A breaker on circuit 7 was replaced.", ["replaced", "20A", "circuit 7"]),
        ("Confirms the balance is now $1,450.00.", ["1450"]),
        ("Confirms the balance is now $1,450.00.", [["$1,450", "1450.00 dollars"]]),
        ("Says the visit moved to December 15.", ["2026-12-15"]),
        ("Says the visit moved to 2026-12-15 at 1 pm.", [["Dec 15", "15 December"], "13:00"]),
        ("Reports a 31.1% click rate.", ["31.1"]),
        ("Confirms three seats were released.", ["3 seats"]),
        ("Confirms INC-2040 is now P2.", ["INC-2040", "priority 2"]),
        ("Gives the audit entry of 2026-11-29 10:15.", ["2026-11-29", "10:15"]),
    ],
)
def test_a_required_value_passes(statement: str, evidence: list[Any]) -> None:
    assert unrequired_values(_criterion(statement, evidence)) == []


def test_references_are_no_literal_values() -> None:
    """A `${...}` reference is the trial's own value, blanked out of the statement and of the evidence
    (its "#2" is no count)."""
    assert unrequired_values(_criterion("Gives the transfer id ${execute_transfer#2.transfer_id}.", ["${execute_transfer#2.transfer_id}"])) == []


def test_a_mention_guard_asks_for_nothing_and_is_skipped() -> None:
    guard = ReplyCriterion(criterion="If the replies name the card, it is PM-9015, never PM-4421.", absent=["PM-4421"])
    assert unrequired_values(guard) == []


# ---- a declared context value ---------------------------------------------------------------------

REASON = "the amount the customer asked for, restated to say which request; the asked fact is the refusal"


def test_a_declared_context_value_passes() -> None:
    statement = "Tells the customer the $780 transfer cannot be made because the account is frozen."
    assert unrequired_values(_criterion(statement, ["frozen"]))
    assert unrequired_values(_criterion(statement, ["frozen"], [{"values": ["$780"], "reason": REASON}])) == []
    # declared in another written form the judge reads as the same value
    assert unrequired_values(_criterion(statement, ["frozen"], [{"values": ["780.00"], "reason": REASON}])) == []


def test_a_count_in_words_is_declared_by_its_words() -> None:
    statement = "States the one-night late fee of $140."
    assert unrequired_values(_criterion(statement, ["140"]))
    assert unrequired_values(_criterion(statement, ["140"], [{"values": ["one"], "reason": "the fee's description; the asked fact is its amount"}])) == []


def test_a_stale_declaration_is_flagged() -> None:
    statement = "Tells the customer the $780 transfer cannot be made because the account is frozen."
    required = unrequired_values(_criterion(statement, ["780", "frozen"], [{"values": ["$780"], "reason": REASON}]))
    assert len(required) == 1 and "required by the evidence" in required[0]
    unnamed = unrequired_values(_criterion(statement, ["780", "frozen"], [{"values": ["$870"], "reason": REASON}]))
    assert len(unnamed) == 1 and "no value the statement names" in unnamed[0]


def test_the_context_field_is_typed() -> None:
    with pytest.raises(ValidationError):
        ContextValues(values=["$780"], reason="too short")
    with pytest.raises(ValidationError):
        ContextValues(values=[], reason=REASON)
    with pytest.raises(ValidationError):
        ContextValues.model_validate({"values": ["$780"], "reason": REASON, "why": "x"})
    with pytest.raises(ValidationError):
        ReplyCriterion.model_validate({"criterion": "Says it is frozen.", "evidence": ["frozen"], "context_values": []})


# ---- the judge: a wrong value of the asked fact now fails -----------------------------------------


def test_the_judge_now_fails_a_wrong_value_the_evidence_requires() -> None:
    task = load_catalog()["field_service_wo_status_01"]
    criteria = task.contract.reply_criteria or []
    judge = EvidenceJudge()
    gold = [t.reply for t in task.gold]
    assert judge.judge_sync(criteria, gold, instruction=task.instruction).criteria[0].passed
    wrong = ["WO-5008 is completed: the technician replaced the 20A breaker on circuit 9."]
    assert not judge.judge_sync(criteria, wrong, instruction=task.instruction).criteria[0].passed
    right = ["Work order WO-5008 is done - the tech swapped the 20A breaker on circuit 7 and tested it."]
    assert judge.judge_sync(criteria, right, instruction=task.instruction).criteria[0].passed


# ---- the catalog ----------------------------------------------------------------------------------


def test_the_catalog_is_clean() -> None:
    problems = [line for task in load_catalog().values() for line in stated_value_problems(task)]
    assert problems == [], "\n".join(problems[:20])


def test_structural_validation_runs_the_lint() -> None:
    task = load_catalog()["field_service_wo_status_01"]
    loose = _criterion("States that WO-5008 is completed and that the 20A breaker on circuit 7 was replaced.", ["completed", ["20A", "breaker"]])
    bad = task.model_copy(update={"contract": task.contract.model_copy(update={"reply_criteria": [loose]})})
    problems = validate_task(bad, environment_class("field_service"), load_graph("field_service"))
    assert any("'WO-5008'" in p for p in problems) and any("'7'" in p for p in problems)
    assert not [p for p in validate_task(task, environment_class("field_service"), load_graph("field_service")) if "evidence does not require" in p]
