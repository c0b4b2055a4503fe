"""Argument and state semantics (grader/semantics.py) and result references (grader/refs.py).

Each rule is tested where it bites: a correct agent that differs from the gold only in a way the world
treats as equal passes, and a real mistake still fails. Real tasks are replayed through the gateway where
one exists; the rest use hand-built evidence.
"""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from pydantic import BaseModel, BeforeValidator, Field

from contracts.catalog import load_catalog
from contracts.evidence import Evidence, Message, ToolCallRecord
from contracts.schema import Contract, GoldCall, GoldTurn, Task
from grader import checks
from grader.grade import grade_offline
from grader.refs import resolve
from grader.semantics import canonical_args, canonical_contract, canonical_evidence, canonical_param
from harness.release.replay import GatewayReplayer
from harness.validate import overspecified_params, validate_task
from servers.base import IdMinter, ToolEnvironment, Unordered, tool
from servers.gateway import Gateway
from servers.registry import environment_class

pytestmark = pytest.mark.anyio


def _task(task_id: str) -> Task:
    return load_catalog()[task_id]


def _with_calls(task: Task, *turn_calls: list[GoldCall]) -> list[GoldTurn]:
    return [turn.model_copy(update={"calls": calls}) for turn, calls in zip(task.gold, turn_calls, strict=True)]


async def _play(task: Task, turns: list[GoldTurn]) -> Evidence:
    async with GatewayReplayer(Gateway([task.domain])) as replayer:
        return await replayer.play(task, turns)


def _c(name: str, **args: Any) -> GoldCall:
    return GoldCall(tool=name, args=args)


def _call(name: str, _status: str = "executed", _result: Any = None, **args: Any) -> ToolCallRecord:
    return ToolCallRecord(seq=0, turn=0, tool=name, arguments=args, status=_status, result=_result)  # type: ignore[arg-type]


def _evidence(*calls: ToolCallRecord, replies: tuple[str, ...] = (), initial: dict | None = None, final: dict | None = None) -> Evidence:
    trace = [c.model_copy(update={"seq": i}) for i, c in enumerate(calls)]
    conversation = [Message(role="assistant", content=r, turn=i) for i, r in enumerate(replies)]
    return Evidence(tool_trace=trace, conversation=conversation, initial_state=initial or {}, final_state=final or {})


def _synthetic(domain: str, contract: dict[str, Any]) -> Task:
    return Task.model_validate(
        {
            "id": f"{domain}_semantics_test_01",
            "domain": domain,
            "title": "semantics unit test",
            "capabilities": ["x"],
            "difficulty": "easy",
            "instruction": "You are a unit test user. You want the thing done; stop when it is done.",
            "contract": contract,
            "gold": [{"user": "hi", "calls": [], "reply": "hello"}],
        }
    )


# ---- omitted argument = the tool's declared default --------------------------------------------


async def test_omitted_argument_takes_the_declared_default() -> None:
    """`issue_refund` without `refund_to` is a refund to the original payment (its default)."""
    task = _task("retail_refund_original_01")
    auth, refund = task.gold[0].calls
    evidence = await _play(task, _with_calls(task, [auth, _c("issue_refund", return_id="RET-7001")]))
    assert grade_offline(task, evidence).strict
    wrong = await _play(task, _with_calls(task, [auth, _c("issue_refund", return_id="RET-7001", refund_to="store_credit")]))
    assert not grade_offline(task, wrong).strict


def test_forbidden_default_is_hit_by_omission() -> None:
    """A forbidden value that is the default is forbidden when the call omits the argument too."""
    task = _synthetic("retail", {"forbidden_params": [{"tool": "issue_refund", "params": {"refund_to": "original_payment"}}]})
    assert not grade_offline(task, _evidence(_call("issue_refund", return_id="RET-7001"))).strict
    assert grade_offline(task, _evidence(_call("issue_refund", return_id="RET-7001", refund_to="store_credit"))).strict


