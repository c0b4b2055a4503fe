"""Edge cases of every contract check family, on hand-built evidence (spec A.2 semantics)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from contracts.evidence import Evidence, Message, ToolCallRecord
from contracts.schema import Contract, Task
from grader.grade import JudgeFailure, grade_offline, validate_judgement
from grader.judge import CriterionJudgement, JudgeOutput
from grader.verdicts import TOOL_CALL_ERROR


def make_task(contract: dict[str, Any], **extra: Any) -> Task:
    return Task.model_validate(
        {
            "id": "payments_unit_test_01",
            "domain": "payments",
            "title": "unit test task",
            "capabilities": ["transfer"],
            "difficulty": "easy",
            "instruction": "You are a unit test user. You want the thing done; stop when it is done.",
            "contract": contract,
            "gold": [{"user": "hi", "calls": [], "reply": "hello"}],
            **extra,
        }
    )


def call(tool: str, status: str = "executed", turn: int = 0, **args: Any) -> ToolCallRecord:
    return ToolCallRecord(seq=0, turn=turn, tool=tool, arguments=args, status=status)  # type: ignore[arg-type]


def evidence(*calls: ToolCallRecord, replies: tuple[str, ...] = (), initial: dict | None = None, final: dict | None = None) -> Evidence:
    trace = [c.model_copy(update={"seq": i}) for i, c in enumerate(calls)]
    conversation = [Message(role="assistant", content=r, turn=i) for i, r in enumerate(replies)]
    return Evidence(tool_trace=trace, conversation=conversation, initial_state=initial or {}, final_state=final or {})


def verdict_of(contract: dict[str, Any], ev: Evidence):
    return grade_offline(make_task(contract), ev)


# ---- expected actions ---------------------------------------------------------------------------


def test_refused_call_does_not_satisfy_an_expected_action() -> None:
    """Spec A.2: expected actions match successfully executed calls; a refusal is an attempt, not a done action."""
    v = verdict_of({"expected_actions": [{"tool": "validate_transfer"}]}, evidence(call("validate_transfer", "refused")))
    assert not v.strict and v.components == {"action": False}
    assert "1 refused attempt(s) do not count" in v.checks[0].reason


def test_attempted_outcome_is_an_explicit_opt_in() -> None:
    contract = {"expected_actions": [{"tool": "validate_transfer", "outcome": "attempted"}]}
    assert verdict_of(contract, evidence(call("validate_transfer", "refused"))).strict
    assert not verdict_of(contract, evidence(call("validate_transfer", "tool_error"))).strict


def test_refused_call_does_not_satisfy_expected_params_and_first_means_first_success() -> None:
    ev = evidence(call("execute_transfer", "refused", amount=1000), call("execute_transfer", amount=50))
    first = {"expected_params": [{"tool": "execute_transfer", "params": {"amount": 50}, "match": "first"}]}
    # the refused $1,000 attempt is not the first *successful* call (the payments policy fails the refused
    # write on its own, under `forbidden`: grader/refusals.py)
    assert verdict_of(first, ev).components == {"params": True, "forbidden": False}
    refused_only = {"expected_params": [{"tool": "execute_transfer", "params": {"amount": 1000}}]}
    assert not verdict_of(refused_only, ev).strict


def test_exact_count_with_params_catches_a_repeated_write() -> None:
    contract = {"expected_actions": [{"tool": "process_payment", "count": 1, "exact": True, "params": {"account_id": "ACC-1002"}}]}
    once = evidence(call("process_payment", account_id="ACC-1002"), call("process_payment", account_id="ACC-1003"))
    twice = evidence(call("process_payment", account_id="ACC-1002"), call("process_payment", account_id="ACC-1002"))
    assert verdict_of(contract, once).strict
    v = verdict_of(contract, twice)
    assert not v.strict and "expected exactly 1 succeeded call(s), got 2" in (v.checks[0].diff or "")


@pytest.mark.parametrize("status", ["tool_error", "blocked", "unknown_tool"])
def test_malformed_blocked_or_unknown_calls_never_count(status: str) -> None:
    v = verdict_of({"expected_actions": [{"tool": "execute_transfer"}]}, evidence(call("execute_transfer", status)))
    assert not v.strict
    assert v.primary_failure == "action"
    assert "0 did" in v.checks[0].reason


def test_expected_actions_are_count_aware() -> None:
    contract = {"expected_actions": [{"tool": "validate_transfer", "count": 2}, {"tool": "execute_transfer"}]}
    once = evidence(call("validate_transfer"), call("execute_transfer"))
    twice = evidence(call("validate_transfer"), call("validate_transfer"), call("execute_transfer"))
    assert not verdict_of(contract, once).strict
    assert verdict_of(contract, twice).strict
    # two entries for the same tool add up
    split = {"expected_actions": [{"tool": "validate_transfer"}, {"tool": "validate_transfer"}]}
    assert not verdict_of(split, evidence(call("validate_transfer"))).strict


# ---- expected params ----------------------------------------------------------------------------


def test_first_vs_any_params() -> None:
    ev = evidence(call("execute_transfer", amount=1000), call("execute_transfer", amount=50))
    any_match = {"expected_params": [{"tool": "execute_transfer", "params": {"amount": 50}, "match": "any"}]}
    first_match = {"expected_params": [{"tool": "execute_transfer", "params": {"amount": 50}, "match": "first"}]}
    assert verdict_of(any_match, ev).strict
    failed = verdict_of(first_match, ev)
    assert not failed.strict and failed.primary_failure == "params"
    assert failed.checks[0].diff == "execute_transfer.amount: expected 50.0, got 1000.0"  # as the Money type reads them


def test_params_ignore_non_executed_calls_and_compare_numbers_numerically() -> None:
    contract = {"expected_params": [{"tool": "execute_transfer", "params": {"amount": 50, "source_account_id": "ACC-1002"}, "match": "first"}]}
    ev = evidence(call("execute_transfer", "tool_error", amount="oops"), call("execute_transfer", amount=50.0, source_account_id="ACC-1002"))
    assert verdict_of(contract, ev).strict
    assert not verdict_of(contract, evidence(call("execute_transfer", amount=50, source_account_id="ACC-1001"))).strict


# ---- order --------------------------------------------------------------------------------------


def test_subsequence_order_allows_interleaving_and_repeats() -> None:
    contract = {"order": [{"tools": ["validate_transfer", "execute_transfer"]}]}
    ev = evidence(call("validate_transfer"), call("get_account_balance"), call("validate_transfer"), call("execute_transfer"))
    assert verdict_of(contract, ev).strict
    assert not verdict_of(contract, evidence(call("execute_transfer"), call("validate_transfer"))).strict


def test_exact_filtered_order_rejects_repeats_of_named_tools() -> None:
    contract = {"order": [{"tools": ["validate_transfer", "execute_transfer"], "mode": "exact"}]}
    assert verdict_of(contract, evidence(call("validate_transfer"), call("get_account_balance"), call("execute_transfer"))).strict
    failed = verdict_of(contract, evidence(call("validate_transfer"), call("validate_transfer"), call("execute_transfer")))
    assert not failed.strict and failed.primary_failure == "order"
    assert "validate_transfer -> validate_transfer -> execute_transfer" in (failed.checks[0].diff or "")


def test_order_ignores_blocked_calls() -> None:
    contract = {"order": [{"tools": ["validate_transfer", "execute_transfer"], "mode": "exact"}]}
    ev = evidence(call("execute_transfer", "blocked"), call("validate_transfer"), call("execute_transfer"))
    v = verdict_of(contract, ev)
    assert v.components == {"order": True}  # the blocked call is not in the filtered sequence ...
    assert not v.strict and v.model_failure == "hallucinated_tool: execute_transfer (blocked)"  # ... but it scores 0


# ---- state --------------------------------------------------------------------------------------


def test_state_equals_with_readable_diff() -> None:
    contract = {"expected_state": [{"path": "accounts.ACC-1002.loyalty_points", "equals": 155}]}
    v = verdict_of(contract, evidence(final={"accounts": {"ACC-1002": {"loyalty_points": 310}}}))
    assert not v.strict and v.primary_failure == "state"
    assert v.checks[0].diff == "accounts.ACC-1002.loyalty_points: expected 155, got 310"


def test_state_min_length_and_non_empty() -> None:
    contract = {"expected_state": [{"path": "receipts", "min_length": 2}, {"path": "accounts.ACC-1.memo", "non_empty": True}]}
    good = evidence(final={"receipts": {"a": 1, "b": 2}, "accounts": {"ACC-1": {"memo": "rent"}}})
    short = evidence(final={"receipts": {"a": 1}, "accounts": {"ACC-1": {"memo": ""}}})
    assert verdict_of(contract, good).strict
    bad = verdict_of(contract, short)
    assert [c.passed for c in bad.checks] == [False, False]
    assert "expected at least 2 item(s), got 1 item(s)" in bad.checks[0].reason


def test_missing_state_path_fails() -> None:
    v = verdict_of({"expected_state": [{"path": "accounts.ACC-9.balance", "equals": 1}]}, evidence(final={"accounts": {}}))
    assert not v.strict and "<missing>" in (v.checks[0].diff or "")


def test_forbidden_state_value() -> None:
    contract = {"forbidden_state": [{"path": "accounts.ACC-1003.frozen", "equals": False}]}
    assert verdict_of(contract, evidence(final={"accounts": {"ACC-1003": {"frozen": True}}})).strict
    assert not verdict_of(contract, evidence(final={"accounts": {"ACC-1003": {"frozen": False}}})).strict


def test_protected_state_must_be_unchanged() -> None:
    contract = {"protected_state": ["accounts.ACC-1001.balance"]}
    before = {"accounts": {"ACC-1001": {"balance": 2450.75}}}
    assert verdict_of(contract, evidence(initial=before, final=before)).strict
    changed = verdict_of(contract, evidence(initial=before, final={"accounts": {"ACC-1001": {"balance": 2449.75}}}))
    assert not changed.strict and changed.primary_failure == "collateral"
    assert changed.checks[0].diff == "accounts.ACC-1001.balance: expected 2450.75 (unchanged), got 2449.75"


# ---- forbidden ----------------------------------------------------------------------------------


@pytest.mark.parametrize("status", ["executed", "refused", "tool_error", "blocked"])
def test_any_forbidden_attempt_fails_even_if_refused(status: str) -> None:
    v = verdict_of({"forbidden_actions": ["execute_transfer"]}, evidence(call("execute_transfer", status)))
    assert not v.strict and v.primary_failure == "forbidden"


def test_forbidden_params_match_only_the_pattern() -> None:
    contract = {"forbidden_params": [{"tool": "execute_transfer", "params": {"amount": 1000}}]}
    assert verdict_of(contract, evidence(call("execute_transfer", amount=50))).strict
    assert not verdict_of(contract, evidence(call("execute_transfer", "refused", amount=1000.0))).strict


# ---- reply criteria -----------------------------------------------------------------------------


def test_reply_criteria_use_evidence_phrases_and_record_the_judge() -> None:
    contract = {"reply_criteria": [{"criterion": "Says the transfer failed for lack of funds", "evidence": [["insufficient funds", "not enough money"], "1,000"]}]}
    ok = verdict_of(contract, evidence(replies=("Sorry - the $1,000 transfer failed: Insufficient funds.",)))
    assert ok.strict and ok.judge == "evidence"
    assert ok.checks[0].quote == "Sorry - the $1,000 transfer failed: Insufficient funds."
    bad = verdict_of(contract, evidence(replies=("Done!",)))
    assert not bad.strict and bad.primary_failure == "reply" and bad.checks[0].judge == "evidence"


def test_judge_output_is_validated_locally() -> None:
    fabricated = JudgeOutput(judge="llm", criteria=[CriterionJudgement(passed=True, quote="I never said this", explanation="x")])
    with pytest.raises(JudgeFailure):
        validate_judgement(fabricated, 1, ["Your balance is $5."])
    with pytest.raises(JudgeFailure):
        validate_judgement(fabricated, 2, ["I never said this"])


# ---- conjunction and labels ---------------------------------------------------------------------


def test_undeclared_checks_are_absent_not_passed() -> None:
    v = verdict_of({"expected_actions": [{"tool": "get_account_balance"}]}, evidence(call("get_account_balance")))
    assert set(v.components) == {"action"}


def test_declared_empty_list_is_invalid() -> None:
    with pytest.raises(ValidationError, match="declared but empty"):
        Contract.model_validate({"expected_actions": []})
    with pytest.raises(ValidationError, match="at least one check"):
        Contract.model_validate({})


def test_primary_failure_follows_spec_priority() -> None:
    contract = {
        "expected_actions": [{"tool": "execute_transfer"}],
        "order": [{"tools": ["validate_transfer", "execute_transfer"]}],
        "forbidden_actions": ["process_payment"],
        "expected_state": [{"path": "x", "equals": 1}],
    }
    v = verdict_of(contract, evidence(call("process_payment"), final={"x": 2}))
    assert v.primary_failure == "action"
    v = verdict_of(contract, evidence(call("process_payment"), call("execute_transfer"), final={"x": 2}))
    assert v.primary_failure == "forbidden"


def test_model_failure_without_component_failure_is_tool_call_error() -> None:
    task = make_task({"expected_actions": [{"tool": "get_account_balance"}]})
    v = grade_offline(task, evidence(call("get_account_balance")), model_failure="hallucinated tool")
    assert not v.strict and v.primary_failure == TOOL_CALL_ERROR


# ---- extensions: argument-bound order, exact state counts, only_changes ------------------------------


def test_order_steps_bind_arguments() -> None:
    """Validating $1,000 and then executing an unvalidated $50 must not satisfy "validate before execute"."""
    bound = {"order": [{"tools": [{"tool": "validate_transfer", "params": {"amount": 50}}, {"tool": "execute_transfer", "params": {"amount": 50}}]}]}
    wrong = evidence(call("validate_transfer", amount=1000), call("execute_transfer", amount=50))
    right = evidence(call("validate_transfer", amount=1000), call("validate_transfer", amount=50), call("execute_transfer", amount=50))
    late = evidence(call("execute_transfer", amount=50), call("validate_transfer", amount=50))
    assert not verdict_of(bound, wrong).strict
    assert verdict_of(bound, right).strict
    assert not verdict_of(bound, late).strict
    plain = {"order": [{"tools": ["validate_transfer", "execute_transfer"]}]}
    assert verdict_of(plain, wrong).strict  # the spec's name-only form is unchanged


def test_order_counts_successful_calls_only() -> None:
    plain = {"order": [{"tools": ["validate_transfer", "execute_transfer"]}]}
    assert not verdict_of(plain, evidence(call("validate_transfer", "refused"), call("execute_transfer"))).strict


def test_state_count_where_and_new() -> None:
    initial = {"payments": {"TXN-1": {"account_id": "ACC-1002"}}}
    one_new = {"payments": {"TXN-1": {"account_id": "ACC-1002"}, "TXN-2": {"account_id": "ACC-1002"}, "TXN-3": {"account_id": "ACC-1003"}}}
    two_new = {**one_new, "payments": {**one_new["payments"], "TXN-4": {"account_id": "ACC-1002"}}}
    contract = {"expected_state": [{"path": "payments", "count": 1, "where": {"account_id": "ACC-1002"}, "new": True}]}
    assert grade_offline(make_task(contract), evidence(initial=initial, final=one_new)).strict
    v = grade_offline(make_task(contract), evidence(initial=initial, final=two_new))
    assert not v.strict and "expected exactly 1 new item(s)" in v.checks[0].reason
    everything = {"expected_state": [{"path": "payments", "count": 3}]}
    assert grade_offline(make_task(everything), evidence(initial=initial, final=one_new)).strict


def test_state_count_rejects_where_without_count() -> None:
    with pytest.raises(ValidationError, match="where/new only go with count"):
        make_task({"expected_state": [{"path": "payments", "min_length": 1, "where": {"a": 1}}]})


def test_only_changes_catches_any_collateral_write() -> None:
    initial = {"accounts": {"A": {"balance": 10, "frozen": False}, "B": {"balance": 5, "frozen": False}}, "log": []}
    allowed = {"accounts": {"A": {"balance": 4, "frozen": False}, "B": {"balance": 5, "frozen": False}}, "log": [1]}
    stray = {"accounts": {"A": {"balance": 4, "frozen": False}, "B": {"balance": 5, "frozen": True}}, "log": [1]}
    contract = {"only_changes": ["accounts.A.balance", "log"]}
    assert grade_offline(make_task(contract), evidence(initial=initial, final=allowed)).strict
    v = grade_offline(make_task(contract), evidence(initial=initial, final=stray))
    assert not v.strict and v.primary_failure == "collateral"
    assert "accounts.B.frozen: false -> true" in (v.checks[0].diff or "")
    wildcard = {"only_changes": ["accounts.*.frozen", "accounts.A.balance", "log"]}
    assert grade_offline(make_task(wildcard), evidence(initial=initial, final=stray)).strict


# ---- hallucinated tools and non-convergence ---------------------------------------------------------


@pytest.mark.parametrize("status", ["unknown_tool", "blocked"])
def test_hallucinated_tool_from_the_trace_scores_zero_for_any_agent(status: str) -> None:
    """The gateway's record decides, whatever the agent reports about itself."""
    contract = {"expected_actions": [{"tool": "get_account_balance"}]}
    ev = evidence(call("get_account_balance"), call("delete_everything", status))
    v = verdict_of(contract, ev)
    assert not v.strict and v.components == {"action": True}
    assert v.primary_failure == TOOL_CALL_ERROR
    assert v.model_failure is not None and v.model_failure.startswith("hallucinated_tool")


