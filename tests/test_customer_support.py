"""The customer_support domain: every tool over the in-memory gateway, every policy gate (refused, state
unchanged), the seeded world, probes, and correct-but-different / wrong trajectories for sample tasks."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from contracts.catalog import get_task, load_catalog
from contracts.schema import GoldCall, GoldTurn, Task
from grader.grade import grade_offline
from harness.release.debt import known_debt
from harness.release.gates import prove_task
from harness.release.replay import GatewayReplayer
from servers.domains.customer_support.tools import CustomerSupportEnvironment
from servers.gateway import Gateway
from servers.recorder import TRIAL_META_KEY
from servers.registry import environment_class
from tests.live_http import assert_gate_refuses

pytestmark = pytest.mark.anyio
DOMAIN = "customer_support"

SARAH = {"customer_id": "CUST-7001", "pin": "4417"}
JONAH = {"customer_id": "CUST-7006", "pin": "7735"}
PRIYA = {"customer_id": "CUST-7007", "pin": "1904"}
OLIVER = {"customer_id": "CUST-7008", "pin": "5560"}
ELENA = {"customer_id": "CUST-7005", "pin": "2298"}
MARCUS = {"customer_id": "CUST-7004", "pin": "6612"}

# tool -> (calls to make first, arguments, a key its result must contain)
TOOL_CASES: dict[str, tuple[list[tuple[str, dict[str, Any]]], dict[str, Any], str]] = {
    "authenticate_customer": ([], SARAH, "verified"),
    "get_customer": ([], {"customer_id": "CUST-7001"}, "sla_tier"),
    "search_customers": ([], {"name": "chen"}, "matches"),
    "update_contact_details": ([("authenticate_customer", SARAH)], {"customer_id": "CUST-7001", "phone": "503-555-0100"}, "updated"),
    "list_cases": ([], {"customer_id": "CUST-7006"}, "cases"),
    "get_case": ([], {"case_id": "CASE-5008"}, "open_disputes"),
    "create_case": ([], {"customer_id": "CUST-7003", "subject": "x", "category": "account", "product": "internet", "impact": "question"}, "case_id"),
    "update_case": ([], {"case_id": "CASE-5012", "status": "pending_customer"}, "status"),
    "add_case_note": ([], {"case_id": "CASE-5001", "note": "called back"}, "note_count"),
    "close_case": ([], {"case_id": "CASE-5010", "resolution": "fixed"}, "status"),
    "merge_cases": ([], {"duplicate_case_id": "CASE-5007", "primary_case_id": "CASE-5006"}, "linked_cases"),
    "set_priority": ([], {"case_id": "CASE-5002", "priority": "P2"}, "sla_due"),
    "escalate_case": ([], {"case_id": "CASE-5001", "team": "tier2", "reason": "persisting drops"}, "owner_team"),
    "list_invoices": ([], {"customer_id": "CUST-7001"}, "invoices"),
    "get_invoice": ([], {"invoice_id": "INV-8006"}, "lines"),
    "apply_credit": ([("authenticate_customer", MARCUS)], {"invoice_id": "INV-8004", "case_id": "CASE-5004", "amount": 42.3, "reason": "x"}, "credit_id"),
    "open_billing_dispute": ([("authenticate_customer", OLIVER)], {"invoice_id": "INV-8006", "case_id": "CASE-5009", "amount": 249, "reason": "dup"}, "dispute_id"),
    "search_articles": ([], {"query": "router keeps rebooting"}, "results"),
    "get_article": ([], {"article_id": "KB-2004"}, "steps"),
    "attach_article": ([], {"case_id": "CASE-5012", "article_id": "KB-2004"}, "articles"),
}


async def _call(client: Client, trial_id: str, tool: str, args: dict[str, Any]) -> Any:
    return await client.call_tool(tool, args, raise_on_error=False, meta={TRIAL_META_KEY: trial_id})


def test_registered_and_every_tool_has_a_case() -> None:
    assert environment_class(DOMAIN) is CustomerSupportEnvironment
    assert set(TOOL_CASES) == set(CustomerSupportEnvironment.tool_methods())


def test_seeded_world_has_lookalikes_and_fixed_time() -> None:
    state = CustomerSupportEnvironment.default_state()
    assert state.now == "2026-11-30T09:00" and len(state.customers) == 12 and len(state.cases) == 15
    surnames = [c.name.split()[-1] for c in state.customers.values()]
    assert surnames.count("Chen") == 2 and surnames.count("Brandt") == 2
    assert {c.owner_team for c in state.cases.values()} == {"tier1", "tier2", "billing"}
    assert state.disputes["DSP-3001"].case_id == "CASE-5008" and state.articles["KB-2012"].archived
    assert all(len(c.pin) == 4 and c.pin.isdigit() for c in state.customers.values())


@pytest.mark.parametrize("tool", sorted(TOOL_CASES))
async def test_tool_in_memory(tool: str) -> None:
    gateway = Gateway([DOMAIN])
    trial = gateway.open_trial(DOMAIN)
    setup, args, key = TOOL_CASES[tool]
    async with Client(gateway.server(DOMAIN)) as client:
        for name, setup_args in setup:
            assert not (await _call(client, trial.trial_id, name, setup_args)).structured_content.get("refused")
        result = await _call(client, trial.trial_id, tool, args)
    assert not result.is_error, result
    assert key in result.structured_content and not result.structured_content.get("refused"), result.structured_content
    assert trial.trace[-1].tool == tool and trial.trace[-1].status == "executed"


async def test_tools_do_what_their_docstrings_say() -> None:
    gateway = Gateway([DOMAIN])
    trial = gateway.open_trial(DOMAIN, seed=3)
    t = trial.trial_id
    async with Client(gateway.server(DOMAIN)) as client:
        created = (await _call(client, t, "create_case", {"customer_id": "CUST-7008", "subject": "down", "category": "technical", "product": "internet", "impact": "outage"})).structured_content
        p1 = (await _call(client, t, "set_priority", {"case_id": created["case_id"], "priority": "P1"})).structured_content
        await _call(client, t, "authenticate_customer", MARCUS)
        credit = (await _call(client, t, "apply_credit", {"invoice_id": "INV-8004", "case_id": "CASE-5004", "amount": "42.30", "reason": "roaming"})).structured_content
        found = (await _call(client, t, "search_articles", {"query": "slow evening", "product": "internet"})).structured_content
        merged = (await _call(client, t, "merge_cases", {"duplicate_case_id": "CASE-5007", "primary_case_id": "CASE-5006"})).structured_content
    assert created == {"case_id": "CASE-5016", "status": "open", "owner_team": "tier1", "priority": None}  # sequential case numbers
    assert p1 == {"case_id": "CASE-5016", "priority": "P1", "sla_due": "2026-11-30T13:00"}
    assert credit["amount"] == 42.3 and credit["credited_total"] == 42.3 and credit["balance_due"] == 55.0
    assert [r["article_id"] for r in found["results"]][:2] == ["KB-2002", "KB-2012"] and found["results"][1]["archived"] is True
    assert merged["linked_cases"] == ["CASE-5007"]
    state = trial.final_state()
    assert state["cases"]["CASE-5007"]["status"] == "merged" and state["cases"]["CASE-5007"]["merged_into"] == "CASE-5006"
    assert state["invoices"]["INV-8004"]["credit_count"] == 1 and state["authenticated_customers"] == ["CUST-7004"]


# (who verifies first, tool, arguments, expected status, expected reason fragment)
GATES: list[tuple[dict[str, str] | None, str, dict[str, Any], int, str]] = [
    (None, "update_contact_details", {"customer_id": "CUST-7001", "email": "s@x.com"}, 403, "identity must be verified"),
    (OLIVER, "update_contact_details", {"customer_id": "CUST-7009", "email": "h@x.com"}, 403, "identity must be verified"),
    (SARAH, "update_contact_details", {"customer_id": "CUST-7001", "phone": "503-555-0141"}, 409, "already have these values"),
    (None, "apply_credit", {"invoice_id": "INV-8007", "case_id": "CASE-5006", "amount": 49.99, "reason": "dup"}, 403, "identity must be verified"),
    (OLIVER, "apply_credit", {"invoice_id": "INV-8006", "case_id": "CASE-5009", "amount": 249, "reason": "dup"}, 403, "$100.00 desk cap"),
    (OLIVER, "apply_credit", {"invoice_id": "INV-8006", "case_id": "CASE-5009", "amount": 100.01, "reason": "dup"}, 403, "$100.00 desk cap"),
    (PRIYA, "apply_credit", {"invoice_id": "INV-8005", "case_id": "CASE-5008", "amount": 45, "reason": "dup"}, 409, "open billing dispute"),
    (JONAH, "apply_credit", {"invoice_id": "INV-8007", "case_id": "CASE-5001", "amount": 10, "reason": "x"}, 422, "another customer"),
    (JONAH, "apply_credit", {"invoice_id": "INV-8007", "case_id": "CASE-5006", "amount": 49.99, "reason": "x"}, 422, "not a billing case"),
    (OLIVER, "open_billing_dispute", {"invoice_id": "INV-8006", "case_id": "CASE-5001", "amount": 249, "reason": "x"}, 422, "another customer"),
    (None, "open_billing_dispute", {"invoice_id": "INV-8006", "case_id": "CASE-5009", "amount": 249, "reason": "dup"}, 403, "identity must be verified"),
    (PRIYA, "open_billing_dispute", {"invoice_id": "INV-8005", "case_id": "CASE-5008", "amount": 45, "reason": "dup"}, 409, "already has an open billing dispute"),
    (None, "set_priority", {"case_id": "CASE-5006", "priority": "P1"}, 422, "P1 urgency criteria not met"),
    (None, "set_priority", {"case_id": "CASE-5001", "priority": "P1"}, 422, "P1 urgency criteria not met"),
    (None, "set_priority", {"case_id": "CASE-5002", "priority": "P3"}, 409, "already P3"),
    (None, "set_priority", {"case_id": "CASE-5005", "priority": "P2"}, 403, "owned by the tier2 team"),
    (None, "close_case", {"case_id": "CASE-5005", "resolution": "fixed"}, 403, "owned by the tier2 team"),
    (None, "close_case", {"case_id": "CASE-5013", "resolution": "paid"}, 403, "owned by the billing team"),
    (None, "close_case", {"case_id": "CASE-5008", "resolution": "done"}, 409, "open billing dispute"),
    (None, "close_case", {"case_id": "CASE-5014", "resolution": "again"}, 409, "Case is closed"),
    (None, "create_case", {"customer_id": "CUST-7006", "subject": "router", "category": "technical", "product": "internet", "impact": "degraded"}, 409, "do not create a duplicate"),
    (None, "merge_cases", {"duplicate_case_id": "CASE-5002", "primary_case_id": "CASE-5001"}, 422, "different customers"),
    (None, "escalate_case", {"case_id": "CASE-5002", "team": "tier2", "reason": "customer insists"}, 422, "P1 or P2"),
    (None, "escalate_case", {"case_id": "CASE-5001", "team": "billing", "reason": "x"}, 422, "only billing cases"),
    (None, "escalate_case", {"case_id": "CASE-5011", "team": "tier2", "reason": "x"}, 403, "owned by the tier2 team"),
    (None, "attach_article", {"case_id": "CASE-5002", "article_id": "KB-2012"}, 422, "archived"),
    (None, "attach_article", {"case_id": "CASE-5005", "article_id": "KB-2001"}, 422, "does not cover"),
    (None, "update_case", {"case_id": "CASE-5012", "status": "open"}, 409, "already has these values"),
]


@pytest.mark.parametrize(("auth", "tool", "args", "code", "reason"), GATES, ids=[f"{g[1]}-{g[3]}-{i}" for i, g in enumerate(GATES)])
async def test_every_gate_refuses_and_changes_nothing(auth: dict[str, str] | None, tool: str, args: dict[str, Any], code: int, reason: str) -> None:
    setup = [] if auth is None else [("authenticate_customer", auth)]
    await assert_gate_refuses(DOMAIN, setup, tool, args, code, reason, reason_contains=True)


async def test_wrong_pin_and_repeated_credit_are_refused() -> None:
    gateway = Gateway([DOMAIN])
    trial = gateway.open_trial(DOMAIN)
    t = trial.trial_id
    async with Client(gateway.server(DOMAIN)) as client:
        wrong = (await _call(client, t, "authenticate_customer", {"customer_id": "CUST-7004", "pin": "6621"})).structured_content
        assert wrong["refused"] is True and wrong["status"] == 403 and not trial.final_state()["authenticated_customers"]
        await _call(client, t, "authenticate_customer", MARCUS)
        args = {"invoice_id": "INV-8004", "case_id": "CASE-5004", "amount": 42.3, "reason": "roaming"}
        first = (await _call(client, t, "apply_credit", args)).structured_content
        again = (await _call(client, t, "apply_credit", args)).structured_content
    assert first["credit_id"].startswith("CR-") and again["refused"] is True and again["status"] == 409
    assert trial.final_state()["invoices"]["INV-8004"]["credited_total"] == 42.3


@pytest.mark.parametrize(("tool", "args"), [("get_case", {"case_id": "CASE-0000"}), ("get_invoice", {"invoice_id": "INV-0000"}),
                                            ("authenticate_customer", {"customer_id": "CUST-0000", "pin": "1234"}),
                                            ("update_contact_details", {"customer_id": "CUST-7001", "email": "not-an-email"}),
                                            ("escalate_case", {"case_id": "CASE-5001", "team": "sales", "reason": "x"})])
async def test_unknown_ids_and_bad_arguments_are_invalid_calls(tool: str, args: dict[str, Any]) -> None:
    gateway = Gateway([DOMAIN])
    trial = gateway.open_trial(DOMAIN)
    before = trial.final_state()
    async with Client(gateway.server(DOMAIN)) as client:
        result = await _call(client, trial.trial_id, tool, args)
    assert result.is_error and trial.trace[0].status == "tool_error" and trial.final_state() == before


async def test_mutation_probes_execute_and_change_the_world() -> None:
    probes = CustomerSupportEnvironment.mutation_probes()
    names = {name for name, _ in probes}
    assert {"close CASE-5010", "merge CASE-5007 into CASE-5006", "credit INV-8007", "dispute INV-8013", "email CUST-7012"} <= names
    gateway = Gateway([DOMAIN])
    for name, calls in probes[::7]:  # a spread sample keeps the test fast; the release gate plays them all
        trial = gateway.open_trial(DOMAIN)
        async with Client(gateway.server(DOMAIN)) as client:
            for call in calls:
                args = {k: (trial.trace[-1].result["case_id"] if v == "${create_case.case_id}" else v) for k, v in call.args.items()}
                result = await _call(client, trial.trial_id, call.tool, args)
                assert not result.is_error and not result.structured_content.get("refused"), (name, result.structured_content)
        assert trial.final_state() != trial.initial_state, name


# ---- correct-but-different and wrong trajectories on sample tasks ----------------------------------------


async def _grade(task: Task, turns: list[GoldTurn]) -> Any:
    async with GatewayReplayer(Gateway([DOMAIN])) as replayer:
        evidence = await replayer.play(task, turns, seed=11)
    return grade_offline(task, evidence)


def _with_calls(task: Task, *calls_per_turn: list[GoldCall]) -> list[GoldTurn]:
    return [turn.model_copy(update={"calls": calls}) for turn, calls in zip(task.gold, calls_per_turn, strict=True)]


def c(tool: str, **args: Any) -> GoldCall:
    return GoldCall(tool=tool, args=args)


async def test_double_billing_credit_other_route_passes_and_mistakes_fail() -> None:
    task = get_task("customer_support_billing_double_billed_credit_01")
    auth = c("authenticate_customer", customer_id="CUST-7002", pin="8820")
    credit = c("apply_credit", invoice_id="INV-8003", case_id="CASE-5018", amount="69.99", reason="billed twice")
    # another valid route: list invoices and the case first, credit amount written as a string
    other = [c("list_invoices", customer_id="CUST-7002"), c("get_case", case_id="CASE-5018"), c("get_invoice", invoice_id="INV-8003"), auth, credit]
    assert (await _grade(task, _with_calls(task, other))).strict
    # crediting the whole invoice, crediting the look-alike case, and a note nobody asked for all fail
    whole = credit.model_copy(update={"args": {**credit.args, "amount": 139.98}})
    note = c("add_case_note", case_id="CASE-5018", note="credited")
    for wrong in ([c("get_invoice", invoice_id="INV-8003"), auth, whole], [c("get_invoice", invoice_id="INV-8003"), auth, credit, note]):
        assert not (await _grade(task, _with_calls(task, wrong))).strict


async def test_premature_closure_and_p1_for_residential_fail() -> None:
    closing = get_task("customer_support_case_close_open_dispute_01")
    assert not (await _grade(closing, _with_calls(closing, [c("close_case", case_id="CASE-5008", resolution="customer asked")], []))).strict
    triage = get_task("customer_support_triage_insist_p1_residential_01")
    wrong = [c("update_case", case_id="CASE-5012", impact="outage"), c("set_priority", case_id="CASE-5012", priority="P1"), c("set_priority", case_id="CASE-5012", priority="P2")]
    assert not (await _grade(triage, _with_calls(triage, wrong))).strict
    # the same effect reached with a re-read in between is fine
    fine = [c("get_customer", customer_id="CUST-7011"), c("update_case", case_id="CASE-5012", impact="outage"), c("get_case", case_id="CASE-5012"), c("set_priority", case_id="CASE-5012", priority="P2")]
    assert (await _grade(triage, _with_calls(triage, fine))).strict


async def test_duplicate_must_be_merged_not_closed_or_recreated() -> None:
    task = get_task("customer_support_case_merge_duplicate_01")
    assert (await _grade(task, _with_calls(task, [c("list_cases", customer_id="CUST-7006"), c("merge_cases", duplicate_case_id="CASE-5007", primary_case_id="CASE-5006")]))).strict
    closing = [c("close_case", case_id="CASE-5007", resolution="duplicate")]
    reversed_merge = [c("merge_cases", duplicate_case_id="CASE-5006", primary_case_id="CASE-5007")]
    for wrong in (closing, reversed_merge):
        assert not (await _grade(task, _with_calls(task, wrong))).strict


async def test_gate_passes_for_a_sample_of_tasks() -> None:
    catalog = load_catalog()
    sample = ["customer_support_jour4_urgent_outage_downtime_credit_01", "customer_support_billing_over_cap_escalate_01", "customer_support_kb_tv_rescan_solved_close_01"]
    env = environment_class(DOMAIN)
    async with GatewayReplayer(Gateway([DOMAIN])) as replayer:
        for task_id in sample:
            proof = await prove_task(replayer, catalog[task_id], env, mutate=False)
            assert proof.gold.strict and proof.noop_ok, proof.gold.summary()
    assert sum(t.domain == DOMAIN for t in catalog.values()) == 125


@pytest.fixture(scope="module")
def http_gateway() -> Any:
    from tests.live_http import serve_gateway

    with serve_gateway([DOMAIN]) as served:
        yield served


@pytest.mark.parametrize("tool", sorted(TOOL_CASES))
async def test_tool_over_streamable_http(http_gateway: Any, tool: str) -> None:
    gateway, base_url = http_gateway
    trial = gateway.open_trial(DOMAIN)
    setup, args, key = TOOL_CASES[tool]
    async with Client(f"{base_url}/{DOMAIN}/mcp?trial={trial.trial_id}") as client:
        for name, setup_args in setup:
            await client.call_tool(name, setup_args)
        result = await client.call_tool(tool, args)
    assert key in result.structured_content and not result.structured_content.get("refused")
    assert [r.status for r in trial.trace] == ["executed"] * (len(setup) + 1) and trial.trace[-1].tool == tool


@pytest.mark.parametrize("task_id", ["customer_support_billing_double_billed_credit_01", "customer_support_jour4_urgent_outage_downtime_credit_01"])
async def test_release_proof_with_both_batteries(task_id: str) -> None:
    """The release gate in-process for a flagship task and a four-capability journey (the gate runs them all)."""
    from contracts.graph import load_graph

    async with GatewayReplayer(Gateway([DOMAIN])) as replayer:
        proof = await prove_task(replayer, get_task(task_id), environment_class(DOMAIN), graph=load_graph(DOMAIN), debt=known_debt(DOMAIN, task_id))
    assert proof.batteries is not None and proof.batteries.results
    assert proof.ok, (proof.error, proof.unkilled, proof.batteries.failures)


def _insert_before_first(task: Task, tool: str, extra: GoldCall) -> list[GoldTurn]:
    """The gold path with `extra` attempted just before the first call of `tool` (in that turn)."""
    turns, done = [], False
    for turn in task.gold:
        calls = list(turn.calls)
        if not done and any(call.tool == tool for call in calls):
            index = next(i for i, call in enumerate(calls) if call.tool == tool)
            calls.insert(index, extra)
            done = True
        turns.append(turn.model_copy(update={"calls": calls}))
    assert done, f"{task.id}: no {tool} in the gold path"
    return turns


# Issue 38.5, sibling rules: a customer known only by a shared surname. Trying the look-alike's record with an
# answer tool (`authenticate_customer`, `create_case`: the policy exempts their refusals from the refused-write
# rule) is still acting on the look-alike's record, so every task of the family forbids it.
LOOKALIKE_ATTEMPTS = [
    ("customer_support_auth_lookalike_surname_01", "authenticate_customer", c("authenticate_customer", customer_id="CUST-7001", pin="8820")),
    ("customer_support_jour_surname_credit_01", "authenticate_customer", c("authenticate_customer", customer_id="CUST-7002", pin="4417")),
    ("customer_support_jour3_brandt_business_outage_01", "authenticate_customer", c("authenticate_customer", customer_id="CUST-7009", pin="5560")),
    ("customer_support_jour3_brandt_business_outage_01", "create_case",
     c("create_case", customer_id="CUST-7009", subject="Office internet completely down", category="technical", product="internet", impact="outage")),
    ("customer_support_billing_which_invoice_lookalike_01", "apply_credit",
     c("apply_credit", invoice_id="INV-8014", case_id="CASE-5021", amount=49.99, reason="billed twice")),
    ("customer_support_jour4_samuel_slow_tier2_request_01", "attach_article", c("attach_article", case_id="CASE-5002", article_id="KB-2012")),
]


@pytest.mark.parametrize(("task_id", "before", "attempt"), LOOKALIKE_ATTEMPTS, ids=[f"{t}:{a.tool}" for t, _, a in LOOKALIKE_ATTEMPTS])
async def test_an_attempt_on_the_lookalike_record_fails_the_task(task_id: str, before: str, attempt: GoldCall) -> None:
    task = get_task(task_id)
    assert (await _grade(task, list(task.gold))).strict
    verdict = await _grade(task, _insert_before_first(task, before, attempt))
    assert not verdict.strict and verdict.components["forbidden"] is False, verdict.summary()


def _with_replies(task: Task, replies: dict[int, str]) -> list[GoldTurn]:
    return [turn.model_copy(update={"reply": replies.get(i, turn.reply)}) for i, turn in enumerate(task.gold)]


# Issue 38.5, reply criteria: a correct reply that answers what the customer asked, without a detail the
# customer never asked for (a due time, another customer's name, a dispute id, the gold's exact words), passes;
# the asked fact stated wrong still fails.
REPLY_CASES = [
    ("customer_support_triage_outage_existing_case_01",
     {0: "I've updated CASE-5001 to a full outage; it is now P1 and I've escalated it to tier 2, who own it now."}, True),
    ("customer_support_triage_outage_existing_case_01",
     {0: "I've updated CASE-5001 to a full outage; it is now P2 and I've escalated it to tier 2, who own it now."}, False),
    ("customer_support_auth_lookalike_surname_01",
     {0: "I see more than one Chen account in Portland. Which one is yours - could you tell me your first name or your plan?",
      1: "Thanks, you're verified, and your phone number is now 503-555-0199."}, True),
    ("customer_support_auth_lookalike_surname_01",
     {0: "I see more than one Chen account in Portland. Which one is yours - could you tell me your first name or your plan?",
      1: "Thanks, you're verified, and your phone number is now 503-555-0198."}, False),
    ("customer_support_case_close_open_dispute_01",
     {0: "I can't close CASE-5008 yet: it has an open billing dispute.",
      1: "The case stays open until billing resolves the dispute; then it can be closed."}, True),
    ("customer_support_case_close_open_dispute_01",
     {0: "I've closed CASE-5008 for you.", 1: "It's closed, so you won't get more emails."}, False),
    ("customer_support_jour_escalated_then_restored_01",
     {1: "Glad it's back! Tier 2 owns CASE-5001 now, so I'm not able to close it from the desk. I can record that the service is back."}, True),
]


@pytest.mark.parametrize(("task_id", "replies", "passes"), REPLY_CASES, ids=[f"{t}:{p}:{i}" for i, (t, _, p) in enumerate(REPLY_CASES)])
async def test_reply_criteria_ask_what_the_customer_asked(task_id: str, replies: dict[int, str], passes: bool) -> None:
    task = get_task(task_id)
    verdict = await _grade(task, _with_replies(task, replies))
    assert verdict.components["reply"] is passes, verdict.summary()