def test_default_applies_to_expected_actions_and_order_steps() -> None:
    contract = {
        "expected_actions": [{"tool": "issue_refund", "params": {"refund_to": "original_payment"}}],
        "order": [{"tools": ["authenticate_customer", {"tool": "issue_refund", "params": {"refund_to": "original_payment"}}]}],
    }
    ev = _evidence(_call("authenticate_customer", customer_id="CUST-5003", pin="5402"), _call("issue_refund", return_id="RET-7001"))
    assert grade_offline(_synthetic("retail", contract), ev).strict


# ---- set-like lists: Unordered parameters and state --------------------------------------------


async def test_permuted_members_pass_and_other_members_fail() -> None:
    task = _task("marketing_add_members_01")
    permuted = await _play(task, _with_calls(task, [_c("add_segment_members", segment_id="SEG-602", subscriber_ids=["SUB-7016", "SUB-7005"])]))
    assert grade_offline(task, permuted).strict
    other = await _play(task, _with_calls(task, [_c("add_segment_members", segment_id="SEG-602", subscriber_ids=["SUB-7016", "SUB-7006"])]))
    assert not grade_offline(task, other).strict


def test_unordered_state_lists_compare_as_multisets() -> None:
    """`Segment.members` is `Unordered`: the same members in another order are equal in equals,
    protected_state and only_changes; a missing member is not."""
    initial = {"segments": {"SEG-601": {"members": ["SUB-7001", "SUB-7002"]}}}
    permuted = {"segments": {"SEG-601": {"members": ["SUB-7002", "SUB-7001"]}}}
    contract = {
        "expected_state": [{"path": "segments.SEG-601.members", "equals": ["SUB-7002", "SUB-7001"]}],
        "protected_state": ["segments.SEG-601.members"],
        "only_changes": [],
    }
    task = _synthetic("marketing", contract)
    assert grade_offline(task, _evidence(initial=initial, final=permuted)).strict
    shrunk = {"segments": {"SEG-601": {"members": ["SUB-7002"]}}}
    verdict = grade_offline(task, _evidence(initial=initial, final=shrunk))
    assert not verdict.strict and verdict.components == {"state": False, "collateral": False}


def test_ordered_lists_stay_ordered() -> None:
    """Travel passengers are in passenger order (seats and bags follow it): no multiset there."""
    env = environment_class("travel")
    assert canonical_param(env, "book_flight", "passengers", ["B B", "A A"]) == ["B B", "A A"]
    task = _synthetic("travel", {"expected_params": [{"tool": "book_flight", "params": {"passengers": ["A A", "B B"]}}]})
    assert not grade_offline(task, _evidence(_call("book_flight", passengers=["B B", "A A"]))).strict


# ---- normalisation through the parameter's own type --------------------------------------------


async def test_email_case_as_the_tool_stores_it() -> None:
    """`Dispatch@CobaltRidge.com` is the user the world stores as dispatch@cobaltridge.com; the omitted
    role is its default (member)."""
    task = _task("onboarding_config_add_user_01")
    turns = [turn.model_copy(update={"calls": [_c(c.tool, **c.args) if c.tool != "add_user" else _c("add_user", account_id="ACC-3003", email="Dispatch@CobaltRidge.com") for c in turn.calls]}) for turn in task.gold]
    evidence = await _play(task, turns)
    assert any(u["email"] == "dispatch@cobaltridge.com" for u in evidence.final_state["accounts"]["ACC-3003"]["users"])
    assert grade_offline(task, evidence).strict


def test_airport_codes_are_upper_cased_by_the_type() -> None:
    env = environment_class("travel")
    assert canonical_args(env, "search_flights", {"origin": " sea", "destination": "bos", "date": "2026-12-10"}, defaults=False)["origin"] == "SEA"
    task = _synthetic("travel", {"expected_params": [{"tool": "search_flights", "params": {"origin": "SEA"}}]})
    assert grade_offline(task, _evidence(_call("search_flights", origin="sea", destination="BOS", date="2026-12-10"))).strict
    assert not grade_offline(task, _evidence(_call("search_flights", origin="sfo", destination="BOS", date="2026-12-10"))).strict


def _clock(value: Any) -> Any:
    if isinstance(value, str) and len(value) == 4 and value[1] == ":":
        return "0" + value
    return value


Clock = Annotated[str, BeforeValidator(_clock), Field(pattern=r"^\d{2}:\d{2}$")]


