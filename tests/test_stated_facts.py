"""Issue 38 items 2-4, on real tasks and worlds: the facts a note states are checked (text matchers),
every card or refund method a reply states is checked when it is stated (mention guards), and the
settings of a record the agent creates or configures are pinned (the NOT PINNED gate lint)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from contracts.catalog import load_catalog
from contracts.evidence import Evidence
from contracts.schema import ExpectedParams, GoldCall, GoldTurn, ReplyCriterion, StateCheck, Task, TextFacts
from grader.grade import JudgeFailure, grade_offline, prepare, validate_judgement
from grader.judge import CriterionJudgement, JudgeOutput
from grader.text.evidence import EvidenceJudge
from grader.textfacts import MAY_ALSO, STATES, text_problems
from grader.values import values_match
from harness.release.guards import mention_guards
from harness.release.pins import pin_findings
from harness.release.replay import GatewayReplayer
from harness.release.replies import reply_evidence
from harness.validate import _check_args
from servers.gateway import Gateway
from servers.registry import environment_class

pytestmark = pytest.mark.anyio


def _task(task_id: str) -> Task:
    return load_catalog()[task_id]


def _with_call(task: Task, tool: str, **args: Any) -> Task:
    """The task whose gold path calls `tool` with these arguments changed (every call of it)."""
    turns = [
        t.model_copy(update={"calls": [GoldCall(tool=c.tool, args={**c.args, **args}) if c.tool == tool else c for c in t.calls]})
        for t in task.gold
    ]
    return task.model_copy(update={"gold": turns})


async def _play(task: Task, turns: list[GoldTurn] | None = None) -> Evidence:
    async with GatewayReplayer(Gateway([task.domain])) as replayer:
        return await replayer.play(task, turns or task.gold)


# ---- item 2: free text is evidence --------------------------------------------------------------------

NOTE_TASK = "customer_support_case_add_note_01"  # the customer says the drops happen at about 2 pm


async def test_a_case_note_must_record_the_time_the_customer_gave() -> None:
    task = _task(NOTE_TASK)
    assert any(STATES in str(p.params) for p in task.contract.expected_params or [])
    gold = grade_offline(task, await _play(task))
    assert gold.strict, gold.summary()
    cases = {
        "Customer reports drops every day at about 14:00 during the generator test.": True,  # another written form
        "Customer reports drops every day at about 3 pm during the generator test.": False,  # the wrong time
        "Customer reports drops daily at about 2 pm; also saw one at 4 pm.": False,  # right time and a wrong one
        "Customer reports daily drops during the generator test.": False,  # the time left out
    }
    for note, passes in cases.items():
        played = _with_call(task, "add_case_note", note=note)
        verdict = grade_offline(task, await _play(task, played.gold))
        assert verdict.components["params"] is passes, (note, verdict.summary())
        assert verdict.strict is passes


def test_text_facts_compare_values_not_spellings() -> None:
    spec = {STATES: ["$249.00", "INV-8006"], MAY_ALSO: ["$100"]}
    assert values_match(spec, "INV-8006 bills the plan twice; duplicate 249 dollars exceeds the $100 cap.")
    assert not values_match(spec, "INV-8006 bills the plan twice; duplicate $294.00 exceeds the $100 cap.")
    assert not values_match(spec, "INV-8007 bills the plan twice; duplicate $249.00.")  # wrong invoice
    assert not values_match(spec, "INV-8006 and INV-8007 bill it twice: $249.00.")  # a rival id of the same prefix
    assert values_match(spec, "INV-8006 (case CASE-5009) bills $249.00 twice.")  # an id of another kind is no rival
    assert values_match(spec, "INV-8006: Fiber Business 1G billed twice, $249.00.")  # a count is not money
    assert text_problems(spec, "$249.00 duplicate") == ["does not state 'INV-8006'"]
    assert values_match({STATES: ["503-555-0177"]}, "Call the customer on 503-555-0177.")  # words: whole-word match
    assert not values_match({STATES: ["Redmond"]}, "The Redmondville site is offline.")
    assert not values_match({STATES: ["2 pm"]}, 1400)


def test_a_misspelt_text_matcher_is_a_contract_error() -> None:
    with pytest.raises(ValidationError):
        ExpectedParams(tool="add_case_note", params={"case_id": "CASE-5001", "note": {STATES: []}})
    with pytest.raises(ValidationError):
        StateCheck(path="cases.CASE-5001.notes", equals={STATES: ["2 pm"], "text_may": ["3 pm"]})
    assert set(TextFacts.model_fields) == {STATES, MAY_ALSO}
    env = environment_class("customer_support")
    assert not _check_args(env, "add_case_note", {"case_id": "CASE-5001", "note": {STATES: ["2 pm"]}}, "t", gold=False)
    problems = _check_args(env, "add_case_note", {"case_id": {STATES: ["CASE-5001"]}}, "t", gold=False)
    assert problems and "not a free-text parameter" in problems[0]


# ---- item 3: a stated fact is checked when it is stated --------------------------------------------------

CARD_TASK = "travel_book_with_second_card_01"  # Nora Haddad pays with her Amex PM-9015; her Visa is PM-4421


async def test_a_reply_naming_the_other_card_fails_while_the_state_is_right() -> None:
    task = _task(CARD_TASK)
    evidence = await _play(task)
    guards = mention_guards(task, evidence)  # generated from the world: the profile's other card
    assert [g.absent for g in guards] == [["PM-4421", "ending 4421"]]
    assert any(c.is_guard and c.absent == guards[0].absent for c in task.contract.reply_criteria or [])
    assert grade_offline(task, evidence).strict
    replies = tuple(m.content for m in evidence.conversation if m.role == "assistant")
    assert "PM-4421" not in " ".join(replies)
    wrong = replies[:-1] + (replies[-1].replace("your Amex PM-9015", "your Visa ending 4421"),)
    verdict = grade_offline(task, reply_evidence(evidence, wrong))
    assert verdict.components["state"] is True and verdict.components["reply"] is False
    silent = replies[:-1] + (replies[-1].replace(" charged to your Amex PM-9015", " charged"),)
    assert grade_offline(task, reply_evidence(evidence, silent)).strict  # not mentioned: the guard passes


def test_a_guard_passes_unmentioned_and_fails_on_a_wrong_value() -> None:
    guard = ReplyCriterion(criterion="If the replies say which card was charged, it is the Amex PM-9015.", absent=["PM-4421", "ending 4421"])
    judge = EvidenceJudge()
    assert judge.judge_sync([guard], ["Booked AU720 for $159.00."]).criteria[0].passed
    assert judge.judge_sync([guard], ["Booked AU720 for $159.00 on your Amex PM-9015."]).criteria[0].passed
    assert not judge.judge_sync([guard], ["Booked AU720 for $159.00 on your Visa ending 4421."]).criteria[0].passed
    with pytest.raises(ValidationError):
        ReplyCriterion(criterion="States nothing at all, ever.")  # neither evidence nor absent
    passed = JudgeOutput(judge="llm", criteria=[CriterionJudgement(passed=True, quote="", explanation="not mentioned")])
    validate_judgement(passed, 1, ["Booked."], [guard])  # a passing guard has nothing to quote
    quoted = JudgeOutput(judge="llm", criteria=[CriterionJudgement(passed=True, quote="Booked AU720 for you today.", explanation="no card named")])
    validate_judgement(quoted, 1, ["Booked AU720 for you today."], [guard])  # nor a value its quote must state
    asked = ReplyCriterion(criterion="States the $159.00 total charged.", evidence=["159.00"])
    with pytest.raises(JudgeFailure):
        validate_judgement(passed, 1, ["Booked."], [asked])


# ---- item 4: what the agent creates or configures is pinned whole ----------------------------------------

SETTINGS_TASK = "onboarding_journey_configure_golive_01"  # the customer asks for the time zone only


async def test_an_unrequested_setting_in_the_same_call_fails() -> None:
    task = _task(SETTINGS_TASK)
    assert grade_offline(task, await _play(task)).strict
    sneaky = _with_call(task, "update_settings", sso_enabled=True)
    verdict = grade_offline(task, await _play(task, sneaky.gold))
    assert not verdict.strict and verdict.components["state"] is False, verdict.summary()


async def test_the_gate_lint_finds_an_unpinned_setting() -> None:
    task = _task(SETTINGS_TASK)
    evidence = await _play(task)
    env = environment_class(task.domain)
    prepared, canonical, _ = prepare(task, evidence)
    assert pin_findings(prepared, canonical, env) == []
    loose = [s for s in task.contract.expected_state or [] if "settings" not in s.path]
    # Unpinned: neither the whole-settings state check nor `only_changes` (which would also pin them).
    unpinned = task.model_copy(update={"contract": task.contract.model_copy(update={"expected_state": loose, "only_changes": None})})
    prepared, canonical, _ = prepare(unpinned, evidence)
    findings = pin_findings(prepared, canonical, env)
    assert any("settings.sso_enabled" in f for f in findings) and any("settings.data_region" in f for f in findings)
