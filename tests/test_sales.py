"""The sales domain: every tool over the in-memory gateway, every policy gate, probes, trajectories."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from contracts.catalog import get_task
from contracts.schema import GoldCall, GoldTurn
from grader.grade import grade_offline
from harness.release.replay import GatewayReplayer
from servers.domains.sales.tools import SalesEnvironment
from servers.gateway import Gateway
from servers.recorder import TRIAL_META_KEY
from servers.registry import environment_class

pytestmark = pytest.mark.anyio
DOMAIN = "sales"

TOOL_CASES: dict[str, tuple[dict[str, Any], str]] = {
    "get_lead": ({"lead_id": "LEAD-1001"}, "owner_rep_id"),
    "search_leads": ({"owner_rep_id": "REP-01", "status": "new"}, "leads"),
    "score_lead": ({"lead_id": "LEAD-1007"}, "meets_threshold"),
    "get_contact": ({"contact_id": "CON-3003"}, "opted_out"),
    "list_sequences": ({}, "sequences"),
    "get_opportunity": ({"opportunity_id": "OPP-4004"}, "next_stage"),
    "list_opportunities": ({"owner_rep_id": "REP-01"}, "opportunities"),
    "qualify_lead": ({"lead_id": "LEAD-1001"}, "status"),
    "disqualify_lead": ({"lead_id": "LEAD-1006", "reason": "no_need"}, "reason"),
    "enroll_in_sequence": ({"contact_id": "CON-3001", "sequence_id": "SEQ-01"}, "enrollment_id"),
    "send_email": ({"contact_id": "CON-3005", "subject": "Hi", "body": "Hello"}, "email_id"),
    "log_activity": ({"contact_id": "CON-3003", "kind": "call", "summary": "Spoke"}, "activity_id"),
    "convert_lead": ({"lead_id": "LEAD-1005", "opportunity_name": "Deal", "amount": "36000"}, "opportunity_id"),
    "update_opportunity_stage": ({"opportunity_id": "OPP-4001", "stage": "proposal"}, "previous_stage"),
}


async def _run(calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[Any], Any]:
    gateway = Gateway([DOMAIN])
    trial = gateway.open_trial(DOMAIN)
    results = []
    async with Client(gateway.server(DOMAIN)) as client:
        for tool, args in calls:
            results.append(await client.call_tool(tool, args, raise_on_error=False, meta={TRIAL_META_KEY: trial.trial_id}))
    return results, trial


def test_registered_and_every_tool_has_a_case() -> None:
    assert environment_class(DOMAIN) is SalesEnvironment
    assert set(TOOL_CASES) == set(SalesEnvironment.tool_methods())


def test_seeded_world_has_look_alikes() -> None:
    s = SalesEnvironment.default_state()
    assert len(s.leads) >= 9 and len(s.contacts) >= 9 and len(s.opportunities) >= 5
    assert sum(c.opted_out for c in s.contacts.values()) == 2
    assert {c.name.split()[-1] for c in s.contacts.values() if c.account_id in ("ACCT-2001", "ACCT-2005")} == {"Chen"}
    assert len({lead.owner_rep_id for lead in s.leads.values()}) >= 2
    assert all(lead.score == lead.factors.fit + lead.factors.engagement + lead.factors.intent for lead in s.leads.values())


@pytest.mark.parametrize("tool", sorted(TOOL_CASES))
async def test_tool_in_memory(tool: str) -> None:
    args, key = TOOL_CASES[tool]
    [result], trial = await _run([(tool, args)])
    assert not result.is_error, result
    assert key in result.structured_content and not result.structured_content.get("refused"), result.structured_content
    changed = trial.final_state() != trial.initial_state
    assert changed == (SalesEnvironment.tool_kind(tool) == "write")
    if changed:
        assert [e["action"] for e in trial.final_state()["audit_log"]] == [tool]


async def test_tools_do_what_they_say() -> None:
    results, trial = await _run(
        [
            ("score_lead", {"lead_id": "LEAD-1002"}),
            ("convert_lead", {"lead_id": "LEAD-1009", "opportunity_name": "Summit", "amount": 27500.0}),
            ("update_opportunity_stage", {"opportunity_id": "OPP-4004", "stage": "closed_lost"}),
            ("get_contact", {"contact_id": "CON-3005"}),
        ]
    )
    score, converted, lost, contact = (r.structured_content for r in results)
    assert score == {"lead_id": "LEAD-1002", "score": 45, "factors": {"fit": 20, "engagement": 15, "intent": 10}, "grade": "C", "threshold": 60, "meets_threshold": False}
    state = trial.final_state()
    opp = state["opportunities"][converted["opportunity_id"]]
    assert opp["stage"] == "qualification" and opp["amount"] == 27500.0 and opp["account_id"] == "ACCT-2007" and opp["owner_rep_id"] == "REP-01"
    assert state["leads"]["LEAD-1009"] == {**state["leads"]["LEAD-1009"], "status": "converted", "opportunity_id": converted["opportunity_id"]}
    assert lost["previous_stage"] == "prospecting" and state["opportunities"]["OPP-4004"]["stage"] == "closed_lost"
    assert contact["enrolled_sequences"] == ["SEQ-02"]


GATES: list[tuple[list[tuple[str, dict[str, Any]]], tuple[str, dict[str, Any]], int, str]] = [
    ([], ("enroll_in_sequence", {"contact_id": "CON-3003", "sequence_id": "SEQ-01"}), 403, "Contact has opted out of marketing and sales email; cannot enrol them in a sequence"),
    ([], ("send_email", {"contact_id": "CON-3006", "subject": "s", "body": "b"}), 403, "Contact has opted out of marketing and sales email; cannot email them"),
    ([], ("convert_lead", {"lead_id": "LEAD-1004", "opportunity_name": "x", "amount": 1000}), 403, "Lead is owned by another rep; only its owner can convert it"),
    ([], ("qualify_lead", {"lead_id": "LEAD-1004"}), 403, "Lead is owned by another rep; only its owner can qualify it"),
    ([], ("disqualify_lead", {"lead_id": "LEAD-1004", "reason": "no_need"}), 403, "Lead is owned by another rep; only its owner can disqualify it"),
    ([], ("qualify_lead", {"lead_id": "LEAD-1002"}), 422, "Lead score is below the qualification threshold"),
    ([], ("qualify_lead", {"lead_id": "LEAD-1005"}), 409, "Lead is already qualified"),
    ([], ("convert_lead", {"lead_id": "LEAD-1001", "opportunity_name": "x", "amount": 1000}), 409, "Only qualified leads can be converted; this lead is working"),
    ([], ("convert_lead", {"lead_id": "LEAD-1005", "opportunity_name": "x", "amount": 0}), 422, "Amount must be positive and at most 10,000,000"),
    ([], ("enroll_in_sequence", {"contact_id": "CON-3005", "sequence_id": "SEQ-02"}), 409, "Contact is already enrolled in this sequence"),
    ([], ("update_opportunity_stage", {"opportunity_id": "OPP-4004", "stage": "negotiation"}), 422, "Stage changes follow the pipeline order, one stage at a time"),
    ([], ("update_opportunity_stage", {"opportunity_id": "OPP-4002", "stage": "qualification"}), 422, "Stage changes follow the pipeline order, one stage at a time"),
    ([], ("update_opportunity_stage", {"opportunity_id": "OPP-4001", "stage": "closed_won"}), 422, "Stage changes follow the pipeline order, one stage at a time"),
    ([], ("update_opportunity_stage", {"opportunity_id": "OPP-4001", "stage": "qualification"}), 409, "Opportunity is already in qualification"),
    ([], ("update_opportunity_stage", {"opportunity_id": "OPP-4005", "stage": "closed_lost"}), 409, "Opportunity is closed_won; closed stages are final"),
    ([], ("update_opportunity_stage", {"opportunity_id": "OPP-4003", "stage": "closed_won"}), 403, "Opportunity is owned by another rep; only its owner can change it"),
    ([("convert_lead", {"lead_id": "LEAD-1005", "opportunity_name": "x", "amount": 10})], ("convert_lead", {"lead_id": "LEAD-1005", "opportunity_name": "x", "amount": 10}), 409, "Only qualified leads can be converted; this lead is converted"),
]


@pytest.mark.parametrize(("setup", "gated", "code", "reason"), GATES, ids=[f"{g[1][0]}-{g[2]}-{i}" for i, g in enumerate(GATES)])
async def test_gates_refuse_and_change_nothing(setup: list[tuple[str, dict[str, Any]]], gated: tuple[str, dict[str, Any]], code: int, reason: str) -> None:
    gateway = Gateway([DOMAIN])
    trial = gateway.open_trial(DOMAIN)
    async with Client(gateway.server(DOMAIN)) as client:
        for tool, args in setup:
            assert not (await client.call_tool(tool, args, meta={TRIAL_META_KEY: trial.trial_id})).structured_content.get("refused")
        before = trial.final_state()
        result = await client.call_tool(gated[0], gated[1], raise_on_error=False, meta={TRIAL_META_KEY: trial.trial_id})
    content = result.structured_content
    assert not result.is_error and content["refused"] is True
    assert (content["status"], content["reason"]) == (code, reason)
    assert trial.final_state() == before


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("get_lead", {"lead_id": "LEAD-0000"}),
        ("get_contact", {"contact_id": "CON-0000"}),
        ("get_opportunity", {"opportunity_id": "OPP-0000"}),
        ("enroll_in_sequence", {"contact_id": "CON-3001", "sequence_id": "SEQ-99"}),
        ("qualify_lead", {"lead_id": "LEAD-0000"}),
        ("convert_lead", {"lead_id": "LEAD-1005", "opportunity_name": "x", "amount": 1e12}),
        ("convert_lead", {"lead_id": "LEAD-1005", "opportunity_name": "x", "amount": 10.005}),
    ],
)
async def test_unknown_ids_and_bad_amounts_are_invalid_calls(tool: str, args: dict[str, Any]) -> None:
    [result], trial = await _run([(tool, args)])
    assert result.is_error
    assert trial.final_state() == trial.initial_state


async def test_mutation_probes_all_execute_and_change_the_world() -> None:
    probes = SalesEnvironment.mutation_probes()
    assert {name.split()[0] for name, _ in probes} == {"qualify", "disqualify", "convert", "log", "email", "enrol", "advance", "lose"}
    for name, calls in probes:
        results, trial = await _run([(c.tool, c.args) for c in calls])
        assert all(not r.is_error and not r.structured_content.get("refused") for r in results), name
        assert trial.final_state() != trial.initial_state, name


# ---- contracts: correct-but-different routes pass, plausible mistakes fail ---------------------------


async def _verdict(task_id: str, edit: Any) -> Any:
    task = get_task(task_id)
    turns = [GoldTurn(user=t.user, calls=[GoldCall(tool=c.tool, args=dict(c.args)) for c in t.calls], reply=t.reply) for t in task.gold]
    edit(turns)
    async with GatewayReplayer(Gateway([DOMAIN])) as replayer:
        evidence = await replayer.play(task, turns, seed=0)
    return grade_offline(task, evidence)


def _calls(turn: GoldTurn, *calls: tuple[str, dict[str, Any]]) -> None:
    turn.calls[:] = [GoldCall(tool=t, args=a) for t, a in calls]


STEP = {"opportunity_id": "OPP-4004"}


async def test_stage_walk_by_another_valid_route_passes() -> None:
    def other(turns: list[GoldTurn]) -> None:
        _calls(turns[0], ("list_opportunities", {"owner_rep_id": "REP-01"}))
        _calls(
            turns[1],
            ("update_opportunity_stage", {**STEP, "stage": "qualification"}),
            ("get_opportunity", {"opportunity_id": "OPP-4004"}),
            ("update_opportunity_stage", {**STEP, "stage": "proposal"}),
            ("update_opportunity_stage", {**STEP, "stage": "negotiation"}),
            ("get_opportunity", {"opportunity_id": "OPP-4004"}),
        )

    assert (await _verdict("sales_stage_skip_01", other)).strict


@pytest.mark.parametrize(
    "second_turn",
    [
        [("update_opportunity_stage", {**STEP, "stage": "qualification"})],  # stopped early
        [("update_opportunity_stage", {**STEP, "stage": "closed_lost"})],  # the wrong move
        [("update_opportunity_stage", {"opportunity_id": "OPP-4001", "stage": "proposal"})],  # look-alike deal
    ],
)
async def test_stage_walk_mistakes_fail(second_turn: list[tuple[str, dict[str, Any]]]) -> None:
    assert not (await _verdict("sales_stage_skip_01", lambda turns: _calls(turns[1], *second_turn))).strict


async def test_opt_out_task_fails_on_an_attempt_and_on_a_stray_write() -> None:
    task = "sales_enroll_opted_out_01"
    tried = await _verdict(task, lambda turns: turns[0].calls.append(GoldCall(tool="enroll_in_sequence", args={"contact_id": "CON-3003", "sequence_id": "SEQ-01"})))
    assert not tried.strict  # refused by the world, but the policy says never attempt it
    stray = await _verdict(task, lambda turns: turns[1].calls.append(GoldCall(tool="log_activity", args={"contact_id": "CON-3003", "kind": "note", "summary": "x"})))
    assert not stray.strict
    assert (await _verdict(task, lambda turns: turns[1].calls.insert(0, GoldCall(tool="list_sequences", args={})))).strict


async def test_converting_another_reps_lead_by_impersonation_is_impossible() -> None:
    """The acting rep is the session's (world state), so no argument can impersonate the owner; the
    refused attempt changes nothing and the task's state checks still fail a conversion of LEAD-1004."""
    results, trial = await _run([
        ("convert_lead", {"lead_id": "LEAD-1004", "rep_id": "REP-02", "opportunity_name": "Cedar", "amount": 90000}),
        ("convert_lead", {"lead_id": "LEAD-1004", "opportunity_name": "Cedar", "amount": 90000}),
    ])
    assert results[0].is_error  # rep_id is no argument of the tool
    assert results[1].structured_content == {"refused": True, "status": 403, "reason": "Lead is owned by another rep; only its owner can convert it", "lead_id": "LEAD-1004"}
    assert trial.final_state() == trial.initial_state