class _TinyState(BaseModel):
    slots: dict[str, str] = {}
    crew: Unordered[list[str]] = []


class TinyEnvironment(ToolEnvironment[_TinyState]):
    """A minimal world whose tool normalises a time in its type, as `ClockTime` does."""

    domain = "tiny"
    state_model = _TinyState

    @classmethod
    def default_state(cls) -> _TinyState:
        return _TinyState()

    @tool("write")
    def book_slot(self, slot_id: str, start: Clock, crew: Unordered[list[str]] | None = None) -> dict[str, Any]:
        self.state.slots[slot_id] = start
        return {"slot_id": slot_id, "start": start}


def test_time_is_compared_as_the_tool_type_reads_it() -> None:
    env = TinyEnvironment
    contract = Contract.model_validate({"expected_params": [{"tool": "book_slot", "params": {"slot_id": "S1", "start": "09:00", "crew": ["b", "a"]}}]})
    ev = _evidence(_call("book_slot", slot_id="S1", start="9:00", crew=["a", "b"]))
    assert not checks.expected_params(contract, ev)[0].passed  # raw: "9:00" != "09:00", lists by position
    verdict = checks.expected_params(canonical_contract(env, contract), canonical_evidence(env, ev))[0]
    assert verdict.passed, verdict
    wrong = canonical_evidence(env, _evidence(_call("book_slot", slot_id="S1", start="10:00", crew=["a", "b"])))
    assert not checks.expected_params(canonical_contract(env, contract), wrong)[0].passed
    # An invalid value stays as given (it cannot become valid by normalisation).
    assert canonical_param(env, "book_slot", "start", "9 o'clock") == "9 o'clock"
    # The state model's Unordered field is canonical too.
    state = canonical_evidence(env, _evidence(final={"crew": ["b", "a"], "slots": {}})).final_state
    assert state["crew"] == ["a", "b"]


# ---- expected_params match: merged --------------------------------------------------------------


async def test_two_update_incident_calls_pass_merged() -> None:
    merged = _task("itsm_incident_assign_01")  # its contract says `merged` since issue 27
    assert merged.contract.expected_params[0].match == "merged"  # type: ignore[index]
    spec = merged.contract.expected_params[0].model_copy(update={"match": "any", "record": None})  # type: ignore[index]
    task = merged.model_copy(update={"contract": merged.contract.model_copy(update={"expected_params": [spec]})})
    split = [_c("update_incident", incident_id="INC-2004", assignee_id="USR-1002"), _c("update_incident", incident_id="INC-2004", status="in_progress")]
    evidence = await _play(task, _with_calls(task, split))
    assert not grade_offline(task, evidence).strict  # `any` needs one call with every field
    verdict = grade_offline(merged, evidence)
    assert verdict.strict, [c for c in verdict.checks if not c.passed]


def test_merged_takes_the_last_value_and_only_the_asserted_record() -> None:
    contract = {"expected_params": [{"tool": "update_incident", "params": {"incident_id": "INC-1", "status": "in_progress", "assignee_id": "USR-1"}, "match": "merged"}]}
    task = _synthetic("itsm", contract)
    other_record = _evidence(_call("update_incident", incident_id="INC-1", assignee_id="USR-1"), _call("update_incident", incident_id="INC-2", status="in_progress"))
    assert not grade_offline(task, other_record).strict
    undone = _evidence(
        _call("update_incident", incident_id="INC-1", assignee_id="USR-1", status="in_progress"),
        _call("update_incident", incident_id="INC-1", status="on_hold"),
    )
    verdict = grade_offline(task, undone)
    assert not verdict.strict and "finally set \"on_hold\"" in (verdict.checks[0].diff or "")
    # A later call that leaves the field out (its default None is filled in) does not unset it.
    kept = _evidence(_call("update_incident", incident_id="INC-1", assignee_id="USR-1", status="in_progress"), _call("update_incident", incident_id="INC-1", impact="high"))
    assert grade_offline(task, kept).strict


# ---- alternatives with per-alternative params ----------------------------------------------------