def test_non_convergence_is_its_own_failure_class() -> None:
    contract = {"expected_actions": [{"tool": "get_account_balance"}]}
    v = grade_offline(make_task(contract), evidence(call("get_account_balance")), model_failure="non_convergence: user-turn limit (30) reached")
    assert not v.strict and v.primary_failure == "non_convergence"


# ---- offline evidence judge: whole words, number boundaries, absent phrases ----------------------


@pytest.mark.parametrize(
    ("phrase", "reply", "found"),
    [
        ("50", "I transferred $150.00.", False),
        ("50", "I transferred $50.00.", True),
        ("50", "I transferred $0.50.", False),
        ("50", "I transferred $50.75.", False),
        ("1000", "The $1,000 transfer was refused.", True),
        ("paid", "The invoice is unpaid.", False),
        ("currenc*", "The currencies differ.", True),
        ("PayPal", "I charged your paypal account.", True),
    ],
)
def test_evidence_judge_matches_whole_words_and_numbers(phrase: str, reply: str, found: bool) -> None:
    contract = {"reply_criteria": [{"criterion": "Mentions the thing.", "evidence": [phrase]}]}
    assert verdict_of(contract, evidence(replies=(reply,))).strict is found


def test_evidence_judge_absent_phrases_fail_the_criterion() -> None:
    contract = {"reply_criteria": [{"criterion": "Confirms the $50 transfer only.", "evidence": ["50"], "absent": ["1000 was transferred"]}]}
    assert verdict_of(contract, evidence(replies=("Done: $50 was transferred.",))).strict
    v = verdict_of(contract, evidence(replies=("Done: $50 and then $1,000 was transferred.",)))
    assert not v.strict and "must not" in v.checks[0].reason


def test_order_step_alternatives_match_by_name() -> None:
    """"Look the payment up before refunding it": either look-up tool is the step; the refund stays bound."""
    lookup = {"tool": "get_payment_details", "params": {"transaction_id": "TXN-1"}, "alternatives": ["get_transaction_history"]}
    contract = {"order": [{"tools": [lookup, {"tool": "refund_payment", "params": {"transaction_id": "TXN-1"}}], "separate_turns": True}]}
    history_first = evidence(call("get_transaction_history", account_id="ACC-1"), call("refund_payment", turn=1, transaction_id="TXN-1"))
    other_payment = evidence(call("get_payment_details", transaction_id="TXN-2"), call("refund_payment", turn=1, transaction_id="TXN-1"))
    same_turn = evidence(call("get_payment_details", transaction_id="TXN-1"), call("refund_payment", transaction_id="TXN-1"))
    assert verdict_of(contract, history_first).strict
    assert not verdict_of(contract, other_payment).strict
    assert not verdict_of(contract, same_turn).strict  # refunded before the customer's next turn