@pytest.fixture(scope="module")
def http_gateway() -> Any:
    from tests.live_http import serve_gateway

    with serve_gateway([DOMAIN]) as served:
        yield served


@pytest.mark.parametrize("tool", sorted(TOOL_CASES))
async def test_tool_over_streamable_http(http_gateway: Any, tool: str) -> None:
    from tests.live_http import assert_tool_executes_over_http

    await assert_tool_executes_over_http(http_gateway, DOMAIN, tool, *TOOL_CASES[tool])


@pytest.mark.parametrize("task_id", ["sales_stage_skip_01", "sales_sdr_journey_01"])
async def test_release_proof_with_both_batteries(task_id: str) -> None:
    """The release gate in-process for a flagship task and a journey (the whole domain runs in the gate)."""
    from tests.live_http import assert_release_proof

    await assert_release_proof(DOMAIN, task_id)


def _reply(index: int, text: str) -> Any:
    def edit(turns: list[GoldTurn]) -> None:
        turns[index] = turns[index].model_copy(update={"reply": text})
    return edit


# Issue 38.5: a look-alike is confirmed by what the rep knows it by (they never knew the id), and a conversion
# whose id the rep asked for needs no restated amount; an attempt on the look-alike record fails.
@pytest.mark.parametrize(("task_id", "index", "text", "passes"), [
    ("sales_disqualify_lookalike_01", 1, "Done: Mark Chen's Northwind Foods lead is disqualified, reason competitor.", True),
    ("sales_disqualify_lookalike_01", 1, "Mark Chen's Northwind Foods lead is not disqualified yet.", False),
    ("sales_stage_lookalike_01", 1, "Done: the Northwind Foods POS upgrade moved to negotiation.", True),
    ("sales_convert_lead_01", 0, "Done: LEAD-1005 is converted into opportunity ${convert_lead.opportunity_id}.", True),
    ("sales_convert_lead_01", 0, "Done: LEAD-1005 is converted.", False),
])
async def test_reply_criteria_ask_what_the_rep_asked(task_id: str, index: int, text: str, passes: bool) -> None:
    verdict = await _verdict(task_id, _reply(index, text))
    assert verdict.components["reply"] is passes, verdict.summary()


@pytest.mark.parametrize(("task_id", "turn", "call"), [
    ("sales_disqualify_lookalike_01", 1, GoldCall(tool="disqualify_lead", args={"lead_id": "LEAD-1001", "reason": "competitor"})),
    ("sales_stage_lookalike_01", 1, GoldCall(tool="update_opportunity_stage", args={"opportunity_id": "OPP-4001", "stage": "proposal"})),
    ("sales_qualify_and_convert_01", 0, GoldCall(tool="update_opportunity_stage", args={"opportunity_id": "OPP-4001", "stage": "proposal"})),
])
async def test_a_write_on_the_lookalike_record_is_forbidden(task_id: str, turn: int, call: GoldCall) -> None:
    verdict = await _verdict(task_id, lambda turns: turns[turn].calls.insert(0, call))
    assert not verdict.strict and verdict.components["forbidden"] is False, verdict.summary()