def test_alternatives_with_their_own_params() -> None:
    contract = {"expected_actions": [{"tool": "get_order_details", "params": {"order_id": "ORD-1"}, "alternatives": [{"tool": "list_customer_orders", "params": {"customer_id": "CUST-1"}}, "get_customer"]}]}
    task = _synthetic("retail", contract)
    assert grade_offline(task, _evidence(_call("list_customer_orders", customer_id="CUST-1"))).strict
    assert not grade_offline(task, _evidence(_call("list_customer_orders", customer_id="CUST-2"))).strict
    assert grade_offline(task, _evidence(_call("get_customer", customer_id="CUST-9"))).strict  # a string: name only
    assert not grade_offline(task, _evidence(_call("get_order_details", order_id="ORD-2"))).strict
    steps = {"order": [{"tools": [{"tool": "get_order_details", "alternatives": [{"tool": "list_customer_orders", "params": {"customer_id": "CUST-1"}}]}, "cancel_order"]}]}
    ordered = _synthetic("retail", steps)
    assert grade_offline(ordered, _evidence(_call("list_customer_orders", customer_id="CUST-1"), _call("cancel_order", order_id="ORD-1"))).strict
    assert not grade_offline(ordered, _evidence(_call("list_customer_orders", customer_id="CUST-2"), _call("cancel_order", order_id="ORD-1"))).strict


# ---- result references ---------------------------------------------------------------------------

DISPUTE = {"dispute_id": "DSP-7QK2MA", "status": "open", "amount": 45.0}


def _dispute_task() -> Task:
    return _synthetic(
        "payments",
        {
            "reply_criteria": [{"criterion": "gives the new dispute's id", "evidence": ["${file_dispute.dispute_id}"]}],
            "expected_state": [{"path": "disputes.${file_dispute.dispute_id}.status", "equals": "open"}],
        },
    )


def test_reference_checks_a_minted_id_exactly() -> None:
    task = _dispute_task()
    final = {"disputes": {"DSP-7QK2MA": {"status": "open"}}}
    filed = _call("file_dispute", _result=DISPUTE, transaction_id="TXN-1", reason="fraud")
    assert grade_offline(task, _evidence(filed, replies=("Your dispute DSP-7QK2MA is open.",), final=final)).strict
    invented = grade_offline(task, _evidence(filed, replies=("Your dispute DSP-AAAAAA is open.",), final=final))
    assert not invented.strict and invented.components["reply"] is False


def test_unresolvable_reference_fails_with_a_reason() -> None:
    task = _dispute_task()
    refused = _call("file_dispute", _status="refused", _result={"refused": True}, transaction_id="TXN-1", reason="fraud")
    verdict = grade_offline(task, _evidence(refused, replies=("Your dispute DSP-7QK2MA is open.",), final={"disputes": {}}))
    assert not verdict.strict
    reasons = " | ".join(c.reason for c in verdict.checks if not c.passed)
    assert "${file_dispute.dispute_id}: file_dispute never succeeded" in reasons
    assert {"reply", "state"} <= {c.component for c in verdict.checks if not c.passed}


def test_reference_forms() -> None:
    contract = Contract.model_validate(
        {"expected_state": [{"path": "x", "equals": "${file_dispute#2.amount}"}, {"path": "y", "equals": "id ${file_dispute.dispute_id}"}, {"path": "z", "equals": "${file_dispute.nope}"}]}
    )
    ev = _evidence(_call("file_dispute", _result=DISPUTE), _call("file_dispute", _result={**DISPUTE, "amount": 12.5, "dispute_id": "DSP-2"}))
    resolved, problems = resolve(contract, ev)
    states = resolved.expected_state or []
    assert states[0].equals == 12.5 and states[1].equals == "id DSP-7QK2MA"
    assert [p.reason for p in problems] == ["${file_dispute.nope}: the file_dispute result has no field 'nope' under its result"]
    _, problems = resolve(Contract.model_validate({"expected_state": [{"path": "x", "equals": "${file_dispute#3.amount}"}]}), ev)
    assert problems[0].reason == "${file_dispute#3.amount}: file_dispute succeeded 2 time(s), not 3"


# ---- structural validation -------------------------------------------------------------------------


def _graph(domain: str) -> Any:
    from contracts.graph import load_graph

    return load_graph(domain)


def test_validation_checks_references_statically() -> None:
    task = _task("retail_refund_original_01")
    env = environment_class("retail")
    bad = task.model_copy(
        update={
            "contract": task.contract.model_copy(
                update={"reply_criteria": [Contract.model_validate({"reply_criteria": [{"criterion": "states the refund id", "evidence": ["${issue_refnd.refund_id}", "${issue_refund#2.refund_id}"]}]}).reply_criteria[0]]}  # type: ignore[index]
            )
        }
    )
    problems = " | ".join(validate_task(bad, env, _graph("retail")))
    assert "${issue_refnd.refund_id} names no tool" in problems
    assert "${issue_refund#2.refund_id} needs 2 call(s) of issue_refund on the gold path, which has 1" in problems
    assert not validate_task(task, env, _graph("retail"))


def test_validation_flags_an_index_into_an_unordered_list() -> None:
    task = _task("marketing_add_members_01")
    state = Contract.model_validate({"expected_state": [{"path": "segments.SEG-602.members.0", "equals": "SUB-7005"}]}).expected_state
    bad = task.model_copy(update={"contract": task.contract.model_copy(update={"expected_state": state})})
    assert any("by position" in p for p in validate_task(bad, environment_class("marketing"), _graph("marketing")))


def test_overspecified_params_are_reported() -> None:
    task = _synthetic(
        "itsm",
        {
            "expected_params": [{"tool": "update_incident", "params": {"incident_id": "INC-2004", "status": "in_progress"}}],
            "expected_state": [{"path": "incidents.INC-2004.status", "equals": "in_progress"}],
        },
    )
    assert overspecified_params(task, environment_class("itsm"))
    free = _synthetic("itsm", {"expected_params": [{"tool": "update_incident", "params": {"incident_id": "INC-2004", "status": "in_progress"}}]})
    assert not overspecified_params(free, environment_class("itsm"))


def test_tiny_environment_is_a_real_environment() -> None:
    """The test world above is used like a domain's (so its rules are the real ones)."""
    world = TinyEnvironment(TinyEnvironment.default_state(), IdMinter("s"))
    assert world.book_slot("S1", "09:00")["start"] == "09:00"


def test_reference_in_a_path_is_text_and_regrade_uses_the_semantics() -> None:
    """A whole-string reference where the schema needs text (a path) is written as text; `grade_with`
    (the regrade path) applies references and defaults like `grade_offline`."""
    from grader.grade import grade_with

    contract = {"expected_state": [{"path": "${file_dispute.case}", "non_empty": True}], "expected_params": [{"tool": "file_dispute", "params": {"description": ""}}]}
    task = _synthetic("payments", contract)
    ev = _evidence(_call("file_dispute", _result={**DISPUTE, "case": 7}, transaction_id="TXN-1", reason="fraud"), final={"7": 1})
    verdict = grade_with(task, ev, None)
    assert verdict.strict, [c for c in verdict.checks if not c.passed]


def test_every_body_level_normalisation_lives_in_the_type() -> None:
    """What a tool used to normalise in its body (emails, codes, searched names, trimmed lines) its
    parameter type now does, so the value the tool receives and the value the grader compares agree."""
    cases = [
        ("onboarding", "add_user", "email", " Dispatch@CobaltRidge.com", "dispatch@cobaltridge.com"),
        ("onboarding", "search_prospects", "company_name", " Brightwave", "brightwave"),
        ("travel", "search_flights", "destination", "ord ", "ORD"),
        ("travel", "search_hotels", "city", "chicago", "chicago"),
        ("travel", "search_hotels", "city", " Chicago", "chicago"),
        ("customer_support", "search_customers", "name", "Chen ", "chen"),
        ("itsm", "find_users", "name", "CHEN", "chen"),
        ("sales", "search_leads", "company", "Acme", "acme"),
        ("retail", "update_shipping_address", "postal_code", " 62704 ", "62704"),
        ("marketing", "create_campaign", "name", " Spring launch ", "Spring launch"),
        ("travel", "book_flight", "passengers", [" Ana Ruiz"], ["Ana Ruiz"]),
    ]
    for domain, name, param, given, expected in cases:
        assert canonical_param(environment_class(domain), name, param, given) == expected, (domain, name, param)
